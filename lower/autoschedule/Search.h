// Loom's search scheduler ("Search"): the heuristic's knobs (Choices.h) searched under a
// whole-schedule cost model (CostModel.h), within a time budget the caller sets. Nothing is
// compiled or timed: each candidate is lowered and its loop nest costed, in a child process
// that is given up on where it runs past its share of the budget.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/MachineParams.h"
#include "dsl/Target.h"
#include "lower/autoschedule/Choices.h"
#include "lower/autoschedule/CostModel.h"

namespace loom {
namespace Internal {
namespace autoschedule {

struct SearchOptions {
    /** Seconds of costing candidates; the search also stops where a round improves nothing. */
    double budget_seconds = 10;
    /** Schedules kept from one round to the next. */
    int beam_width = 4;
};

/** What a search did. */
struct SearchReport {
    Choices heuristic, chosen;
    double heuristic_cycles = 0, chosen_cycles = 0;
    /** The chosen schedule's estimate in parts. */
    CostEstimate chosen_estimate;
    int costed = 0, rounds = 0;
    double seconds = 0;
};

/** Schedules the Funcs the outputs read (as heuristic_schedule does: their schedules replaced)
 * with the schedule of least estimated cost among those the search reaches from the
 * heuristic's, and returns a summary: what the search did, then the heuristic's reasons for the
 * schedule applied. The heuristic's own schedule is kept unless another costs at least
 * kMinimumGain less: the model's estimates are not measurements, and a small difference is
 * within their error. `warn` as for heuristic_schedule. */
std::string search_schedule(const std::vector<FunctionPtr> &outputs, const Target &target,
                            const MachineParams &params,
                            const std::function<void(const std::string &)> &warn,
                            const SearchOptions &options = {}, SearchReport *report = nullptr);

/** The fraction of the heuristic's estimated cost a schedule must save to replace it. */
constexpr double kMinimumGain = 0.05;

} // namespace autoschedule
} // namespace Internal
} // namespace loom
