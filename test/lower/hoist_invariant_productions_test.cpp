// A production that no iteration of a loop around it changes is computed once before the loop
// (lower/HoistInvariantProductions): an inline reduction of an update's term that does not
// read the RDom leaves the RVar loops (fuzz seed 2026 pair 119: recomputed for each of 8 RDom
// points, 6.5x Halide's time). One that reads the loop's variable stays. Outputs equal a plain
// C++ evaluation.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

using namespace loom;

namespace {

Buffer<int> ramp_input(int w, int h) {
    Buffer<int> in(w, h);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) in(x, y) = (x * 7 + y * 13) % 50 - 20;
    return in;
}

// Whether a line holding `what` lies inside the body of a line holding `loop` (the printed
// loop nest indents each body past its loop's line), and both occur. Loop partitioning makes
// several copies of a nest: every copy counts.
::testing::AssertionResult outside(const std::string &stmt, const std::string &what,
                                   const std::string &loop) {
    std::istringstream lines(stmt);
    std::vector<size_t> open_loops; // the indentation of each enclosing `loop` line
    bool saw_what = false, saw_loop = false;
    for (std::string line; std::getline(lines, line);) {
        const size_t depth = line.find_first_not_of(' ');
        if (depth == std::string::npos) continue;
        while (!open_loops.empty() && depth <= open_loops.back()) open_loops.pop_back();
        if (line.find(what) != std::string::npos) {
            saw_what = true;
            if (!open_loops.empty())
                return ::testing::AssertionFailure() << "'" << what << "' inside '" << loop
                                                     << "'\n" << stmt;
        }
        if (line.find(loop) != std::string::npos) {
            saw_loop = true;
            open_loops.push_back(depth);
        }
    }
    if (!saw_what || !saw_loop) return ::testing::AssertionFailure() << "missing\n" << stmt;
    return ::testing::AssertionSuccess();
}

constexpr int W = 40, H = 30;

int clamped(const Buffer<int> &in, int x, int y) {
    return in(std::min(std::max(x, 0), W - 1), std::min(std::max(y, 0), H - 1));
}

TEST(HoistInvariantProductions, AnInlineReductionThatDoesNotReadTheRDomLeavesItsLoops) {
    Buffer<int> in = ramp_input(W, H);
    Var x("x"), y("y");
    Func bc = BoundaryConditions::repeat_edge(in);
    RDom r0(0, 2, 0, 3, "r0"), r1(-1, 4, "r1");
    Func f("f");
    f(x, y) = bc(x, y);
    f(x, y) = f(x, y) + maximum(bc(x + r1, y) - bc(x, y + r1)) * bc(x + r0.x, y + r0.y);
    Pipeline pl(f);
    const std::string stmt = pl.lowered_stmt();
    // Computed once per (x, y), outside both RVar loops of the update.
    EXPECT_TRUE(outside(stmt, "produce maximum", "for (f.s1.r0$y"));
    Buffer<int> result = pl.realize({W, H});
    for (int yy = 0; yy < H; yy++) {
        for (int xx = 0; xx < W; xx++) {
            int m = INT32_MIN;
            for (int k = -1; k < 3; k++)
                m = std::max(m, clamped(in, xx + k, yy) - clamped(in, xx, yy + k));
            int v = in(xx, yy);
            for (int ry = 0; ry < 3; ry++)
                for (int rx = 0; rx < 2; rx++) v = v + m * clamped(in, xx + rx, yy + ry);
            ASSERT_EQ(result(xx, yy), v) << xx << ", " << yy;
        }
    }
}

