// Pointwise pipelines over every scalar type, run through the JIT and checked against plain C++
// with Halide's semantics: wrap-around, Euclidean division, casts, comparisons and select,
// min/max/clamp, bitwise operators and shifts.
#include <cstdio>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "E2ETestUtil.h"
#include "codegen/FloatDivision.h"

namespace {

using namespace loom;
using namespace loom_test;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int N = 256;

/** Inputs for type T: random over the whole range of integers, over [-100, 100] for floats. */
template<typename T>
std::vector<T> inputs_for(uint32_t seed) {
    if constexpr (is_float_v<T>) {
        return random_values<T>(N, seed, T(-100), T(100));
    } else {
        return random_values<T>(N, seed);
    }
}

template<typename T>
class PointwiseEveryType : public ::testing::Test {};
using AllTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                                  uint64_t, float, double>;
TYPED_TEST_SUITE(PointwiseEveryType, AllTypes);

TYPED_TEST(PointwiseEveryType, AddMulSub) {
    using T = TypeParam;
    std::vector<T> av = inputs_for<T>(1), bv = inputs_for<T>(2);
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = a(x) * b(x) + a(x) - b(x);
    Buffer<T> out = f.realize({N});
    ASSERT_EQ(out.type(), type_of<T>());
    expect_1d<T>(
        out, [&](int i) { return ref_sub(ref_add(ref_mul(av[i], bv[i]), av[i]), bv[i]); },
        [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); });
}

TYPED_TEST(PointwiseEveryType, ConstantOperandsTakeTheExprType) {
    using T = TypeParam;
    std::vector<T> av = inputs_for<T>(3);
    Buffer<T> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = (a(x) + 7) * 3 - a(x) / 2;
    Buffer<T> out = f.realize({N});
    ASSERT_EQ(out.type(), type_of<T>());
    expect_1d<T>(
        out,
        [&](int i) {
            return ref_sub(ref_mul(ref_add(av[i], T(7)), T(3)), ref_div(av[i], T(2)));
        },
        [&](int i) { return "a=" + show(av[i]); });
}

TYPED_TEST(PointwiseEveryType, DivAndModOfRandomValues) {
    using T = TypeParam;
    std::vector<T> av = inputs_for<T>(4), bv = inputs_for<T>(5);
    // Small divisors in the first half, where rounding matters most.
    for (int i = 0; i < N / 2; i++) {
        if constexpr (is_float_v<T>) {
            bv[i] = bv[i] / 16;
        } else {
            bv[i] = (T)(bv[i] % 16);
        }
    }
    // x / 0 == 0 and x % 0 == 0 for integers. (Floats give inf and NaN; not tested here.)
    if constexpr (!is_float_v<T>) bv[0] = 0;
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func q("q"), r("r");
    q(x) = a(x) / b(x);
    r(x) = a(x) % b(x);
    auto show_inputs = [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); };
    expect_1d<T>(q.realize({N}), [&](int i) { return ref_div(av[i], bv[i]); }, show_inputs);
    expect_1d<T>(r.realize({N}), [&](int i) { return ref_mod(av[i], bv[i]); }, show_inputs);
}

TYPED_TEST(PointwiseEveryType, MinMaxAndCompare) {
    using T = TypeParam;
    std::vector<T> av = inputs_for<T>(6), bv = inputs_for<T>(7);
    bv[1] = av[1];  // one tie
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = select(a(x) <= b(x), max(a(x), b(x)), min(a(x), b(x)));
    expect_1d<T>(
        f.realize({N}),
        [&](int i) { return av[i] <= bv[i] ? std::max(av[i], bv[i]) : std::min(av[i], bv[i]); },
        [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); });
}

// ---------------------------------------------------------------------------------------------
// Division and modulo with explicit expected values.

TEST(Division, Int32RoundsTowardNegativeInfinityAndModIsNonNegative) {
    const int32_t mn = INT32_MIN, mx = INT32_MAX;
    std::vector<int32_t> av = {7, -7, 7, -7, 0, 5, -5, mn, mn, mx, mn, -1};
    std::vector<int32_t> bv = {2, 2, -2, -2, 3, 0, 0, -1, 1, -1, mn, mn};
    std::vector<int32_t> quotient = {3, -4, -3, 4, 0, 0, 0, mn, mn, -mx, 1, 1};
    std::vector<int32_t> remainder = {1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, mx};
    Buffer<int32_t> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func q("q"), r("r");
    q(x) = a(x) / b(x);
    r(x) = a(x) % b(x);
    int n = (int)av.size();
    auto show_inputs = [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); };
    expect_1d<int32_t>(q.realize({n}), [&](int i) { return quotient[i]; }, show_inputs);
    expect_1d<int32_t>(r.realize({n}), [&](int i) { return remainder[i]; }, show_inputs);
}

