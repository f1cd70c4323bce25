// Float math functions, bit-exact against the C library function of the same width
// (std::log(float) is logf; float32 exp is Loom's own, tested in exp_test.cpp), and float
// arithmetic evaluated exactly as written: no FMA unless asked for with fma().
#include <gtest/gtest.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

/** Realizes f(x) = fn(in(x)) over `inputs` and compares with reference(inputs[i]). */
template<typename T, typename Reference>
void check_unary(Expr (*fn)(Expr), Reference reference, std::vector<T> inputs,
                 const std::vector<T> &random_part = {}) {
    inputs.insert(inputs.end(), random_part.begin(), random_part.end());
    Buffer<T> in = buffer_of(inputs, "in");
    Var x("x");
    Func f("f");
    f(x) = fn(in(x));
    Buffer<T> out = f.realize({(int)inputs.size()});
    ASSERT_EQ(out.type(), type_of<T>());
    expect_1d<T>(
        out, [&](int i) { return (T)reference(inputs[i]); },
        [&](int i) { return "x=" + show(inputs[i]); });
}

/** Realizes f(x) = fn(a(x), b(x)) and compares with reference(a[i], b[i]). */
template<typename T, typename Reference>
void check_binary(Expr (*fn)(Expr, Expr), Reference reference, const std::vector<T> &av,
                  const std::vector<T> &bv) {
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = fn(a(x), b(x));
    Buffer<T> out = f.realize({(int)av.size()});
    ASSERT_EQ(out.type(), type_of<T>());
    expect_1d<T>(
        out, [&](int i) { return (T)reference(av[i], bv[i]); },
        [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); });
}

std::vector<float> uniform(float lo, float hi, uint32_t seed, size_t n = 200) {
    return random_values<float>(n, seed, lo, hi);
}

TEST(MathFloat32, Sqrt) {
    check_unary<float>(loom::sqrt, [](float v) { return std::sqrt(v); },
                       {0.0f, -0.0f, 1.0f, 2.0f, 0.25f, 1e-30f, 3.4e38f, 12345.678f},
                       uniform(0, 1e4f, 1));
}

TEST(MathFloat32, Log) {
    check_unary<float>(loom::log, [](float v) { return std::log(v); },
                       {1.0f, 0.5f, 1e-38f, 2.7182817f, 3.4e38f}, uniform(1e-6f, 1e6f, 3));
}

TEST(MathFloat32, HyperbolicInversesAndErf) {
    check_unary<float>(
        loom::asinh, [](float v) { return std::asinh(v); }, {0.0f, -0.0f, 1e-20f},
        uniform(-1e4f, 1e4f, 11));
    check_unary<float>(
        loom::acosh, [](float v) { return std::acosh(v); }, {1.0f, 0.5f}, uniform(1, 1e4f, 12));
    check_unary<float>(
        loom::atanh, [](float v) { return std::atanh(v); }, {0.0f, 1.0f, -1.0f},
        uniform(-1, 1, 13));
    check_unary<float>(
        loom::erf, [](float v) { return std::erf(v); }, {0.0f, -0.0f, 5.0f}, uniform(-4, 4, 14));
}

TEST(MathFloat32, SinCosTan) {
    std::vector<float> special = {0.0f, -0.0f, 1.0f, 3.14159265f, -1.5707964f, 1e4f};
    check_unary<float>(loom::sin, [](float v) { return std::sin(v); }, special, uniform(-10, 10, 4));
    check_unary<float>(loom::cos, [](float v) { return std::cos(v); }, special, uniform(-10, 10, 5));
    check_unary<float>(loom::tan, [](float v) { return std::tan(v); }, special, uniform(-10, 10, 6));
}

TEST(MathFloat32, Tanh) {
    check_unary<float>(loom::tanh, [](float v) { return std::tanh(v); },
                       {0.0f, -0.0f, 1e-5f, 20.0f, -20.0f}, uniform(-5, 5, 7));
}

TEST(MathFloat32, FloorCeilTrunc) {
    std::vector<float> special = {-2.5f, -1.5f, -0.5f, -0.4f, -0.0f, 0.0f, 0.5f, 1.5f,
                                  2.5f,  2.4999998f, 3.7f, -3.7f, 8388607.5f, -8388607.5f};
    check_unary<float>(loom::floor, [](float v) { return std::floor(v); }, special, uniform(-100, 100, 8));
    check_unary<float>(loom::ceil, [](float v) { return std::ceil(v); }, special, uniform(-100, 100, 9));
    check_unary<float>(loom::trunc, [](float v) { return std::trunc(v); }, special, uniform(-100, 100, 10));
}

