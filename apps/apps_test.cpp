// Every app, under each of its schedules, at the test size, against its plain C++ reference.
#include <gtest/gtest.h>

#include "apps/common/AppCases.h"

namespace loom_apps {
namespace {

class AppTest : public ::testing::TestWithParam<AppCase> {};

TEST_P(AppTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam().app);
    app->prepare(Size::Test);
    Runner runner = app->compile_loom(GetParam().variant);
    runner.run();
    EXPECT_EQ(app->check(), "");
    // A second run, into outputs overwritten with garbage, must write every element again and
    // give the same result (no state left behind by the first run).
    scribble_outputs(*app);
    runner.run();
    EXPECT_EQ(app->check(), "");
}

INSTANTIATE_TEST_SUITE_P(Apps, AppTest, ::testing::ValuesIn(all_app_cases()),
                         [](const ::testing::TestParamInfo<AppCase> &info) {
                             return app_case_name(info.param);
                         });

} // namespace
} // namespace loom_apps
