// Sliding window over Funcs with update definitions: a Func stored outside a serial loop and
// computed inside it computes, in each iteration after the first, only the rows past those of
// the previous iteration, in its pure stage and in every update, as long as each update writes
// and reads the Func only at its own pure Var along the slid dimension. Each test checks the
// outputs against a plain C++ reference and counts, by running the lowered loop nest's loop
// bounds with the buffer shapes given, the rows each stage computes per iteration of the slid
// loop (sliding_window_splits_test.cpp: split and fused loops). UpdateBounds: what a pure
// stage computes when its updates write without reading. DeadUpdates: updates whose where()
// never holds.

#include "SlidingWindowTestUtil.h"

namespace {

// g: a pure definition and two updates at its own pixel, f a 3-row stencil of it.
TEST(SlidingWindowUpdates, PureVarUpdatesSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, y) = g(x, y) * 2 + x - y;
    g(x, y) = g(x, y) * g(x, y) + 1;
    f(x, y) = g(x, y - 1) + 3 * g(x, y) + 5 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) {
        int v = pure_value(x, y) * 2 + x - y;
        return v * v + 1;
    };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, y - 1) + 3 * g_ref(x, y) + 5 * g_ref(x, y + 1);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // The first row of f computes g's three rows, every later one the one new row, in each
    // stage: H + 2 rows in all, where recomputing the window would take 3 H.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(3, 1, H));
    EXPECT_EQ(c.total["g.s0.x"], W * (H + 2));
    EXPECT_EQ(c.total["g.s2.x"], W * (H + 2));
}

// An update over an RDom along x (a running sum across each row: it scatters along x, but
// keeps to its row), then a pure-Var one; stored at the root, computed per row of f.
TEST(SlidingWindowUpdates, RDomAlongTheOtherDimensionSlides) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(1, W - 1, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(r.x, y) = g(r.x, y) + g(r.x - 1, y);
    g(x, y) = g(x, y) * 3 - y;
    f(x, y) = g(x, y) + 2 * g(x, y + 2);
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> g_ref(H + 2, std::vector<int>(W));
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W; x++)
            g_ref[y][x] = pure_value(x, y);
        for (int x = 1; x < W; x++)
            g_ref[y][x] += g_ref[y][x - 1];
        for (int x = 0; x < W; x++)
            g_ref[y][x] = g_ref[y][x] * 3 - y;
    }
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref[y][x] + 2 * g_ref[y + 2][x];
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(3, 1, H));
    EXPECT_EQ(c.total["g.s1.r$x"], (W - 1) * (H + 2));
}

// A Func defined only by updates (+=, then *=): its implicit pure definition has Vars of its
// own (_0, _1), the updates the user's; each stage's region is named after its own Vars.
TEST(SlidingWindowUpdates, UpdatesOfAnImplicitPureDefinitionSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(0, 3, "r");
    g(x, y) += (x * 7 + y * 13 + r.x) % 17 - 8;
    g(x, y) *= 2;
    f(x, y) = g(x, y) + 3 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) {
        int sum = 0;
        for (int i = 0; i < 3; i++)
            sum += ((x * 7 + y * 13 + i) % 17 + 17) % 17 - 8;
        return sum * 2;
    };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, y) + 3 * g_ref(x, y + 1);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(2, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(2, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(2, 1, H));
    EXPECT_EQ(c.total["g.s1.r$x"], 3 * W * (H + 1));
}

// As the performance fuzzer's pair (seed 1, pair 2): a histogram of each row (an RDom over x
// scattering into bins along x), stored per plane z and computed per row y of its consumer,
// which reads rows y / 3 - 2 and y of it: hundreds of rows apart, so recomputing the window
// every row costs hundreds of rows per row. Sliding computes one new row per row.
TEST(SlidingWindowUpdates, HistogramStoredPerPlaneComputedPerRow) {
    const int w = 9, h = 40, planes = 3, bins = 6, inw = 12;
    Buffer<int> in(inw, h, planes);
    in.for_each_position(
        [&](const std::vector<int> &p) { in(p) = (p[0] * 5 + p[1] * 11 + p[2] * 3) % 9 - 1; });
    Var x("x"), y("y"), z("z");
    Func hist("hist"), f("f");
    RDom r(0, inw, "r");
    hist(x, y, z) = 0;
    hist(clamp(in(r.x, y, z), 0, bins - 1), y, z) += 1;
    f(x, y, z) = hist(x % bins, max(y / 3 - 2, 0), z) * 100 + hist(x % bins, y, z);
    hist.store_at(f, z).compute_at(f, y);

    auto hist_ref = [&](int bin, int y, int z) {
        int n = 0;
        for (int i = 0; i < inw; i++)
            n += std::min(std::max(in(i, y, z), 0), bins - 1) == bin;
        return n;
    };
    Buffer<int> out = f.realize({w, h, planes});
    int bad = 0;
    for (int z = 0; z < planes; z++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int e =
                    hist_ref(x % bins, std::max(y / 3 - 2, 0), z) * 100 + hist_ref(x % bins, y, z);
                bad += out(x, y, z) != e;
            }
        }
    }
    EXPECT_EQ(bad, 0);

    // Per row of f: the first row of each plane computes rows 0 .. 0 of hist, each later
    // one the one new row y; the histogram's RDom runs once per new row.
    IterationCounter c = count_iterations(f, {w, h, planes}, "f.s0.y");
    std::vector<int64_t> one_row(h * planes, 1);
    EXPECT_EQ(per_iteration(c, "hist.s0.y"), one_row);
    EXPECT_EQ(per_iteration(c, "hist.s1.y"), one_row);
    EXPECT_EQ(c.total["hist.s1.r$x"], inw * h * planes);
}

