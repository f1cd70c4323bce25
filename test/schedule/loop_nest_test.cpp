// Tests of what the scheduling directives do to the lowered loop nest and to the generated code:
// the kind of each loop (serial, parallel, vector lanes, unrolled copies), the loop order, where
// each Func is allocated and computed and how much it allocates, and the vector width of the
// loads and stores in the LLVM IR and the assembly.
//
// Pipeline::lowered_stmt() prints one statement per line, two spaces per level, loops as
// `<kind> (<name>, <min>, <extent>) {` with kind for / parallel (vector and unrolled loops are
// gone by then: vectors are ramp(base, stride, lanes) indices, unrolled loops are copies), and
// allocations as `allocate <func>[<type> * <extent> * ...]`, matched by `free <func>`.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

std::string trim(const std::string &line) {
    size_t b = line.find_first_not_of(' ');
    return b == std::string::npos ? "" : line.substr(b);
}

std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

/** "for (f.s0.x, 0, 8) {" -> "f.s0.x"; "" if the line does not open a loop. */
std::string loop_name(const std::string &line) {
    std::string t = trim(line);
    for (const char *kind : {"for (", "parallel (", "vectorized (", "unrolled ("}) {
        std::string k = kind;
        if (t.compare(0, k.size(), k) == 0) return t.substr(k.size(), t.find(',') - k.size());
    }
    return "";
}

/** The names of the loops around the first line containing `what`, outermost first. */
std::vector<std::string> loops_around(const std::string &stmt, const std::string &what) {
    std::vector<std::string> open;  // the header of every block we are inside
    for (const std::string &line : lines_of(stmt)) {
        std::string t = trim(line);
        if (t.find(what) != std::string::npos) {
            std::vector<std::string> loops;
            for (const std::string &h : open) {
                if (!loop_name(h).empty()) loops.push_back(loop_name(h));
            }
            return loops;
        }
        if (!t.empty() && t[0] == '}') open.pop_back();
        if (!t.empty() && t.back() == '{') open.push_back(t);
    }
    return {"<no line contains " + what + ">"};
}

/** The first line containing `what`, through the line closing the block it opens. */
std::string block(const std::string &stmt, const std::string &what) {
    std::string out;
    int depth = -1;
    for (const std::string &line : lines_of(stmt)) {
        std::string t = trim(line);
        if (depth < 0 && t.find(what) == std::string::npos) continue;
        if (depth < 0) depth = 0;
        out += line + "\n";
        if (!t.empty() && t[0] == '}') depth--;
        if (!t.empty() && t.back() == '{') depth++;
        if (depth == 0) return out;
    }
    return out.empty() ? "<no line contains " + what + ">" : out;
}

/** The kind (for, parallel, ...) of the first loop named `name`. */
std::string loop_kind(const std::string &stmt, const std::string &name) {
    for (const std::string &line : lines_of(stmt)) {
        if (loop_name(line) == name) {
            std::string t = trim(line);
            return t.substr(0, t.find(' '));
        }
    }
    return "<no loop " + name + ">";
}

int occurrences(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1)) n++;
    return n;
}

/** The stores into `func`: lines `func[...] = ...`. */
int stores_into(const std::string &stmt, const std::string &func) {
    int n = 0;
    for (const std::string &line : lines_of(stmt))
        n += trim(line).compare(0, func.size() + 1, func + "[") == 0;
    return n;
}

// ---------------------------------------------------------------------------------------------
// Loop kinds and order.

TEST(LoopKinds, DefaultLoopsAreSerialWithXInnermost) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.y, f.min.1, f.extent.1) {")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x, f.min.0, f.extent.0) {")) << stmt;
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.y", "f.s0.x")) << stmt;
}

TEST(LoopKinds, ParallelLoop) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.parallel(y);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("parallel (f.s0.y, f.min.1, f.extent.1) {")) << stmt;
    EXPECT_EQ(loop_kind(stmt, "f.s0.x"), "for") << stmt;
}

TEST(LoopKinds, NestedParallelLoops) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 8).parallel(y).parallel(xo);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_EQ(loop_kind(stmt, "f.s0.y"), "parallel") << stmt;
    EXPECT_EQ(loop_kind(stmt, "f.s0.x.xo"), "parallel") << stmt;
    EXPECT_EQ(loop_kind(stmt, "f.s0.x.xi"), "for") << stmt;
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.y", "f.s0.x.xo", "f.s0.x.xi")) << stmt;
}

TEST(LoopKinds, VectorizedLoopBecomesRampsOfItsLanes) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = cast<float>(x) * 2.0f;
    f.vectorize(x, 8);
    std::string stmt = Pipeline(f).lowered_stmt();
    // No loop over the lanes is left; the store covers 8 consecutive elements.
    EXPECT_THAT(loops_around(stmt, "f[ramp("), ElementsAre("f.s0.y", "f.s0.x.x")) << stmt;
    EXPECT_THAT(stmt, Not(HasSubstr("f.s0.x.vec"))) << stmt;
    EXPECT_THAT(stmt, HasSubstr(", 1, 8)] = ")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("x8(2.0f)")) << stmt;
    EXPECT_EQ(stores_into(stmt, "f"), 1) << stmt;
}

