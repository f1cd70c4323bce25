// Asserts at the top of the pipeline that every input buffer covers the region the pipeline
// reads from it, and that every external buffer is dense in its innermost dimension. A failed
// check reports the buffer, the dimension and both ranges, and the pipeline returns an error
// instead of reading out of bounds. Where offsets are 32-bit (no LargeBuffers), it also checks
// that each external buffer holds at most `max_elements`.
#pragma once

#include <vector>

#include "lower/InferArguments.h"

namespace loom {
namespace Internal {

Stmt add_image_checks(const Stmt &s, const std::vector<LoweredArgument> &args,
                      int64_t max_elements);

}  // namespace Internal
}  // namespace loom
