// Storage folding (lower/StorageFolding): a Func stored outside a row loop and computed inside
// it keeps only the rows one iteration touches, rounded up to a power of two, when that
// window moves one way; elsewhere (a window that grows or jumps, the innermost dimension) the
// storage stays whole (the innermost dimension folds only to one coordinate). Outputs equal a plain
// C++ evaluation in every case.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <loom.h>

using namespace loom;

namespace {

std::string allocation_of(const std::string &stmt, const std::string &func) {
    size_t at = stmt.find("allocate " + func + "[");
    if (at == std::string::npos) return "";
    return stmt.substr(at, stmt.find('\n', at) - at);
}

int g_value(int x, int y) { return x * 3 - y * 7 + (x ^ y); }

// f over [-3, 34) x [-5, 24) against `expected`, and g's allocation line.
std::string check(Func f, const std::function<int(int, int)> &expected) {
    Pipeline p(f);
    Buffer<int> out(37, 29);
    out.set_min({-3, -5});
    p.realize(out);
    for (int y = -5; y < 24; y++)
        for (int x = -3; x < 34; x++)
            EXPECT_EQ(out(x, y), expected(x, y)) << x << ", " << y;
    return allocation_of(p.lowered_stmt(), "g");
}

struct Pipe {
    Var x{"x"}, y{"y"};
    Func g{"g"}, f{"f"};
    Pipe() { g(x, y) = x * 3 - y * 7 + (x ^ y); }
};

TEST(StorageFolding, AStencilDownTheRowsKeepsItsWindowRoundedUpToAPowerOfTwo) {
    Pipe p;
    p.f(p.x, p.y) = p.g(p.x, p.y - 1) + p.g(p.x, p.y + 1);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc =
        check(p.f, [](int x, int y) { return g_value(x, y - 1) + g_value(x, y + 1); });
    EXPECT_EQ(alloc, "allocate g[int32 * f.extent.0 * 4]");
}

TEST(StorageFolding, AFuncWithAnUpdateFolds) {
    Pipe p;
    p.g(p.x, p.y) += p.y * 5;
    p.f(p.x, p.y) = p.g(p.x, p.y) * 2 + p.g(p.x, p.y + 1);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc = check(p.f, [](int x, int y) {
        return (g_value(x, y) + y * 5) * 2 + g_value(x, y + 1) + (y + 1) * 5;
    });
    EXPECT_EQ(alloc, "allocate g[int32 * f.extent.0 * 2]");
}

TEST(StorageFolding, AWindowMovingBackwardFolds) {
    Pipe p;
    p.f(p.x, p.y) = p.g(p.x, 10 - p.y) - p.g(p.x, 12 - p.y);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc =
        check(p.f, [](int x, int y) { return g_value(x, 10 - y) - g_value(x, 12 - y); });
    EXPECT_EQ(alloc, "allocate g[int32 * f.extent.0 * 4]");
}

TEST(StorageFolding, AnUpsamplingReadsTwoRowsPerRow) {
    Pipe p;
    p.f(p.x, p.y) = p.g(p.x, p.y / 2) + p.g(p.x, (p.y + 1) / 2);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc = check(p.f, [](int x, int y) {
        auto div = [](int a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); };
        return g_value(x, div(y)) + g_value(x, div(y + 1));
    });
    EXPECT_EQ(alloc, "allocate g[int32 * f.extent.0 * 2]");
}

// Rows 0..y: the window grows with y; no constant bounds it.
TEST(StorageFolding, AGrowingWindowIsNotFolded) {
    Pipe p;
    RDom r(0, 8, "r");
    p.f(p.x, p.y) = 0;
    p.f(p.x, p.y) += p.g(p.x, r.x * p.y);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc = check(p.f, [](int x, int y) {
        int s = 0;
        for (int r = 0; r < 8; r++)
            s += g_value(x, r * y);
        return s;
    });
    EXPECT_EQ(alloc.find("* 4]"), std::string::npos) << alloc;
    EXPECT_EQ(alloc.find("* 8]"), std::string::npos) << alloc;
    EXPECT_NE(alloc, "") << alloc;
}

