// Sliding window over split and fused loops, and over loops a region does not move with: a
// split dimension slides by whole blocks of its split; a dimension fused as the outer part
// slides as if unfused; a region no loop moves is computed in the first iteration only. Each
// test checks the outputs against a C++ reference and counts the rows (points) each stage
// computes per iteration of the consumer's loop.

#include "SlidingWindowTestUtil.h"

namespace {

// A pure stage split with ShiftInwards (Auto's choice): a slid region of one row is shorter
// than the factor, so the block of 4 rows ending at it is computed again (its older rows are
// the same values); the window of 7 rows took two blocks, 8 rows, before the slide.
TEST(SlidingWindowSplits, ShiftedSplitOfAPureStageSlidesByWholeBlocks) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 3);
    g.store_root().compute_at(f, y);
    g.split(y, yo, yi, 4);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 3)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y.yi"), first_then(8, 4, H));
}

// A RoundUp split of an update (Auto's choice for an update's pure Var) under a ShiftInwards
// split of the pure stage: both stages start at the same row, the end of a whole ShiftInwards
// block and the start of a RoundUp block of the iteration's region before the slide, so every
// row the update touches was reset by the pure stage first, and no block reaches past the
// rows computed before the slide.
TEST(SlidingWindowSplits, RoundedUpdateUnderAShiftedPureStageSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 3 + y;
    f(x, y) = window_sum(g, x, y, 3);
    g.store_root().compute_at(f, y);
    g.split(y, yo, yi, 3);
    g.update(0).split(y, yo, yi, 2);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 3 + y; }, 3)), 0);

    // Before the slide: 7 rows, 3 blocks of 3 (9 rows) and 4 blocks of 2. After: from the
    // region's max - 2, one block of 3 and two of 2.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y.yi"), first_then(9, 3, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yi"), first_then(8, 4, H));
}

// A RoundUp block wider than the window starts at the slid row, as Halide 14's does: the pure
// stage computes one new row per row of f, the update one block from it, and storage grows by
// the rows the last block runs past (aligned to the region's start, as before, a block of 4
// over a window of 3 slid nothing: fuzz seed 2026 pair 397, 2.5x Halide's time).
TEST(SlidingWindowSplits, RoundedUpdateBlockWiderThanTheWindowSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 3 + y;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y);
    g.update(0).split(y, yo, yi, 4, TailStrategy::RoundUp);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 3 + y; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yi"), std::vector<int64_t>(H, 4));
}

// h is computed beside a slid g whose rows are split with ShiftInwards, its region written in
// g's (the block's start, max - min rounded, subtracts g's slid min). The input covers exactly
// the rows the pipeline reads before the slide: the image checks ask for no more (checked
// before the slide; interval arithmetic over the slid min asked for rows past the input).
TEST(SlidingWindowSplits, ARegionBesideASlidSplitAsksTheInputForNoMoreRows) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func h("h"), g2("g2"), f2("f2");
    const int rows = 2 * (H + 4) + 1; // h's rows 0 .. 2 * (H + 4)
    Buffer<int> in(W, rows);
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < W; i++)
            in(i, j) = i * 5 - j * 3 + 1;
    h(x, y) = in(x, y) + 1;
    g2(x, y) = h(x, 2 * y) * 3;
    f2(x, y) = g2(x, y) + g2(x, y + 5);
    g2.store_root().compute_at(f2, y).split(y, yo, yi, 4);
    h.store_root().compute_at(f2, y);

    std::string stmt = Pipeline(f2).lowered_stmt();
    EXPECT_NE(stmt.find("let g2.s0.y.min = select("), std::string::npos) << stmt;
    Buffer<int> out = f2.realize({W, H});
    auto g_ref = [&](int i, int j) { return (in(i, 2 * j) + 1) * 3; };
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            ASSERT_EQ(out(i, j), g_ref(i, j) + g_ref(i, j + 5)) << i << ", " << j;
}

