// Differential tests against Halide 14 of the loop directives: split and its tail strategies,
// fuse, reorder, tile, vectorize, unroll and parallel (see HalideScheduleDiff.h).

#include "HalideScheduleDiff.h"

namespace {

// ---------------------------------------------------------------------------------------------
// split and its tail strategies.

TEST(Split, RoundUpOnAnOutputWithAMultipleExtent) {
    // RoundUp on the output writes whole blocks: realize multiples of the factors.
    expect_same_output<uint16_t>(
        SAME_PIPELINE(
            STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
            f.split(x, xo, xi, 8, TailStrategy::RoundUp).split(y, yo, yi, 4, TailStrategy::RoundUp);
            return f;),
        {{{40, 12}, {-3, 5}}, {{64, 20}, {0, 0}}, {{8, 4}, {17, -7}}});
}

TEST(Split, RoundUpOnAProducerComputesARoundedUpRegion) {
    // g's region is rounded up to a multiple of 8 and 3, whatever the output's size.
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
                      g.compute_root()
                          .split(x, xo, xi, 8, TailStrategy::RoundUp)
                          .split(y, yo, yi, 3, TailStrategy::RoundUp);
                      return f;),
        kOddRegions);
}

TEST(Split, GuardWithIf) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
                      f.split(x, xo, xi, 8, TailStrategy::GuardWithIf)
                          .split(y, yo, yi, 5, TailStrategy::GuardWithIf);
                      g.compute_root().split(x, xo, xi, 16, TailStrategy::GuardWithIf); return f;),
        odd_regions_and({{{5, 3}, {-1, 1}}}));
}

TEST(Split, ShiftInwards) {
    // Needs extents of at least the factor; the last block shifts back over the one before.
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
                      f.split(x, xo, xi, 8, TailStrategy::ShiftInwards)
                          .split(y, yo, yi, 3, TailStrategy::ShiftInwards);
                      g.compute_root().split(x, xo, xi, 16, TailStrategy::ShiftInwards); return f;),
        kOddRegions);
}

TEST(Split, AutoIsShiftInwardsOnPureDefinitions) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
                      f.split(x, xo, xi, 8).split(y, yo, yi, 3);
                      g.compute_root().split(x, xo, xi, 5); return f;),
        kOddRegions);
}

TEST(Split, AutoRoundsUpLoopsInsideTheBlocksOfAShiftInwardsSplit) {
    // Halide's Auto: ShiftInwards, but RoundUp for a loop descending from the outer loop of a
    // ShiftInwards split (vectorize then unroll by more; a tile's outer loop split again).
    expect_same_output<uint16_t>(
        SAME_PIPELINE(
            STENCIL_ALGORITHM Var xi("xi"), yi("yi"), xio("xio"), yio("yio");
            f.vectorize(x, 4).unroll(x, 3);
            g.compute_root().tile(x, y, xi, yi, 8, 2).split(x, x, xio, 4).split(y, y, yio, 2);
            return f;),
        kOddRegions);
}

TEST(Split, SplitOfASplitWithMixedTails) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), xii("xii"), xio("xio");
                      f.split(x, xo, xi, 12, TailStrategy::GuardWithIf)
                          .split(xi, xio, xii, 4, TailStrategy::ShiftInwards);
                      return f;),
        kOddRegions);
}

TEST(Split, ByAParamFactor) {
    // A factor known only at run time.
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Param<int> factor("factor"); factor.set(6);
                      Var xo("xo"), xi("xi"); f.split(x, xo, xi, factor, TailStrategy::GuardWithIf);
                      return f;),
        kOddRegions);
}

// ---------------------------------------------------------------------------------------------
// fuse, reorder, tile.

TEST(Fuse, TwoLoopsIntoOne) {
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM Var t("t"); f.fuse(x, y, t);
                                               g.compute_root().fuse(x, y, t); return f;),
                                 kOddRegions);
}

TEST(Fuse, FusedLoopSplitAndParallel) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var t("t"), to("to"), ti("ti");
                      f.fuse(x, y, t).split(t, to, ti, 16, TailStrategy::GuardWithIf).parallel(to);
                      return f;),
        kOddRegions);
}

