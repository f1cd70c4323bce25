// The loop nest of a pipeline as pseudocode, in Halide 14's print_loop_nest format: each Func's
// production and consumption, its loops by kind and name (with their range where it is a
// constant), and its storage where that is outside its computation; no values.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"

namespace loom {
namespace Internal {

/** The loops of the outputs' pipeline once scheduled, bounded and slid, as pseudocode:
 * "produce f:", "for y:", "parallel x.xo:", "vectorized x.xi in [0, 7]:", "f(...) = ...". */
std::string print_loop_nest(const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