// A pure stage with an update, vectorized with ShiftInwards, computed per point of f and slid
// down the rows. Where each production covers fewer columns than a vector (2 of 8), the vector
// starts below them and resets columns the update does not touch, which a later production of
// the row leaves wrong for the next row: the rows do not slide (fuzz seed 7002 pair 204, wrong
// values; the update's parallel loop is what let the rows slide there). Where a production
// covers a whole vector (9 columns per block of 8 points of f), they slide.
TEST(SlidingWindowSplits, AVectorWiderThanItsRegionKeepsAnUpdatedStageFromSliding) {
    const int width = 20, height = 10;
    auto g_ref = [](int i, int j) { return (i + j * 7) * 3 + i; };
    for (int block : {1, 8}) {
        Var x("x"), y("y"), xo("xo"), xi("xi");
        Func g("g"), f("f");
        g(x, y) = x + y * 7;
        g(x, y) = g(x, y) * 3 + x;
        f(x, y) = g(x + 1, y) + g(x, y - 1);
        f.split(x, xo, xi, block);
        g.store_root().compute_at(f, block == 1 ? xi : xo).vectorize(x, 8);
        g.update(0).parallel(x);

        Buffer<int> out = f.realize({width, height});
        for (int j = 0; j < height; j++)
            for (int i = 0; i < width; i++)
                ASSERT_EQ(out(i, j), g_ref(i + 1, j) + g_ref(i, j - 1)) << i << ", " << j;

        IterationCounter c = count_iterations(f, {width, height}, "f.s0.y");
        if (block == 1) {
            // Per point of f, two rows of a vector of g: nothing slid.
            EXPECT_EQ(per_iteration(c, "g.s1.x"), std::vector<int64_t>(height, width * 2 * 2));
        } else {
            // Per block of 8 points (3 blocks, the last shifted inwards), 9 columns of g's
            // new row; the first row of f computes two.
            EXPECT_EQ(per_iteration(c, "g.s1.x"), first_then(3 * 9 * 2, 3 * 9, height));
        }
    }
}

// A split of a folded dimension does not slide: a shifted or rounded block's extra rows would
// land in slots of the fold that rows of the window hold.
TEST(SlidingWindowSplits, SplitOfAFoldedDimensionDoesNotSlide) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fold_storage(y, 4);
    g.split(y, yo, yi, 2, TailStrategy::GuardWithIf);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, 3 * W));
}

// A Func whose rows are fused with its pixels (fuse(x, y): one loop over every point of the
// region, row after row) slides as if unfused: the fused loop's extent and its y are written in
// the region's lets, so a slid region of one new row is one row of points (fuzz seed 2026 pair
// 196: 5 rows recomputed per row of the consumer, 1.45x Halide's time, which slides it).
TEST(SlidingWindowFuse, RowsFusedAfterTheirPixelsSlide) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Var xy("xy");
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fuse(x, y, xy);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

    // The row loop starts two rows early (loop rewinding, as Halide 14's): every iteration,
    // the first two included, computes one row of g.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y.$w");
    EXPECT_EQ(per_iteration(c, "g.s0.x.xy"), std::vector<int64_t>(H + 2, W));
}

// An update fused as its pure stage is slides with it, each computing one new row per row of
// the consumer.
TEST(SlidingWindowFuse, AFusedUpdateSlidesWithItsPureStage) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Var xy("xy");
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fuse(x, y, xy);
    g.update(0).fuse(x, y, xy);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 2 + x; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x.xy"), first_then(3 * W, W, H));
    EXPECT_EQ(per_iteration(c, "g.s1.x.xy"), first_then(3 * W, W, H));
}

// Rows fused as the inner part (fuse(y, x): the points of a column follow each other) are not
// a run of the fused loop, and a fused loop split again (vectorized) would compute its blocks
// past the new rows: neither slides, and the whole window is computed per row.
TEST(SlidingWindowFuse, RowsFusedInsideOrAFusedLoopSplitAgainDoNotSlide) {
    for (bool rows_inside : {true, false}) {
        SplitWindow w;
        Var &x = w.x, &y = w.y;
        Var xy("xy"), xyi("xyi");
        Func &g = w.g, &f = w.f;
        f(x, y) = window_sum(g, x, y, 1);
        g.store_root().compute_at(f, y);
        if (rows_inside) {
            g.reorder(y, x).fuse(y, x, xy);
        } else {
            g.fuse(x, y, xy).split(xy, xy, xyi, 4, TailStrategy::GuardWithIf);
        }

        Buffer<int> out = f.realize({W, H});
        EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

        IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
        const std::string inner = rows_inside ? "g.s0.y.xy" : "g.s0.x.xy.xyi";
        int64_t points = 0;
        for (int64_t n : per_iteration(c, inner))
            points += n;
        EXPECT_GE(points, int64_t(3) * W * H) << (rows_inside ? "fuse(y, x)" : "split of xy");
    }
}

// A region no loop between the storage and the production moves (f reads rows 0 and 2 of g
// in every row): the first iteration computes it, in every stage, and the others reuse it. The
// update scatters along y through an RDom, which would block a slide, but not this.
TEST(SlidingWindowInvariant, RegionTheLoopDoesNotMoveIsComputedOnce) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(0, 3, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, r) = g(x, r) * 3 + r;
    f(x, y) = g(x, 0) * y + g(x, 2);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) { return pure_value(x, y) * 3 + y; };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, 0) * y + g_ref(x, 2);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 0, H));
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), first_then(3 * W, 0, H));
}

