// Schedules that change the order of a reduction, against Halide 14 (issue 35, item 4): both
// accept reordering the RVars of an associative, commutative update and rfactor of one, float
// ones included; for the same schedule both give the same bits. A float + reduction run in
// another order rounds differently (README.md, "Schedules that reorder a float reduction"), and
// the tests show that too, so that the equality with Halide is not the trivial one of sums that
// round the same way in every order.

#include "CompileErrorOf.h"
#include "HalideScheduleDiff.h"

namespace {

using loom_test::compile_error_of;

// A convolution layer as Halide's apps write it: in(c, x, y) holds values that are not exact
// binary fractions, so every reordering of the float sum can round differently.
#define CONV_LAYER(REORDER)                                                                        \
    Buffer<uint8_t> raw = random_buffer<Buffer<uint8_t>>({6, 24, 20}, 3, 0, 255, {}, "raw");       \
    Buffer<uint8_t> wraw = random_buffer<Buffer<uint8_t>>({5, 3, 3, 6}, 4, 0, 255, {}, "wraw");    \
    Var c("c"), x("x"), y("y");                                                                    \
    Func in("in"), w("w"), conv("conv");                                                           \
    in(c, x, y) = cast<float>(raw(c, x, y)) * 0.0137f + 0.25f;                                     \
    w(c, x, y, k) = cast<float>(wraw(c, x, y, k)) * 0.00731f - 0.9f;                               \
    RDom r(0, 3, 0, 3, 0, 6, "r");                                                                 \
    conv(c, x, y) = 0.125f;                                                                        \
    conv(c, x, y) += w(c, r.x, r.y, r.z) * in(r.z, x + r.x, y + r.y);                              \
    if (REORDER) conv.update().reorder(c, x, r.z, r.x, r.y);                                       \
    return conv;

const std::vector<Box> kConvRegions = {{{5, 22, 18}, {}}, {{3, 9, 7}, {1, 2, 3}}};

TEST(FloatReductions, AConvolutionLayerWithItsRVarsReorderedGivesHalidesBits) {
    // (k: w's fourth dimension.)
    expect_same_output<float>(SAME_PIPELINE(Var k("k"); CONV_LAYER(true)), kConvRegions);
    expect_same_output<float>(SAME_PIPELINE(Var k("k"); CONV_LAYER(false)), kConvRegions);
}

// The reordered sum is a different sum: some outputs round differently, none by more than a few
// units in the last place of the terms' magnitude.
TEST(FloatReductions, ReorderingTheFloatSumChangesItsRounding) {
    using namespace loom;
    auto define = [](bool reorder) {
        Var k("k");
        CONV_LAYER(reorder)
    };
    auto run = [&](bool reorder) { return Buffer<float>(define(reorder).realize({5, 22, 18})); };
    Buffer<float> serial = run(false), reordered = run(true);
    int differ = 0;
    for (int y = 0; y < 18; y++) {
        for (int x = 0; x < 22; x++) {
            for (int c = 0; c < 5; c++) {
                differ += serial(c, x, y) != reordered(c, x, y);
                EXPECT_NEAR(serial(c, x, y), reordered(c, x, y), 1e-4f)
                    << c << " " << x << " " << y;
            }
        }
    }
    EXPECT_GT(differ, 0) << "every reordered float sum rounded as the serial one did";
}

TEST(FloatReductions, RFactorOfAFloatSumGivesHalidesBits) {
    expect_same_output<float>(
        SAME_PIPELINE(
            Buffer<uint8_t> raw = random_buffer<Buffer<uint8_t>>({61, 37}, 5, 0, 255, {}, "raw");
            Var x("x"), y("y"), u("u"); Func in("in"), total("total");
            in(x, y) = cast<float>(raw(x, y)) * 0.0173f - 1.1f; RDom r(0, 61, 0, 37, "r");
            total(x) = 0.5f; total(x) += in(r.x, r.y) * (x + 1); RVar rxo("rxo"), rxi("rxi");
            total.update().split(r.x, rxo, rxi, 8); Func partial = total.update().rfactor(rxi, u);
            partial.compute_root().vectorize(u); return total;),
        {{{3}, {}}});
}

TEST(FloatReductions, RFactorOfAFloatMaxAndReorderedMinGiveHalidesBits) {
    expect_same_output<float>(
        SAME_PIPELINE(
            Buffer<uint8_t> raw = random_buffer<Buffer<uint8_t>>({40, 30, 3}, 6, 0, 255, {}, "raw");
            Var x("x"), y("y"), z("z"), v("v"); Func in("in"), hi("hi"), lo("lo"), f("f");
            in(x, y, z) = sin(cast<float>(raw(x, y, z)) * 0.1f); RDom r(0, 40, 0, 30, "r");
            hi(z) = -1e30f; hi(z) = max(hi(z), in(r.x, r.y, z)); lo(z) = 1e30f;
            lo(z) = min(in(r.x, r.y, z) * 2.0f, lo(z)); lo.update().reorder(r.y, r.x, z);
            hi.update().rfactor(r.y, v).compute_root(); lo.compute_root(); f(z) = hi(z) - lo(z);
            return f;),
        {{{3}, {}}});
}

// Halide 14's other order-free update: a value that neither reads the Func nor uses an RVar,
// written at points the RVars choose (the last write at a point is the same in any order).
TEST(FloatReductions, ReorderingAConstantScatterGivesHalidesBits) {
    expect_same_output<float>(
        SAME_PIPELINE(
            Buffer<uint8_t> raw = random_buffer<Buffer<uint8_t>>({16, 12}, 7, 0, 9, {}, "raw");
            Var x("x"), y("y"); Func seen("seen"); RDom r(0, 16, 0, 12, "r"); seen(x, y) = 0.0f;
            seen(clamp(cast<int>(raw(r.x, r.y)), 0, 9), y) = cast<float>(y) * 0.3f;
            seen.update().reorder(r.y, r.x); return seen;),
        {{{10, 12}, {}}});
}

// A recurrence is not order-free: both refuse the reorder, Loom with a message that names the
// stage and the rule.
TEST(FloatReductions, ReorderingARecurrenceIsRefusedByBoth) {
    auto define = [](auto in, auto f, auto r, auto x) {
        f(x) = 0.0f;
        f(x) = f(x) * 0.5f + in(r.x, r.y);
    };
    {
        Halide::Func in("in"), f("f");
        Halide::Var x("x"), y("y");
        in(x, y) = Halide::cast<float>(x + y);
        Halide::RDom r(0, 4, 0, 4, "r");
        define(in, f, r, x);
        bool refused = false;
        try {
            f.update().reorder(r.y, r.x);
        } catch (const std::exception &) {
            refused = true;
        }
        EXPECT_TRUE(refused);
    }
    loom::Func in("in"), f("f");
    loom::Var x("x"), y("y");
    in(x, y) = loom::cast<float>(x + y);
    loom::RDom r(0, 4, 0, 4, "r");
    define(in, f, r, x);
    std::string error = compile_error_of([&] { f.update().reorder(r.y, r.x); });
    EXPECT_NE(error.find("In reorder of f.update(0)"), std::string::npos) << error;
    EXPECT_NE(error.find("op one of + * min max"), std::string::npos) << error;
}

} // namespace
