// The constant range an integer expression's values lie in, from the expression alone: a
// 16-bit value widened to 32 bits lies in [0, 65535], a sum of three such in [0, 196605].
// Bounds inference keeps symbolic bounds and treats 32-bit unsigned arithmetic as wrapping; code
// generation asks this narrower question of single expressions to pick cheaper instructions.
#pragma once

#include <cstdint>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The lowest and highest value of an integer expression, each lane of a vector alike. */
struct ConstantRange {
    int64_t min, max;
};

/** The range of `e`'s values for `e` of an integer type of at most 32 bits: computed exactly in
 * 64 bits, so that a sum, difference or product that may leave its type (and wrap) gives the
 * type's whole range. Loads, variables, and calls other than a bitwise and or a right shift by
 * a constant, give their type's range; a Let is followed. */
ConstantRange constant_range(const Expr &e);

} // namespace Internal
} // namespace loom