TEST(Division, Int8EdgeCases) {
    std::vector<int8_t> av = {-128, -128, -128, 127, -1, -7, 7, 100};
    std::vector<int8_t> bv = {-1, 1, -128, -128, -128, 0, 3, -3};
    std::vector<int8_t> quotient = {-128, -128, 1, 0, 1, 0, 2, -33};
    std::vector<int8_t> remainder = {0, 0, 0, 127, 127, 0, 1, 1};
    Buffer<int8_t> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func q("q"), r("r");
    q(x) = a(x) / b(x);
    r(x) = a(x) % b(x);
    int n = (int)av.size();
    auto show_inputs = [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); };
    expect_1d<int8_t>(q.realize({n}), [&](int i) { return quotient[i]; }, show_inputs);
    expect_1d<int8_t>(r.realize({n}), [&](int i) { return remainder[i]; }, show_inputs);
}

TEST(Division, ByConstants) {
    std::vector<int32_t> av = {-9, -8, -7, -1, 0, 1, 7, 8, 9, INT32_MIN, INT32_MAX};
    Buffer<int32_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    // One Tuple element per constant divisor, including 0, a power of two and negatives.
    f(x) = Tuple(a(x) / 4, a(x) % 4, a(x) / -3, a(x) % -3, a(x) / 0, a(x) % 0, a(x) / 7, a(x) % 7);
    const int divisors[] = {4, 4, -3, -3, 0, 0, 7, 7};
    Realization r = f.realize({(int)av.size()});
    ASSERT_EQ(r.size(), 8u);
    for (int k = 0; k < 8; k++) {
        SCOPED_TRACE("element " + std::to_string(k) + ((k % 2) ? ": a % " : ": a / ") +
                     std::to_string(divisors[k]));
        expect_1d<int32_t>(
            r[k],
            [&](int i) {
                return (k % 2) ? ref_mod(av[i], divisors[k]) : ref_div(av[i], divisors[k]);
            },
            [&](int i) { return "a=" + show(av[i]); });
    }
}

// div_round_to_zero and mod_round_to_zero by constants: C's / and %, in vectors (the constant
// paths of the division) and lane by lane.
TEST(RoundToZero, ByConstantsAsC) {
    std::vector<int32_t> av = random_values<int32_t>(500, 31, -100000, 100000);
    av.insert(av.end(), {-9, -8, -7, -1, 0, 1, 7, 8, 9, INT32_MIN + 1, INT32_MAX});
    Buffer<int32_t> a = buffer_of(av, "a");
    const int divisors[] = {7, -7, 8, -8, 3, 1};
    for (int lanes : {1, 8}) {
        Var x("x");
        Func f("f");
        std::vector<Expr> values;
        for (int d : divisors) {
            values.push_back(div_round_to_zero(a(x), d));
            values.push_back(mod_round_to_zero(a(x), d));
        }
        f(x) = Tuple(values);
        if (lanes > 1) f.vectorize(x, lanes, TailStrategy::GuardWithIf);
        Realization r = f.realize({(int)av.size()});
        for (int k = 0; k < 12; k++) {
            const int d = divisors[k / 2];
            Buffer<int32_t> out = r[k];
            for (size_t i = 0; i < av.size(); i++) {
                const int32_t want = (k % 2) ? av[i] % d : av[i] / d;
                ASSERT_EQ(out((int)i), want)
                    << av[i] << ((k % 2) ? " % " : " / ") << d << " in " << lanes << " lanes";
            }
        }
    }
}

TEST(Division, UnsignedByZeroIsZero) {
    std::vector<uint16_t> av = {0, 1, 65535, 1000}, bv = {0, 0, 0, 7};
    Buffer<uint16_t> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) / b(x), a(x) % b(x));
    Realization r = f.realize({4});
    expect_1d<uint16_t>(r[0], [&](int i) { return std::vector<uint16_t>{0, 0, 0, 142}[i]; });
    expect_1d<uint16_t>(r[1], [&](int i) { return std::vector<uint16_t>{0, 0, 0, 6}[i]; });
}