// Computed per pixel of f, stored at the root, reading a fixed 2 x 2 corner of g: only the
// first pixel of the image computes it (the first iteration of both loops).
TEST(SlidingWindowInvariant, InvariantAcrossTwoLoopsIsComputedByTheFirstOfBoth) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    f(x, y) = g(0, 0) + g(1, 1) * x - y;
    g.store_root().compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(0, 0) + pure_value(1, 1) * x - y;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(2, 0, H));
    EXPECT_EQ(c.total["g.s0.x"], 4);
}

// Stored per row and computed per pixel: the first pixel of each row computes it, since the
// storage is inside the row loop.
TEST(SlidingWindowInvariant, StorageInsideAnOuterLoopRecomputesPerIterationOfIt) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    f(x, y) = g(0, y) + g(3, y) * x;
    g.store_at(f, y).compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(0, y) + pure_value(3, y) * x;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, 4));
}

// Rows split by 4 with GuardWithIf, g computed per inner row: the region moves with neither
// loop. The outer rows whose inner loop runs all 4 rows share one production, in the first
// inner row of the first; the tail outer row (its own loop, whose inner extent moves with it)
// computes g again in its first inner row.
TEST(SlidingWindowInvariant, InvariantOverASplitLoopIsComputedOnce) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = g(x, 0) * y + g(x, 2);
    f.split(y, yo, yi, 4, TailStrategy::GuardWithIf);
    g.store_root().compute_at(f, yi);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(x, 0) * y + pure_value(x, 2);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y.yo");
    std::vector<int64_t> rows = first_then(3, 0, (H + 3) / 4);
    rows.back() = 3;
    EXPECT_EQ(per_iteration(c, "g.s0.y"), rows);
}

// g(x + dx, y + dy) over a 3 x 3 stencil, weights 1..9 (the lesson 08 schedule of Halide's
// tutorial, on a wider stencil).
template <typename G> std::vector<std::vector<int>> stencil_sums(G g_ref) {
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            for (int dy = 0; dy < 3; dy++) {
                for (int dx = 0; dx < 3; dx++)
                    expected[y][x] += (dy * 3 + dx + 1) * g_ref(x + dx, y + dy);
            }
        }
    }
    return expected;
}

Expr stencil_sum(const Func &g, const Var &x, const Var &y) {
    Expr sum = 0;
    for (int dy = 0; dy < 3; dy++) {
        for (int dx = 0; dx < 3; dx++)
            sum = sum + (dy * 3 + dx + 1) * g(x + dx, y + dy);
    }
    return sum;
}

// Stored at the root, computed per pixel of a 3 x 3 stencil: g slides along x over the pixel
// loop and along y over the row loop, as Halide 14 slides it, so each of its points is
// computed once: both loops start two iterations early (loop rewinding), and each pixel
// computes one point of g (slid over x only, each row computed its 3 new rows again:
// 3 (W + 2) points per row).
TEST(SlidingWindowTwoLoops, AStencilComputedPerPixelComputesEachPointOnce) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Func &g = w.g, &f = w.f;
    f(x, y) = stencil_sum(g, x, y);
    g.store_root().compute_at(f, x);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, stencil_sums(pure_value)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y.$w");
    EXPECT_EQ(per_iteration(c, "f.s0.x.$w"), std::vector<int64_t>(H + 2, W + 2));
    // (One point a pixel: g's loops of one iteration are gone.)
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H + 2, 0));
}

// The same with an update at its own point and vectorized consumer rows split by 4 (the pixel
// loop the production sits in is the split's inner loop, the tail shifted inwards): the outer
// slide still takes the rows, each pixel computing the new row's columns past the last.
TEST(SlidingWindowTwoLoops, AnUpdatedStageUnderASplitPixelLoopSlidesOverTheRows) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Var xo("xo"), xi("xi");
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 3 + y;
    f(x, y) = stencil_sum(g, x, y);
    f.split(x, xo, xi, 4);
    g.store_root().compute_at(f, xi);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, stencil_sums([](int x, int y) { return pure_value(x, y) * 3 + y; })),
              0);

    // 16 pixels per row (4 blocks of 4, the last shifted to end at the last column); each
    // computes its 3 rows in the first row of f, one row after it (3 per pixel, slid over
    // the pixels only).
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3 * 16, 16, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(3 * 16, 16, H));
}

// A folded producer slides over the pixel loop only: the next row reuses columns a fold of
// them would have overwritten, so the rows are computed again per row.
TEST(SlidingWindowTwoLoops, AFoldedProducerSlidesOverOneLoop) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Func &g = w.g, &f = w.f;
    f(x, y) = stencil_sum(g, x, y);
    g.store_root().compute_at(f, x).fold_storage(y, 4);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, stencil_sums(pure_value)), 0);

    // (The pixel loop starts two pixels early; each computes a column of 3 rows.)
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), std::vector<int64_t>(H, 3 * (W + 2)));
}
} // namespace