TEST(LoopKinds, VectorizeAnExistingInnerLoopOfConstantExtent) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = cast<uint8_t>(x + y);
    f.split(x, xo, xi, 32).vectorize(xi);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, Not(HasSubstr("f.s0.x.xi,"))) << stmt;
    EXPECT_THAT(stmt, HasSubstr(", 1, 32)] = ")) << stmt;
}

TEST(LoopKinds, UnrolledLoopIsCopiedOncePerIteration) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x + y;
    f.unroll(x, 4);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, Not(HasSubstr("f.s0.x.unroll"))) << stmt;
    EXPECT_EQ(stores_into(stmt, "f"), 4) << stmt;
    // The copies are iterations 0, 1, 2, 3 of the block of 4.
    EXPECT_THAT(stmt, HasSubstr("let f.s0.x = (f.min.0 + min((f.s0.x.x * 4), (f.extent.0 - 4)))"))
        << stmt;
    EXPECT_THAT(stmt,
                HasSubstr("let f.s0.x = ((f.min.0 + min((f.s0.x.x * 4), (f.extent.0 - 4))) + 3)"))
        << stmt;
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.y", "f.s0.x.x")) << stmt;
}

TEST(LoopKinds, UnrollAndVectorizeTogether) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), xii("xii"), lanes("lanes");
    Func f("f");
    f(x, y) = x * y;
    f.split(x, xo, xi, 32).split(xi, xii, lanes, 8).vectorize(lanes).unroll(xii);
    std::string stmt = Pipeline(f).lowered_stmt();
    // 32 = 4 unrolled copies of 8 lanes.
    EXPECT_EQ(stores_into(stmt, "f"), 4) << stmt;
    EXPECT_EQ(occurrences(stmt, ", 1, 8)] = "), 4) << stmt;
}

// Halide's camera_pipe pattern: a producer computed per tile of its consumer covers a region of
// constant size, so it may be vectorized and unrolled with no factor. Bounds inference writes
// the loops' extents with the region's lets (g.s0.x.max - g.s0.x.min + 1); the passes see
// through them.
TEST(LoopKinds, VectorizeAndUnrollWithNoFactorOverAComputeAtRegionOfConstantSize) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = x * 3 + y;
    f(x, y) = g(x, y) * 2;
    f.tile(x, y, xo, yo, xi, yi, 16, 2).vectorize(xi);
    g.compute_at(f, xo).vectorize(x).unroll(y);
    std::string stmt = Pipeline(f).lowered_stmt();
    // Two rows of 16 lanes.
    EXPECT_EQ(stores_into(stmt, "g"), 2) << stmt;
    EXPECT_EQ(occurrences(block(stmt, "produce g"), ", 1, 16)] = "), 2) << stmt;
}

TEST(LoopOrder, Reorder) {
    Var x("x"), y("y"), c("c");
    Func f("f");
    f(x, y, c) = x + y + c;
    f.reorder(c, x, y);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.y", "f.s0.x", "f.s0.c")) << stmt;
}

TEST(LoopOrder, TileEightArgumentForm) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func f("f");
    f(x, y) = x + y;
    f.tile(x, y, xo, yo, xi, yi, 8, 4);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "f[("),
                ElementsAre("f.s0.y.yo", "f.s0.x.xo", "f.s0.y.yi", "f.s0.x.xi"))
        << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.y.yi, 0, 4) {")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, 8) {")) << stmt;
}

TEST(LoopOrder, TileSixArgumentFormReusesTheOuterNames) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Func f("f");
    f(x, y) = x + y;
    f.tile(x, y, xi, yi, 4, 2);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "f[("),
                ElementsAre("f.s0.y.y", "f.s0.x.x", "f.s0.y.yi", "f.s0.x.xi"))
        << stmt;
}

TEST(LoopOrder, FuseMakesOneLoopOverTheProductOfExtents) {
    Var x("x"), y("y"), t("t");
    Func f("f");
    f(x, y) = x + y;
    f.fuse(x, y, t).parallel(t);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("let f.s0.x.t.loop_extent = (f.extent.0 * f.extent.1)")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("parallel (f.s0.x.t, 0, f.s0.x.t.loop_extent) {")) << stmt;
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.x.t")) << stmt;
}

TEST(LoopOrder, UpdateStagesGetTheirOwnLoops) {
    Var x("x"), y("y");
    RDom r(0, 10);
    Func f("f");
    f(x, y) = x + y;
    f(x, y) += r;
    f.update(0).parallel(y).reorder(x, r);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "f[("), ElementsAre("f.s0.y", "f.s0.x")) << stmt;
    EXPECT_EQ(loop_kind(stmt, "f.s1.y"), "parallel") << stmt;
    // reorder(x, r): x inside the RVar loop.
    EXPECT_THAT(block(stmt, "parallel (f.s1.y"), HasSubstr("for (f.s1.r")) << stmt;
    std::string r_loop = block(stmt, "for (f.s1.r");
    EXPECT_THAT(r_loop, HasSubstr("for (f.s1.x, f.min.0, f.extent.0) {")) << stmt;
}

