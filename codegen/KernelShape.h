// The shape of a GPU kernel as code generation maps it onto CUDA's grid and blocks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** A kernel (a loop nest from an outermost gpu_blocks loop, as lower/ValidateGPULoops admits
 * it): its block loops, outermost first, around one or more nests of thread loops that run one
 * after another (a producer staged in block-level storage, then its consumer), each nest's
 * innermost thread loop on axis x, the next on y, then z. A block has, on each axis, as many
 * threads as the largest nest uses there; a nest's threads past its own extents idle through it. */
struct KernelShape {
    struct ThreadLoop {
        int axis;
        int64_t extent;
    };
    /** Outermost first; the innermost is on axis x. */
    std::vector<const For *> blocks;
    std::map<std::string, int> block_axis;
    int64_t block_extent[3] = {1, 1, 1};
    std::map<std::string, ThreadLoop> thread_loops;
    /** The outermost thread loop of each nest, with the number of axes its nest uses. */
    std::map<std::string, int> nests;
    int64_t threads_per_block() const { return block_extent[0] * block_extent[1] * block_extent[2]; }
};

KernelShape kernel_shape(const For *kernel);

}  // namespace Internal
}  // namespace loom
