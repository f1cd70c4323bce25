// loom_bench's table of automatic schedules (issue 34): for each app, Loom's heuristic
// auto-scheduler, Loom's autotuner (its budget from LOOM_AUTOTUNE_BUDGET) and Halide 14's
// Mullapudi2016, Adams2019 and Li2018 on the same algorithm (the app's .inc with no schedule,
// estimates from the app's buffers, MachineParams of this machine), each checked against the app's
// C++ reference and timed back to back with Loom's hand schedule: its column is the median over the
// pairs of auto time / hand time, beside the seconds the scheduler itself took.
#pragma once

// HalideRunner.h first: see there.
#include "apps/common/HalideRunner.h"

#include <functional>
#include <string>
#include <vector>

#include "apps/bench/BenchCommon.h"

namespace loom_bench {

struct AutoColumn {
    loom_apps::Variant variant;
    loom_apps::Runner runner;
    /** Why it has no time: the scheduler or the compile failed, or its outputs were wrong. */
    std::string failure;
    std::vector<double> auto_ms, hand_ms; // pair i: entry i of each
    double ratio() const;                 // the median of the pairs' ratios; NAN untimed
};

struct AutoColumns {
    std::string app;
    std::vector<AutoColumn> columns; // Loom's heuristic (and autotuner), then Halide's three
};

/** The automatic variants of a prepared app, compiled on its buffers and checked; a scheduler
 * that fails is recorded in its column. The outputs are left as the last run wrote them. */
AutoColumns prepare_auto_columns(loom_apps::App &app, const Halide::Target &halide_target,
                                 bool autotune);

/** Registers each column that compiled as a Google Benchmark of pairs with `hand`. */
void register_auto_pairs(AutoColumns &c, const std::function<void()> &hand, double min_time);

/** The table, one row per app, and the lines under it: the geomeans and the targets. */
Table auto_table(const std::vector<AutoColumns> &all);
std::string auto_summary(const std::vector<AutoColumns> &all);

} // namespace loom_bench