// ---------------------------------------------------------------------------------------------
// Tail strategies.

TEST(Tails, GuardWithIfSteadyStateHasNoBoundaryTest) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    std::string stmt = Pipeline(f).lowered_stmt();
    // The full blocks run without a test; the last block follows them, at most once, and runs
    // only the points left.
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xo, 0, (f.extent.0 / 8)) {")) << stmt;
    EXPECT_THAT(block(stmt, "for (f.s0.x.xo, 0, (f.extent.0 / 8)) {"), Not(HasSubstr("if (")))
        << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xo, max((f.extent.0 / 8), 0), "
                                "min((f.s0.x.xo.loop_extent - max((f.extent.0 / 8), 0)), 1)) {"))
        << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, min((f.extent.0 - (f.s0.x.xo * 8)), 8)) {"))
        << stmt;
    // The production tests nothing (the bounds query's branch is outside it).
    EXPECT_THAT(block(stmt, "produce f {"), Not(HasSubstr("if ("))) << stmt;
}

// The last block of an unrolled GuardWithIf split is a serial loop over the points left (an
// unrolled tail is `factor` guarded copies of the body to compile, run once); the full blocks
// stay unrolled. Every width from less than one block to several, with and without a tail.
TEST(Tails, GuardWithIfUnrolledTailIsASerialLoopOverThePointsLeft) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x * 3 + y;
    f.split(x, xo, xi, 4, TailStrategy::GuardWithIf).unroll(xi);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(block(stmt, "for (f.s0.x.xo, 0, (f.extent.0 / 4)) {"),
                Not(HasSubstr("for (f.s0.x.xi")))
        << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, min((f.extent.0 - (f.s0.x.xo * 4)), 4)) {"))
        << stmt;
    // The production tests nothing (the bounds query's branch is outside it).
    EXPECT_THAT(block(stmt, "produce f {"), Not(HasSubstr("if ("))) << stmt;
    for (int width : {1, 3, 4, 9, 12, 15}) {
        Buffer<int> out = f.realize({width, 2});
        for (int j = 0; j < 2; j++) {
            for (int i = 0; i < width; i++)
                ASSERT_EQ(out(i, j), i * 3 + j) << width << ": " << i << ", " << j;
        }
    }
}

// An update over an RDom split with GuardWithIf (an RVar's split must not compute extra points)
// and unrolled: the tail loop runs the last terms in order, so a float sum is the sequential
// one bit for bit, whatever the extent's remainder.
TEST(Tails, UnrolledReductionTailAddsTheLastTermsInOrder) {
    ImageParam in(Float(32), 1, "in");
    Var x("x");
    RVar ko("ko"), ki("ki");
    for (int extent : {8, 9, 10, 11}) {
        RDom r(0, extent, "r");
        Func f("f");
        f(x) = 0.5f;
        f(x) += in(r) * (x + 1.0f);
        f.update().split(r, ko, ki, 4, TailStrategy::GuardWithIf).unroll(ki);
        Buffer<float> input(extent);
        for (int i = 0; i < extent; i++)
            input(i) = 1.0f / (3.0f + i * 7.0f);
        in.set(input);
        Buffer<float> out = f.realize({5});
        for (int i = 0; i < 5; i++) {
            float want = 0.5f;
            for (int k = 0; k < extent; k++)
                want += input(k) * (i + 1.0f);
            ASSERT_EQ(out(i), want) << "extent " << extent << ", x " << i;
        }
    }
}

TEST(Tails, ShiftInwardsShiftsTheLastBlockBack) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 8, TailStrategy::ShiftInwards);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("min((f.s0.x.xo * 8), (f.extent.0 - 8))")) << stmt;
    // The production tests nothing (the bounds query's branch is outside it).
    EXPECT_THAT(block(stmt, "produce f {"), Not(HasSubstr("if ("))) << stmt;
}

TEST(Tails, RoundUpWritesWholeBlocksAndChecksTheOutput) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func f("f");
    f(x, y) = x + y;
    f.split(x, xo, xi, 8, TailStrategy::RoundUp);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("for (f.s0.x.xi, 0, 8) {")) << stmt;
    EXPECT_THAT(stmt, Not(HasSubstr("(f.extent.0 - 8)"))) << stmt;
    // The production tests nothing (the bounds query's branch is outside it).
    EXPECT_THAT(block(stmt, "produce f {"), Not(HasSubstr("if ("))) << stmt;
    EXPECT_THAT(stmt, HasSubstr("loom_error_output_too_small(\"f\", 0")) << stmt;
}

