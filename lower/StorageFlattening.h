// Turns multi-dimensional storage into flat memory: each Realize becomes an Allocate (one per
// Tuple element) with its min, extent and stride lets; each Provide a Store and each read of a
// Func or input a Load at sum_d (x_d - min_d) * stride_d. External buffers (inputs and
// outputs) are dense in dimension 0, which add_image_checks asserts, so their stride 0 is 1.
#pragma once

#include <vector>

#include "lower/FindEnvironment.h"
#include "lower/InferArguments.h"

namespace loom {
namespace Internal {

Stmt storage_flattening(const Stmt &s, const std::vector<LoweredArgument> &args,
                        const Environment &env);

}  // namespace Internal
}  // namespace loom
