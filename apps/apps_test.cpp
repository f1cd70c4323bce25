// Every app, under each of its schedules (and auto-scheduled by Loom's heuristic scheduler), at the
// test size, against its plain C++ reference.
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

INSTANTIATE_TEST_SUITE_P(Apps, AppTest, ::testing::ValuesIn(all_app_cases(/*automatic=*/true)),
                         [](const ::testing::TestParamInfo<AppCase> &info) {
                             return app_case_name(info.param);
                         });

// The apps' GPU schedules: compiled (to PTX) on any machine; run and checked where an NVIDIA
// driver is, else skipped with the reason.
class AppGPUTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AppGPUTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam());
    app->prepare(Size::Test);
    Runner runner = app->compile_loom(Variant::GPU);
    char why[512] = {0};
    if (!loom_cuda_available(why, sizeof(why))) GTEST_SKIP() << "compiled; no CUDA device to run it: " << why;
    runner.run();
    runner.sync();
    EXPECT_EQ(app->check(), "");
}

std::vector<std::string> apps_with_gpu_schedules() {
    std::vector<std::string> names;
    for (const auto &[name, factory] : all_apps()) {
        if (factory()->has_gpu_schedule()) names.push_back(name);
    }
    return names;
}

INSTANTIATE_TEST_SUITE_P(Apps, AppGPUTest, ::testing::ValuesIn(apps_with_gpu_schedules()),
                         [](const ::testing::TestParamInfo<std::string> &info) { return info.param; });

// Every app auto-scheduled for a CUDA target by the heuristic: compiled (to PTX) everywhere;
// run and checked against the C++ reference where a driver is.
class AppGPUAutoTest : public ::testing::TestWithParam<std::string> {};

TEST_P(AppGPUAutoTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam());
    app->prepare(Size::Test);
    Runner runner = app->compile_loom(Variant::GPUAuto);
    EXPECT_NE(runner.schedule_source.find("with a CUDA GPU"), std::string::npos)
        << runner.schedule_source;
    char why[512] = {0};
    if (!loom_cuda_available(why, sizeof(why)))
        GTEST_SKIP() << "compiled; no CUDA device to run it: " << why;
    runner.run();
    runner.sync();
    EXPECT_EQ(app->check(), "") << runner.schedule_source;
}

std::vector<std::string> every_app() {
    std::vector<std::string> names;
    for (const auto &[name, factory] : all_apps())
        names.push_back(name);
    return names;
}

INSTANTIATE_TEST_SUITE_P(Apps, AppGPUAutoTest, ::testing::ValuesIn(every_app()),
                         [](const ::testing::TestParamInfo<std::string> &info) {
                             return info.param;
                         });

} // namespace
} // namespace loom_apps