TEST(Tails, AutoRoundsUpALoopInsideTheBlocksOfAShiftInwardsSplit) {
    // Halide's rule for Auto: a split of the outer loop of a ShiftInwards split (here a tile's
    // outer loop, split again by 8) rounds up; the tile's own clamp keeps every point inside
    // the region. Shifted inwards instead, the 3 tiles of a 40-wide region would start 5 tiles
    // (80 points) before it and read the input there, which covers only the region.
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y"), xi("xi"), yi("yi"), xio("xio");
    Func g("g"), f("f");
    g(x, y) = in(x, y) * 3 + 1;
    f(x, y) = g(x, y) - y;
    g.compute_root().tile(x, y, xi, yi, 16, 4).split(x, x, xio, 8);
    Buffer<int32_t> input(40, 6);
    input.set_min({-7, 2});
    for (int j = 2; j < 8; j++)
        for (int i = -7; i < 33; i++) input(i, j) = i * 11 - j * 5;
    in.set(input);
    Buffer<int32_t> out(40, 6);
    out.set_min({-7, 2});
    f.realize(out);
    for (int j = 2; j < 8; j++)
        for (int i = -7; i < 33; i++) ASSERT_EQ(out(i, j), (i * 11 - j * 5) * 3 + 1 - j) << i << ", " << j;
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("for (g.s0.x.x.xio, 0, 8) {")) << stmt;
}

TEST(Tails, PartitionedUpdateOverAnEmptyRegionRunsNoIteration) {
    // f's blocks are split again, both GuardWithIf: in the last block its innermost loop runs
    // past the end of the output (the guard is around f's store), where g, computed per point
    // of f, has an empty region (max < min). g's update is split by 8 and partitioned into
    // whole blocks and a tail; the tail used to start at the region's extent / 8, negative for
    // an empty region, so it ran an iteration before the region and the image checks asked for
    // the input 58 points before what the pipeline reads. Its bounds also counted g's min twice
    // in (min(g's min, end) - g's min) / 8, asking for 64 points past the end.
    ImageParam in(Int(32), 1, "in");
    Var x("x"), xo("xo"), xi("xi"), xt("xt");
    Func g("g"), f("f");
    g(x) = in(x)*3;
    g(x) += in(x - 1) ^ x;
    f(x) = g(x) - 5;
    f.split(x, xo, xi, 8, TailStrategy::GuardWithIf)
        .split(xo, xo, xt, 8, TailStrategy::GuardWithIf);
    g.compute_at(f, xi);
    g.update().split(x, xo, xi, 8, TailStrategy::GuardWithIf);
    // f covers [7, 76], so the pipeline reads in over [6, 76]; Loom's image check asks for
    // one point more on the right (77: its bounds of the tail still lose a correlation there).
    // Before, the fuzz case this comes from (seed 149, pipeline 698) asked for [-58, 132] of
    // an input padded to [-46, 128].
    Buffer<int32_t> input(72);
    input.set_min({6});
    for (int i = 6; i <= 77; i++)
        input(i) = i * 7 - 100;
    in.set(input);
    Buffer<int32_t> out(70);
    out.set_min({7});
    f.realize(out);
    for (int i = 7; i <= 76; i++) {
        ASSERT_EQ(out(i), ((i * 7 - 100) * 3 + (((i - 1) * 7 - 100) ^ i)) - 5) << "at " << i;
    }
}

TEST(Tails, RoundUpOnAProducerRoundsItsAllocationUp) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func g("g"), f("f");
    g(x, y) = x * y;
    f(x, y) = g(x, y) + g(x + 1, y);
    f.split(x, xo, xi, 8);
    g.compute_at(f, xo).split(x, xo, xi, 4, TailStrategy::RoundUp);
    std::string stmt = Pipeline(f).lowered_stmt();
    // f's block of 8 reads 9 columns of g: rounded up to 12.
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * 12 * 1]")) << stmt;
}

// ---------------------------------------------------------------------------------------------
// Where Funcs are allocated and computed.

TEST(Allocation, ComputeRootAllocatesOutsideEveryLoop) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    g.compute_root();
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), IsEmpty()) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce g"), IsEmpty()) << stmt;
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * (f.extent.0 + 2) * (f.extent.1 + 2)]")) << stmt;
    EXPECT_LT(stmt.find("allocate g["), stmt.find("produce f")) << stmt;
    EXPECT_LT(stmt.find("produce g"), stmt.find("produce f")) << stmt;
}

TEST(Allocation, ComputeAtAnInnerLoopAllocatesInsideIt) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    f.tile(x, y, xo, yo, xi, yi, 8, 4);
    g.compute_at(f, xo);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("f.s0.y.yo", "f.s0.x.xo")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce g"), ElementsAre("f.s0.y.yo", "f.s0.x.xo")) << stmt;
    EXPECT_THAT(loops_around(stmt, "free g"), ElementsAre("f.s0.y.yo", "f.s0.x.xo")) << stmt;
    // One tile of 8 x 4 reads 10 x 6 of g: a constant size.
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * 10 * 6]")) << stmt;
}

TEST(Allocation, ComputeAtARowAllocatesOneRowsWorth) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    g.compute_at(f, y);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("f.s0.y")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * (f.extent.0 + 2) * 3]")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (g.s0.y, f.s0.y, 3) {")) << stmt;
}

TEST(Allocation, ComputeAtAParallelLoopAllocatesPerIteration) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x, y) + g(x, y + 1);
    f.parallel(y);
    g.compute_at(f, y);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_EQ(loop_kind(stmt, "f.s0.y"), "parallel") << stmt;
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("f.s0.y")) << stmt;
}

