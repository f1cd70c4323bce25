// random_float, random_uint and random_int (Halide 14's API, Loom's own values): uniform,
// independent between variables and between neighbouring points, shared where one variable is
// used twice, and the same whatever the schedule.
#include <gtest/gtest.h>

#include <cmath>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

constexpr int W = 256, H = 256;

/** The mean and the chi-square statistic over 16 equal bins of values in [0, 1). */
void expect_uniform(const Buffer<float> &b, const std::string &what) {
    double sum = 0;
    std::vector<int> bins(16);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const float v = b(x, y);
            ASSERT_TRUE(v >= 0.0f && v < 1.0f) << what << " at " << x << ", " << y << ": " << v;
            sum += v;
            bins[(int)(v * 16)]++;
        }
    }
    const double n = (double)W * H, expected = n / 16;
    double chi2 = 0;
    for (int c : bins)
        chi2 += (c - expected) * (c - expected) / expected;
    // Mean of n uniform values: standard deviation sqrt(1/12/n) = 0.0011; chi-square with 15
    // degrees of freedom exceeds 37.7 once in a thousand.
    EXPECT_NEAR(sum / n, 0.5, 0.006) << what;
    EXPECT_LT(chi2, 37.7) << what;
}

/** The correlation of two equal-sized value lists. */
double correlation(const std::vector<double> &a, const std::vector<double> &b) {
    double ma = 0, mb = 0;
    for (size_t i = 0; i < a.size(); i++)
        ma += a[i], mb += b[i];
    ma /= a.size(), mb /= b.size();
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < a.size(); i++) {
        ab += (a[i] - ma) * (b[i] - mb), aa += (a[i] - ma) * (a[i] - ma);
        bb += (b[i] - mb) * (b[i] - mb);
    }
    return ab / std::sqrt(aa * bb);
}

TEST(Random, FloatsAreUniformAndIndependent) {
    Var x("x"), y("y");
    Func f("noise");
    f(x, y) = Tuple(random_float(), random_float());
    Realization r = f.realize({W, H});
    Buffer<float> a = r[0], b = r[1];
    expect_uniform(a, "first variable");
    expect_uniform(b, "second variable");
    std::vector<double> va, vb, right, below;
    for (int y = 0; y < H - 1; y++) {
        for (int x = 0; x < W - 1; x++) {
            va.push_back(a(x, y)), vb.push_back(b(x, y));
            right.push_back(a(x + 1, y)), below.push_back(a(x, y + 1));
        }
    }
    // Independent: correlations within 4 standard deviations (1 / sqrt(n) = 0.004) of 0.
    EXPECT_LT(std::fabs(correlation(va, vb)), 0.016);
    EXPECT_LT(std::fabs(correlation(va, right)), 0.016);
    EXPECT_LT(std::fabs(correlation(va, below)), 0.016);
}

TEST(Random, EveryBitOfTheIntegersIsBalanced) {
    Var x("x"), y("y");
    Func f("bits");
    f(x, y) = Tuple(random_uint(), random_int());
    Realization r = f.realize({W, H});
    Buffer<uint32_t> u = r[0];
    Buffer<int32_t> s = r[1];
    for (int bit = 0; bit < 32; bit++) {
        int64_t ones_u = 0, ones_s = 0;
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                ones_u += (u(x, y) >> bit) & 1;
                ones_s += ((uint32_t)s(x, y) >> bit) & 1;
            }
        }
        // Half of 65536 points, within 5 standard deviations (128).
        EXPECT_NEAR((double)ones_u, W * H / 2.0, 640) << "bit " << bit << " of random_uint";
        EXPECT_NEAR((double)ones_s, W * H / 2.0, 640) << "bit " << bit << " of random_int";
    }
}

TEST(Random, OneVariableUsedTwiceHasOneValue) {
    Var x("x");
    Expr r = random_float();
    Func f("twice");
    f(x) = Tuple(r + r, r * 2.0f, r - r, r);
    Realization out = f.realize({1000});
    Buffer<float> sum = out[0], doubled = out[1], difference = out[2], value = out[3];
    bool varies = false;
    for (int i = 0; i < 1000; i++) {
        EXPECT_EQ(sum(i), doubled(i)) << i;
        EXPECT_EQ(difference(i), 0.0f) << i;
        varies = varies || value(i) != value(0);
    }
    EXPECT_TRUE(varies) << "the variable took one value at every point";
}

TEST(Random, TheScheduleDoesNotChangeTheValues) {
    Var x("x"), y("y"), xi("xi"), yi("yi");
    Param<int> seed("seed", 7);
    Func f("scheduled_noise");
    f(x, y) = random_float(seed) + cast<float>(random_int() & 255);
    Buffer<float> plain = f.realize({W, H});
    f.tile(x, y, xi, yi, 32, 8).vectorize(xi, 8).parallel(y);
    Buffer<float> scheduled = f.realize({W, H});
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            ASSERT_TRUE(same_value(plain(x, y), scheduled(x, y))) << x << ", " << y;
        }
    }
    // Another seed gives other values.
    seed.set(8);
    Buffer<float> reseeded = f.realize({W, H});
    int same = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            same += plain(x, y) == reseeded(x, y);
    }
    EXPECT_LT(same, W * H / 100);
}

TEST(Random, UpdatesDrawAtTheirRVarsPoints) {
    Var x("x");
    RDom r(0, 4, "r");
    Func f("accumulated");
    f(x) = random_uint();
    f(x) += random_uint() * cast<uint32_t>(r + 1);
    Buffer<uint32_t> out = f.realize({64});
    // The pure definition's value alone, and the update's draws at r = 0..3 (each its own).
    Func pure("accumulated");
    pure(x) = random_uint();
    Buffer<uint32_t> first = pure.realize({64});
    int differ = 0;
    for (int i = 0; i < 64; i++)
        differ += out(i) != first(i);
    EXPECT_GT(differ, 60);
}

TEST(Random, OutsideADefinitionItIsRefusedByName) {
    Var x("x");
    RDom r(0, 8, "sampled");
    r.where(random_float() < 0.5f);
    Func f("sampled_sum");
    f(x) = 0;
    f(x) += r;
    try {
        f.realize({4});
        FAIL() << "a random variable in where() was compiled";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("random variable"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("where()"), std::string::npos) << e.what();
    }
}

TEST(Random, ASeedMustBeAnInteger) { EXPECT_THROW(random_float(Expr(1.5f)), std::exception); }

} // namespace
