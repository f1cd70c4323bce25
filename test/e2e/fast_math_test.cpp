// Halide 14's fast_ math (Loom's own expansions, dsl/FastMath.cpp) against float64, within the
// errors dsl/IROperator.h states, with the same bits whatever the schedule.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

std::vector<float> concat_values(std::vector<float> a, const std::vector<float> &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

/** fn over `inputs`, realized as written (lanes of 1) or vectorized `lanes` wide. */
std::vector<float> realize(const std::function<Expr(Expr)> &fn, const std::vector<float> &inputs,
                           int lanes = 1) {
    Buffer<float> in = buffer_of(inputs, "in");
    Var x("x");
    Func f("f");
    f(x) = fn(in(x));
    if (lanes > 1) f.vectorize(x, lanes, TailStrategy::GuardWithIf);
    Buffer<float> out = f.realize({(int)inputs.size()});
    return std::vector<float>(out.data(), out.data() + inputs.size());
}

/** Units in the last place of a float32 at v (the spacing of floats there). */
double ulp_at(double v) {
    const float f = (float)std::fabs(v);
    if (!std::isfinite(f)) return INFINITY;
    return (double)std::nextafter(f, INFINITY) - (double)f;
}

std::vector<float> log_uniform(double lo, double hi, uint32_t seed, size_t n) {
    std::vector<float> v = random_values<float>(n, seed, (float)std::log(lo), (float)std::log(hi));
    for (float &e : v)
        e = (float)std::exp((double)e);
    return v;
}

/** The worst error of fn against the reference, in ulps of the reference and absolutely. */
struct Worst {
    double ulps = 0, absolute = 0;
    float at_ulps = 0, at_absolute = 0;
};
Worst worst_error(const std::vector<float> &inputs, const std::vector<float> &got,
                  const std::function<double(double)> &reference) {
    Worst w;
    for (size_t i = 0; i < inputs.size(); i++) {
        const double want = reference((double)inputs[i]);
        const double err = std::fabs((double)got[i] - want);
        if (err / ulp_at(want) > w.ulps) w.ulps = err / ulp_at(want), w.at_ulps = inputs[i];
        if (err > w.absolute) w.absolute = err, w.at_absolute = inputs[i];
    }
    return w;
}

/** The same bits vectorized 8 and 16 wide (with a guarded tail) as lane by lane. */
void expect_schedule_invariant(const std::function<Expr(Expr)> &fn,
                               const std::vector<float> &inputs) {
    const std::vector<float> scalar = realize(fn, inputs);
    for (int lanes : {8, 16}) {
        const std::vector<float> vector = realize(fn, inputs, lanes);
        for (size_t i = 0; i < inputs.size(); i++) {
            ASSERT_TRUE(same_value(scalar[i], vector[i]))
                << "at x = " << show(inputs[i]) << ": " << show(scalar[i]) << " lane by lane, "
                << show(vector[i]) << " in vectors of " << lanes;
        }
    }
}

TEST(FastMath, ExpWithinFourUlps) {
    std::vector<float> in = random_values<float>(20000, 1, -87.3f, 88.72f);
    in = concat_values(in, {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, 1e-8f, -1e-8f, 88.72f, -87.33f});
    const Worst w = worst_error(in, realize(fast_exp, in), [](double v) { return std::exp(v); });
    EXPECT_LE(w.ulps, 4) << "at " << show(w.at_ulps);
    std::printf("fast_exp: worst %.2f ulp\n", w.ulps);
    expect_schedule_invariant(fast_exp, in);
}

TEST(FastMath, ExpIntoTheSubnormals) {
    std::vector<float> in = random_values<float>(5000, 9, -103.0f, -87.4f);
    const std::vector<float> out = realize(fast_exp, in);
    for (size_t i = 0; i < in.size(); i++) {
        // Two of the smallest subnormal's units: the result's own rounding, and the second
        // half of 2^n applied to a value rounded once already.
        ASSERT_LE(std::fabs((double)out[i] - std::exp((double)in[i])), std::ldexp(1.0, -148))
            << "fast_exp(" << show(in[i]) << ") = " << show(out[i]);
    }
}

TEST(FastMath, ExpAtTheEndsOfTheRange) {
    const float inf = INFINITY;
    std::vector<float> in = {-110.0f, -1e30f, -inf, 89.0f, 100.0f, 1e30f, inf, NAN};
    std::vector<float> out = realize(fast_exp, in);
    for (int i = 0; i < 3; i++)
        EXPECT_TRUE(same_value(out[i], 0.0f)) << show(in[i]) << " -> " << show(out[i]);
    for (int i = 3; i < 7; i++)
        EXPECT_EQ(out[i], inf) << show(in[i]) << " -> " << show(out[i]);
    EXPECT_TRUE(std::isnan(out[7]));
}

TEST(FastMath, LogWithinThreeUlpsOrAbsolutelyNearOne) {
    std::vector<float> in = log_uniform(1e-37, 3e38, 2, 20000);
    in = concat_values(in, random_values<float>(4000, 3, 0.5f, 2.0f));
    in = concat_values(in, {1.0f, 2.0f, 0.5f, 1.0000001f, 0.99999994f, 1.4142135f, 1.4142137f,
                            1e-40f, 1.4e-45f, 1.17549435e-38f, 3.4e38f});
    const std::vector<float> out = realize(fast_log, in);
    for (size_t i = 0; i < in.size(); i++) {
        const double want = std::log((double)in[i]);
        const double err = std::fabs((double)out[i] - want);
        ASSERT_TRUE(err <= 3 * ulp_at(want) || err <= std::ldexp(1.0, -22))
            << "fast_log(" << show(in[i]) << ") = " << show(out[i]) << ", log is " << want;
    }
    expect_schedule_invariant(fast_log, in);
}

TEST(FastMath, LogOutsideItsDomain) {
    const float inf = INFINITY;
    std::vector<float> out = realize(fast_log, {0.0f, -0.0f, -1.0f, -inf, inf, NAN});
    EXPECT_EQ(out[0], -inf);
    EXPECT_EQ(out[1], -inf);
    EXPECT_TRUE(std::isnan(out[2]));
    EXPECT_TRUE(std::isnan(out[3]));
    EXPECT_EQ(out[4], inf);
    EXPECT_TRUE(std::isnan(out[5]));
}

TEST(FastMath, PowOfPositiveBasesAndOfZero) {
    std::vector<float> xs = log_uniform(1e-3, 1e3, 4, 5000),
                       ys = random_values<float>(5000, 5, -4, 4);
    xs = concat_values(xs, {0.0f, 0.0f, 0.0f, 2.0f, 1.0f});
    ys = concat_values(ys, {0.0f, 2.5f, -1.0f, 10.0f, 123.0f});
    Buffer<float> a = buffer_of(xs, "a"), b = buffer_of(ys, "b");
    Var x("x");
    Func f("f");
    f(x) = fast_pow(a(x), b(x));
    f.vectorize(x, 8, TailStrategy::GuardWithIf);
    Buffer<float> out = f.realize({(int)xs.size()});
    for (size_t i = 0; i < xs.size(); i++) {
        const double want = std::pow((double)xs[i], (double)ys[i]);
        if (xs[i] == 0.0f) {
            EXPECT_EQ((double)out((int)i), want) << "fast_pow(0, " << ys[i] << ")";
            continue;
        }
        // The log's error, scaled by y, becomes a relative error of the result.
        const double allowed = 8 * ulp_at(want) + std::fabs(want) * std::fabs(ys[i]) * 1e-7 *
                                                      (1 + std::fabs(std::log((double)xs[i])));
        ASSERT_LE(std::fabs((double)out((int)i) - want), allowed)
            << "fast_pow(" << show(xs[i]) << ", " << show(ys[i]) << ") = " << show(out((int)i));
    }
}

TEST(FastMath, SinAndCosWithinTwoMillionthsAbsolutely) {
    std::vector<float> in = random_values<float>(20000, 6, -1000.0f, 1000.0f);
    in = concat_values(in, random_values<float>(4000, 7, -4.0f, 4.0f));
    in = concat_values(in, {0.0f, -0.0f, 1.5707964f, 3.1415927f, -3.1415927f, 4.712389f});
    const Worst s = worst_error(in, realize(fast_sin, in), [](double v) { return std::sin(v); });
    const Worst c = worst_error(in, realize(fast_cos, in), [](double v) { return std::cos(v); });
    EXPECT_LE(s.absolute, 2e-6) << "fast_sin at " << show(s.at_absolute);
    EXPECT_LE(c.absolute, 2e-6) << "fast_cos at " << show(c.at_absolute);
    std::printf("fast_sin: worst %.3g absolutely; fast_cos: %.3g\n", s.absolute, c.absolute);
    expect_schedule_invariant(fast_sin, in);
    expect_schedule_invariant(fast_cos, in);
}

TEST(FastMath, InverseAndInverseSqrtAreCorrectlyRounded) {
    std::vector<float> in = log_uniform(1e-30, 1e30, 8, 5000);
    in = concat_values(in, {1.0f, 4.0f, 0.0f, INFINITY, 1e-40f});
    std::vector<float> inv = realize([](Expr v) { return fast_inverse(v); }, in, 8);
    std::vector<float> rsqrt = realize([](Expr v) { return fast_inverse_sqrt(v); }, in, 8);
    for (size_t i = 0; i < in.size(); i++) {
        ASSERT_TRUE(same_value(inv[i], 1.0f / in[i])) << show(in[i]) << " -> " << show(inv[i]);
        ASSERT_TRUE(same_value(rsqrt[i], 1.0f / std::sqrt(in[i])))
            << show(in[i]) << " -> " << show(rsqrt[i]);
    }
}

TEST(FastMath, OtherTypesAreRefusedByName) {
    Var x("x");
    try {
        fast_exp(cast<double>(x));
        FAIL() << "fast_exp of a double was accepted";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("fast_exp takes a Float(32)"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("use exp"), std::string::npos) << e.what();
    }
    EXPECT_THROW(fast_pow(cast<float>(x), x), std::exception);
}

} // namespace
