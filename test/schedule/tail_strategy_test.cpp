// TailStrategy::Auto resolved as Halide 14 resolves it (Stage::split in its Func.cpp), one test
// per row of the table in dsl/Stage.cpp, and realize(sizes) running a bounds query first so that
// a schedule writing past the requested region returns the requested region; what rounded and
// shifted tails ask of their inputs.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::HasSubstr;

// The tail strategy of split number k (in the order made) of stage `stage` of f.
TailStrategy tail_of(const Func &f, int stage, size_t k) {
    const Internal::FunctionContents &c = *f.function();
    const Internal::Definition &d = stage == 0 ? c.init : c.updates.at(stage - 1);
    EXPECT_LT(k, d.schedule.splits.size());
    return k < d.schedule.splits.size() ? d.schedule.splits[k].tail : TailStrategy::Auto;
}

TEST(AutoTail, PureDefinitionShiftsInwards) {
    Var x("x"), xo("xo"), xi("xi");
    Func f("f");
    f(x) = x;
    f.split(x, xo, xi, 8);
    EXPECT_EQ(tail_of(f, 0, 0), TailStrategy::ShiftInwards);
}

TEST(AutoTail, PureLoopInsideShiftedBlocksOfAtLeastItsFactorRoundsUp) {
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    f.vectorize(x, 8).unroll(x, 4); // the unroll splits x's outer loop, blocks of 8 >= 4
    EXPECT_EQ(tail_of(f, 0, 0), TailStrategy::ShiftInwards);
    EXPECT_EQ(tail_of(f, 0, 1), TailStrategy::RoundUp);
    g(x, y) = x + y;
    g.vectorize(x, 4).unroll(x, 8); // blocks of 4 < 8: shifted again
    EXPECT_EQ(tail_of(g, 0, 1), TailStrategy::ShiftInwards);
}

TEST(AutoTail, UpdatePureLoopRoundsUp) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x;
    f(x, y) += y;
    f.update().split(x, xo, xi, 8).parallel(y, 4);
    EXPECT_EQ(tail_of(f, 1, 0), TailStrategy::RoundUp);
    EXPECT_EQ(tail_of(f, 1, 1), TailStrategy::RoundUp);
}

TEST(AutoTail, UpdateLoopInsideAnInnerLoopIsGuarded) {
    Var x("x"), xo("xo"), xi("xi"), xio("xio"), xii("xii");
    Func f("f");
    f(x) = x;
    f(x) += 1;
    f.update().split(x, xo, xi, 8).split(xi, xio, xii, 2);
    EXPECT_EQ(tail_of(f, 1, 0), TailStrategy::RoundUp);
    EXPECT_EQ(tail_of(f, 1, 1), TailStrategy::GuardWithIf);
    // Rounding up there is refused, naming the loop and the stage.
    Func g("g");
    g(x) = x;
    g(x) += 1;
    g.update().split(x, xo, xi, 8);
    try {
        g.update().split(xi, xio, xii, 2, TailStrategy::RoundUp);
        FAIL() << "RoundUp inside an update's inner loop was accepted";
    } catch (const CompileError &e) {
        EXPECT_THAT(e.what(), HasSubstr("xi"));
        EXPECT_THAT(e.what(), HasSubstr("g"));
        EXPECT_THAT(e.what(), HasSubstr("GuardWithIf"));
    }
}

TEST(AutoTail, RVarIsGuarded) {
    Var x("x");
    RDom r(0, 10, "r");
    RVar ro("ro"), ri("ri");
    Func f("f");
    f(x) = 0;
    f(x) += r.x;
    f.update().split(r.x, ro, ri, 4);
    EXPECT_EQ(tail_of(f, 1, 0), TailStrategy::GuardWithIf);
}

TEST(AutoTail, SameForAnIntermediate) {
    Var x("x"), xo("xo"), xi("xi");
    Func f("f"), out("out");
    f(x) = x;
    f(x) += 1;
    out(x) = f(x) * 2;
    f.compute_root().split(x, xo, xi, 8);
    f.update().split(x, xo, xi, 8);
    EXPECT_EQ(tail_of(f, 0, 0), TailStrategy::ShiftInwards);
    EXPECT_EQ(tail_of(f, 1, 0), TailStrategy::RoundUp);
    Buffer<int> result = out.realize({13});
    for (int i = 0; i < 13; i++) EXPECT_EQ(result(i), (i + 1) * 2) << "at " << i;
}

// An update's pure loop rounded up (Auto) writes past the requested 13: realize runs it over
// 16 and returns 13 values at [0, 13); a buffer the caller gives must hold the 16.
TEST(RealizeBoundsQuery, UpdateRoundedUpReturnsTheRequestedRegion) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + 10 * y;
    f(x, y) += 1;
    f.update().split(x, xo, xi, 8).vectorize(xi);
    Buffer<int> out = f.realize({13, 3});
    ASSERT_EQ(out.width(), 13);
    ASSERT_EQ(out.height(), 3);
    EXPECT_EQ(out.dim(0).min(), 0);
    for (int y0 = 0; y0 < 3; y0++)
        for (int x0 = 0; x0 < 13; x0++) EXPECT_EQ(out(x0, y0), x0 + 10 * y0 + 1);
    Buffer<int> given(13, 3);
    try {
        f.realize(given);
        FAIL() << "a caller's buffer of 13 took a schedule that writes 16";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(e.what(), HasSubstr("Output buffer f covers [0, 12]"));
        EXPECT_THAT(e.what(), HasSubstr("writes [0, 15]"));
    }
    Buffer<int> whole(16, 3);
    f.realize(whole);
    EXPECT_EQ(whole(15, 2), 15 + 20 + 1);
}

