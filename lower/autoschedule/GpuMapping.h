// How the heuristic scheduler runs a Func on a CUDA target: which Funcs can be GPU kernels at
// all, and how each stage of one maps onto blocks and threads.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Func.h"
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
    /** Rows of threads along the stage's second parallel dimension (a 2-D tile, for a kernel
     * that stages producers in shared memory: their regions then overlap less), threads / rows
     * along the first. */
    int rows = 1;
    /** Parallel dimensions past the second that run serially in each thread rather than
     * across the grid (a tile's few channels, so that the Funcs staged for the tile serve all
     * of them). */
    std::vector<int> serial;
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

/** `block` as a 2-D tile for stage k of n: rows of 32 threads (as many rows as the threads
 * make, at most 8, and no more than the second parallel dimension's extent), and the parallel
 * dimensions past the second of at most 16 points serial in each thread; unchanged where the
 * stage has one parallel dimension. */
GpuBlock gpu_tile_for(const FuncNode &n, int k, GpuBlock block);

/** The region of n that one block of stage k's kernel computes (a block in the middle: the
 * others are shifted copies, or cut short at the edges); the dimensions run serially in each
 * thread whole. */
Region64 gpu_block_box(const FuncNode &n, int k, const GpuBlock &block);

/** How many blocks stage k's kernel runs over n's region. */
int64_t gpu_blocks_over(const FuncNode &n, int k, const GpuBlock &block);

struct GpuKernel {
    std::string description;
    /** The kernel's innermost block loop: a Func staged in its shared memory is computed
     * there. */
    std::string block_loop;
};

/** Schedules stage k of n, a Func computed at root, as one kernel of shape `block`: the
 * dimension of its threads split into blocks of threads (GuardWithIf: any extent), its lanes
 * a vector, its rows (if more than one) the second parallel dimension's, the stage's other
 * parallel dimensions the grid's (the outermost fused where there are more than three), the
 * rest of its loops (RVars, dimensions an update orders) in each thread in their order. */
GpuKernel map_stage_to_gpu(Stage stage, const FuncNode &n, int k, const GpuBlock &block);

/** The threads a block needs to compute `box` of a Func with `lanes` points a thread along its
 * first dimension (one where the box is narrower): one thread a vector of its first two
 * dimensions. */
int64_t staged_threads(const Region64 &box, int lanes);

/** Schedules n, a Func with one stage computed at a kernel's block loop, onto that block's
 * threads: its first two dimensions the threads' (the first in vectors of `lanes` where `box`,
 * its region in a block, is that wide), any others serial in each thread. Its storage is the
 * block's shared memory. Returns a description. */
std::string map_staged_to_gpu(Func f, const FuncNode &n, const Region64 &box, int lanes);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
