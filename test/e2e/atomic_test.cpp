// Stage::atomic (Halide 14's): an update whose iterations may update the same element runs its
// RVar loops in parallel or vectorized, each store an atomic read-modify-write. Integer sums,
// and min and max of any type, give exactly the serial result in any order: each test checks
// that against a plain C++ loop, under schedules that make many threads and vector lanes hit
// the same elements.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using loom_test::compile_error_of;
using ::testing::HasSubstr;

constexpr int W = 600, H = 200;

Buffer<uint8_t> pixels() {
    Buffer<uint8_t> im(W, H, "pixels");
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            im(x, y) = (uint8_t)((x * 7 + y * 13 + (x * y) % 11) % 256);
    }
    return im;
}

enum class Schedule { Parallel, VectorizedAndParallel, ParallelInBlocks };

void apply(Stage s, RVar rx, RVar ry, Schedule schedule) {
    s.atomic();
    switch (schedule) {
    case Schedule::Parallel:
        s.parallel(ry);
        break;
    case Schedule::VectorizedAndParallel:
        s.vectorize(rx, 8).parallel(ry);
        break;
    case Schedule::ParallelInBlocks:
        s.parallel(ry, 4);
        break;
    }
}

TEST(Atomic, AHistogramCountsEveryPixelWhateverTheSchedule) {
    Buffer<uint8_t> im = pixels();
    std::vector<int> expected(256, 0);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[im(x, y)]++;
    }
    for (Schedule schedule :
         {Schedule::Parallel, Schedule::VectorizedAndParallel, Schedule::ParallelInBlocks}) {
        Var x("x");
        RDom r(0, W, 0, H, "r");
        Func hist("hist");
        hist(x) = 0;
        hist(cast<int>(im(r.x, r.y))) += 1;
        apply(hist.update(), r.x, r.y, schedule);
        Buffer<int> out = hist.realize({256});
        int bad = 0;
        for (int i = 0; i < 256; i++)
            bad += out(i) != expected[i];
        EXPECT_EQ(bad, 0) << "schedule " << (int)schedule;
    }
}

// Traced stores of an atomic update: each stored value is reported (fuzz seed 5151 pair 152:
// the trace wrapped the atomic store and code generation did not find it).
std::atomic<int64_t> traced_stores{0};
int32_t count_stores(void *, const loom_trace_event_t *e) {
    if (e->event == loom_trace_store) traced_stores++;
    return 1;
}

TEST(Atomic, TracedStoresAreReported) {
    Buffer<uint8_t> im = pixels();
    std::vector<int> expected(256, 0);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[im(x, y)]++;
    }
    Var x("x");
    RDom r(0, W, 0, H, "r");
    Func hist("hist");
    hist(x) = 0;
    hist(cast<int>(im(r.x, r.y))) += 1;
    hist.update().atomic().vectorize(r.x, 4).parallel(r.y);
    hist.trace_stores();
    traced_stores = 0;
    loom_trace_handler_t old = loom_set_trace_handler(count_stores);
    Buffer<int> out = hist.realize({256});
    loom_set_trace_handler(old);
    int bad = 0;
    for (int i = 0; i < 256; i++)
        bad += out(i) != expected[i];
    EXPECT_EQ(bad, 0);
    // The pure stage's 256 stores, and at least one per pixel.
    EXPECT_GE(traced_stores.load(), 256 + W * H);
}

// A float max and an int min per bin: exact in any order.
TEST(Atomic, FloatMaxAndIntMinPerBinAreExact) {
    Buffer<uint8_t> im = pixels();
    Buffer<float> v(W, H, "v");
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            v(x, y) = std::sin(x * 0.37f + y * 1.1f) * 100.0f;
    }
    std::vector<float> max_expected(16, -1e30f);
    std::vector<int> min_expected(16, 1 << 30);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const int bin = im(x, y) % 16;
            max_expected[bin] = std::max(max_expected[bin], v(x, y));
            min_expected[bin] = std::min(min_expected[bin], x * 3 - y * 5);
        }
    }
    for (Schedule schedule :
         {Schedule::Parallel, Schedule::VectorizedAndParallel, Schedule::ParallelInBlocks}) {
        Var x("x");
        RDom r(0, W, 0, H, "r");
        Func mx("mx"), mn("mn");
        Expr bin = cast<int>(im(r.x, r.y)) % 16;
        mx(x) = -1e30f;
        mx(bin) = max(mx(bin), v(r.x, r.y));
        mn(x) = 1 << 30;
        mn(bin) = min(mn(bin), r.x * 3 - r.y * 5);
        apply(mx.update(), r.x, r.y, schedule);
        apply(mn.update(), r.x, r.y, schedule);
        Buffer<float> max_out = mx.realize({16});
        Buffer<int> min_out = mn.realize({16});
        for (int i = 0; i < 16; i++) {
            EXPECT_EQ(max_out(i), max_expected[i]) << "bin " << i << ", schedule " << (int)schedule;
            EXPECT_EQ(min_out(i), min_expected[i]) << "bin " << i << ", schedule " << (int)schedule;
        }
    }
}