// Vector lanes of 32-bit integers that the expression bounds to [0, 2^24), divided by a
// constant: x86 code divides them with a float multiply where that is exact for every value the
// lanes can take (codegen/FloatDivision), as blur's sums of three 16-bit values by 3: below
// 2^23 with one multiply-add on the value biased by 2^23, up to 2^24 with converts. Every
// numerator up to the bound is checked, for bounds on both sides of 2^23 up to the last below
// 2^24 and divisors small and large, unsigned and signed; a bound of 2^24 keeps the integer
// path.
TEST(Division, VectorLanesBoundedBelow2To24AreExactForEveryNumerator) {
    const Target avx512("x86-64-linux-avx512-avx512_skylake");
    for (const int64_t limit : {int64_t(196605), int64_t(1) << 20, (int64_t(1) << 23) - 1,
                                int64_t(1) << 23, (int64_t(1) << 24) - 1}) {
        for (const int divisor : {3, 7, 10, 255, 641, 65535, 1000003}) {
            for (const bool is_signed : {false, true}) {
                Var x("x");
                Func f("f");
                Type t = is_signed ? Int(32) : UInt(32);
                f(x) = clamp(cast(t, x), cast(t, 0), cast(t, (int)limit)) / cast(t, divisor);
                f.vectorize(x, 16);
                const int n = (int)limit + 17;
                Buffer<> out = f.realize({n});
                const int32_t *q = (const int32_t *)out.raw_data();
                for (int i = 0; i < n; i++) {
                    const int64_t expected = std::min<int64_t>(i, limit) / divisor;
                    ASSERT_EQ(q[i], expected) << "x = " << i << ", bound " << limit << ", divisor "
                                              << divisor << (is_signed ? ", int32" : ", uint32");
                }
            }
        }
    }
    // The code: a multiply-add below 2^23, a multiply between converts below 2^24, the integer
    // division past.
    for (const int64_t limit : {int64_t(196605), int64_t(1) << 23, int64_t(1) << 24}) {
        Var x("x");
        Func f("f");
        f(x) = clamp(cast<int32_t>(x), 0, (int)limit) / 3;
        f.vectorize(x, 16);
        std::string ir = Pipeline(f).llvm_ir(avx512);
        if (limit < (int64_t(1) << 23)) {
            EXPECT_THAT(ir, HasSubstr("@llvm.fma.v16f32")) << ir;
            EXPECT_THAT(ir, Not(HasSubstr("fptosi"))) << ir;
            EXPECT_THAT(ir, Not(HasSubstr("div <16 x i32>"))) << ir;
        } else if (limit < (int64_t(1) << 24)) {
            EXPECT_THAT(ir, HasSubstr("fptosi <16 x float>")) << ir;
            EXPECT_THAT(ir, Not(HasSubstr("div <16 x i32>"))) << ir;
        } else {
            EXPECT_THAT(ir, HasSubstr("div <16 x i32>")) << ir; // LLVM makes it udiv
            EXPECT_THAT(ir, Not(HasSubstr("fptosi"))) << ir;
        }
    }
}

// The multiply-add form's constants, checked apart from codegen: wherever biased_reciprocal_for
// gives (c, k), the float fma(2^23 + x, c, k) holds 2^23 + 2^16 + x / d for every x of the range
// (std::fma rounds once, to nearest even, as the instruction does). Small divisors get a form at
// 18 bits (blur's sums); 3 does at every width below 2^23.
TEST(Division, BiasedReciprocalGivesEveryQuotientOfItsRange) {
    auto quotients_hold = [](int64_t limit, int64_t divisor, const Internal::BiasedReciprocal &r) {
        for (int64_t x = 0; x <= limit; x++) {
            const float biased = std::ldexp(1.0f, 23) + (float)x;
            const float q = std::fma(biased, r.c, r.k);
            uint32_t bits;
            std::memcpy(&bits, &q, 4);
            const int64_t quotient = (int64_t)bits - 0x4B000000 - Internal::kBiasedQuotientOffset;
            if (quotient != x / divisor) {
                ADD_FAILURE() << "x = " << x << ", divisor " << divisor << ": " << quotient;
                return false;
            }
        }
        return true;
    };
    Expr x = Internal::Variable::make(Int(32), "x");
    int found = 0, tried = 0;
    for (int64_t divisor = 3; divisor <= 300; divisor++) {
        if ((divisor & (divisor - 1)) == 0) continue;
        tried++;
        auto r = Internal::biased_reciprocal_for(clamp(x, 0, 196605), divisor);
        if (!r) continue;
        found++;
        if (!quotients_hold(196605, divisor, *r)) return;
    }
    EXPECT_GE(found, 5) << found << " of " << tried << " divisors";
    std::printf("biased reciprocals for %d of %d divisors 3 .. 300 at 18 bits\n", found, tried);
    for (const int64_t divisor : {3, 5, 7, 255, 641, 65535}) {
        const int64_t limit = (int64_t(1) << 23) - 1;
        auto r = Internal::biased_reciprocal_for(clamp(x, 0, (int)limit), divisor);
        if (divisor == 3) {
            ASSERT_TRUE(r.has_value());
        }
        if (r && !quotients_hold(limit, divisor, *r)) return;
    }
    // Outside [0, 2^23) there is none.
    EXPECT_FALSE(Internal::biased_reciprocal_for(clamp(x, 0, 1 << 23), 3));
    EXPECT_FALSE(Internal::biased_reciprocal_for(clamp(x, -1, 100), 3));
}

