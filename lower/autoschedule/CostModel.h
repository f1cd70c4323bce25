// The search scheduler's cost model: the cycles a lowered pipeline takes on a MachineModel,
// counted over its final loop nest (after bounds inference, sliding windows, accumulator
// promotion, vectorization, unrolling and loop partitioning), so that every interaction of a
// schedule's decisions is seen as the code generator sees it: the points the strips' overlap
// recomputes, each buffer's size and the cache level it lands in, vector widths, register tiles,
// parallel loops and their balance. The heuristic's model (Heuristic.cpp) weighs one decision at
// a time from the algorithm; this one weighs a whole schedule, at the cost of lowering it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dsl/Expr.h"
#include "lower/InferArguments.h"
#include "lower/autoschedule/MachineModel.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** What a lowered pipeline's free variables stand for in one run: the value of each buffer
 * field ("in.extent.0", "out.stride.1") and scalar Param, and the bytes of each buffer the
 * pipeline reads or writes from outside (inputs, outputs). */
struct RunSizes {
    std::map<std::string, Expr> values;
    std::map<std::string, double> buffer_bytes;
};

class PipelineGraph;

/** The sizes of a run at the estimates `graph` holds, for a pipeline lowered with arguments
 * `args`: each buffer's fields (dense strides) and bytes, each scalar Param's estimate. */
RunSizes run_sizes(const std::vector<LoweredArgument> &args, const PipelineGraph &graph);

/** The estimate, in cycles of one core: its parts, and the time of a run (`cycles`), each
 * parallel loop's iterations shared by the cores. */
struct CostEstimate {
    double arithmetic = 0; // vector operations, one cycle each (a division or a math call more)
    double memory = 0;     // bytes loaded and stored, at the cost of the level their buffer fits
    double overhead = 0;   // loop iterations, heap allocations inside loops, parallel tasks
    double cycles = 0;
    /** Loops whose extent did not evaluate to a constant (counted as one iteration): where
     * nonzero, the estimate is a lower bound. */
    int unknown_extents = 0;
};

/** The estimate for `lowered` (a lowered pipeline's body) on `machine`. Each loop's body is
 * costed once, at the loop's middle iteration, and multiplied by the extent: the middle is the
 * steady state of a sliding window and away from the tails a partitioned loop peels. A load or
 * store costs MachineModel::byte_cost of its buffer's whole size (an allocation inside a loop:
 * its size there), except the accumulators PromoteAccumulators puts in registers, which cost
 * nothing. Costing is linear in the loop nest's size. */
CostEstimate estimate_cost(const Stmt &lowered, const MachineModel &machine, const RunSizes &sizes);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