// A consumer reading row 2 y - 2 only: consecutive iterations' regions leave a row between
// them, so there is nothing to reuse and no iteration computes more than its own row (storage
// folding, which runs before sliding window, stores g in one row: a slid iteration computing
// the row in the gap too would overwrite it before the update reads it; fuzz seed 2, pipeline
// 11).
TEST(SlidingWindowUpdates, RegionsWithGapsComputeOnlyTheirOwnRows) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = g(x, 2 * y - 2) + 1;
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(x, 2 * y - 2) * 2 + x + 1;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // One row of each stage per row of f (the loops over one row of y are gone: count x).
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, W));
    EXPECT_EQ(per_iteration(c, "g.s1.x"), std::vector<int64_t>(H, W));
}

// An update that scatters along y through an RDom (a running sum down the columns over a
// fixed range of rows) needs rows of other iterations: g is not slid, every row recomputes
// its whole window, and the outputs stay right.
TEST(SlidingWindowUpdates, ScatterAlongTheSlidDimensionDoesNotSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(1, H + 1, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, r.x) = g(x, r.x) + g(x, r.x - 1);
    f(x, y) = g(x, y) + 2 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> g_ref(H + 2, std::vector<int>(W));
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W; x++)
            g_ref[y][x] = pure_value(x, y) + (y > 0 ? g_ref[y - 1][x] : 0);
    }
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref[y][x] + 2 * g_ref[y + 1][x];
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // Each row of f computes all H + 2 rows of g the scatter covers, and runs the scatter
    // down every column.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), std::vector<int64_t>(H, H + 2));
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), std::vector<int64_t>(H, W * (H + 1)));
}

// g slides along x over f's outer loop x only if what an iteration of x leaves in storage is
// final: the inner loop y computes g again in each of its iterations, and a scan down a fixed
// range of rows (which the pure stage's region covers in every iteration) followed by a pure
// update over f's rows leaves the scanned rows of other iterations without the update. g is
// then not slid over x; every iteration of x computes both columns f reads (fuzz seed 31337
// pair 1790: the slide read columns the last row of the previous iteration had left without
// the update).
TEST(SlidingWindowUpdates, ScatterAlongAnInnerLoopsDimensionBlocksTheOuterSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(1, 3, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, r.x) = g(x, r.x) + g(x, r.x - 1);
    g(x, y) = g(x, y) * 3 + 1;
    f(x, y) = g(x, y) + 2 * g(x - 1, y);
    f.reorder(y, x);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) {
        int v = pure_value(x, y);
        if (y >= 0 && y <= 3) {
            v = pure_value(x, 0);
            for (int row = 1; row <= y; row++)
                v += pure_value(x, row);
        }
        return v * 3 + 1;
    };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, y) + 2 * g_ref(x - 1, y);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // The pure update runs over both columns f reads, in every row of every column of f.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.x");
    EXPECT_EQ(per_iteration(c, "g.s2.x"), std::vector<int64_t>(W, 2 * H));
}

// An update whose loop over the slid dimension is split with GuardWithIf computes exactly the
// slid region: g slides, each stage computing one new row per row of f.
TEST(SlidingWindowUpdates, GuardedSplitOfAnUpdateSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y);
    g.update(0).split(y, yo, yi, 2, TailStrategy::GuardWithIf);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 2 + x; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yo"), first_then(2, 1, H));
}

// g computed per iteration of f's reduction and stored outside it, under the RDom's where():
// the iterations the where() skips compute nothing, so a slide over the reduction would leave
// the points the skipped first iteration owns to no one (fuzz seed 8501 pair 314: a value read
// from uninitialized storage). g is not slid there; a split's guard, which holds up to the
// last iteration and no further, still lets g slide (GuardedSplitOfAnUpdateSlides).
TEST(SlidingWindowUpdates, AWhereAroundTheProductionKeepsItFromSliding) {
    Var x("x");
    RDom r(0, 6, "r");
    r.where(r.x % 3 != 0);
    Func g("g"), f("f");
    g(x) = x * x - 7;
    f(x) = 0;
    f(x) += g(x + r.x) + g(x + r.x + 2);
    g.compute_at(f, r.x).store_at(f, Var::outermost());

    Buffer<int> out = f.realize({W});
    for (int i = 0; i < W; i++) {
        int expected = 0;
        for (int k = 0; k < 6; k++) {
            if (k % 3 == 0) continue;
            expected += (i + k) * (i + k) - 7 + (i + k + 2) * (i + k + 2) - 7;
        }
        EXPECT_EQ(out(i), expected) << "at " << i;
    }
}

