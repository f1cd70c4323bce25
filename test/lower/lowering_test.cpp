// Tests that inspect the lowered loop nest of representative schedules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include <loom.h>

#include "ChainTestUtil.h"

using namespace loom;
using testing::HasSubstr;
using testing::Not;

namespace {

TEST(Lowering, InlineProducerHasNoAllocation) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x, y) * 2;
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, Not(HasSubstr("allocate g"))) << stmt;
    EXPECT_THAT(stmt, HasSubstr("produce f")) << stmt;
}

TEST(Lowering, ComputeRootAllocatesTheRegionConsumersRead) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x + y;
    f(x, y) = g(x - 1, y) + g(x + 2, y);
    g.compute_root();
    std::string stmt = Pipeline(f).lowered_stmt();
    // g covers [f.min.0 - 1, f.max.0 + 2] in x: 3 more columns than f, and f's rows.
    EXPECT_THAT(stmt, HasSubstr("allocate g[int32 * (f.extent.0 + 3) * f.extent.1]")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("for (g.s0.x, (f.min.0 - 1), (f.extent.0 + 3))")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("free g")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("produce g")) << stmt;
    EXPECT_THAT(stmt, HasSubstr("consume g")) << stmt;
}

TEST(Lowering, InputsAreCheckedAtEntry) {
    Var x("x");
    ImageParam in(UInt(8), 1, "in");
    Func f("f");
    f(x) = in(x + 3);
    std::string stmt = Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, HasSubstr("loom_error_access_out_of_bounds(\"in\", 0")) << stmt;
}

TEST(Lowering, LoweredStmtAndAssemblyAreAvailable) {
    Var x("x");
    Func f("f");
    f(x) = x * 3;
    Pipeline p(f);
    EXPECT_THAT(p.llvm_ir(), HasSubstr("define"));
    EXPECT_THAT(p.assembly(), HasSubstr("loom_pipelinef"));
}

// As Halide writes it (its StmtOutputFormat is unscoped): Text, unqualified.
TEST(Lowering, LoweredStmtIsWrittenToAFileAsHalideNamesIt) {
    namespace Halide = loom;
    Halide::Var x("x");
    Halide::Func tripled("tripled");
    tripled(x) = x * 3;
    const std::string path = testing::TempDir() + "loom_lowered_stmt_test.stmt";
    tripled.compile_to_lowered_stmt(path, {}, Halide::Text);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    EXPECT_THAT(text.str(), HasSubstr("produce tripled")) << text.str();
    std::remove(path.c_str());
}

// Each producer's region is written in the names of its consumers' region lets, all placed at
// the top. Expanded into one another instead, the regions of a chain of vectorized root stages
// tripled in size per stage (a chain of 10 took minutes to lower; found by apps/local_laplacian).
TEST(Lowering, RegionsOfAChainOfRootFuncsStaySmall) {
    const int stages = 10, w = 40, h = 6;
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    Func prev = BoundaryConditions::repeat_edge(in);
    for (int i = 0; i < stages; i++) {
        Func g("f" + std::to_string(i));
        g(x, y) = prev(x, y) + prev(x + 1, y);
        g.compute_root().parallel(y, 4).vectorize(x, 16);
        prev = g;
    }
    Pipeline p(prev);
    std::string stmt = p.lowered_stmt();
    EXPECT_LT(stmt.size(), 60000u) << stmt;

    // And the values: the last stage sums the input at x .. x + stages with binomial weights.
    loom_test::expect_chain_values(p, in, w, h, stages, 1, 0);
}

// Funcs computed in one loop of their consumer, each reading the last: each one's region is
// written in terms of its consumer's, through a GuardWithIf split that names both ends of the
// consumer's region several times. Expanded into each producer's, those regions grew
// exponentially with the chain's length (an auto-scheduled camera_pipe with four Funcs in one
// strip loop: 21 MB of IR, 15 s of bounds inference); bounds inference names the large ones.
TEST(Lowering, RegionsOfAChainOfFuncsInOneLoopStaySmall) {
    const int stages = 8, w = 70, h = 9;
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y"), xv("xv"), yo("yo"), yi("yi");
    Func prev = BoundaryConditions::repeat_edge(in);
    std::vector<Func> members;
    for (int i = 0; i < stages; i++) {
        Func g("g" + std::to_string(i));
        g(x, y) = prev(x, y) + prev(x + 1, y);
        members.push_back(g);
        prev = g;
    }
    Func out("out");
    out(x, y) = prev(x, y);
    out.split(y, yo, yi, 4, TailStrategy::GuardWithIf)
        .split(x, x, xv, 16, TailStrategy::GuardWithIf)
        .vectorize(xv)
        .parallel(yo);
    for (Func &g : members) {
        g.compute_at(out, yi).split(x, x, xv, 16, TailStrategy::GuardWithIf).vectorize(xv);
    }
    Pipeline p(out);
    std::string stmt = p.lowered_stmt();
    EXPECT_LT(stmt.size(), 200000u);

    loom_test::expect_chain_values(p, in, w, h, stages, 1, 0);
}

}  // namespace
