// Integer division of vector lanes by a constant, as a float multiply where that is exact.
#pragma once

#include <cstdint>
#include <optional>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** For `numerator / divisor` in lanes of 32-bit integers, `divisor` a constant of at least 3
 * and not a power of two: the float c for which truncating float(numerator) * c (one rounding,
 * to nearest) gives the quotient for every value the numerator can take, or nothing where no
 * such c is proven. It is proven where the numerator's constant_range lies in [0, 2^24) (each
 * value a float exactly) and c, the float nearest above 1 / divisor, errs by less than the
 * smallest distance from a lane's x / divisor to the next integer, less half a float's spacing
 * there.
 *
 * x86 has no high half of a 32-bit lane product: LLVM divides such lanes by a constant with
 * two 64-bit multiplies over the even and the odd lanes and a permute to interleave them
 * (blur's sums of three 16-bit values by 3); the float path is a convert, a multiply and a
 * truncating convert, without the permute. */
std::optional<float> float_reciprocal_for(const Expr &numerator, int64_t divisor);

} // namespace Internal
} // namespace loom
