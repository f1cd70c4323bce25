// The autotuner: schedules a pipeline by compiling and timing candidate schedules on this
// machine, within a time budget, starting from the heuristic scheduler's schedule, the search
// scheduler's (a quarter of the budget spent searching under the cost model) and what earlier
// runs measured (a database shared between runs and processes). Also run as
// auto_schedule("Autotune", target, params), with its options from the environment.
#pragma once

#include <string>

#include "dsl/AutoScheduler.h"
#include "dsl/MachineParams.h"
#include "dsl/Target.h"

namespace loom {

class Pipeline;

struct AutotuneOptions {
    /** Seconds of compiling and timing candidates, the heuristic's schedule first; then the
     * best is timed against the heuristic's in 5 pairs back to back and kept only if faster.
     * 0: the database's fastest, as measured. auto_schedule("Autotune") reads
     * LOOM_AUTOTUNE_BUDGET (default 60). */
    double budget_seconds = 60;
    /** At most this many candidates measured here, the heuristic's schedule among them (0: no
     * limit); tuning ends at the budget or the count, whichever comes first. A count makes a
     * run's work the same on a loaded machine as on an idle one (a test, a CI job). */
    int max_candidates = 0;
    /** The database of measurements; empty: $LOOM_AUTOTUNE_DB, else
     * ~/.cache/loom/autotune.db ($XDG_CACHE_HOME's loom/autotune.db where set). Records are
     * keyed by the pipeline's algorithm, its estimates, the target, the machine and Loom's
     * version; processes may tune at once against one file. */
    std::string database;
    /** Progress on stderr (candidates tried, best so far, time left): one line rewritten in
     * place on a terminal, else a line per improvement and every tenth candidate. */
    bool progress = true;
    /** Where to write the best schedule as a header (as the generator driver's `-e schedule`:
     * apply_schedule_<output>(pipeline, target)); nothing written if empty. */
    std::string schedule_file;
    /** Varies the order candidates are tried in. */
    unsigned seed = 0;
};

/** Schedules `pipeline` (its Funcs, as auto_schedule does) with the fastest schedule measured:
 * the heuristic's, the search scheduler's on the CPU (raced against it), then their variations
 * (where each Func is computed, strip heights, register tiles) one change at a time from the
 * best so far, each compiled and run on outputs of the
 * sizes the estimates give. ImageParams bound to buffers are read as bound; an unbound one gets
 * a buffer of its estimated size, filled with values in [0, 1) (floats) or a pattern (integers),
 * unbound again afterwards. Returns results whose schedule_source says what was measured, then
 * the schedule's function. Throws a CompileError naming the Func or ImageParam where the
 * pipeline can't be run (an unbound ImageParam with no estimates, say). */
AutoSchedulerResults autotune(Pipeline &pipeline, const Target &target, const MachineParams &params,
                              const AutotuneOptions &options = {});

} // namespace loom
