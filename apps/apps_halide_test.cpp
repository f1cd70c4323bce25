// The Halide 14 peer of every app, under each schedule, at the test size, against the same C++
// reference as Loom: proves that the benchmark compares Loom with a Halide pipeline that
// computes the same thing. StrictFloat keeps Halide from contracting a * b + c, as Loom never
// does, so float results match bit for bit where the app has no transcendental functions.
// Apps whose sums are fused multiply-adds (App::fuses_multiply_adds) run without it: there
// Halide's contraction is what computes the same bits as Loom's fma.
#include "apps/common/HalideRunner.h"

#include "apps/common/AppCases.h"

#include <gtest/gtest.h>

namespace loom_apps {
namespace {

class HalidePeerTest : public ::testing::TestWithParam<AppCase> {};

TEST_P(HalidePeerTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam().app);
    app->prepare(Size::Test);
    scribble_outputs(*app);
    const Halide::Target target =
        app->fuses_multiply_adds() ? halide_peer_target()
                                   : halide_peer_target().with_feature(Halide::Target::StrictFloat);
    Runner runner = compile_halide(*app, GetParam().variant, target);
    runner.run();
    EXPECT_EQ(app->check(), "");
}

INSTANTIATE_TEST_SUITE_P(Apps, HalidePeerTest, ::testing::ValuesIn(all_app_cases()),
                         [](const ::testing::TestParamInfo<AppCase> &info) {
                             return app_case_name(info.param);
                         });

} // namespace
} // namespace loom_apps
