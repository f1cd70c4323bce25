// Tests that inspect the lowered loop nest of representative schedules.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <loom.h>

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

}  // namespace