TEST(Division, FloatModIsAMinusBTimesFloorOfAOverB) {
    std::vector<float> av = {5.5f, -5.5f, 5.5f, -5.5f, 3.0f, 0.25f};
    std::vector<float> bv = {2.0f, 2.0f, -2.0f, -2.0f, 1.5f, 0.1f};
    Buffer<float> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = a(x) % b(x);
    expect_1d<float>(f.realize({6}), [&](int i) { return ref_mod(av[i], bv[i]); },
                     [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); });
}

// ---------------------------------------------------------------------------------------------
// Narrow integers wrap.

TEST(WrapAround, Uint8AddAndSubtract) {
    std::vector<uint8_t> av = {0, 55, 56, 255};
    Buffer<uint8_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) + 200, a(x) - 1, a(x) * 2);
    Realization r = f.realize({4});
    expect_1d<uint8_t>(r[0], [](int i) { return std::vector<uint8_t>{200, 255, 0, 199}[i]; });
    expect_1d<uint8_t>(r[1], [](int i) { return std::vector<uint8_t>{255, 54, 55, 254}[i]; });
    expect_1d<uint8_t>(r[2], [](int i) { return std::vector<uint8_t>{0, 110, 112, 254}[i]; });
}

TEST(WrapAround, Int16MultiplyAndNegate) {
    std::vector<int16_t> av = {16384, -16385, 32767, -32768};
    Buffer<int16_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) * 2, -a(x), a(x) + 1);
    Realization r = f.realize({4});
    expect_1d<int16_t>(r[0], [](int i) { return std::vector<int16_t>{-32768, 32766, -2, 0}[i]; });
    expect_1d<int16_t>(r[1], [](int i) { return std::vector<int16_t>{-16384, 16385, -32767, -32768}[i]; });
    expect_1d<int16_t>(r[2], [](int i) { return std::vector<int16_t>{16385, -16384, -32768, -32767}[i]; });
}

// ---------------------------------------------------------------------------------------------
// Casts.

TEST(Casts, IntegerNarrowingTruncatesAndWideningExtendsBySourceSign) {
    std::vector<int32_t> av = {300, 200, -1, -129, 65537};
    Buffer<int32_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = Tuple(cast<uint8_t>(a(x)), cast<int8_t>(a(x)), cast<uint16_t>(a(x)),
                 cast<int64_t>(cast<int8_t>(a(x))), cast<uint32_t>(cast<int8_t>(a(x))),
                 cast<int32_t>(cast<uint8_t>(a(x))));
    Realization r = f.realize({5});
    expect_1d<uint8_t>(r[0], [](int i) { return std::vector<uint8_t>{44, 200, 255, 127, 1}[i]; });
    expect_1d<int8_t>(r[1], [](int i) { return std::vector<int8_t>{44, -56, -1, 127, 1}[i]; });
    expect_1d<uint16_t>(r[2], [](int i) { return std::vector<uint16_t>{300, 200, 65535, 65407, 1}[i]; });
    expect_1d<int64_t>(r[3], [](int i) { return std::vector<int64_t>{44, -56, -1, 127, 1}[i]; });
    expect_1d<uint32_t>(r[4], [](int i) {
        return std::vector<uint32_t>{44, 4294967240u, 4294967295u, 127, 1}[i];
    });
    expect_1d<int32_t>(r[5], [](int i) { return std::vector<int32_t>{44, 200, 255, 127, 1}[i]; });
}

