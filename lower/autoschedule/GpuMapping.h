// How the heuristic scheduler runs a Func on a CUDA target: which Funcs can be GPU kernels at
// all, and how each stage of one maps onto blocks and threads.
#pragma once

#include <set>
#include <string>
#include <utility>

#include "dsl/Stage.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** One stage's kernel: `threads` threads a block along the stage's first dimension that may run
 * in parallel, each thread computing `lanes` consecutive points of it as a vector (where that
 * dimension is the Func's first, whose points are adjacent in memory; else one point). */
struct GpuBlock {
    int threads = 256;
    int lanes = 4;
    std::pair<int, int> knob() const { return {threads, lanes}; }
};

/** The first call in Func `func`'s definitions (with the Funcs in `inlined` computed inside
 * it) that a kernel cannot make: a math function the CUDA backend lacks (has_device_math) or
 * the host's runtime, said as "update 0 calls sin_f32, which has no GPU version"; "" where
 * there is none. */
std::string host_only_call(const PipelineGraph &graph, const std::string &func,
                           const std::set<std::string> &inlined);

/** Why Func `func` cannot run as GPU kernels when the Funcs in `inlined` are computed inside
 * it; "" where it can. Every stage needs a pure dimension that may run in parallel
 * (StageInfo::independent: its threads and blocks), and no expression computed in it may call
 * a math function the CUDA backend lacks (has_device_math) or the host's runtime. */
std::string gpu_obstacle(const PipelineGraph &graph, const std::string &func,
                         const std::set<std::string> &inlined);

/** The block the heuristic gives stage k of n: 256 threads of 4 lanes (on an H200, a pointwise
 * stage's best of the shapes measured: 1 lane 0.058 ms, 4 lanes 0.037 ms, 8 lanes 0.074 ms, see
 * BENCHMARKS.md), 2 lanes for 8-byte values, fewer threads and lanes where the region is
 * narrower. `asked` (threads a power of two from 32 to 1024, lanes from 1 to 8) replaces it
 * where given and legal. */
GpuBlock gpu_block_for(const FuncNode &n, int k, const std::pair<int, int> *asked);

/** Schedules stage k of n, a Func computed at root, as one kernel of shape `block`: the
 * dimension of its threads split into blocks of threads (GuardWithIf: any extent), its lanes
 * a vector, the stage's other parallel dimensions the grid's (the outermost fused where there
 * are more than two), the rest of its loops (RVars, dimensions an update orders) in each
 * thread in their order. Returns a description of the kernel. */
std::string map_stage_to_gpu(Stage stage, const FuncNode &n, int k, const GpuBlock &block);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
