// The constant range an integer expression's values lie in, from the expression alone: a
// 16-bit value widened to 32 bits lies in [0, 65535], a sum of three such in [0, 196605].
// Bounds inference keeps symbolic bounds and treats 32-bit unsigned arithmetic as wrapping; code
// generation asks this narrower question of single expressions to pick cheaper instructions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

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

/** The constant range of a scalar int32 expression over the constant ranges of its variables,
 * which `variable_range` gives (nullopt where one is unknown): through sums, differences,
 * products, quotients and remainders by positive constants, mins and maxes, a few levels deep
 * (a loop's trip count trimmed by an RDom's where(), the clamp of a fused loop's recovered
 * variable). nullopt where some part's range is unknown or a bound leaves int32 (a value that
 * may wrap). */
std::optional<ConstantRange> constant_range_over(
    const Expr &e,
    const std::function<std::optional<ConstantRange>(const std::string &)> &variable_range);

} // namespace Internal
} // namespace loom