// An update that writes two fixed rows without reading the Func: the pure stage computes only
// what the consumer reads (one point per point of the consumer), not the rows the update
// writes, as Halide 14 bounds it (fuzz seed 2026 pair 251: a whole column per point, 99x
// Halide's time). The update still writes its rows, and the consumer sees them.
TEST(UpdateBounds, PureStageComputesWhatIsReadNotWhatUpdatesOnlyWrite) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(3, 2, "r");
    g(x, y) = x + y * 3;
    g(x, r) = r * 7 - x;
    f(x, y) = g(x, y) + 1;
    g.compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = (y == 3 || y == 4 ? y * 7 - x : x + y * 3) + 1;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    // The pure stage's region is one point: its loops, of one iteration, are gone. (Bounded by
    // what the update writes too, rows min(y, 3) to max(y, 4), it looped over 2 to 14 rows.)
    EXPECT_EQ(c.total["g.s0.y"], 0);
    EXPECT_EQ(c.total["g.s0.x"], 0);
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), std::vector<int64_t>(H, 2 * W));
}

// A RoundUp split's last block runs past the stage's region. A producer computed outside the
// split's outer loop covers only the points the region needs, as Halide 14's does (the block's
// other points read what its storage holds, and nothing reads what they compute); one
// computed per block covers the whole block. Fuzz seed 2026 pair 442: 2.7x Halide's time,
// computing a root Func over 9 slices where 3 were needed.
TEST(UpdateBounds, ARoundedUpBlockWidensOnlyAProducerComputedPerBlock) {
    Var x("x"), xo("xo"), xi("xi");
    Func g("g"), f("f"), h("h"), out("out");
    g(x) = x * 2;
    f(x) = g(x) + 1;
    h(x) = x;
    h(x) = h(x) + g(x + 1);
    out(x) = f(x) + h(x);
    g.compute_root();
    f.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    h.compute_root();
    h.update(0).split(x, xo, xi, 8, TailStrategy::RoundUp);
    const int n = 13; // two blocks of 8 each, the second rounded up past 12
    Buffer<int> result = out.realize({n});
    for (int i = 0; i < n; i++)
        EXPECT_EQ(result(i), (2 * i + 1) + (i + 2 * (i + 1))) << "at " << i;
    // g at 0 .. 13: f needs 0 .. 12, h's update 1 .. 13 (over the blocks, 0 .. 16).
    IterationCounter c = count_iterations(out, {n}, "out.s0.x");
    EXPECT_EQ(c.total["g.s0.x"], n + 1);
    EXPECT_EQ(c.total["f.s0.x.xi"], 16);
    EXPECT_EQ(c.total["h.s1.x.xi"], 16);

    Func p("p"), q("q"), q_out("q_out");
    p(x) = x * 3;
    q(x) = p(x) - 1;
    q_out(x) = q(x);
    q.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    p.compute_at(q, xo);
    Buffer<int> blocks = q_out.realize({n});
    for (int i = 0; i < n; i++)
        EXPECT_EQ(blocks(i), 3 * i - 1) << "at " << i;
    IterationCounter per_block = count_iterations(q_out, {n}, "q.s0.x.xo");
    EXPECT_EQ(per_iteration(per_block, "p.s0.x"), std::vector<int64_t>(2, 8));
}

// An update whose where() is false at every point of its RDom (r = -1, r % 2 == 1) never runs:
// it gets no loops, so the Func it alone reads is neither computed nor placed around it, and
// the result is the pure definition's (fuzz seed 2026 pair 484, where such a dead reduction
// widened a producer's placement: 10x Halide's time).
TEST(DeadUpdates, UpdateWhosePredicateIsFalseEverywhereIsDropped) {
    Var x("x"), y("y");
    Func g("g"), h("h"), f("f");
    RDom r(-1, 1, "r");
    r.where(r.x % 2 != 1);
    g(x, y) = x * 5 + y;
    g(x, y) = g(x, y) * 2; // an update: g is computed at a loop, not inlined
    h(x, y) = 7;
    h(x, y) += g(x + r.x, y);
    f(x, y) = h(x, y) + x;
    Stmt s = lowered(f);
    std::ostringstream text;
    text << s;
    EXPECT_EQ(text.str().find("produce g"), std::string::npos) << text.str();
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = 7 + x;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);
}

} // namespace