TEST(Fuse, TileIndicesFusedForParallelism) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), tile("tile");
                      f.tile(x, y, xo, yo, xi, yi, 8, 4).fuse(xo, yo, tile).parallel(tile);
                      return f;),
        kOddRegions);
}

TEST(Reorder, ThreeDimensions) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(Buffer<int16_t> in =
                          random_buffer<Buffer<int16_t>>({30, 20, 6}, 2, -1000, 1000, {-4, -4, 0});
                      Var x("x"), y("y"), c("c"); Func g("g"), f("f");
                      g(x, y, c) = cast<int32_t>(in(x, y, c)) * (c + 1) - in(x + 1, y, c);
                      f(x, y, c) = g(x, y, c) - g(x, y + 1, (c + 1) % 3) * 7; f.reorder(c, x, y);
                      g.compute_root().reorder(y, c, x); return f;),
        {{{21, 13, 3}, {-3, 2, 0}}, {{8, 4, 3}, {0, -4, 0}}});
}

TEST(Reorder, SplitLoopsInterleaved) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"), yo("yo"), yi("yi");
                      f.split(x, xo, xi, 4).split(y, yo, yi, 2).reorder(yi, xi, xo, yo); return f;),
        kOddRegions);
}

TEST(Tile, EightArgumentForm) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
                      f.tile(x, y, xo, yo, xi, yi, 8, 4);
                      g.compute_at(f, xo).tile(x, y, xo, yo, xi, yi, 4, 2, TailStrategy::RoundUp);
                      return f;),
        kOddRegions);
}

TEST(Tile, SixArgumentFormKeepsTheOuterNames) {
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM Var xi("xi"), yi("yi"); f.tile(
                                     x, y, xi, yi, 4, 4, TailStrategy::GuardWithIf);
                                               g.compute_at(f, x); return f;),
                                 kOddRegions);
}

TEST(Tile, WithGuardWithIfAndVectorizedInnerLoop) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
                      f.tile(x, y, xo, yo, xi, yi, 16, 4, TailStrategy::GuardWithIf)
                          .vectorize(xi)
                          .parallel(yo);
                      return f;),
        kOddRegions);
}

// ---------------------------------------------------------------------------------------------
// vectorize, unroll, parallel.

TEST(Vectorize, InnerLoopOfASplit) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi"); f.split(x, xo, xi, 8).vectorize(xi);
                      g.compute_root().split(x, xo, xi, 16).vectorize(xi); return f;),
        kOddRegions);
}

TEST(Vectorize, WithAFactor) {
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM f.vectorize(x, 16);
                                               g.compute_at(f, y).vectorize(x, 8); return f;),
                                 kOddRegions);
}

TEST(Vectorize, WithGuardWithIfTail) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM f.vectorize(x, 8, TailStrategy::GuardWithIf);
                      g.compute_root().vectorize(x, 32, TailStrategy::GuardWithIf); return f;),
        odd_regions_and({{{5, 3}, {-1, 1}}}));
}

TEST(Vectorize, IntegerDivisionModuloAndSelectOnNegativeCoordinates) {
    // Floor division and Euclidean modulo of negative numbers, vectorized and scalar (the
    // ShiftInwards tail), with select, min, max, absd and shifts.
    expect_same_output<int32_t>(
        SAME_PIPELINE(Buffer<int16_t> in =
                          random_buffer<Buffer<int16_t>>({120, 40}, 3, -3000, 3000, {-60, -20});
                      Var x("x"), y("y"); Func f("f"); Expr v = cast<int32_t>(in(x, y));
                      f(x, y) = v / 7 + v % 5 * 100 + x / 3 - (x % 4) * 1000 + y / -2 +
                                select(v > x, min(v, 100), max(v, -100)) +
                                cast<int32_t>(absd(v, x)) + (v >> 3) + (x << 2);
                      f.vectorize(x, 8).parallel(y); return f;),
        {{{37, 13}, {-19, -9}}, {{100, 30}, {-55, -15}}});
}

