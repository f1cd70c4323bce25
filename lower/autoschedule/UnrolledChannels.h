// The heuristic scheduler's choice of the pure loops it unrolls on the CPU: an image's
// channels, where each channel computes something of its own.
#pragma once

#include <string>
#include <vector>

#include "lower/autoschedule/PipelineGraph.h"
#include "lower/autoschedule/Plan.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** Channels of at most this many points are unrolled (RGB, RGBA). */
constexpr int64_t kMaxUnrolledChannels = 4;

/** The pure dimensions (never dimension 0, the vectors' own) of the pure definition of `func`
 * that its schedule unrolls, innermost outside the vector: those whose extent is a constant of
 * 2 to kMaxUnrolledChannels points for every size of the pipeline, and whose coordinate the
 * definition computes with (a select on the channel, a channel's own coefficients), directly or
 * through the Funcs `plans` inlines into it. Unrolled, each copy's selects fold to its channel's
 * branch and the channels of one vector share their reads; as a loop outside the vectors, every
 * channel evaluates every branch. A dimension's extent is constant for every size where the Func
 * bounds it (Func::bound) or every read of the Func takes it at a constant or at a consumer's
 * own dimension (plus a constant) whose extent is constant in turn. */
std::vector<int> unrolled_channels(const PipelineGraph &graph, const Plans &plans,
                                   const std::string &func);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