// A row read at y % 3 moves back every third row.
TEST(StorageFolding, AWindowThatJumpsBackIsNotFolded) {
    Pipe p;
    p.f(p.x, p.y) = p.g(p.x, p.y % 3) + p.g(p.x, p.y);
    p.g.store_root().compute_at(p.f, p.y);
    std::string alloc =
        check(p.f, [](int x, int y) { return g_value(x, ((y % 3) + 3) % 3) + g_value(x, y); });
    EXPECT_EQ(alloc.find("* 4]"), std::string::npos) << alloc;
    EXPECT_NE(alloc, "") << alloc;
}

// Computed per column, g's window of 3 columns moves along x, its innermost dimension: left
// whole (a fold of it wider than one coordinate would break its vectors).
TEST(StorageFolding, TheInnermostDimensionIsNotFoldedWiderThanOneColumn) {
    Pipe p;
    p.f(p.x, p.y) = p.g(p.x - 1, p.y) + p.g(p.x + 1, p.y);
    p.g.store_root().compute_at(p.f, p.x);
    std::string alloc =
        check(p.f, [](int x, int y) { return g_value(x - 1, y) + g_value(x + 1, y); });
    EXPECT_EQ(alloc.find("* 4"), std::string::npos) << alloc;
    EXPECT_NE(alloc, "") << alloc;
}

// Computed per point of f's rows, stored per row, a block of 4 rows of g at one column per
// iteration: the innermost dimension folds to that one column, and the rows are not folded (the
// storage's extent along y is the block's 4 rows, a constant once bounds inference inlines the
// Let expressions of its start: folded, each access would be taken modulo 4).
TEST(StorageFolding, AColumnPerIterationFoldsTheInnermostDimensionToOne) {
    Pipe p;
    Var yo("yo"), yi("yi");
    p.f(p.x, p.y) = p.g(p.x + 2, p.y / 3 + 1);
    p.g.store_at(p.f, p.y).compute_at(p.f, p.x).split(p.y, yo, yi, 4);
    std::string alloc = check(
        p.f, [](int x, int y) { return g_value(x + 2, (y >= 0 ? y / 3 : -((-y + 2) / 3)) + 1); });
    EXPECT_EQ(alloc, "allocate g[int32 * 1 * 4]") << alloc;
}

} // namespace

// Two Funcs stored at root and computed per row of f: g's realization holds h's, and the row
// loop is inside both. Each folds to its own window (before, only the innermost realization
// was seen to have a loop around its accesses: camera_pipe's automatic schedule kept 24 Funcs
// whole per strip of 32 rows).
TEST(StorageFolding, FuncsStoredAtTheSameLevelEachFold) {
    Pipe p;
    Func h("h");
    h(p.x, p.y) = p.g(p.x, p.y - 1) * 2 + p.g(p.x, p.y);
    p.f(p.x, p.y) = h(p.x, p.y) - h(p.x, p.y + 1);
    p.g.store_root().compute_at(p.f, p.y);
    h.store_root().compute_at(p.f, p.y);
    Pipeline pipeline(p.f);
    Buffer<int> out(37, 29);
    out.set_min({-3, -5});
    pipeline.realize(out);
    auto h_value = [](int x, int y) { return g_value(x, y - 1) * 2 + g_value(x, y); };
    for (int y = -5; y < 24; y++)
        for (int x = -3; x < 34; x++)
            ASSERT_EQ(out(x, y), h_value(x, y) - h_value(x, y + 1)) << x << ", " << y;
    const std::string stmt = pipeline.lowered_stmt();
    EXPECT_EQ(allocation_of(stmt, "g"), "allocate g[int32 * f.extent.0 * 4]") << stmt;
    EXPECT_EQ(allocation_of(stmt, "h"), "allocate h[int32 * f.extent.0 * 2]") << stmt;
}
