#include "codegen/FloatDivision.h"

#include <cmath>

#include "lower/ConstantBounds.h"

namespace loom {
namespace Internal {

std::optional<float> float_reciprocal_for(const Expr &numerator, int64_t divisor) {
    const Type t = numerator.type();
    if (!t.is_int_or_uint() || t.bits() != 32 || divisor < 3 || (divisor & (divisor - 1)) == 0 ||
        divisor >= (int64_t(1) << 24)) {
        return std::nullopt;
    }
    const ConstantRange x = constant_range(numerator);
    if (x.min < 0 || x.max >= (int64_t(1) << 24)) return std::nullopt;

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

} // namespace Internal
} // namespace loom