TEST(Vectorize, FloatMathOnExactValues) {
    expect_same_output<float>(
        SAME_PIPELINE(
            Buffer<int8_t> in = random_buffer<Buffer<int8_t>>({80, 60}, 4, -100, 100, {-8, -8});
            Var x("x"), y("y"); Func g("g"), f("f"); g(x, y) = cast<float>(in(x, y)) * 0.5f + 0.25f;
            f(x, y) =
                g(x, y) * 2.0f - g(x + 1, y) + min(g(x, y + 1), 3.0f) + floor(g(x, y) * 0.25f);
            f.vectorize(x, 8); g.compute_at(f, y).vectorize(x, 4); return f;),
        kOddRegions);
}

TEST(Vectorize, NarrowTypesWithWideVectors) {
    // uint8 arithmetic that wraps, 32 lanes.
    expect_same_output<uint8_t>(SAME_PIPELINE(STENCIL_ALGORITHM Func h("h");
                                              h(x, y) = cast<uint8_t>(f(x, y)) * 3 +
                                                        cast<uint8_t>(in(x, y) / 3) - in(x + 2, y);
                                              h.vectorize(x, 32, TailStrategy::GuardWithIf);
                                              f.compute_at(h, y).vectorize(x, 16); return h;),
                                kOddRegions);
}

TEST(Vectorize, AlongTheOuterDimension) {
    // Lanes along y: the loads and stores are strided by a row.
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM f.reorder(y, x).vectorize(y, 8, TailStrategy::GuardWithIf);
                      g.compute_at(f, x).vectorize(y, 4, TailStrategy::RoundUp); return f;),
        kOddRegions);
}

TEST(Vectorize, ProducerComputedInsideAVectorizedLoop) {
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi");
                                               f.split(x, xo, xi, 8).vectorize(xi);
                                               g.compute_at(f, xi); return f;),
                                 kOddRegions);
}

TEST(Unroll, ProducerComputedInsideAnUnrolledLoop) {
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM Var yo("yo"), yi("yi");
                                               f.split(y, yo, yi, 2).unroll(yi);
                                               g.compute_at(f, yi).vectorize(x, 8); return f;),
                                 kOddRegions);
}

TEST(Unroll, WithAFactor) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM f.unroll(x, 3);
                      g.compute_root().unroll(y, 2, TailStrategy::GuardWithIf); return f;),
        kOddRegions);
}

TEST(Unroll, InnerLoopOfATileAndAConstantExtentLoop) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(Buffer<int16_t> in =
                          random_buffer<Buffer<int16_t>>({60, 40, 3}, 5, -500, 500, {-4, -4, 0});
                      Var x("x"), y("y"), c("c"), xi("xi"), yi("yi"); Func f("f");
                      f(x, y, c) = cast<int32_t>(in(x, y, c)) * in(x + 1, y, 2 - c) + c;
                      // c has the constant extent 3 here: unroll it whole.
                      f.bound(c, 0, 3)
                          .reorder(c, x, y)
                          .unroll(c)
                          .tile(x, y, xi, yi, 4, 2)
                          .unroll(xi)
                          .unroll(yi);
                      return f;),
        {{{21, 13, 3}, {-3, 2, 0}}, {{8, 4, 3}, {0, -4, 0}}});
}

TEST(Parallel, OuterLoop) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM f.parallel(y); g.compute_root().parallel(y); return f;),
        kOddRegions);
}

TEST(Parallel, Nested) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM Var xo("xo"), xi("xi");
                      f.split(x, xo, xi, 8).parallel(y).parallel(xo).vectorize(xi);
                      g.compute_at(f, xo).parallel(y); return f;),
        kOddRegions);
}

TEST(Parallel, WithATaskSize) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM f.parallel(y, 4, TailStrategy::GuardWithIf);
                      g.compute_root().parallel(y, 3); return f;),
        kOddRegions);
}

TEST(Parallel, ProducerComputedPerParallelIteration) {
    // Each thread gets its own g.
    expect_same_output<uint16_t>(SAME_PIPELINE(STENCIL_ALGORITHM f.parallel(y).vectorize(x, 8);
                                               g.compute_at(f, y).vectorize(x, 8); return f;),
                                 kOddRegions);
}

} // namespace
