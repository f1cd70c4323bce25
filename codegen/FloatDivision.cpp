#include "codegen/FloatDivision.h"

#include <cmath>

#include "lower/ConstantBounds.h"

namespace loom {
namespace Internal {

namespace {

// The constant range of a 32-bit integer numerator where it lies in [0, 2^bits) and the divisor
// is at least 3, below 2^bits and not a power of two (those are shifts).
std::optional<ConstantRange> numerator_range(const Expr &numerator, int64_t divisor, int bits) {
    const Type t = numerator.type();
    const int64_t bound = int64_t(1) << bits;
    if (!t.is_int_or_uint() || t.bits() != 32 || divisor < 3 || (divisor & (divisor - 1)) == 0 ||
        divisor >= bound) {
        return std::nullopt;
    }
    const ConstantRange x = constant_range(numerator);
    if (x.min < 0 || x.max >= bound) return std::nullopt;
    return x;
}

} // namespace

std::optional<float> float_reciprocal_for(const Expr &numerator, int64_t divisor) {
    const std::optional<ConstantRange> range = numerator_range(numerator, divisor, 24);
    if (!range) return std::nullopt;
    const ConstantRange x = *range;

    // x = q * d + r with 0 <= r < d. With c = 1/d + e (e >= 0), x * c = q + r/d + x * e lies in
    // [q, q + 1 - 1/d + x * e]; rounding keeps it at least q (a float: q < 2^24) and below
    // q + 1 while 1/d - x * e exceeds half the spacing of floats below q + 1.
    const double exact = 1.0 / (double)divisor;
    float c = (float)exact;
    if ((double)c < exact) c = std::nextafter(c, INFINITY);
    const double error = (double)c - exact;
    const int64_t largest_quotient = x.max / divisor;
    const double spacing = std::ldexp(1.0, std::ilogb((double)(largest_quotient + 1)) - 23);
    // The margin covers the rounding of `exact` and `error` in double (~1e-17 relative).
    const double slack = exact - (double)x.max * error - spacing / 2;
    if (slack <= 1e-9) return std::nullopt;
    return c;
}

std::optional<BiasedReciprocal> biased_reciprocal_for(const Expr &numerator, int64_t divisor) {
    const std::optional<ConstantRange> range = numerator_range(numerator, divisor, 23);
    if (!range) return std::nullopt;
    const ConstantRange x = *range;
    const double exact = 1.0 / (double)divisor, bias = std::ldexp(1.0, 23);
    const double result_bias = bias + (double)kBiasedQuotientOffset;
    const double largest_remainder = (double)std::min<int64_t>(divisor - 1, x.max);
    // The margin covers the rounding of `exact` and of the products below in double.
    const double margin = 1e-9;
    // Whether (c, k) gives every quotient (see the header).
    auto proven = [&](float c, float k) {
        const double drift = (double)x.max * ((double)c - exact);
        // Exact: bias * c and k have 24 significant bits within 2^-47 .. 2^23.
        const double offset = bias * (double)c + (double)k - result_bias;
        return offset + std::min(0.0, drift) > -0.5 + margin &&
               offset + largest_remainder * exact + std::max(0.0, drift) < 0.5 - margin;
    };
    // The floats nearest 1 / d first, above and below in turn: the further c is from 1 / d,
    // the more x (c - 1 / d) drifts. For each, the k nearest the middle of the allowed offsets
    // and its neighbours (floats near 2^22 .. 2^23 are half-integers apart).
    float above = (float)exact, below = std::nextafter(above, 0.0f);
    for (int step = 0; step < 64; step++) {
        for (const float c : {above, below}) {
            const double wanted =
                result_bias - bias * (double)c - largest_remainder / (2.0 * (double)divisor);
            float k = std::nextafter(std::nextafter((float)wanted, -INFINITY), -INFINITY);
            for (int n = 0; n < 5; n++, k = std::nextafter(k, INFINITY)) {
                if (proven(c, k)) return BiasedReciprocal{c, k};
            }
        }
        above = std::nextafter(above, INFINITY);
        below = std::nextafter(below, 0.0f);
    }
    return std::nullopt;
}

} // namespace Internal
} // namespace loom
