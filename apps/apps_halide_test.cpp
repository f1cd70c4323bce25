// The Halide 14 peer of every app, under each schedule, at the test size, against the same C++
// reference as Loom: proves that the benchmark compares Loom with a Halide pipeline that
// computes the same thing. StrictFloat keeps Halide from contracting a * b + c, as Loom never
// does, so float results match bit for bit where the app has no transcendental functions.
#include "apps/common/HalideRunner.h"

#include <gtest/gtest.h>

#include <cstring>

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

class HalidePeerTest : public ::testing::TestWithParam<Case> {};

TEST_P(HalidePeerTest, MatchesTheCppReference) {
    std::unique_ptr<App> app = make_app(GetParam().app);
    app->prepare(Size::Test);
    for (auto &out : app->outputs) {
        std::memset(out.raw_data(), 0xA5, out.number_of_elements() * out.type().bytes());
    }
    Runner runner = compile_halide(*app, GetParam().variant,
                                   halide_peer_target().with_feature(Halide::Target::StrictFloat));
    runner.run();
    EXPECT_EQ(app->check(), "");
}

INSTANTIATE_TEST_SUITE_P(Apps, HalidePeerTest, ::testing::ValuesIn(all_cases()),
                         [](const ::testing::TestParamInfo<Case> &info) {
                             return info.param.app + "_" + variant_name(info.param.variant);
                         });

}  // namespace
}  // namespace loom_apps