// One element updated by every iteration: the inner serial loop over r.x must not keep it in a
// register while other threads update it (accumulator promotion leaves atomic stores alone).
TEST(Atomic, ASingleTotalFromManyThreads) {
    Buffer<uint8_t> im = pixels();
    int64_t expected = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected += im(x, y) * (x % 3);
    }
    RDom r(0, W, 0, H, "r");
    Func total("total");
    total() = cast<int64_t>(0);
    total() += cast<int64_t>(im(r.x, r.y)) * (r.x % 3);
    total.update().atomic().parallel(r.y);
    Buffer<int64_t> out = total.realize();
    EXPECT_EQ(out(), expected);
}

// atomic(true) takes the user's word where the check can't prove the order does not matter:
// (old + e) & -1 is a sum.
TEST(Atomic, OverrideAcceptsWhatTheCheckCannotProve) {
    Buffer<uint8_t> im = pixels();
    std::vector<int> expected(8, 0);
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[im(x, y) % 8] += x;
    }
    Var x("x");
    RDom r(0, W, 0, H, "r");
    Func f("f");
    Expr bin = cast<int>(im(r.x, r.y)) % 8;
    f(x) = 0;
    f(bin) = (f(bin) + r.x) & -1;
    EXPECT_THROW(f.update().atomic(), CompileError);
    f.update().atomic(true).vectorize(r.x, 4).parallel(r.y);
    Buffer<int> out = f.realize({8});
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(out(i), expected[i]) << i;
}

// An atomic update vectorized over an RVar it does not use: every lane adds to the same
// element, so the lanes run one after another instead of storing once (schedule-invariance
// fuzz seed 7002, pipeline 1465: the vectorizer wrote the element once for the whole vector).
TEST(Atomic, EveryLaneOfAVectorOverAnUnusedRVarAdds) {
    Var x("x"), y("y");
    RDom r(-1, 2, -2, 1, "r");
    Func f("f");
    f(x, y) = cast<uint8_t>(x + y);
    f(x, y) = f(x, y) + cast<uint8_t>(y + r.y + 3);
    f.update(0).atomic().reorder(r.y, r.x).vectorize(r.x);
    Buffer<uint8_t> out = f.realize({4, 3});
    for (int yy = 0; yy < 3; yy++) {
        for (int xx = 0; xx < 4; xx++)
            EXPECT_EQ(out(xx, yy), (uint8_t)(xx + yy + 2 * (yy + 1))) << xx << ", " << yy;
    }
}

TEST(Atomic, MisusesAreRefusedWithErrorsNamingTheStage) {
    Var x("x");
    RDom r(0, 10, "r");
    Func pure("pure"), recurrence("recurrence"), scan("scan"), pair("pair");
    pure(x) = x;
    EXPECT_THAT(compile_error_of([&] { pure.atomic(); }), HasSubstr("update(k).atomic()"));
    recurrence(x) = 1;
    recurrence(r % 3) = recurrence(r % 3) * 3 + r;
    EXPECT_THAT(compile_error_of([&] { recurrence.update().atomic(); }),
                HasSubstr("can't prove that the update gives the same result in any order"));
    scan(x) = x;
    scan(r + 1) = scan(r) + 1;
    EXPECT_THAT(compile_error_of([&] { scan.update().atomic(true); }),
                HasSubstr("at other coordinates than the ones it writes"));
    pair(x) = Tuple(0, 0);
    pair(r % 3) = Tuple(pair(r % 3)[0] + 1, pair(r % 3)[1] + r);
    EXPECT_THAT(compile_error_of([&] { pair.update().atomic(); }), HasSubstr("Tuple"));
    // Without atomic(), parallel RVars that collide are still refused.
    Func hist("hist");
    hist(x) = 0;
    hist(r % 3) += 1;
    EXPECT_THAT(compile_error_of([&] { hist.update().parallel(r); }), HasSubstr("would race"));
}

} // namespace