TEST(Casts, FloatToIntRoundsTowardZero) {
    std::vector<float> av = {-2.7f, -0.5f, 0.5f, 2.7f, 65535.9f, 127.99f};
    Buffer<float> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = Tuple(cast<int32_t>(a(x)), cast<uint16_t>(abs(a(x))), cast<int8_t>(a(x) / 1000.0f));
    Realization r = f.realize({6});
    expect_1d<int32_t>(r[0], [](int i) { return std::vector<int32_t>{-2, 0, 0, 2, 65535, 127}[i]; });
    expect_1d<uint16_t>(r[1], [](int i) { return std::vector<uint16_t>{2, 0, 0, 2, 65535, 127}[i]; });
    expect_1d<int8_t>(r[2], [](int i) { return std::vector<int8_t>{0, 0, 0, 0, 65, 0}[i]; });
}

TEST(Casts, IntToFloatRoundsToNearestAndFloatWidthsConvert) {
    std::vector<int32_t> av = {16777217, -16777219, 3, INT32_MAX};
    std::vector<double> dv = {0.1, -1e30, 1.0 / 3.0, 3e38};
    Buffer<int32_t> a = buffer_of(av, "a");
    Buffer<double> d = buffer_of(dv, "d");
    Var x("x");
    Func f("f");
    f(x) = Tuple(cast<float>(a(x)), cast<double>(a(x)), cast<float>(d(x)),
                 cast<double>(cast<float>(d(x))));
    Realization r = f.realize({4});
    expect_1d<float>(r[0], [&](int i) { return (float)av[i]; });
    expect_1d<double>(r[1], [&](int i) { return (double)av[i]; });
    expect_1d<float>(r[2], [&](int i) { return (float)dv[i]; });
    expect_1d<double>(r[3], [&](int i) { return (double)(float)dv[i]; });
}

TEST(Casts, ToBoolMeansNonZero) {
    std::vector<int32_t> av = {0, 1, -1, 256};
    Buffer<int32_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = select(cast<bool>(a(x)), 10, 20);
    expect_1d<int32_t>(f.realize({4}), [](int i) { return std::vector<int32_t>{20, 10, 10, 10}[i]; });
}

// ---------------------------------------------------------------------------------------------
// Comparisons, select, min, max, clamp, abs.

TEST(Select, ChainedSelectPicksTheFirstTrueCondition) {
    std::vector<int32_t> av = {-5, 0, 50, 100, 150};
    Buffer<int32_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = select(a(x) < 0, -1, a(x) >= 100, 100, a(x) == 50, 0, a(x));
    expect_1d<int32_t>(f.realize({5}), [](int i) { return std::vector<int32_t>{-1, 0, 0, 100, 100}[i]; });
}

TEST(Select, EveryComparisonOnFloats) {
    std::vector<float> av = {1.0f, 2.0f, 3.0f, -0.0f}, bv = {2.0f, 2.0f, 2.0f, 0.0f};
    Buffer<float> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    // One bit per comparison: <, <=, ==, !=, >, >=.
    f(x) = select(a(x) < b(x), 1, 0) + select(a(x) <= b(x), 2, 0) + select(a(x) == b(x), 4, 0) +
           select(a(x) != b(x), 8, 0) + select(a(x) > b(x), 16, 0) + select(a(x) >= b(x), 32, 0);
    // -0.0 == 0.0.
    expect_1d<int32_t>(f.realize({4}), [](int i) { return std::vector<int32_t>{11, 38, 56, 38}[i]; });
}

TEST(Select, ComparisonsWithNaNAreIEEE) {
    // Every ordered comparison with a NaN is false and != is true, as in C++. (Halide 14 is no
    // reference here: it compiles comparisons assuming no NaNs, even with StrictFloat.)
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> av = {nan, nan, 1.0f}, bv = {nan, 1.0f, nan};
    Buffer<float> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = select(a(x) < b(x), 1, 0) + select(a(x) <= b(x), 2, 0) + select(a(x) == b(x), 4, 0) +
           select(a(x) != b(x), 8, 0) + select(a(x) > b(x), 16, 0) + select(a(x) >= b(x), 32, 0) +
           select(is_nan(a(x)), 64, 0);
    expect_1d<int32_t>(f.realize({3}), [](int i) { return std::vector<int32_t>{72, 72, 8}[i]; });
}

