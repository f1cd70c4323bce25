// Loom's float32 exp (codegen/ExpF32.h): its accuracy against a long double reference, its
// special values, and the same bits for every vector width.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

float float_of_bits(uint32_t bits) {
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

/** Every float in [-104, 89] with a stride through the bit patterns, so every binade is
 * sampled, plus uniform values over the range where e^x is a normal float. */
std::vector<float> exp_arguments() {
    std::vector<float> v;
    for (uint64_t bits = 0; bits < (1ull << 32); bits += 4099) {
        float x = float_of_bits((uint32_t)bits);
        if (x >= -104.0f && x <= 89.0f) v.push_back(x);
    }
    std::vector<float> normal = random_values<float>(1 << 18, 41, -87.0f, 88.0f);
    v.insert(v.end(), normal.begin(), normal.end());
    return v;
}

/** |got - e^x| in units in the last place of e^x (ulps of the smallest subnormal below 2^-126);
 * 0 when both overflow. */
double ulp_error(float got, float x) {
    long double exact = std::exp((long double)x);
    if (std::isinf(got) && exact > (long double)std::numeric_limits<float>::max()) return 0;
    int exponent;
    std::frexp(exact, &exponent);
    long double ulp = std::ldexp(1.0L, std::max(exponent - 24, -149));
    return (double)(std::fabs((long double)got - exact) / ulp);
}

Buffer<float> exp_of(const Buffer<float> &in, int vector_width, const Target &target = Target()) {
    Var x("x");
    Func f("f");
    f(x) = exp(in(x));
    if (vector_width > 1) f.vectorize(x, vector_width);
    return f.realize({in.width()}, target);
}

TEST(ExpFloat32, WithinOneUlpOfTheExactValue) {
    std::vector<float> args = exp_arguments();
    Buffer<float> out = exp_of(buffer_of(args, "in"), 16);
    double worst = 0;
    float worst_x = 0;
    size_t same_as_expf = 0;
    for (size_t i = 0; i < args.size(); i++) {
        double e = ulp_error(out((int)i), args[i]);
        if (e > worst) worst = e, worst_x = args[i];
        same_as_expf += same_value(out((int)i), std::exp(args[i]));
    }
    // 0.8431 ulp is the maximum over all 2^32 floats (measured once, exhaustively).
    EXPECT_LE(worst, 0.85) << "at x = " << show(worst_x);
    // A polynomial of float operations rounds differently from expf now and then, never often.
    EXPECT_GE((double)same_as_expf / args.size(), 0.9) << same_as_expf << " of " << args.size();
}

// Scalar, and 16 lanes wide (on AVX-512 the final scaling there is one vscalefps, which must
// overflow, flush and round subnormals the same way).
TEST(ExpFloat32, SpecialValues) {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> args = {0.0f,     -0.0f,     1.0f,      inf,        -inf,
                               nan,      88.72283f, 88.72284f, 89.0f,      1e30f,
                               -103.97f, -103.98f,  -1e30f,    -87.33655f, -100.0f,
                               -0.5f};
    for (int width : {1, 16}) {
        SCOPED_TRACE("vector width " + std::to_string(width));
        Buffer<float> out = exp_of(buffer_of(args, "in"), width);
        EXPECT_EQ(out(0), 1.0f);
        EXPECT_EQ(out(1), 1.0f);
        EXPECT_EQ(out(2), std::exp(1.0f)); // e rounded to float
        EXPECT_EQ(out(3), inf);
        EXPECT_TRUE(same_value(out(4), 0.0f));
        EXPECT_TRUE(std::isnan(out(5)));
        // The largest argument with a finite result, and the first above it.
        EXPECT_EQ(out(6), std::exp(88.72283f));
        EXPECT_TRUE(std::isfinite(out(6)));
        EXPECT_EQ(out(7), inf);
        EXPECT_EQ(out(8), inf);
        EXPECT_EQ(out(9), inf);
        // e^-103.97 is the smallest subnormal, e^-103.98 rounds to zero.
        EXPECT_EQ(out(10), std::numeric_limits<float>::denorm_min());
        EXPECT_TRUE(same_value(out(11), 0.0f));
        EXPECT_TRUE(same_value(out(12), 0.0f));
        // Subnormal results are rounded once, within an ulp of the exact value.
        for (int i : {13, 14})
            EXPECT_LE(ulp_error(out(i), args[i]), 1.0) << show(args[i]);
        EXPECT_LE(ulp_error(out(15), args[15]), 0.85);
    }
}

/** Every float whose e^x is subnormal or rounds to zero from below, 16 lanes wide against one
 * lane at a time: the two ways of scaling by 2^k round the same exact product. */
TEST(ExpFloat32, SubnormalResultsSameBitsAtEveryWidth) {
    std::vector<float> args;
    // All 2^21 or so floats of the range.
    for (float x = -87.5f; x >= -104.0f; x = std::nextafter(x, -200.0f))
        args.push_back(x);
    while (args.size() % 16)
        args.push_back(-100.0f);
    Buffer<float> in = buffer_of(args, "in");
    Buffer<float> scalar = exp_of(in, 1);
    for (int width : {4, 8, 16}) {
        Buffer<float> vector = exp_of(in, width);
        for (int i = 0; i < (int)args.size(); i++) {
            ASSERT_TRUE(same_value(vector(i), scalar(i)))
                << "width " << width << ", x = " << show(args[i]) << ": " << show(vector(i))
                << " vs scalar " << show(scalar(i));
        }
    }
}

TEST(ExpFloat32, SameBitsForEveryVectorWidth) {
    std::vector<float> args = exp_arguments();
    args.resize(1 << 16);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (float special : {0.0f, 89.0f, -104.0f, 1e30f, -1e30f, nan})
        args.push_back(special);
    while (args.size() % 64)
        args.push_back(0.5f);
    Buffer<float> in = buffer_of(args, "in");
    Buffer<float> scalar = exp_of(in, 1);
    for (int width : {4, 8, 16, 32, 64}) {
        Buffer<float> vector = exp_of(in, width);
        for (int i = 0; i < (int)args.size(); i++) {
            ASSERT_TRUE(same_value(vector(i), scalar(i)))
                << "width " << width << ", x = " << show(args[i]) << ": " << show(vector(i))
                << " vs scalar " << show(scalar(i));
        }
    }
}

// The expansion's fused multiply-adds are llvm.fma: on a CPU without FMA instructions they
// are calls to fmaf, rounded once all the same, so the bits do not depend on the target.
TEST(ExpFloat32, SameBitsWithoutFmaInstructions) {
    std::vector<float> args = exp_arguments();
    args.resize(1 << 16);
    Buffer<float> in = buffer_of(args, "in");
    Buffer<float> host = exp_of(in, 16);
    Buffer<float> sse = exp_of(in, 4, Target("x86-64-linux-sse41"));
    for (int i = 0; i < (int)args.size(); i++) {
        ASSERT_TRUE(same_value(sse(i), host(i)))
            << "x = " << show(args[i]) << ": " << show(sse(i)) << " on SSE 4.1 vs " << show(host(i));
    }
}

} // namespace
