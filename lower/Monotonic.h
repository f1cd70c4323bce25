// How an integer expression moves as one variable grows. Sliding window asks it of a Func's
// region bounds over the loop it slides along: a region whose min and max never decrease
// (y / 2 and (y + 1) / 2 of an upsampling, y - 1 and y + 1 of a stencil) may be computed one
// new part per iteration.
#pragma once

#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

enum class Monotonic {
    Constant,   // the same for every value of the variable
    Increasing, // never decreases as the variable grows (steps of 0 allowed)
    Decreasing, // never increases as the variable grows
    Unknown,    // may move either way, or the analysis cannot tell
};

/** How e moves as `var` grows, the other free variables held fixed. Integer arithmetic is
 * taken not to overflow (the assumption bounds inference makes of index expressions); Lets
 * inside e are followed; loads, calls and selects on conditions that move with `var` give
 * Unknown. */
Monotonic is_monotonic(const Expr &e, const std::string &var);

} // namespace Internal
} // namespace loom