TEST(Allocation, StoreRootComputeAtARowSlidesTheWindow) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x, y - 1) + g(x, y + 1);
    g.store_root().compute_at(f, y);
    std::string stmt = Pipeline(f).lowered_stmt();
    // Storage outside the loops, folded to the 3 rows a row of f touches rounded up to a
    // power of two (lower/StorageFolding); computation inside the row loop.
    EXPECT_THAT(loops_around(stmt, "allocate g["), IsEmpty()) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce g"), ElementsAre("f.s0.y")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * f.extent.0 * 4]")) << stmt;
    // The first row computes 3 rows of g, each later one the 1 new row.
    EXPECT_THAT(
        stmt, HasSubstr("let g.s0.y.min = select((f.s0.y > f.min.1), (f.s0.y + 1), (f.s0.y - 1))"))
        << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (g.s0.y, g.s0.y.min, ((f.s0.y - g.s0.y.min) + 2)) {")) << stmt;
}

TEST(Allocation, StoreAtAnOuterLoopComputeAtAnInnerOne) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    f.tile(x, y, xo, yo, xi, yi, 8, 4);
    g.store_at(f, yo).compute_at(f, xo);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("f.s0.y.yo")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce g"), ElementsAre("f.s0.y.yo", "f.s0.x.xo")) << stmt;
    EXPECT_THAT(loops_around(stmt, "free g"), ElementsAre("f.s0.y.yo")) << stmt;
    // A strip of tiles: 6 rows, as wide as the strip.
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * g.extent.0 * 6]")) << stmt;
}

TEST(Allocation, ComputeInlineAllocatesNothing) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    g.compute_root().compute_inline();
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, Not(HasSubstr("allocate"))) << stmt;
    EXPECT_THAT(stmt, Not(HasSubstr("produce g"))) << stmt;
}

TEST(Allocation, ComputeAtVarOutermostIsInsideTheProductionOutsideItsLoops) {
    Var x("x"), y("y");
    Func g("g"), f("f"), out("out");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 1, y + 2);
    out(x, y) = f(x, y);
    f.compute_at(out, y);
    g.compute_at(f, Var::outermost());
    std::string stmt = Pipeline(out).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("out.s0.y")) << stmt;
    EXPECT_THAT(block(stmt, "produce f {"), HasSubstr("allocate g[")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce g"), ElementsAre("out.s0.y")) << stmt;
}

TEST(Allocation, ComputeAtALoopOfAnUpdateStage) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = x;
    f(x, y) += g(x - 1, y) + g(x + 1, y + 2);
    g.compute_at(f.update(0).at(y));
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(loops_around(stmt, "allocate g["), ElementsAre("f.s1.y")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * (f.extent.0 + 2) * 3]")) << stmt;
}

// ---------------------------------------------------------------------------------------------
// Vector widths in the generated code.

TEST(VectorCode, EightFloatLanesAreYmmLoadsAndStores) {
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.vectorize(x, 8);
    Pipeline p(f);
    Target avx2("x86-64-linux-avx2-fma");
    std::string ir = p.llvm_ir(avx2), assembly = p.assembly(avx2);
    EXPECT_THAT(ir, HasSubstr("load <8 x float>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <8 x float>")) << ir;
    EXPECT_THAT(assembly, HasSubstr("ymm")) << assembly;
    EXPECT_THAT(assembly, Not(HasSubstr("zmm"))) << assembly;
}

TEST(VectorCode, SixteenFloatLanesAreZmmWithAvx512) {
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.vectorize(x, 16);
    Pipeline p(f);
    Target avx512("x86-64-linux-avx512-avx512_skylake");
    std::string ir = p.llvm_ir(avx512), assembly = p.assembly(avx512);
    EXPECT_THAT(ir, HasSubstr("load <16 x float>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <16 x float>")) << ir;
    EXPECT_THAT(assembly, HasSubstr("zmm")) << assembly;
    // Without AVX-512 the same 16 lanes are two ymm halves.
    std::string avx2_assembly = p.assembly(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(avx2_assembly, HasSubstr("ymm")) << avx2_assembly;
    EXPECT_THAT(avx2_assembly, Not(HasSubstr("zmm"))) << avx2_assembly;
}

TEST(VectorCode, ThirtyTwoByteLanes) {
    Buffer<uint8_t> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + in(x, y + 1);
    f.vectorize(x, 32);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("load <32 x i8>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <32 x i8>")) << ir;
}

TEST(VectorCode, StencilSteadyStateUsesDenseVectorLoadsNotGathers) {
    // Three taps at x - 1, x, x + 1: each is a dense load of 8 consecutive floats at an offset,
    // never a gather or a lane-by-lane assembly of the vector.
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    in.set_min(-1, 0);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    f.vectorize(x, 8);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    EXPECT_EQ(occurrences(stmt, "in[ramp("), 3) << stmt;
    EXPECT_EQ(occurrences(block(stmt, "produce f"), ", 1, 8)]"), 4) << stmt;  // 3 loads, 1 store
    Target avx2("x86-64-linux-avx2-fma");
    std::string ir = p.llvm_ir(avx2), assembly = p.assembly(avx2);
    EXPECT_EQ(occurrences(ir, "load <8 x float>"), 3) << ir;
    EXPECT_EQ(occurrences(ir, "store <8 x float>"), 1) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement <8 x float>"))) << ir;
    EXPECT_THAT(assembly, Not(HasSubstr("gather"))) << assembly;
    EXPECT_THAT(assembly, Not(HasSubstr("vinsertps"))) << assembly;
}