TEST(Select, LogicalOperators) {
    std::vector<int32_t> av = {0, 1, 2, 3};
    Buffer<int32_t> a = buffer_of(av, "a");
    Var x("x");
    Func f("f");
    f(x) = select((a(x) > 0 && a(x) < 3) || !(a(x) != 3), 1, 0);
    expect_1d<int32_t>(f.realize({4}), [](int i) { return std::vector<int32_t>{0, 1, 1, 1}[i]; });
}

TEST(Clamp, IntAndFloat) {
    std::vector<int32_t> av = {-100, -10, 0, 10, 100};
    std::vector<float> fv = {-0.5f, 0.0f, 0.25f, 1.0f, 7.0f};
    Buffer<int32_t> a = buffer_of(av, "a");
    Buffer<float> f_in = buffer_of(fv, "f_in");
    Var x("x");
    Func f("f");
    f(x) = Tuple(clamp(a(x), -10, 10), clamp(f_in(x), 0.0f, 1.0f), clamp(cast<uint8_t>(a(x) + 100), 50, 150));
    Realization r = f.realize({5});
    expect_1d<int32_t>(r[0], [](int i) { return std::vector<int32_t>{-10, -10, 0, 10, 10}[i]; });
    expect_1d<float>(r[1], [](int i) { return std::vector<float>{0.0f, 0.0f, 0.25f, 1.0f, 1.0f}[i]; });
    expect_1d<uint8_t>(r[2], [](int i) { return std::vector<uint8_t>{50, 90, 100, 110, 150}[i]; });
}

TEST(MinMax, WithConstantsOnUint8AndFloat) {
    std::vector<uint8_t> av = {0, 3, 200, 255};
    std::vector<float> fv = {-1.5f, 0.0f, 2.5f, 9.0f};
    Buffer<uint8_t> a = buffer_of(av, "a");
    Buffer<float> b = buffer_of(fv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(min(a(x), 100), max(a(x), 3), min(b(x), 2.0f), max(b(x), 0.0f));
    Realization r = f.realize({4});
    expect_1d<uint8_t>(r[0], [](int i) { return std::vector<uint8_t>{0, 3, 100, 100}[i]; });
    expect_1d<uint8_t>(r[1], [](int i) { return std::vector<uint8_t>{3, 3, 200, 255}[i]; });
    expect_1d<float>(r[2], [](int i) { return std::vector<float>{-1.5f, 0.0f, 2.0f, 2.0f}[i]; });
    expect_1d<float>(r[3], [](int i) { return std::vector<float>{0.0f, 0.0f, 2.5f, 9.0f}[i]; });
}

TEST(Abs, SignedIntegersGiveUnsignedSoMinIsExact) {
    std::vector<int8_t> av = {-128, -1, 0, 127};
    std::vector<int8_t> bv = {127, 1, -128, -128};
    Buffer<int8_t> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(abs(a(x)), absd(a(x), b(x)));
    Realization r = f.realize({4});
    ASSERT_EQ(r[0].type(), UInt(8));
    expect_1d<uint8_t>(r[0], [](int i) { return std::vector<uint8_t>{128, 1, 0, 127}[i]; });
    expect_1d<uint8_t>(r[1], [](int i) { return std::vector<uint8_t>{255, 2, 128, 255}[i]; });
}

// ---------------------------------------------------------------------------------------------
// Bitwise operators and shifts.

template<typename T>
class Bitwise : public ::testing::Test {};
using IntTypes = ::testing::Types<int8_t, int16_t, int32_t, int64_t, uint8_t, uint16_t, uint32_t,
                                  uint64_t>;
TYPED_TEST_SUITE(Bitwise, IntTypes);

TYPED_TEST(Bitwise, AndOrXorNot) {
    using T = TypeParam;
    std::vector<T> av = inputs_for<T>(8), bv = inputs_for<T>(9);
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) & b(x), a(x) | b(x), a(x) ^ b(x), ~a(x), a(x) & 0x0F);
    Realization r = f.realize({N});
    auto show_inputs = [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); };
    expect_1d<T>(r[0], [&](int i) { return T(av[i] & bv[i]); }, show_inputs);
    expect_1d<T>(r[1], [&](int i) { return T(av[i] | bv[i]); }, show_inputs);
    expect_1d<T>(r[2], [&](int i) { return T(av[i] ^ bv[i]); }, show_inputs);
    expect_1d<T>(r[3], [&](int i) { return T(~av[i]); }, show_inputs);
    expect_1d<T>(r[4], [&](int i) { return T(av[i] & 0x0F); }, show_inputs);
}