TEST(MathFloat32, RoundIsToNearestTiesToEven) {
    // Halide's round: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -2.5 -> -2 (not std::round's away-from-zero).
    check_unary<float>(loom::round, [](float v) { return std::nearbyint(v); },
                       {-2.5f, -1.5f, -0.5f, -0.4f, 0.5f, 1.5f, 2.5f, 3.5f, 2.4999998f, 8388607.5f},
                       uniform(-100, 100, 11));
    Buffer<float> in = buffer_of<float>({0.5f, 1.5f, 2.5f, -2.5f}, "in");
    Var x("x");
    Func f("f");
    f(x) = round(in(x));
    expect_1d<float>(f.realize({4}), [](int i) { return std::vector<float>{0.0f, 2.0f, 2.0f, -2.0f}[i]; });
}

TEST(MathFloat32, Pow) {
    std::vector<float> base = {2.0f, -2.0f, 0.0f, 10.0f, 0.5f};
    std::vector<float> exponent = {10.0f, 3.0f, 0.0f, -2.0f, 0.5f};
    std::vector<float> rb = uniform(1e-3f, 100, 12), re = uniform(-4, 4, 13);
    base.insert(base.end(), rb.begin(), rb.end());
    exponent.insert(exponent.end(), re.begin(), re.end());
    check_binary<float>(loom::pow, [](float a, float b) { return std::pow(a, b); }, base, exponent);
}

TEST(MathFloat32, Atan2) {
    std::vector<float> y = {0.0f, -0.0f, 1.0f, 0.0f, -1.0f, 0.0f};
    std::vector<float> x = {0.0f, -1.0f, 0.0f, -1.0f, -1.0f, 1.0f};
    std::vector<float> ry = uniform(-10, 10, 14), rx = uniform(-10, 10, 15);
    y.insert(y.end(), ry.begin(), ry.end());
    x.insert(x.end(), rx.begin(), rx.end());
    check_binary<float>(loom::atan2, [](float a, float b) { return std::atan2(a, b); }, y, x);
}

TEST(MathFloat64, UsesTheDoubleFunctions) {
    std::vector<double> pos = random_values<double>(100, 16, 1e-3, 1e3);
    std::vector<double> any = random_values<double>(100, 17, -50, 50);
    check_unary<double>(loom::sqrt, [](double v) { return std::sqrt(v); }, pos);
    check_unary<double>(loom::log, [](double v) { return std::log(v); }, pos);
    check_unary<double>(loom::exp, [](double v) { return std::exp(v); }, any);
    check_unary<double>(loom::sin, [](double v) { return std::sin(v); }, any);
    check_unary<double>(loom::tanh, [](double v) { return std::tanh(v); }, any);
    check_unary<double>(loom::floor, [](double v) { return std::floor(v); }, {-2.5, 2.5}, any);
    check_unary<double>(loom::round, [](double v) { return std::nearbyint(v); }, {-2.5, 0.5, 1.5}, any);
}

TEST(MathFloat32, IntegerArgumentIsConvertedToFloat32) {
    Buffer<int32_t> in = buffer_of<int32_t>({0, 1, 2, 16777217}, "in");
    Var x("x");
    Func f("f");
    f(x) = sqrt(in(x));
    Buffer<float> out = f.realize({4});
    expect_1d<float>(out, [](int i) {
        return std::sqrt((float)std::vector<int32_t>{0, 1, 2, 16777217}[i]);
    });
}

TEST(FloatArithmetic, NoFusedMultiplyAdd) {
    // a * b rounds to 1 + 2^-11 (the 2^-24 term is a tie, rounded to even); adding
    // c = -(1 + 2^-11) gives exactly 0. A fused multiply-add would keep 2^-24.
    float a = 1.0f + std::ldexp(1.0f, -12), c = -(1.0f + std::ldexp(1.0f, -11));
    Buffer<float> in = buffer_of<float>({a, c}, "in");
    Var x("x");
    Func f("f");
    // in(Expr(0)) reads the buffer inside the pipeline; in(0) would be the C++ element access.
    f(x) = in(Expr(0)) * in(Expr(0)) + in(Expr(1)) + cast<float>(x);
    expect_1d<float>(f.realize({2}), [](int i) { return (float)i; });

    // The same for float64: (1 + 2^-27)^2 - (1 + 2^-26) is 0 without FMA, 2^-54 with it.
    double d = 1.0 + std::ldexp(1.0, -27), e = -(1.0 + std::ldexp(1.0, -26));
    Buffer<double> din = buffer_of<double>({d, e}, "din");
    Func g("g");
    g(x) = din(Expr(0)) * din(Expr(0)) + din(Expr(1)) - din(Expr(1)) * cast<double>(x);
    expect_1d<double>(g.realize({2}), [&](int i) { return i == 0 ? 0.0 : ref_sub(ref_add(d * d, e), e); });
}