// A Tuple's buffers leave together; a Func computed at an inner loop of a split it does not
// depend on leaves that loop too.
TEST(HoistInvariantProductions, ATupleAndAComputeAtOfALoopItDoesNotDependOnLeave) {
    Buffer<int> in = ramp_input(W, H);
    Var x("x"), y("y"), xi("xi");
    Func bc = BoundaryConditions::repeat_edge(in);
    RDom r(0, 5, "r");
    Func row("row"), out("out");
    row(y) = bc(3, y) * 2 + 1;
    out(x, y) = argmax(bc(r, y))[0] * 100 + row(y) + x;
    out.split(x, x, xi, 4);
    row.compute_at(out, xi);
    Pipeline pl(out);
    const std::string stmt = pl.lowered_stmt();
    // Both productions run once per tile, outside the tile's inner loop.
    EXPECT_TRUE(outside(stmt, "produce row", "for (out.s0.x.xi"));
    EXPECT_TRUE(outside(stmt, "produce argmax", "for (out.s0.x.xi"));
    Buffer<int> result = pl.realize({W, H});
    for (int yy = 0; yy < H; yy++) {
        int best = 0;
        for (int k = 1; k < 5; k++)
            if (clamped(in, k, yy) > clamped(in, best, yy)) best = k;
        for (int xx = 0; xx < W; xx++)
            ASSERT_EQ(result(xx, yy), best * 100 + clamped(in, 3, yy) * 2 + 1 + xx)
                << xx << ", " << yy;
    }
}

// A production that reads the loop's variable is computed in every iteration, as scheduled.
TEST(HoistInvariantProductions, AProductionThatReadsTheLoopVariableStays) {
    Buffer<int> in = ramp_input(W, H);
    Var x("x"), y("y"), xi("xi");
    Func bc = BoundaryConditions::repeat_edge(in);
    RDom r(0, 3, "r");
    Func out("out");
    out(x, y) = sum(bc(x + r, y)) + x;
    out.split(x, x, xi, 4);
    Pipeline pl(out);
    const std::string stmt = pl.lowered_stmt();
    ASSERT_NE(stmt.find("produce sum"), std::string::npos) << stmt;
    ASSERT_NE(stmt.find("for (out.s0.x.xi"), std::string::npos) << stmt;
    EXPECT_FALSE(outside(stmt, "produce sum", "for (out.s0.x.xi"));
    Buffer<int> result = pl.realize({W, H});
    for (int yy = 0; yy < H; yy++) {
        for (int xx = 0; xx < W; xx++) {
            int s = 0;
            for (int k = 0; k < 3; k++) s += clamped(in, xx + k, yy);
            ASSERT_EQ(result(xx, yy), s + xx) << xx << ", " << yy;
        }
    }
}

}  // namespace

// Fuzz seed 99 pair 339: a guarded tile whose rows are split by 5 and unrolled by 2 leaves an
// unrolled copy whose consumer loops are all found empty; the production inside it then had
// nothing after it, and taking it out left a loop without a body (an internal error). The
// outputs equal plain C++.
TEST(HoistInvariantProductions, ALoopLeftWithNothingAfterTheProductionGoesAway) {
    Buffer<int> in = ramp_input(W, H);
    Func g("g"), f("f");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi"), yio("yio"), yii("yii");
    RDom r0(0, 4, "r0"), r1(-2, 3, "r1");
    Func c = BoundaryConditions::repeat_edge(in);
    f(x, y) = x + 2 * y;
    f(x, y) = f(x, y) - select(sum(c(x + r1.x, 0)) >= c(x + r0.x, 1), x, 6);
    f.update(0).tile(x, y, xo, yo, xi, yi, 8, 8, TailStrategy::GuardWithIf);
    f.update(0).split(yi, yio, yii, 5).unroll(yii, 2);
    const int w = 21, h = 13;
    Buffer<int> out = f.realize({w, h});
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) {
            int s = 0;
            for (int k = -2; k <= 0; k++)
                s += clamped(in, xx + k, 0);
            int v = xx + 2 * yy;
            for (int k = 0; k < 4; k++)
                v -= s >= clamped(in, xx + k, 1) ? xx : 6;
            ASSERT_EQ(out(xx, yy), v) << xx << " " << yy;
        }
    }
}