/** The LLVM IR of the first basic block whose label starts with `label`, up to the next label. */
std::string ir_block(const std::string &ir, const std::string &label) {
    std::string out;
    bool in_block = false;
    for (const std::string &line : lines_of(ir)) {
        bool is_label = !line.empty() && line[0] != ' ' && line.find(':') != std::string::npos &&
                        line.find("define") != 0;
        if (is_label && in_block) break;
        if (is_label && (line.compare(0, label.size(), label) == 0 ||
                         line.compare(0, label.size() + 1, "\"" + label) == 0))
            in_block = true;
        if (in_block) out += line + "\n";
    }
    return out.empty() ? "<no block " + label + ">" : out;
}

// An address in the innermost loop is its 64-bit induction variable (times a constant step)
// plus a base computed outside the loop: no 32-bit index sum sign-extended per load, so that
// the loads of a reduction walk by pointer increments. (The reduction's extent is a Param: of a
// constant 64, LLVM unrolls the loop whole and vectorizes across x, as it may now that a store
// to the output never changes the input.)
TEST(VectorCode, InnermostLoopAddressesAdvanceByAFixedStep) {
    ImageParam in(Float(32), 2, "in");
    Param<int> n("n");
    Var x("x"), y("y");
    RDom r(0, n, "r");
    Func f("f");
    f(x, y) = 0.0f;
    f(x, y) += in(r, x + y);
    std::string loop =
        ir_block(Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma")), "f.s1.r$x.loop\":");  // not its preheader
    EXPECT_GE(occurrences(loop, "load float"), 1) << loop;
    EXPECT_EQ(occurrences(loop, "sext"), 0) << loop;
    Buffer<float> input(std::vector<int>{64, 20}, "input");
    for (int yy = 0; yy < 20; yy++)
        for (int k = 0; k < 64; k++)
            input(k, yy) = (float)((k * 7 + yy * 3) % 11);
    in.set(input);
    n.set(64);
    Buffer<float> out = f.realize({10, 10});
    for (int yy = 0; yy < 10; yy++) {
        for (int xx = 0; xx < 10; xx++) {
            float expected = 0.0f;
            for (int k = 0; k < 64; k++)
                expected += input(k, xx + yy);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// A split's inner loop the schedule leaves scalar (16 points of x, a user's first schedule)
// becomes vector code: its point is a let of the loop variable plus the split's base, which
// the uses read as `base + xi` (lower/PeelLoopVariables.h), so that LLVM, unrolling the 16
// iterations, finds the loads and stores consecutive and combines them. Each read as its own
// 32-bit sum, sign-extended, they stayed 16 scalar loads (8x Halide's time on the performance
// fuzzer's pair 235 of seed 2026).
TEST(VectorCode, ScalarInnerLoopOfASplitBecomesVectorCode) {
    Buffer<int32_t> in(std::vector<int>{70, 9}, "in");
    for (int yy = 0; yy < 9; yy++)
        for (int xx = 0; xx < 70; xx++)
            in(xx, yy) = xx * 1001 - yy * 77;
    Var x("x"), y("y"), xi("xi");
    Func f("f");
    f(x, y) = cast<uint16_t>(y) ^ cast<uint16_t>(in(x + 2, y + 1));
    f.split(x, x, xi, 16);
    std::string ir = Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <16 x i16>"), 1) << ir;  // one store of the 16 points
    Buffer<uint16_t> out = f.realize({60, 8});
    for (int yy = 0; yy < 8; yy++) {
        for (int xx = 0; xx < 60; xx++) {
            EXPECT_EQ(out(xx, yy), (uint16_t)((uint16_t)yy ^ (uint16_t)in(xx + 2, yy + 1))) << xx << ", " << yy;
        }
    }
}

// The scalar tail of a vectorized argmin over 4 rows of bytes (GuardWithIf): LLVM unrolls
// the 4-tap minimum, and LLVM 19's SLP vectorizer would turn the minimum of the bytes' 32-bit
// zero extensions into a signed byte minimum, wrong for bytes of 128 and above (the
// schedule-invariance fuzzer's seed 7, pipeline 62). Its horizontal reductions are off
// (codegen/LLVMTarget.cpp).
TEST(VectorCode, MinimumOfBytesUnrolledByLLVMStaysUnsigned) {
    Buffer<float> in(std::vector<int>{40, 30}, "in");
    in.set_min({0, -1});
    for (int yy = -1; yy < 29; yy++)
        for (int xx = 0; xx < 40; xx++)
            in(xx, yy) = (float)((xx * 37 + yy * 101 + 400) % 300) - 20.0f;
    Var x("x"), y("y");
    RDom r(-1, 4, "r");
    Func bytes("bytes"), f("f");
    bytes(x, y) = cast<uint8_t>(clamp(in(x, y), 0.0f, 255.0f));
    f(x, y) = argmin(cast<int32_t>(bytes(x + 1, y + r.x) - (cast<uint8_t>(y) & cast<uint8_t>(11))))[1] + 52;
    f.vectorize(x, 16, TailStrategy::GuardWithIf);
    Buffer<int32_t> out = f.realize({23, 20});
    for (int yy = 0; yy < 20; yy++) {
        for (int xx = 0; xx < 23; xx++) {
            int best = 1 << 30;
            for (int k = -1; k < 3; k++) {
                float v = std::min(std::max(in(xx + 1, yy + k), 0.0f), 255.0f);
                best = std::min(best, (int)(uint8_t)((uint8_t)v - (uint8_t)(yy & 11)));
            }
            EXPECT_EQ(out(xx, yy), best + 52) << xx << ", " << yy;
        }
    }
}

// A nest of a few constant iterations (an argmin's 2 x 2 taps per pixel, no schedule) may be
// unrolled whole by LLVM, though its outer loop is around a loop: the pixel loop is then
// innermost and LLVM vectorizes it, as Halide's code is (fuzz seed 2026 pair 285: 10x Halide's
// time with the taps' outer loop kept).
TEST(VectorCode, SmallConstantNestInsideAPixelLeavesThePixelLoopVectorizable) {
    Buffer<int32_t> in(std::vector<int>{80, 12}, "in");
    in.set_min({0, -2});
    for (int yy = -2; yy < 10; yy++)
        for (int xx = 0; xx < 80; xx++)
            in(xx, yy) = (xx * 53 + yy * 29) % 1000;
    Var x("x"), y("y");
    RDom r(-2, 2, -1, 2, "r");
    Func f("f");
    f(x, y) = cast<int32_t>(argmin(cast<uint8_t>(in(x, y + r.x)) ^ cast<uint8_t>(11))[2]);
    std::string ir = Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <"), 1) << ir;
    Buffer<int32_t> out = f.realize({80, 8});
    for (int yy = 0; yy < 8; yy++) {
        for (int xx = 0; xx < 80; xx++) {
            int best = 255;
            for (int k = -2; k < 0; k++) best = std::min(best, (int)(uint8_t)((uint8_t)in(xx, yy + k) ^ 11));
            EXPECT_EQ(out(xx, yy), best) << xx << ", " << yy;
        }
    }
}

// The 7 points of a split, each a minimum over 12 taps: LLVM unrolls the taps, and the points'
// loop becomes innermost. Its addresses separate that loop's variable as well as the taps'
// (codegen_offset), so LLVM vectorizes it without the run-time overflow checks it refuses for
// a loop of 7 iterations (fuzz seed 2026 pair 363: 6x Halide's time, 1.5x after).
TEST(VectorCode, LoopAroundUnrolledTapsIsVectorized) {
    Buffer<int16_t> in(std::vector<int>{300}, "in");
    in.set_min({-1});
    for (int i = -1; i < 299; i++) in(i) = (int16_t)((i * 37 + 101) % 101 - 50);
    Var x("x"), xo("xo"), xi("xi");
    RDom r(-1, 4, -2, 3, "r");
    Func f("f");
    f(x) = cast<float>(argmin(cast<float>(in(x + r.x)))[0]) + cast<float>(in(x));
    f.split(x, xo, xi, 7);
    // LLVM's cost model vectorizes it for AVX-512 (without the separated terms: 3 float
    // vector operations in the module, all outside this loop; with them, dozens).
    Target avx512("x86-64-linux-avx2-fma-avx512-avx512_skylake");
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_GE(occurrences(ir, "x float>"), 20) << ir;
    Buffer<float> out = f.realize({280});
    for (int xx = 0; xx < 280; xx++) {
        // argmin's first coordinate: the first tap (r.y outer, r.x inner) holding the minimum.
        int best_at = 0;
        float best = INFINITY;
        for (int ry = -2; ry < 1; ry++) {
            for (int rx = -1; rx < 3; rx++) {
                if ((float)in(xx + rx) < best) {
                    best = (float)in(xx + rx);
                    best_at = rx;
                }
            }
        }
        EXPECT_EQ(out(xx), (float)best_at + (float)in(xx)) << xx;
    }
}

// LLVM doesn't unroll a loop around other loops behind the schedule's back: the channel loop
// (constant trip count 4) around the vectorized x loop stays a loop, so the store appears once
// (LLVM's full unrolling made four copies of the x loop). The schedule's unroll() still does.
TEST(VectorCode, LoopsAroundLoopsAreUnrolledOnlyByTheSchedule) {
    Buffer<float> in(std::vector<int>{64, 8, 4}, "in");
    Var x("x"), y("y"), c("c");
    Func f("f");
    f(x, y, c) = in(x, y, c) * 2.0f + in(x, y, 3);
    f.bound(c, 0, 4).reorder(x, c, y).vectorize(x, 8);
    Target avx2("x86-64-linux-avx2-fma");
    EXPECT_EQ(occurrences(Pipeline(f).llvm_ir(avx2), "store <8 x float>"), 1);
    f.unroll(c);
    EXPECT_EQ(occurrences(Pipeline(f).llvm_ir(avx2), "store <8 x float>"), 4);
}

// Where every loop runs in parallel tasks, the entry function is straight-line setup and is
// compiled without optimization (optnone); where a loop runs in it, it is optimized. Both
// compute the same values.
TEST(VectorCode, EntryFunctionIsOptimizedOnlyWhereItLoops) {
    Var x("x"), y("y");
    Func serial("serial"), parallel("parallel");
    serial(x, y) = x * 2 + y;
    parallel(x, y) = x * 2 + y;
    serial.vectorize(x, 8);
    parallel.vectorize(x, 8).parallel(y);
    Target avx2("x86-64-linux-avx2-fma");
    EXPECT_THAT(Pipeline(serial).llvm_ir(avx2), Not(HasSubstr("optnone")));
    EXPECT_THAT(Pipeline(parallel).llvm_ir(avx2), HasSubstr("optnone"));
    Buffer<int> a = serial.realize({24, 5}), b = parallel.realize({24, 5});
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 0; xx < 24; xx++) {
            EXPECT_EQ(a(xx, yy), xx * 2 + yy);
            EXPECT_EQ(b(xx, yy), xx * 2 + yy);
        }
    }
}

TEST(VectorCode, StencilOverAComputeAtProducerUsesDenseVectorLoads) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func g("g"), f("f");
    g(x, y) = x * 3 + y;
    f(x, y) = g(x - 1, y) + g(x, y) * 2 + g(x + 1, y);
    f.split(x, xo, xi, 8).vectorize(xi);
    g.compute_at(f, xo).vectorize(x, 8, TailStrategy::RoundUp);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("load <8 x i32>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <8 x i32>")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

}  // namespace