TEST(FusedMultiplyAdd, RoundsOnceScalarAndVector) {
    // The case above: a * a + c is 0 when the product rounds first, 2^-24 when fused.
    float a = 1.0f + std::ldexp(1.0f, -12), c = -(1.0f + std::ldexp(1.0f, -11));
    std::vector<float> av = {a}, bv = {a}, cv = {c};
    std::vector<float> ra = uniform(-10, 10, 21), rb = uniform(-10, 10, 22),
                       rc = uniform(-100, 100, 23);
    av.insert(av.end(), ra.begin(), ra.end());
    bv.insert(bv.end(), rb.begin(), rb.end());
    cv.insert(cv.end(), rc.begin(), rc.end());
    Buffer<float> ab = buffer_of(av, "a"), bb = buffer_of(bv, "b"), cb = buffer_of(cv, "c");
    Var x("x");
    for (int lanes : {1, 16}) {
        Func f("f");
        f(x) = fma(ab(x), bb(x), cb(x));
        if (lanes > 1) f.vectorize(x, lanes, TailStrategy::GuardWithIf);
        Buffer<float> out = f.realize({(int)av.size()});
        EXPECT_EQ(out(0), std::ldexp(1.0f, -24)) << lanes << " lanes";
        expect_1d<float>(
            out, [&](int i) { return std::fma(av[i], bv[i], cv[i]); },
            [&](int i) { return std::to_string(lanes) + " lanes, i=" + std::to_string(i); });
    }
}

TEST(FusedMultiplyAdd, Float64AndCoercion) {
    double d = 1.0 + std::ldexp(1.0, -27), e = -(1.0 + std::ldexp(1.0, -26));
    Buffer<double> din = buffer_of<double>({d, e}, "din");
    Buffer<float> fin = buffer_of<float>({0.1f, 3.0f}, "fin");
    Var x("x");
    Func g("g"), h("h");
    g(x) = fma(din(Expr(0)), din(Expr(0)), din(Expr(1)));
    // A float32 operand widens to float64 and an int constant becomes a float, as in a * b + c.
    h(x) = fma(fin(x), 2, din(x));
    Buffer<double> gout = g.realize({1}), hout = h.realize({2});
    EXPECT_EQ(gout(0), std::ldexp(1.0, -54));
    EXPECT_EQ(hout.type(), Float(64));
    EXPECT_EQ(hout(0), std::fma((double)0.1f, 2.0, d));
    EXPECT_EQ(hout(1), std::fma(3.0, 2.0, e));
}

TEST(FusedMultiplyAdd, IntegerOperandsAreRejected) {
    Var x("x");
    try {
        Expr e = fma(x, x, 1);
        FAIL() << "fma of integers was accepted: " << e;
    } catch (const std::exception &err) {
        EXPECT_NE(std::string(err.what()).find("fma"), std::string::npos) << err.what();
        EXPECT_NE(std::string(err.what()).find("Cast one of them to a float type"),
                  std::string::npos)
            << err.what();
    }
}

TEST(FloatArithmetic, MixedExpressionMatchesCppEvaluatedAsWritten) {
    std::vector<float> av = uniform(-10, 10, 18), bv = uniform(-10, 10, 19), cv = uniform(-10, 10, 20);
    Buffer<float> a = buffer_of(av, "a"), b = buffer_of(bv, "b"), c = buffer_of(cv, "c");
    Var x("x");
    Func f("f");
    f(x) = a(x) * b(x) + c(x) * a(x) - b(x) / c(x);
    expect_1d<float>(
        f.realize({(int)av.size()}),
        [&](int i) {
            float ab = av[i] * bv[i], ca = cv[i] * av[i], bc = bv[i] / cv[i];
            float sum = ab + ca;
            return sum - bc;
        },
        [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]) + " c=" + show(cv[i]); });
}

}  // namespace
