// Turns multi-dimensional storage into flat memory: each Realize becomes an Allocate (one per
// Tuple element) with its min, extent and stride lets; each Provide a Store and each read of a
// Func or input a Load at sum_d (x_d - min_d) * stride_d. External buffers (inputs and
// outputs) are dense in dimension 0, which add_image_checks asserts, so their stride 0 is 1.
// Indices are Int(32) where a storage holds at most 2^31 - 1 elements (`max_elements`, the
// target's maximum_buffer_size), else Int(64) (LargeBuffers); each allocation is checked
// against max_elements, and its strides against 2^31 - 1.
#pragma once

#include <string>
#include <vector>

#include "lower/FindEnvironment.h"
#include "lower/InferArguments.h"

namespace loom {
namespace Internal {

/** What every message about a buffer or a Func's storage past 32-bit offsets tells the user to
 * do (each adds its other way out: ", or ..."). */
inline const std::string kLargeBuffersAdvice =
    "Add the LargeBuffers feature to the target (Target::LargeBuffers, \"large_buffers\") for "
    "64-bit offsets";

Stmt storage_flattening(const Stmt &s, const std::vector<LoweredArgument> &args,
                        const Environment &env, int64_t max_elements);

}  // namespace Internal
}  // namespace loom
