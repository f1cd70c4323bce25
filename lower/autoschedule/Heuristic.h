// Loom's heuristic auto-scheduler ("Heuristic"): schedules a pipeline in one pass, from a cost
// model of the machine (MachineModel.h) and the sizes the estimates give (PipelineGraph.h),
// without compiling or timing anything.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Function.h"
#include "dsl/MachineParams.h"
#include "dsl/Target.h"
#include "lower/autoschedule/Choices.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** Replaces the schedule of every Func the outputs read (their bounds and estimates are kept)
 * with one chosen as follows, and returns a summary of the choices, one line per Func. Where
 * `asked` gives a knob a value, that value is taken instead where legal; `made` (if given)
 * receives every knob's value as applied.
 *
 * - Each Func that is not an output is inlined where the arithmetic its uses repeat costs less
 *   than storing it and loading it back from the nearest cache; otherwise it is materialized.
 * - Each output and each Func materialized for consumers in more than one place is computed at
 *   root; it runs in strips of its largest outer dimension (parallel, sized for a few tasks per
 *   core) and vectorized along its first dimension, where its stages' reads allow.
 * - Each other materialized Func is computed inside the strip loop of the root Func its
 *   consumers are computed with, where that costs less than a root buffer (the model counts the
 *   points the strips' overlap recomputes and the bytes at each cache level): per row, sliding
 *   down the strip where consecutive rows overlap, or once per strip.
 * - Updates keep their reduction order: only pure dimensions that no read of the Func itself
 *   ties to other points are split, vectorized or run in parallel, so the outputs are the bits
 *   of the unscheduled pipeline. A reduction's vector lanes and a few rows run innermost, as a
 *   register tile, and its innermost RVar runs in blocks whose shared reads stay in L1
 *   across the tiles (each point still sums in order).
 *
 * - For a CUDA target, each Func stored is computed at root (a buffer in device memory, which
 *   the inlining weighs at its whole size), each of its stages one kernel (GpuMapping.h), or,
 *   where one kernel alone reads it and recomputing its blocks' overlap costs less than the
 *   round trip through device memory, in that kernel's blocks, in shared memory (the kernel
 *   then a 2-D tile; the schedule is lowered once to check its sizes are bounded, and staged
 *   nothing where they are not); a Func a kernel cannot compute (a C library math call, no
 *   parallel dimension) runs on the CPU as above, and the summary says why.
 *
 * `warn` receives each missing estimate and the value assumed. */
std::string heuristic_schedule(const std::vector<FunctionPtr> &outputs, const Target &target,
                               const MachineParams &params,
                               const std::function<void(const std::string &)> &warn,
                               const Choices &asked = {}, Choices *made = nullptr);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
