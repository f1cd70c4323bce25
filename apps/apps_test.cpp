// Every app, under each of its schedules, at the test size, against its plain C++ reference.
#include <gtest/gtest.h>

#include <cstring>

#include "apps/common/App.h"

namespace loom_apps {
namespace {

struct Case {
    std::string app;
    Variant variant;
};

std::vector<Case> all_cases() {
    std::vector<Case> cases;
    for (const auto &[name, factory] : all_apps()) {
        cases.push_back({name, Variant::Hand});
        cases.push_back({name, Variant::Unfused});
    }
    return cases;
}

class AppTest : public ::testing::TestWithParam<Case> {};

TEST_P(AppTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam().app);
    app->prepare(Size::Test);
    Runner runner = app->compile_loom(GetParam().variant);
    runner.run();
    EXPECT_EQ(app->check(), "");
    // A second run, into outputs overwritten with garbage, must write every element again and
    // give the same result (no state left behind by the first run).
    for (auto &out : app->outputs) {
        std::memset(out.raw_data(), 0xA5, out.number_of_elements() * out.type().bytes());
    }
    runner.run();
    EXPECT_EQ(app->check(), "");
}

INSTANTIATE_TEST_SUITE_P(Apps, AppTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                             return info.param.app + "_" + variant_name(info.param.variant);
                         });

}  // namespace
}  // namespace loom_apps