TYPED_TEST(Bitwise, ShiftsByBufferAmounts) {
    using T = TypeParam;
    constexpr int bits = 8 * sizeof(T);
    std::vector<T> av = inputs_for<T>(10);
    // Amounts in (-bits, bits) for signed types (negative reverses), [0, bits) for unsigned.
    std::vector<T> bv = std::is_signed<T>::value ? random_values<T>(N, 11, T(1 - bits), T(bits - 1))
                                                 : random_values<T>(N, 11, T(0), T(bits - 1));
    Buffer<T> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) << b(x), a(x) >> b(x), a(x) << 3, a(x) >> 3);
    Realization r = f.realize({N});
    auto show_inputs = [&](int i) { return "a=" + show(av[i]) + " b=" + show(bv[i]); };
    expect_1d<T>(r[0], [&](int i) { return ref_shift_left(av[i], bv[i]); }, show_inputs);
    expect_1d<T>(r[1], [&](int i) { return ref_shift_right(av[i], bv[i]); }, show_inputs);
    expect_1d<T>(r[2], [&](int i) { return ref_shift_left(av[i], T(3)); }, show_inputs);
    expect_1d<T>(r[3], [&](int i) { return ref_shift_right(av[i], T(3)); }, show_inputs);
}

TEST(Shifts, NegativeSignedAmountReversesTheDirection) {
    std::vector<int32_t> av = {-64, -64, 5, 5, 1};
    std::vector<int32_t> bv = {-2, 2, -1, 1, -31};
    Buffer<int32_t> a = buffer_of(av, "a"), b = buffer_of(bv, "b");
    Var x("x");
    Func f("f");
    f(x) = Tuple(a(x) << b(x), a(x) >> b(x));
    Realization r = f.realize({5});
    // -64 << -2 is -64 >> 2 == -16; -64 >> -2 is -64 << 2 == -256.
    expect_1d<int32_t>(r[0], [](int i) { return std::vector<int32_t>{-16, -256, 2, 10, 0}[i]; });
    expect_1d<int32_t>(r[1], [](int i) { return std::vector<int32_t>{-256, -16, 10, 2, INT32_MIN}[i]; });
}

}  // namespace

namespace {

// The index of an argmin over two rows, -1 or 0, cast to uint8 (255 or 0) and then to float, in
// a loop LLVM's SLP vectorizer packs: LLVM 19 narrows `uitofp (sext i1 to i8)` to
// `uitofp i1` there (1.0 for 255.0) unless Loom's pipeline rewrites it first
// (codegen/LLVMTarget.cpp, BoolToFloatSelects). Schedule-invariance fuzz seed 778 pipeline 192.
TEST(BoolToFloat, SignExtendedBoolConvertedInVectorizedCode) {
    using namespace loom;
    Buffer<uint8_t> in(3, 20);
    in.set_min({-1, 0});
    for (int y = 0; y < 20; y++)
        for (int x = -1; x < 2; x++)
            in(x, y) = uint8_t((x * 37 + y * 11) % 7);
    Var x("x"), y("y");
    Func edge = BoundaryConditions::repeat_edge(in);
    RDom r(-1, 2, "r");
    Func index("index"), out("out");
    index(x, y) = cast<float>(cast<uint8_t>(argmin(edge(x, y + r))[0]));
    out(x, y) = cast<float>(y) + index(x, x - 1);
    index.compute_root().parallel(x, 4, TailStrategy::ShiftInwards);
    Buffer<float> result(30, 4);
    result.set_min({0, -1});
    out.realize(result);
    auto at = [&](int xx, int yy) {
        return in(std::min(std::max(xx, -1), 1), std::min(std::max(yy, 0), 19));
    };
    for (int yy = -1; yy < 3; yy++) {
        for (int xx = 0; xx < 30; xx++) {
            // argmin keeps the first minimum; its index is -1 or 0, as uint8 255 or 0.
            const int row = xx - 1;
            const int first = at(xx, row - 1), second = at(xx, row);
            const float expected = (float)yy + (second < first ? 0.0f : 255.0f);
            ASSERT_EQ(result(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

} // namespace