// A Func computed per tile of its consumer covers a region of constant size even when its
// bounds are written through the tile's lets (ShiftInwards tails, an update's region): the
// allocation gets that constant size, and codegen puts it on the stack, where LLVM can keep it
// in registers, instead of calling loom_malloc per tile. The result must not change.
TEST(Allocation, TileOfAComputeAtReductionIsConstantSizeAndOnTheStack) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    RDom k(0, 16, "k");
    Func in("in"), acc("acc"), out("out");
    in(x, y) = x * 3 - y * 2;
    acc(x, y) = 0;
    acc(x, y) += in(k, y) * in(x, k);
    out(x, y) = acc(x, y) + 1;
    out.tile(x, y, xo, yo, xi, yi, 16, 4).vectorize(xi, 8);
    in.compute_root();
    acc.compute_at(out, xo).vectorize(x, 8);
    acc.update().vectorize(x, 8);
    Pipeline p(out);
    std::string stmt = p.lowered_stmt();
    EXPECT_NE(stmt.find("allocate acc[int32 * 16 * 4]"), std::string::npos) << stmt;
    std::string ir = p.llvm_ir();
    // Only `in` (compute_root, not of constant size) comes from the heap; the tile is on the
    // stack, or promoted to registers by LLVM.
    EXPECT_EQ(occurrences(ir, "call ptr @loom_malloc"), 1) << ir;
    Buffer<int32_t> result = out.realize({37, 10});  // tails in both dimensions
    for (int yy = 0; yy < 10; yy++) {
        for (int xx = 0; xx < 37; xx++) {
            int32_t want = 1;
            for (int kk = 0; kk < 16; kk++) want += (kk * 3 - yy * 2) * (xx * 3 - kk * 2);
            ASSERT_EQ(result(xx, yy), want) << "at (" << xx << ", " << yy << ")";
        }
    }
}

