// A reduction's register tile kept in a local buffer for the length of its reduction loop
// (lower/PromoteAccumulators): in a Func whose row stride is known only at run time (computed
// per strip of an image-wide consumer, as the heuristic scheduler places a matrix product),
// LLVM could not keep the tile in registers and loaded and stored each accumulator beside
// every multiply-add (matmul_1024 auto-scheduled: 39 ms, 22 ms with the tile promoted). A
// loop whose points move with the reduction keeps them in the Func.
// Outputs equal a C++ evaluation in the same order, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <regex>
#include <string>

#include <loom.h>

using namespace loom;

namespace {

constexpr int K = 36, W = 70, H = 45; // odd sizes: every tile loop has a tail

Buffer<float> values(int w, int h, int seed) {
    Buffer<float> b(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            b(x, y) = float((x * 7 + y * 13 + seed) % 29) / 7.0f - 2.0f;
    }
    return b;
}

// C(x, y) = sum over k in order of A(k, y) * B(x, k), each step one fused multiply-add.
Buffer<float> reference(const Buffer<float> &a, const Buffer<float> &b) {
    Buffer<float> c(W, H);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            float sum = 0.0f;
            for (int k = 0; k < K; k++)
                sum = std::fma(a(k, y), b(x, k), sum);
            c(x, y) = sum;
        }
    }
    return c;
}

/** p's W x H output equals reference(a, b) bit for bit. */
void expect_product(Pipeline &p, const Buffer<float> &a, const Buffer<float> &b) {
    Buffer<float> got = p.realize({W, H});
    Buffer<float> want = reference(a, b);
    int differ = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            differ += std::memcmp(&got(x, y), &want(x, y), sizeof(float)) != 0;
    }
    EXPECT_EQ(differ, 0);
}

struct Product {
    Buffer<float> a = values(K, H, 1), b = values(W, K, 5);
    Func prod{"prod"}, out{"out"};
    Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"}, xv{"xv"}, xt{"xt"}, xc{"xc"}, yu{"yu"};
    RDom k{0, K, "k"};
    Product() {
        prod(x, y) = 0.0f;
        prod(x, y) = fma(a(k, y), b(x, k), prod(x, y));
        out(x, y) = prod(x, y);
        // The heuristic scheduler's shape: prod per strip of 16 rows of out, as wide as out
        // (a stride known at run time), its update in tiles of 4 rows by 2 vectors.
        out.split(y, yo, yi, 16, TailStrategy::GuardWithIf).vectorize(x, 8);
        prod.compute_at(out, yo).vectorize(x, 8);
    }
    void expect_reference(Pipeline &p) { expect_product(p, a, b); }
    /** prod's update in tiles of `rows` rows (GuardWithIf) by 2 vectors, inside k. */
    void tile_update(int rows) {
        prod.update()
            .split(x, x, xt, 16, TailStrategy::GuardWithIf)
            .split(xt, xc, xv, 8)
            .split(y, y, yu, rows, TailStrategy::GuardWithIf)
            .reorder(xv, xc, yu, k.x, y, x)
            .vectorize(xv)
            .unroll(xc)
            .unroll(yu);
    }
};

TEST(PromoteAccumulators, ARegisterTileOfAStripLivesInALocalBuffer) {
    Product m;
    m.tile_update(4);
    Pipeline p(m.out);
    const std::string stmt = p.lowered_stmt();
    // 4 rows x 2 vectors of 8 floats.
    EXPECT_NE(stmt.find("allocate prod.accumulators.0[float32 * 64]"), std::string::npos) << stmt;
    m.expect_reference(p);
}

// A tile whose rows do not divide the strip's: the rows left at the end of a strip (16 = 2 x 6
// + 4, and 13 = 2 x 6 + 1 in the last strip of 45) run in blocks of 4, 2 and 1 rows, each a
// tile of its own with its accumulators promoted (lower/ScheduleFunctions' specialized tail),
// not a loop over the rows inside the reduction that accumulates through memory. A 7-row
// tile leaves 2, 2 and 6 = 4 + 2.
TEST(PromoteAccumulators, TheRowsLeftAfterTheTilesRunInSmallerTiles) {
    for (int rows : {6, 7}) {
        Product m;
        m.tile_update(rows);
        Pipeline p(m.out);
        const std::string stmt = p.lowered_stmt();
        // Rows of 2 vectors of 8 floats: the whole tile, then blocks of 4, 2 and 1 rows.
        for (int block : {rows, 4, 2, 1}) {
            const std::regex tile("allocate prod\\.accumulators\\.[0-9]+\\[float32 \\* " +
                                  std::to_string(16 * block) + "\\]");
            EXPECT_TRUE(std::regex_search(stmt, tile))
                << rows << " rows, a block of " << block << ":\n"
                << stmt;
        }
        m.expect_reference(p);
    }
}

TEST(PromoteAccumulators, AnUnrolledSplitOfTheReductionUpdatesTheSamePointsInTurn) {
    Product m;
    RVar ko("ko"), ki("ki");
    Var x = m.x, y = m.y, xv = m.xv, yu = m.yu;
    m.prod.update()
        .split(x, x, xv, 8, TailStrategy::GuardWithIf)
        .split(y, y, yu, 2, TailStrategy::GuardWithIf)
        .split(m.k.x, ko, ki, 4)
        .reorder(xv, yu, ki, ko, y, x)
        .vectorize(xv)
        .unroll(yu)
        .unroll(ki);
    Pipeline p(m.out);
    const std::string stmt = p.lowered_stmt();
    EXPECT_NE(stmt.find("allocate prod.accumulators.0[float32 * 16]"), std::string::npos) << stmt;
    m.expect_reference(p);
}

// The schedule Halide's users write for a matrix product that is the pipeline's output: tile,
// vectorize the tile's columns, unroll. Vectorizing the 16 columns of a tile by 8 splits them
// with a tail loop (its extent known only once the lets are), which runs no iteration: the tile
// is promoted all the same.
TEST(PromoteAccumulators, AnOutputsTileSplitIntoVectorsLivesInALocalBuffer) {
    Buffer<float> a = values(K, H, 1), b = values(W, K, 5);
    Func c{"c"};
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"};
    RDom k{0, K, "k"};
    c(x, y) = 0.0f;
    c(x, y) = fma(a(k, y), b(x, k), c(x, y));
    c.update()
        .tile(x, y, xo, yo, xi, yi, 16, 4, TailStrategy::GuardWithIf)
        .reorder(xi, yi, k, xo, yo)
        .vectorize(xi, 8)
        .unroll(xi)
        .unroll(yi);
    Pipeline p(c);
    const std::string stmt = p.lowered_stmt();
    EXPECT_NE(stmt.find("allocate c.accumulators.0[float32 * 64]"), std::string::npos) << stmt;
    expect_product(p, a, b);
}

TEST(PromoteAccumulators, PointsThatMoveWithTheLoopStayInTheFunc) {
    // The reduction loop outside the rows: each of its iterations updates other points.
    Product m;
    Var x = m.x, y = m.y, xv = m.xv;
    m.prod.update()
        .split(x, x, xv, 8, TailStrategy::GuardWithIf)
        .reorder(xv, x, y, m.k.x)
        .vectorize(xv);
    Pipeline p(m.out);
    EXPECT_EQ(p.lowered_stmt().find("accumulators"), std::string::npos) << p.lowered_stmt();
    m.expect_reference(p);
}

} // namespace
