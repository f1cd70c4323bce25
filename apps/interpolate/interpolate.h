// interpolate: interpolate mask of an RGB photograph (see interpolate.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_interpolate_app();
/** The Halide 14 peer (interpolate_halide.cpp; built where Halide is). */
Runner interpolate_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