// Tuple outputs and several outputs: every buffer is enlarged alike and cropped back.
TEST(RealizeBoundsQuery, TupleOutputIsCroppedPerElement) {
    Var x("x"), xo("xo"), xi("xi");
    Func f("f");
    f(x) = Tuple(x, cast<float>(x) * 0.5f);
    f.split(x, xo, xi, 8, TailStrategy::RoundUp);
    Realization r = f.realize({5});
    Buffer<int> a = r[0];
    Buffer<float> b = r[1];
    ASSERT_EQ(a.width(), 5);
    ASSERT_EQ(b.width(), 5);
    for (int i = 0; i < 5; i++) {
        EXPECT_EQ(a(i), i);
        EXPECT_EQ(b(i), float(i) * 0.5f);
    }
}

// The region of `in` that infer_input_bounds gives the pipeline of `outputs` over sizes, as
// (min, max) of dimension d.
std::pair<int, int> inferred_rows(ImageParam &in, Func out, const std::vector<int> &sizes, int d) {
    out.infer_input_bounds(sizes);
    Buffer<> b = in.get();
    return {b.dim(d).min(), b.dim(d).max()};
}

// A fused loop split with RoundUp runs past the fused extent: its last rounded iterations
// recover rows past the region's last. Those are at most as many rows as the fused loop runs
// values past its extent (3 here): bounded by the exact quotient alone, whose divisor (the
// region's width) varies from tile to tile, the input was asked for 62 rows where 8 are read
// (fuzz seed 8402 pair 1420).
TEST(RoundedTails, AFusedLoopRoundedUpReadsAtMostAFactorOfRowsPastItsRegion) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), xy("xy");
    ImageParam in(Int(32), 2, "in");
    Func f("f"), g("g");
    f(x, y) = in(x, y);
    f(x, y) += in(x, y) * 2;
    // Tile xo reads f over columns [2 xo, 4 xo + 3]: a width that grows with xo.
    g(x, y) = f(x, y) + f(x / 2, y);
    g.tile(x, y, xo, yo, xi, yi, 4, 8, TailStrategy::GuardWithIf);
    f.compute_at(g, xo);
    f.update().fuse(x, y, xy).parallel(xy, 4);
    const int width = 16, height = 16;
    auto [lo, hi] = inferred_rows(in, g, {width, height}, 1);
    EXPECT_EQ(lo, 0);
    EXPECT_LE(hi, height - 1 + 3);
    Buffer<int> input = in.get();
    input.for_each_position([&](const std::vector<int> &p) { input(p) = p[0] * 7 - p[1] * 3; });
    Buffer<int> out = g.realize({width, height});
    for (int y0 = 0; y0 < height; y0++) {
        for (int x0 = 0; x0 < width; x0++) {
            EXPECT_EQ(out(x0, y0), 3 * (x0 * 7 - y0 * 3) + 3 * ((x0 / 2) * 7 - y0 * 3))
                << "at " << x0 << ", " << y0;
        }
    }
}

// A ShiftInwards split clamps each block to end at its region's last point, writing
// min + min(block start, extent - factor): bounded over the loops around it, the region's min
// was counted twice (once outside the clamp, once inside the extent), and more so where a
// producer computed per block of it clamps its own blocks alike (fuzz seed 8401 pair 1169).
// Bounds are now taken of min(min + block start, max - factor + 1): each point read lies in
// the region the output needs.
TEST(RoundedTails, ShiftedBlocksOfProducersPerTileAskNoPointPastTheirRegions) {
    Var x("x"), xo("xo"), xi("xi"), xv("xv"), xu("xu"), xb("xb");
    ImageParam in(Int(32), 1, "in");
    Func f0("f0"), f1("f1"), f2("f2");
    f0(x) = in(x)*2;
    f1(x) = f0(x) + f0(x - 2);
    f2(x) = f1(x) + f1(x - 4);
    // f1 per block of 16 outputs, guarded at the end: its region's extent varies at the last.
    f2.split(x, x, xb, 16, TailStrategy::GuardWithIf)
        .split(x, xo, xi, 16, TailStrategy::GuardWithIf);
    f1.compute_at(f2, xi).vectorize(x, 8).unroll(x, 4);
    f1.split(x, x, xu, 7, TailStrategy::GuardWithIf);
    f0.compute_at(f1, xu).split(x, xv, xi, 8);
    const int width = 37;
    auto [lo, hi] = inferred_rows(in, f2, {width}, 0);
    EXPECT_EQ(lo, -6); // f2(0) reads f1(-4), which reads f0(-6)
    EXPECT_EQ(hi, width - 1);
    Buffer<int> input = in.get();
    input.for_each_position([&](const std::vector<int> &p) { input(p) = p[0] * p[0] - 5; });
    Buffer<int> out = f2.realize({width});
    auto f1_ref = [&](int i) { return 2 * input(i) + 2 * input(i - 2); };
    for (int i = 0; i < width; i++)
        EXPECT_EQ(out(i), f1_ref(i) + f1_ref(i - 4)) << "at " << i;
}

} // namespace
