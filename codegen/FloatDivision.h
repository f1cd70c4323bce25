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

/** The biased form, one fused multiply-add: floats c and k for which fma(2^23 + x, c, k),
 * rounded once to nearest, is the float 2^23 + 2^16 + x / divisor for every value x the
 * numerator can take: its bits less 0x4B010000 are the quotient. 2^23 + x is x's bits plus
 * 0x4B000000 read as a float, exact where x lies in [0, 2^23); every result lies in
 * [2^23 + 2^16, 2^24), where floats are the integers (2^16 keeps the results clear of the
 * half-integers below 2^23 and off the low 16 bits: a use of only those, blur's narrowing,
 * needs no subtract). Found by trying the floats c nearest 1 / divisor and the k nearest
 * 2^23 + 2^16 - 2^23 c, where a bound proves every quotient: with e = 2^23 c + k - 2^23 - 2^16
 * (exact in double) and x = q d + r, the result is 2^23 + 2^16 + q + e + r / d + x (c - 1 / d),
 * which rounds to 2^23 + 2^16 + q where the offset lies in (-1/2, 1/2) for every r and x. The
 * offsets allowed span 1 / d, on a grid of k's half-integers and 2^23 c's steps: small divisors
 * (3, 5, 7, ...) have a form, most large ones none.
 *
 * Against the convert form: an add, the multiply-add and a subtract, no converts. */
constexpr int64_t kBiasedQuotientOffset = int64_t(1) << 16;
struct BiasedReciprocal {
    float c, k;
};
std::optional<BiasedReciprocal> biased_reciprocal_for(const Expr &numerator, int64_t divisor);

} // namespace Internal
} // namespace loom
