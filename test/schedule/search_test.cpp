// The search scheduler (lower/autoschedule/Search.h) and its cost model
// (lower/autoschedule/CostModel.h): the model's estimates of hand-written schedules move the way
// the machine does (a root intermediate costs memory, recompute costs arithmetic, vectors and
// parallel loops save time, a register tile saves loads), and the search's schedules give the
// unscheduled pipeline's bits, cost no more than the heuristic's under the model, and keep to
// the budget.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

#include <loom.h>

#include "CompileErrorOf.h"
#include "StencilsPipeline.h"
#include "lower/Lower.h"
#include "lower/autoschedule/CostModel.h"
#include "lower/autoschedule/Heuristic.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"
#include "lower/autoschedule/Search.h"

namespace {

using namespace loom;
using namespace loom::Internal::autoschedule;
using loom_test::compile_error_of;
using loom_test::differing;
using loom_test::image;
using loom_test::run;
using loom_test::Stencils;
using ::testing::HasSubstr;

/** A machine of two cores with 256-bit vectors and the caches of a server core, whatever this
 * one is: the estimates below are about the model, not the host. */
MachineModel model_machine() {
    MachineModel m;
    m.cores = 2;
    m.vector_bytes = 32;
    m.l1_bytes = 32 << 10;
    m.l2_bytes = 1 << 20;
    m.llc_bytes = 32 << 20;
    m.balance = 40;
    return m;
}

/** The model's estimate for `out` as it is scheduled now, at its estimates. */
CostEstimate estimate(Func out) {
    std::vector<Internal::FunctionPtr> outputs{out.function()};
    std::ostringstream log;
    const Internal::LoweredPipeline lowered =
        Internal::lower(outputs, out.name(), get_host_target(), CompileOptions(), {}, log);
    PipelineGraph graph(outputs, [](const std::string &) {});
    CostEstimate e = estimate_cost(lowered.body, model_machine(), run_sizes(lowered.args, graph));
    EXPECT_EQ(e.unknown_extents, 0) << "every loop's extent evaluates at the estimates";
    return e;
}

// A vertical blur of a horizontal one over a 4096 x 4096 image (64 MiB: past the last level).
struct Blur {
    ImageParam input{Float(32), 2, "input"};
    Func bx{"bx"}, by{"by"};
    Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"};
    Blur() {
        Func clamped = BoundaryConditions::repeat_edge(input);
        bx(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) * 0.25f;
        by(x, y) = (bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) * 0.25f;
        input.set_estimates({{0, 4096}, {0, 4096}});
        by.set_estimates({{0, 4096}, {0, 4096}});
    }
};

TEST(CostModel, ARootIntermediateOfALargeImageCostsMemory) {
    Blur root, rows;
    root.bx.compute_root();
    // Per strip of 16 rows: 18 rows of bx, 288 KiB, in L2.
    rows.by.split(rows.y, rows.yo, rows.yi, 16);
    rows.bx.compute_at(rows.by, rows.yo);
    const CostEstimate at_root = estimate(root.by), in_strips = estimate(rows.by);
    EXPECT_GT(at_root.memory, 1.4 * in_strips.memory);
    // The strips recompute 2 rows of bx in 16.
    EXPECT_GT(in_strips.arithmetic, at_root.arithmetic);
    EXPECT_LT(in_strips.arithmetic, 1.3 * at_root.arithmetic);
    EXPECT_GT(at_root.cycles, in_strips.cycles);
}

TEST(CostModel, RecomputeCostsArithmetic) {
    Blur per_row, once;
    // Each row of by computes 3 rows of bx.
    per_row.bx.compute_at(per_row.by, per_row.y);
    once.by.split(once.y, once.yo, once.yi, 16);
    once.bx.compute_at(once.by, once.yo);
    const CostEstimate recomputed = estimate(per_row.by), strips = estimate(once.by);
    EXPECT_GT(recomputed.arithmetic, 1.5 * strips.arithmetic);
}

TEST(CostModel, VectorsAndParallelStripsSaveTime) {
    // bx inlined: by's loops are the whole pipeline's.
    Blur scalar, vector, parallel;
    vector.by.vectorize(vector.x, 8);
    parallel.by.vectorize(parallel.x, 8);
    parallel.by.split(parallel.y, parallel.yo, parallel.yi, 64).parallel(parallel.yo);
    const CostEstimate s = estimate(scalar.by), v = estimate(vector.by), p = estimate(parallel.by);
    EXPECT_LT(v.arithmetic, 0.5 * s.arithmetic);
    EXPECT_LT(v.cycles, s.cycles);
    // Two cores: about half, plus handing out the strips.
    EXPECT_LT(p.cycles, 0.6 * v.cycles);
    EXPECT_GT(p.cycles, 0.45 * v.cycles);
}

TEST(CostModel, ARegisterTileSavesLoads) {
    // The heuristic's register tile against one vector accumulated at a time, in the same
    // schedule otherwise (both accumulate in registers).
    auto product = [](std::pair<int, int> tile) {
        ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
        Var x{"x"}, y{"y"};
        Func c{"c"}, out{"out"};
        RDom k(0, 512, "k");
        c(x, y) = 0.0f;
        c(x, y) += a(k, y) * b(x, k);
        out(x, y) = c(x, y) * 2.0f;
        a.set_estimates({{0, 512}, {0, 512}});
        b.set_estimates({{0, 512}, {0, 512}});
        out.set_estimates({{0, 512}, {0, 512}});
        Choices asked;
        asked.tile["c/1"] = tile;
        Choices made;
        heuristic_schedule(
            {out.function()}, get_host_target().without_feature(Target::AVX512),
            MachineParams(2, 32 << 20, 40), [](const std::string &) {}, asked, &made);
        EXPECT_EQ(made.tile["c/1"], tile);
        return estimate(out);
    };
    const CostEstimate one = product({1, 1}), tiled = product({4, 2});
    EXPECT_LT(tiled.memory, 0.5 * one.memory);
    EXPECT_LT(tiled.cycles, one.cycles);
}

TEST(Search, ItsScheduleGivesTheUnscheduledBitsAndCostsNoMoreThanTheHeuristics) {
    const Buffer<float> in = image(512, 384);
    Stencils plain, searched;
    SearchReport report;
    SearchOptions options;
    options.budget_seconds = 20;
    const std::string summary = search_schedule(
        {searched.out.function()}, Target(), MachineParams(2, 32 << 20, 40),
        [](const std::string &) {}, options, &report);
    EXPECT_THAT(summary, HasSubstr("Search: "));
    EXPECT_THAT(summary, HasSubstr("Heuristic auto-schedule for"));
    EXPECT_GT(report.costed, 1);
    EXPECT_GE(report.rounds, 1);
    EXPECT_LE(report.chosen_cycles, report.heuristic_cycles);
    EXPECT_GT(report.chosen_cycles, 0);
    EXPECT_EQ(differing(run(searched, in), run(plain, in)), 0);
}

TEST(Search, KeepsToItsBudget) {
    Stencils s;
    SearchReport report;
    SearchOptions none;
    none.budget_seconds = 0;
    search_schedule(
        {s.out.function()}, Target(), MachineParams(2, 32 << 20, 40), [](const std::string &) {},
        none, &report);
    // The heuristic's schedule alone is costed, and kept.
    EXPECT_EQ(report.costed, 1);
    EXPECT_EQ(report.chosen, report.heuristic);

    SearchOptions short_budget;
    short_budget.budget_seconds = 0.3;
    const auto start = std::chrono::steady_clock::now();
    search_schedule(
        {s.out.function()}, Target(), MachineParams(2, 32 << 20, 40), [](const std::string &) {},
        short_budget, &report);
    const double took =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // The budget, plus the one candidate under way and the schedule applied at the end.
    EXPECT_LT(took, 0.3 + 5.0);
}

TEST(Search, RunsAsAutoScheduleSearchWithItsBudgetFromTheEnvironment) {
    const Buffer<float> in = image(512, 384);
    Stencils plain, searched;
    setenv("LOOM_SEARCH_BUDGET", "2", 1);
    Pipeline p(searched.out);
    const AutoSchedulerResults r =
        p.auto_schedule("Search", Target(), MachineParams(2, 32 << 20, 40));
    EXPECT_EQ(r.scheduler_name, "Search");
    EXPECT_THAT(r.schedule_source, HasSubstr("// Search: "));
    EXPECT_THAT(r.schedule_source, HasSubstr("inline void apply_schedule_out("));
    EXPECT_EQ(differing(run(searched, in), run(plain, in)), 0);

    setenv("LOOM_SEARCH_BUDGET", "soon", 1);
    Stencils again;
    Pipeline q(again.out);
    EXPECT_THAT(compile_error_of([&] { q.auto_schedule("Search", Target()); }),
                HasSubstr("LOOM_SEARCH_BUDGET=soon: give the budget in seconds"));
    unsetenv("LOOM_SEARCH_BUDGET");
}

} // namespace
