// Halide's fast_ math for Float(32), as Loom's own expansions into float and integer arithmetic:
// they vectorize like any arithmetic and give the same bits on every vector width, schedule and
// target (the CPU and the GPU alike), which an instruction such as x86's rcpps does not (AMD's
// and Intel's differ). Polynomials are fitted at Chebyshev nodes over the reduced ranges below
// (their errors stated beside them) and evaluated with explicit fused multiply-adds, which Loom
// never introduces on its own.
#include <cmath>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace {

void check_float32(const Expr &x, const char *name, const char *instead) {
    user_assert(x.defined()) << "Argument of " << name << " is an undefined Expr";
    user_assert(x.type() == Float(32)) << name << " takes a Float(32) argument, but " << x
                                       << " has type " << x.type() << ". Cast it "
                                       << "to float, or use " << instead << " for other types.";
}

/** c[0] + t * (c[1] + t * (c[2] + ...)), each step one rounding. */
Expr horner(const Expr &t, std::initializer_list<float> coefficients) {
    const float *c = coefficients.begin();
    int n = (int)coefficients.size();
    Expr p = Expr(c[n - 1]);
    for (int i = n - 2; i >= 0; i--)
        p = fma(p, t, Expr(c[i]));
    return p;
}

// ln 2 in two parts: ln2_hi has 16 significant bits, so n * ln2_hi is exact for the n of an
// exponent; ln2_lo is the rest.
constexpr float ln2_hi = 0.693145752f;
constexpr float ln2_lo = 1.42860677e-06f;

/** x = k * pi + r with k = round(x / pi), r within pi / 2, to about 2^-40 of pi for |k| below
 * 2^15 (pi in two parts, each product exact in a fused multiply-add). */
struct HalfTurns {
    Expr k, r;
};
HalfTurns reduce_by_pi(const Expr &x) {
    constexpr float pi_hi = 3.14159274101257324f;      // float(pi)
    constexpr float pi_lo = -8.74227765734758577e-08f; // pi - pi_hi
    Expr k = round(x * Expr(0.318309886f));
    return {k, fma(-k, Expr(pi_lo), fma(-k, Expr(pi_hi), x))};
}

/** -v where k, a whole float, is odd: sin and cos of x + k * pi. */
Expr negate_where_odd(const Expr &v, const Expr &k) {
    Expr odd = (cast<int32_t>(k) & 1) == 1;
    return select(odd, -v, v);
}

} // namespace

Expr fast_sin(const Expr &x_full) {
    check_float32(x_full, "fast_sin", "sin");
    const auto [k, r] = reduce_by_pi(x_full);
    // sin(r) = r * S(r^2) on |r| <= pi / 2: at most 1.2e-6 from sin(r).
    Expr s = r * horner(r * r, {0.999999237f, -0.166656765f, 0.00831319141f, -0.000185225393f});
    return negate_where_odd(s, k);
}

Expr fast_cos(const Expr &x_full) {
    check_float32(x_full, "fast_cos", "cos");
    const auto [k, r] = reduce_by_pi(x_full);
    // cos(r) = C(r^2) on |r| <= pi / 2: at most 4.7e-8 from cos(r).
    Expr c = horner(r * r,
                    {0.999999953f, -0.499999048f, 0.0416635732f, -0.00138536295f, 2.31524167e-05f});
    return negate_where_odd(c, k);
}

Expr fast_exp(const Expr &x_full) {
    check_float32(x_full, "fast_exp", "exp");
    // e^x = 2^n * e^r, n = round(x / ln 2), |r| <= ln 2 / 2. 2^n is applied in two halves,
    // each a normal float for every n of the clamped range, so that results near the top stay
    // finite and those below 2^-126 fall gradually to subnormals and 0.
    Expr x = clamp(x_full, Expr(-104.0f), Expr(89.5f));
    Expr n = round(x * Expr(1.44269502f));
    Expr r = fma(-n, Expr(ln2_lo), fma(-n, Expr(ln2_hi), x));
    // e^r on |r| <= ln 2 / 2: within 1.1e-7 of it, relatively.
    Expr p = horner(
        r, {1.00000008f, 1.00000001f, 0.499988694f, 0.166665053f, 0.0419175072f, 0.00836914849f});
    Expr ni = cast<int32_t>(n);
    Expr half = ni >> 1;
    auto power_of_two = [](const Expr &k) { return reinterpret<float>((k + 127) << 23); };
    return select(is_nan(x_full), x_full, p * power_of_two(half) * power_of_two(ni - half));
}

Expr fast_log(const Expr &x_full) {
    check_float32(x_full, "fast_log", "log");
    // Subnormals are scaled by 2^23 into the normal range first.
    Expr subnormal = x_full < Expr(1.17549435e-38f);
    Expr x = select(subnormal, x_full * Expr(8388608.0f), x_full);
    Expr bits = reinterpret<int32_t>(x);
    // x = 2^e * m with m in [sqrt(1/2), sqrt(2)).
    Expr e = (bits >> 23) - select(subnormal, 127 + 23, 127);
    Expr m = reinterpret<float>((bits & 0x007fffff) | 0x3f800000);
    Expr high = m > Expr(1.41421354f);
    m = select(high, m * Expr(0.5f), m);
    Expr ef = cast<float>(e + select(high, 1, 0));
    Expr f = m - Expr(1.0f);
    // log(1 + f) = f * P(f) on [sqrt(1/2) - 1, sqrt(2) - 1]: within 6.7e-8 of it.
    Expr log_m = f * horner(f, {0.999999968f, -0.500003751f, 0.33334606f, -0.24968907f,
                                0.199133479f, -0.172782061f, 0.161262479f, -0.0989535074f});
    Expr result = fma(ef, Expr(ln2_hi), fma(ef, Expr(ln2_lo), log_m));
    // log(0) = -inf, log(inf) = inf; a negative x or NaN gives NaN.
    const Expr inf = Expr(INFINITY), not_a_number = Expr(NAN);
    return select(x_full > Expr(0.0f) && x_full < inf, result,
                  select(x_full == Expr(0.0f), -inf, select(x_full == inf, inf, not_a_number)));
}

Expr fast_pow(Expr x, Expr y) {
    check_float32(x, "fast_pow", "pow");
    check_float32(y, "fast_pow", "pow");
    Expr result = fast_exp(y * fast_log(x));
    // 0^y: 1 at y = 0, 0 for y > 0, infinity for y < 0 (y * log(0) alone would give NaN at 0).
    Expr zero_base =
        select(y == Expr(0.0f), Expr(1.0f), select(y > Expr(0.0f), Expr(0.0f), Expr(INFINITY)));
    return select(x == Expr(0.0f), zero_base, result);
}

Expr fast_inverse(Expr x) {
    check_float32(x, "fast_inverse", "1 / x");
    return Expr(1.0f) / x;
}

Expr fast_inverse_sqrt(Expr x) {
    check_float32(x, "fast_inverse_sqrt", "1 / sqrt(x)");
    return Expr(1.0f) / sqrt(x);
}

} // namespace loom