// A partition's edge can be most of the loop: here the steady state of x is where both x and
// 2x - 2 lie inside the input, about half the row, and the epilogue is the other half. LLVM
// vectorizes the epilogue as well as the steady state (the schedule left both scalar); left
// scalar, such an edge ran 3x Halide's time (fuzz seed 2026 pair 311).
TEST(VectorCode, AnEdgeHalfTheRowLongIsVectorizedLikeTheSteadyState) {
    Buffer<uint8_t> in(std::vector<int>{400, 6}, "in");
    for (int yy = 0; yy < 6; yy++)
        for (int xx = 0; xx < 400; xx++)
            in(xx, yy) = (uint8_t)(xx * 13 + yy * 7);
    Var x("x"), y("y");
    Func mirrored = BoundaryConditions::mirror_image(in, {{0, 400}}); // columns only
    Func f("f");
    f(x, y) = cast<int32_t>(mirrored(x, y)) ^ cast<int32_t>(mirrored(x * 2 - 2, y));
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "\nvector.body"), 2) << ir; // the steady state's and the epilogue's
    Buffer<int32_t> out = p.realize({400, 6});
    auto mirror = [](int c) { return c < 0 ? -1 - c : c >= 400 ? 799 - c : c; };
    for (int yy = 0; yy < 6; yy++) {
        for (int xx = 0; xx < 400; xx++) {
            int expected = (int)in(mirror(xx), yy) ^ (int)in(mirror(xx * 2 - 2), yy);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}
