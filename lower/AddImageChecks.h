// Asserts at the top of the pipeline that every input buffer covers the region the pipeline
// reads from it, and that every external buffer is dense in its innermost dimension. A failed
// check reports the buffer, the dimension and both ranges, and the pipeline returns an error
// instead of reading out of bounds.
#pragma once

#include <vector>

#include "lower/InferArguments.h"

namespace loom {
namespace Internal {

Stmt add_image_checks(const Stmt &s, const std::vector<LoweredArgument> &args);

}  // namespace Internal
}  // namespace loom
