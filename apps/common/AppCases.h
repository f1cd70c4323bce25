// Every registered app under each of its schedules: the cases of the app tests.
#pragma once

#include <string>
#include <vector>

#include "apps/common/App.h"

namespace loom_apps {

struct AppCase {
    std::string app;
    Variant variant;
};

/** With `automatic`, also each app auto-scheduled by Loom (Variant::Auto). */
inline std::vector<AppCase> all_app_cases(bool automatic = false) {
    std::vector<AppCase> cases;
    for (const auto &entry : all_apps()) {
        cases.push_back({entry.first, Variant::Hand});
        cases.push_back({entry.first, Variant::Unfused});
        if (automatic) cases.push_back({entry.first, Variant::Auto});
    }
    return cases;
}

/** The gtest name of a case: app_variant. */
inline std::string app_case_name(const AppCase &c) { return c.app + "_" + variant_name(c.variant); }

/** Overwrites every output with a byte pattern, so that a run that skips an element shows. */
void scribble_outputs(App &app);

} // namespace loom_apps
