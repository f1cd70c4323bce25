// Loop partitioning (lower/PartitionLoops): a stencil over each boundary condition, under each
// tail strategy that guards or rounds, has a steady-state loop that tests nothing (no select,
// min, max or if: the boundary condition's clamps and selects and a GuardWithIf's guard are
// gone there), and its outputs equal a plain C++ evaluation of the boundary condition.
// (A ShiftInwards split's start, min(outer * factor, extent - factor), is partitioned only where
// the loops inside the outer one are unrolled: on every innermost loop, as Halide's
// likely_if_innermost does, it doubled the code of every vectorized loop of a pure definition,
// the default schedule's, for one scalar min per vector.)
#include <gtest/gtest.h>

#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

using namespace loom;

namespace {

/** The block of the first loop over its steady range: "for (v, v.steady_lo", or from the
 * loop's start "for (v, 0, v.steady_hi)" where nothing bounds the range from below. */
std::string steady_loop(const std::string &stmt) {
    std::istringstream in(stmt);
    std::string line, out;
    int depth = -1;
    while (std::getline(in, line)) {
        if (depth < 0) {
            size_t open = line.find("for (");
            if (open == std::string::npos) continue;
            size_t comma = line.find(", ", open);
            std::string var = line.substr(open + 5, comma - open - 5);
            const bool from_steady_lo =
                line.compare(comma + 2, var.size() + 10, var + ".steady_lo") == 0;
            const bool to_steady_hi = line.find(", " + var + ".steady_hi)") != std::string::npos;
            if (!from_steady_lo && !to_steady_hi) continue;
            depth = 0;
        }
        out += line + "\n";
        for (char c : line)
            depth += c == '{' ? 1 : c == '}' ? -1 : 0;
        if (depth == 0) return out;
    }
    return out;
}

struct Boundary {
    const char *name;
    std::function<Func(const Buffer<int> &)> make;
    std::function<int(const std::vector<int> &, int)> value; // of input data at coordinate x
};

int clamp_to(int x, int lo, int hi) { return x < lo ? lo : x > hi ? hi : x; }

std::vector<Boundary> boundaries() {
    return {
        {"repeat_edge", [](const Buffer<int> &in) { return BoundaryConditions::repeat_edge(in); },
         [](const std::vector<int> &d, int x) { return d[clamp_to(x, 0, (int)d.size() - 1)]; }},
        {"constant_exterior",
         [](const Buffer<int> &in) { return BoundaryConditions::constant_exterior(in, 7); },
         [](const std::vector<int> &d, int x) { return x < 0 || x >= (int)d.size() ? 7 : d[x]; }},
        {"mirror_image", [](const Buffer<int> &in) { return BoundaryConditions::mirror_image(in); },
         [](const std::vector<int> &d, int x) {
             int n = (int)d.size(), c = ((x % (2 * n)) + 2 * n) % (2 * n);
             return d[c < n ? c : 2 * n - 1 - c];
         }},
        {"mirror_interior",
         [](const Buffer<int> &in) { return BoundaryConditions::mirror_interior(in); },
         [](const std::vector<int> &d, int x) {
             int n = (int)d.size(), p = 2 * (n - 1), c = ((x % p) + p) % p;
             return d[c < n ? c : p - c];
         }},
    };
}

struct Tail {
    const char *name;
    std::function<void(Func &, Var &)> schedule;
};

std::vector<Tail> schedules() {
    return {
        {"scalar", [](Func &, Var &) {}},
        {"vectorize GuardWithIf",
         [](Func &f, Var &x) { f.vectorize(x, 8, TailStrategy::GuardWithIf); }},
        {"vectorize RoundUp", [](Func &f, Var &x) { f.vectorize(x, 8, TailStrategy::RoundUp); }},
        {"split GuardWithIf, unrolled",
         [](Func &f, Var &x) {
             Var xo("xo"), xi("xi");
             f.split(x, xo, xi, 4, TailStrategy::GuardWithIf).unroll(xi);
         }},
    };
}

TEST(PartitionLoops, StencilOverEachBoundaryConditionHasAnUntestedSteadyState) {
    const int n = 50;
    std::vector<int> data(n);
    for (int i = 0; i < n; i++)
        data[i] = (i * 37 + 11) % 101;
    Buffer<int> in(data.data(), {n}, "in");
    for (const Boundary &bc : boundaries()) {
        for (const Tail &tail : schedules()) {
            SCOPED_TRACE(std::string(bc.name) + ", " + tail.name);
            Var x("x");
            Func b = bc.make(in), f("f");
            f(x) = b(x - 2) + b(x) * 3 + b(x + 1);
            tail.schedule(f, x);
            Pipeline p(f);
            std::string steady = steady_loop(p.lowered_stmt());
            ASSERT_FALSE(steady.empty()) << p.lowered_stmt();
            for (const char *test : {"select(", "min(", "max(", "if ("}) {
                EXPECT_EQ(steady.find(test), std::string::npos) << test << " in\n" << steady;
            }
            // Outputs reaching past both ends of the input, at a width no factor divides (but
            // RoundUp's, which writes whole vectors into the user's buffer).
            const int lo = -13,
                      width = std::string(tail.name).find("RoundUp") != std::string::npos ? 80 : 77;
            Buffer<int> out(std::vector<int>{width}, "out");
            out.set_min({lo});
            p.realize(out);
            for (int i = lo; i < lo + width; i++) {
                int expected =
                    bc.value(data, i - 2) + bc.value(data, i) * 3 + bc.value(data, i + 1);
                ASSERT_EQ(out(i), expected) << "at " << i;
            }
        }
    }
}

// A 2-D stencil: the row loop is partitioned by the rows' clamps, the column loop inside its
// steady state by the columns'; the image's interior then runs without a test.
TEST(PartitionLoops, RowsAndColumnsPartitionInTurn) {
    const int w = 40, h = 30;
    Buffer<int> in(std::vector<int>{w, h}, "in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in(x, y) = (x * 7 + y * 13) % 29;
    Var x("x"), y("y");
    Func b = BoundaryConditions::repeat_edge(in), f("f");
    f(x, y) = b(x - 1, y - 1) + b(x + 1, y + 1) * 2;
    f.vectorize(x, 8, TailStrategy::GuardWithIf);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    std::string rows = steady_loop(stmt);
    ASSERT_NE(rows.find("f.s0.y.steady_lo"), std::string::npos) << stmt;
    std::string columns = steady_loop(rows.substr(rows.find('\n') + 1));
    ASSERT_FALSE(columns.empty()) << rows;
    for (const char *test : {"select(", "min(", "max(", "if ("}) {
        EXPECT_EQ(columns.find(test), std::string::npos) << test << " in\n" << columns;
    }
    Buffer<int> out(std::vector<int>{w + 6, h + 4}, "out");
    out.set_min({-3, -2});
    p.realize(out);
    for (int yy = -2; yy < h + 2; yy++) {
        for (int xx = -3; xx < w + 3; xx++) {
            int expected = in(clamp_to(xx - 1, 0, w - 1), clamp_to(yy - 1, 0, h - 1)) +
                           in(clamp_to(xx + 1, 0, w - 1), clamp_to(yy + 1, 0, h - 1)) * 2;
            ASSERT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// Rows read through a quotient (an upsampling, y / 2 + r over an RDom inside): the row loop's
// steady range is solved through the division over every value of the RDom, so the RDom loop
// in the interior tests nothing and keeps its constant extent (LLVM unrolls it whole).
TEST(PartitionLoops, RowsReadThroughAQuotientPartitionOverTheLoopsInside) {
    const int w = 40, h = 30;
    Buffer<int> in(std::vector<int>{w, h}, "in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            in(x, y) = (x * 5 + y * 11) % 31;
    Var x("x"), y("y");
    RDom r(-2, 4, "r");
    Func b = BoundaryConditions::repeat_edge(in), f("f");
    f(x, y) = 0;
    f(x, y) += b(x, y / 2 + r.x) * (r.x + 3);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    std::string rows = steady_loop(stmt.substr(stmt.find("f.s1")));
    ASSERT_NE(rows.find("f.s1.y.steady_lo"), std::string::npos) << stmt;
    std::string columns = steady_loop(rows.substr(rows.find('\n') + 1));
    ASSERT_FALSE(columns.empty()) << rows;
    for (const char *test : {"select(", "min(", "max(", "if (", "steady"}) {
        EXPECT_EQ(columns.find(test, columns.find('\n')), std::string::npos) << test << " in\n"
                                                                             << columns;
    }
    EXPECT_NE(columns.find("for (f.s1.r$x, -2, 4)"), std::string::npos) << columns;
    Buffer<int> out(std::vector<int>{w + 6, 2 * h + 9}, "out");
    out.set_min({-3, -5});
    p.realize(out);
    for (int yy = -5; yy < 2 * h + 4; yy++) {
        for (int xx = -3; xx < w + 3; xx++) {
            int expected = 0;
            const int half = yy >= 0 ? yy / 2 : -((-yy + 1) / 2);
            for (int k = -2; k < 2; k++) {
                expected += in(clamp_to(xx, 0, w - 1), clamp_to(half + k, 0, h - 1)) * (k + 3);
            }
            ASSERT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// A ShiftInwards split's start, min(xo * 8, extent - 8), hides the boundary condition's
// clamps of the unrolled points from the xo loop; where those clamps are there to partition,
// the steady state also takes the start as xo * 8, and then tests nothing.
TEST(PartitionLoops, ClampsBehindAShiftInwardsStartPartitionTheOuterLoop) {
    const int w = 100;
    Buffer<int> in(std::vector<int>{w}, "in");
    for (int x = 0; x < w; x++)
        in(x) = (x * 7) % 23;
    Var x("x"), xo("xo"), xi("xi");
    Func b = BoundaryConditions::repeat_edge(in), f("f");
    f(x) = b(x - 1) + b(x + 1) * 2;
    f.split(x, xo, xi, 8, TailStrategy::ShiftInwards).unroll(xi);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    std::string steady = steady_loop(stmt);
    ASSERT_NE(steady.find("f.s0.x.xo.steady_lo"), std::string::npos) << stmt;
    for (const char *test : {"select(", "min(", "max(", "if ("}) {
        EXPECT_EQ(steady.find(test), std::string::npos) << test << " in\n" << steady;
    }
    Buffer<int> out(std::vector<int>{w + 7}, "out");
    out.set_min({-4});
    p.realize(out);
    for (int i = -4; i < w + 3; i++) {
        ASSERT_EQ(out(i), in(clamp_to(i - 1, 0, w - 1)) + in(clamp_to(i + 1, 0, w - 1)) * 2) << i;
    }
}

// unroll(x, 2) of a clamped producer: the two copies of the body share the split's start (one
// node), and both reduce to the unshifted start in the steady state, as do both copies' clamps
// (fuzz seed 2026 pair 317: the second copy kept its min and clamp).
TEST(PartitionLoops, EveryUnrolledCopyOfAShiftInwardsStartReducesInTheSteadyState) {
    const int w = 101;
    Buffer<int> in(std::vector<int>{w}, "in");
    for (int x = 0; x < w; x++)
        in(x) = (x * 7) % 23;
    Var x("x");
    Func b = BoundaryConditions::repeat_edge(in), f("f");
    f(x) = b(x) ^ b(x - 2);
    b.compute_root().unroll(b.args()[0], 2);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    std::string steady = steady_loop(stmt);
    ASSERT_NE(steady.find(".steady_lo"), std::string::npos) << stmt;
    for (const char *test : {"min(", "max("}) {
        EXPECT_EQ(steady.find(test), std::string::npos) << test << " in\n" << steady;
    }
    Buffer<int> out(std::vector<int>{w + 6}, "out");
    out.set_min({-3});
    p.realize(out);
    for (int i = -3; i < w + 3; i++) {
        ASSERT_EQ(out(i), in(clamp_to(i, 0, w - 1)) ^ in(clamp_to(i - 2, 0, w - 1))) << i;
    }
}

// A constant exterior over an input one plane deep: the plane loop's steady state is that one
// plane, exactly where the plane's condition holds, so its prologue and epilogue (the planes
// before and after) store the constant without testing each point.
TEST(PartitionLoops, EdgesOfASingleConditionStoreItsFalseValue) {
    Buffer<int> in(std::vector<int>{9, 7, 1}, "in");
    for (int z = 0; z < 1; z++)
        for (int y = 0; y < 7; y++)
            for (int x = 0; x < 9; x++)
                in(x, y, z) = x * 5 - y * 3 + 2;
    Var x("x"), y("y"), z("z");
    Func b = BoundaryConditions::constant_exterior(in, 31), f("f");
    f(x, y, z) = b(x, y, z) + 1;
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    // The plane loop's epilogue: from its steady range's end, a loop over the points whose
    // store is the constant plus one.
    const size_t epilogue = stmt.find("for (f.s0.z, f.s0.z.steady_hi");
    ASSERT_NE(epilogue, std::string::npos) << stmt;
    const size_t end = stmt.find("free", epilogue);
    const std::string body = stmt.substr(epilogue, end - epilogue);
    EXPECT_EQ(body.find("select("), std::string::npos) << body;
    EXPECT_NE(body.find("= 32"), std::string::npos) << body;
    Buffer<int> out(std::vector<int>{11, 9, 4}, "out");
    out.set_min({-1, -1, -1});
    p.realize(out);
    for (int k = -1; k < 3; k++)
        for (int j = -1; j < 8; j++)
            for (int i = -1; i < 10; i++) {
                const bool inside = i >= 0 && i < 9 && j >= 0 && j < 7 && k == 0;
                ASSERT_EQ(out(i, j, k), (inside ? in(i, j, 0) : 31) + 1)
                    << i << ", " << j << ", " << k;
            }
}

// A vector's condition holds where every lane's does: outside that range some lanes' may still
// hold, so the edges keep testing each lane (schedule-invariance fuzz seed 5 pipeline 66: a
// constant exterior of a one-element input, vectorized by 8 inside its consumer's loop, stored
// the constant over the element too).
TEST(PartitionLoops, EdgesOfAVectorConditionKeepTestingEachLane) {
    Buffer<int> in(std::vector<int>{1}, "in");
    in(0) = -16;
    Var x("x");
    Func b = BoundaryConditions::constant_exterior(in, 53), f("f");
    f(x) = b(x) + b(x + 2);
    b.compute_at(f, x).vectorize(b.args()[0], 8);
    Buffer<int> out = Pipeline(f).realize({12});
    for (int i = 0; i < 12; i++) ASSERT_EQ(out(i), (i == 0 ? -16 : 53) + 53) << i; // x + 2 > 0
}

// A loop with a guard among other sites is cut where the guard holds first: past it, only what
// the guard leaves runs. A vectorized GuardWithIf split around serial loops runs its lanes one by
// one, and its lanes past the end of a region narrower than the vector ran the whole nest inside,
// the per-point inline reduction and all, for nothing (fuzz seed 2026 pair 240: one live lane of
// 16 around a parallel loop, 16 parallel loops).
TEST(PartitionLoops, LanesPastAGuardRunNothing) {
    Buffer<int> in(std::vector<int>{10, 4, 6}, "in");
    for (int z = 0; z < 6; z++)
        for (int y = 0; y < 4; y++)
            for (int x = 0; x < 10; x++)
                in(x, y, z) = x * 7 - y * 5 + z * 3;
    Var x("x"), y("y"), z("z"), zo("zo"), zi("zi");
    RDom r(0, 3, "r");
    Func b = BoundaryConditions::mirror_image(in), f("f");
    f(x, y, z) = sum(b(x, y, z * 2 + r.x - 1));
    f.split(z, zo, zi, 8, TailStrategy::GuardWithIf).vectorize(zi).parallel(x);
    f.split(y, y, Var("yi"), 3, TailStrategy::GuardWithIf);
    Pipeline p(f);
    Buffer<int> out(std::vector<int>{10, 4, 3}, "out");
    out.set_min({0, 0, 1});
    p.realize(out);
    auto mirror = [](int c, int n) {
        c = ((c % (2 * n)) + 2 * n) % (2 * n);
        return c < n ? c : 2 * n - 1 - c;
    };
    for (int k = 1; k < 4; k++)
        for (int j = 0; j < 4; j++)
            for (int i = 0; i < 10; i++) {
                int expected = 0;
                for (int t = 0; t < 3; t++) expected += in(i, j, mirror(k * 2 + t - 1, 6));
                ASSERT_EQ(out(i, j, k), expected) << i << ", " << j << ", " << k;
            }
    // The lanes run one by one, the loop over them cut at the guard (its copies in the rows'
    // main loop and tail reduced together): the lanes inside it partitioned for the rows' tail,
    // no loop left over the lanes past it (it ran the reduction that only the guarded store
    // read).
    const std::string stmt = p.lowered_stmt();
    EXPECT_NE(stmt.find("let f.s0.z.zi.guard"), std::string::npos) << stmt;
    EXPECT_FALSE(std::regex_search(stmt, std::regex(R"(for \(f\.s0\.z\.zi, f\.s0\.z\.zi\.guard[0-9]+_hi)")))
        << stmt;
}

// A ShiftInwards split's start min(xo * 8 + m, e - 8) is at most xo * 8 + m and at least the
// smaller of the two: a boundary condition's clamps at the block's points reduce over every
// block whose points are inside, the shifted last one too (as in Halide's steady state), not
// only where the start is unshifted (fuzz seed 2026 pair 358: the last block of each sliding
// window's 16 points ran the clamped code, half the work).
TEST(PartitionLoops, TheShiftedLastBlockOfAShiftInwardsSplitIsInTheSteadyState) {
    Buffer<int> in(std::vector<int>{100}, "in");
    for (int i = 0; i < 100; i++) in(i) = i * i - 7 * i;
    Var x("x");
    Func b = BoundaryConditions::repeat_edge(in), f("f");
    f(x) = b(x) + b(x + 1);
    f.vectorize(x, 8);
    Pipeline p(f);
    Buffer<int> out = p.realize({99});
    for (int i = 0; i < 99; i++) ASSERT_EQ(out(i), in(i) + in(std::min(i + 1, 99))) << i;
    // The steady state keeps the shifted start and loads densely without clamps.
    const std::string steady = steady_loop(p.lowered_stmt());
    ASSERT_FALSE(steady.empty()) << p.lowered_stmt();
    EXPECT_NE(steady.find("min((f.s0.x.x*8)"), std::string::npos) << steady;
    EXPECT_EQ(steady.find("max("), std::string::npos) << steady;
}

// A GuardWithIf vector whose loop is split again (two vectors unrolled, their start under
// ShiftInwards min(xo * 2, e - 2) * 8) is not cut at the guard by ScheduleFunctions: each vector
// runs whole where the guard holds on its lanes, and the loop around is partitioned there, its
// steady state plain vectors. Lane by lane, as before, an exp chain ran at half its speed.
TEST(PartitionLoops, UnrolledGuardedVectorsRunWholeInTheSteadyState) {
    Buffer<float> in(std::vector<int>{99}, "in");
    for (int i = 0; i < 99; i++) in(i) = 0.25f * i - 3.0f;
    Var x("x"), xv("xv"), xu("xu");
    Func f("f");
    f(x) = in(x) * 3.0f + 1.0f;
    f.split(x, x, xv, 8, TailStrategy::GuardWithIf).vectorize(xv);
    f.split(x, x, xu, 2).unroll(xu);
    Pipeline p(f);
    for (int n : {99, 16, 21, 9}) { // at least two vectors: the split by 2 shifts inwards
        Buffer<float> out = p.realize({n});
        for (int i = 0; i < n; i++) ASSERT_EQ(out(i), in(i) * 3.0f + 1.0f) << n << " " << i;
    }
    const std::string steady = steady_loop(p.lowered_stmt());
    ASSERT_FALSE(steady.empty()) << p.lowered_stmt();
    EXPECT_NE(steady.find("f[ramp("), std::string::npos) << steady;
    EXPECT_EQ(steady.find("if ("), std::string::npos) << steady;
    EXPECT_EQ(steady.find("for (f.s0.x.xv"), std::string::npos) << steady;
}

} // namespace

namespace {

// Schedule-invariance fuzz seed 9112, pipeline 115, schedule 2: mirrored and clamped reads
// under an unrolled GuardWithIf split, a vectorized dimension and an inline argmin. A condition
// of the partitioned loop nests a dozen mins and maxes; solving it split on each one twice over
// and took minutes. The solver now stops splitting past a budget (the loop keeps those
// iterations guarded). Built unscheduled and scheduled: the outputs must be equal.
Func seed_9112_pipeline(const Buffer<int> &in, bool scheduled) {
    Var x("x"), y("y");
    Func in_bc = BoundaryConditions::mirror_interior(in);
    RDom r0(0, 3, "r0"), r1(-1, 3, "r1");
    Func f0("f0"), f1("f1"), f2("f2"), f3("f3");
    f0(x, y) = cast<int16_t>(in_bc(x, y * 2));
    f1(x, y) = clamp(cast<uint16_t>(f0(y - 1, y + 1)), cast<uint16_t>(17), cast<uint16_t>(841)) ^
               cast<uint16_t>(f0(x, y * 2 - 2));
    f2(x, y) = (Expr(1119995352) | cast<int32_t>(f1(clamp(Expr(1393), 0, 12), y))) ^
               cast<int32_t>(f1(x, y + 2));
    f2(r0.x, y) = f2(r0.x, y) + ((cast<int32_t>(f1(r0.x - 1, y + r0.x)) << 8) | Expr(-45));
    f3(x, y) = clamp(argmin(cast<float>(f2(y, y + r1.x)) /
                            (abs(cast<float>(f2(x + r1.x, y + r1.x))) + 1.0f))[1] +
                         cast<float>(f2(x, y)),
                     -1e9f, 1e9f);
    if (scheduled) {
        Var xi("xi1");
        f2.parallel(y).split(x, x, xi, 7);
        f2.update(0).reorder(r0.x, y).parallel(r0.x).parallel(y, 8);
        f2.reorder_storage(y, x);
        f1.compute_at(f3, x).store_at(f3, Var::outermost()).unroll(x, 2).reorder_storage(y, x);
        f0.compute_at(f1, x).vectorize(y, 4);
        f0.split(x, x, xi, 8, TailStrategy::GuardWithIf).unroll(xi, 4).reorder_storage(y, x);
    }
    return f3;
}

} // namespace

TEST(PartitionLoops, ManyNestedMinsAndMaxesStayWithinASplitBudget) {
    Buffer<int> in(std::vector<int>{19, 19}, "in");
    in.set_min({-1, 0});
    for (int y = 0; y < 19; y++)
        for (int x = -1; x < 18; x++)
            in(x, y) = (x * 37 + y * 11) % 41 - 20;
    Buffer<float> results[2];
    for (int scheduled = 0; scheduled < 2; scheduled++) {
        Buffer<float> out(std::vector<int>{13, 11}, "out");
        out.set_min({-2, 1});
        seed_9112_pipeline(in, scheduled).realize(out);
        results[scheduled] = out;
    }
    for (int y = 1; y < 12; y++)
        for (int x = -2; x < 11; x++)
            ASSERT_EQ(results[1](x, y), results[0](x, y)) << x << " " << y;
}
