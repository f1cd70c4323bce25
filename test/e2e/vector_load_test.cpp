// Vector loads whose lanes are not consecutive: strided, reversed, halved (x / 2), clamped to
// an edge (boundary conditions) and general (a lookup). Each runs against a C++ loop, with its
// input flush against an inaccessible page on either side, so that a load reading one element
// outside the lanes' span crashes the test (vector_load_code_test.cpp checks the code's shape).
#include <algorithm>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../schedule/StmtText.h"
#include "E2ETestUtil.h"
#include "codegen/ClampedRamp.h"
#include "codegen/IndexTerms.h"
#include "codegen/LaneClasses.h"
#include "codegen/LaneOffsets.h"
#include "dsl/IROperator.h"

namespace {

using namespace loom;
using loom::Internal::lane_classes;
using loom::Internal::lane_offsets;
using loom_test::occurrences;
using ::testing::HasSubstr;
using ::testing::Not;

// ---------------------------------------------------------------------------------------------
// The lanes of an index as base + constant offsets.

Expr i32(int v) { return Expr(v); }

TEST(LaneOffsets, StridedAndReversedRamps) {
    Expr b = Internal::Variable::make(Int(32), "b");
    auto two = lane_offsets(Internal::Ramp::make(b, i32(2), 4));
    ASSERT_TRUE(two);
    EXPECT_EQ(two->modulus, 1);
    EXPECT_EQ(two->offsets[0], (std::vector<int64_t>{0, 2, 4, 6}));
    auto rev =
        lane_offsets(Internal::Ramp::make(b, i32(-1), 4) + Internal::Broadcast::make(i32(3), 4));
    ASSERT_TRUE(rev);
    EXPECT_EQ(rev->offsets[0], (std::vector<int64_t>{0, -1, -2, -3}));
    EXPECT_EQ(Internal::to_string(rev->base), "(b + 3)");
}

TEST(LaneOffsets, HalvedRampHasOneRowPerParity) {
    Expr b = Internal::Variable::make(Int(32), "b");
    Expr index = Internal::Broadcast::make(Internal::Variable::make(Int(32), "c"), 4) +
                 Internal::Div::make(Internal::Ramp::make(b, i32(1), 4),
                                     Internal::Broadcast::make(i32(2), 4));
    auto h = lane_offsets(index);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->modulus, 2);
    EXPECT_EQ(h->offsets[0], (std::vector<int64_t>{0, 0, 1, 1}));
    EXPECT_EQ(h->offsets[1], (std::vector<int64_t>{0, 1, 1, 2}));
    EXPECT_EQ(Internal::to_string(h->base), "(c + (b/2))");
    EXPECT_EQ(Internal::to_string(h->residue), "(b % 2)");
}

TEST(LaneOffsets, OtherShapesAreNotOffsets) {
    Expr b = Internal::Variable::make(Int(32), "b"), s = Internal::Variable::make(Int(32), "s");
    EXPECT_FALSE(lane_offsets(Internal::Ramp::make(b, s, 4))); // stride unknown
    Expr halved = Internal::Div::make(Internal::Ramp::make(b, i32(1), 4),
                                      Internal::Broadcast::make(i32(2), 4));
    // A second division would need two residues.
    EXPECT_FALSE(lane_offsets(Internal::Div::make(halved, Internal::Broadcast::make(i32(2), 4))));
    EXPECT_FALSE(lane_offsets(Internal::Div::make(Internal::Ramp::make(b, i32(1), 4),
                                                  Internal::Broadcast::make(i32(-2), 4))));
}

TEST(LaneClasses, HalvedRampIsTwoInterleavedRamps) {
    Expr b = Internal::Variable::make(Int(32), "b"), c = Internal::Variable::make(Int(32), "c");
    Expr index = Internal::Broadcast::make(c, 8) +
                 Internal::Div::make(Internal::Ramp::make(b + 1, i32(1), 8),
                                     Internal::Broadcast::make(i32(2), 8));
    auto h = lane_classes(index);
    ASSERT_TRUE(h);
    ASSERT_EQ(h->bases.size(), 2u);
    // Even lanes start at (b + 1) / 2, odd lanes at (b + 2) / 2: no residue of b.
    EXPECT_EQ(Internal::to_string(h->bases[0]), "(c + ((b + 1)/2))");
    EXPECT_EQ(Internal::to_string(h->bases[1]), "(c + (((b + 1) + 1)/2))");
    EXPECT_EQ(h->lane_class, (std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1}));
    EXPECT_EQ(h->offsets, (std::vector<int64_t>{0, 0, 1, 1, 2, 2, 3, 3}));
    // A stride-2 ramp halved is one class: a dense ramp of b / 2.
    auto one = lane_classes(Internal::Div::make(Internal::Ramp::make(b, i32(2), 4),
                                                Internal::Broadcast::make(i32(2), 4)));
    ASSERT_TRUE(one);
    EXPECT_EQ(one->bases.size(), 1u);
    EXPECT_EQ(one->offsets, (std::vector<int64_t>{0, 1, 2, 3}));
    // No division: LaneOffsets' case, not this one.
    EXPECT_FALSE(lane_classes(Internal::Ramp::make(b, i32(2), 4)));
}

TEST(ClampedRamp, FindsTheClampInEitherOrder) {
    Expr b = Internal::Variable::make(Int(32), "b"), c = Internal::Variable::make(Int(32), "c");
    Expr lo = Internal::Broadcast::make(Internal::Variable::make(Int(32), "lo"), 8);
    Expr hi = Internal::Broadcast::make(Internal::Variable::make(Int(32), "hi"), 8);
    Expr ramp = Internal::Ramp::make(b, i32(2), 8);
    Expr row = Internal::Broadcast::make(c, 8);
    for (Expr clamped : {Internal::Max::make(Internal::Min::make(ramp, hi), lo),
                         Internal::Min::make(hi, Internal::Max::make(lo, ramp))}) {
        auto found = Internal::find_clamped_ramp(row + clamped);
        ASSERT_TRUE(found) << Internal::to_string(clamped);
        EXPECT_EQ(Internal::to_string(found->unclamped_index), Internal::to_string(row + ramp));
        EXPECT_EQ(Internal::to_string(found->all_lanes_inside), "((lo <= b) && ((b + 14) <= hi))");
        // Beyond either edge every lane reads the bound's element.
        EXPECT_EQ(Internal::to_string(found->all_lanes_outside),
                  "((lo <= hi) && (((b + 14) <= lo) || (hi <= b)))");
        EXPECT_EQ(Internal::to_string(found->outside_index),
                  "x8(select(((b + 14) <= lo), (c + lo), (c + hi)))");
    }
    // Where the rest of the index varies by lane, a vector beyond the edge is no broadcast.
    auto two_ramps =
        Internal::find_clamped_ramp(Internal::Ramp::make(c, i32(1), 8) +
                                    Internal::Max::make(Internal::Min::make(ramp, hi), lo));
    ASSERT_TRUE(two_ramps);
    EXPECT_FALSE(two_ramps->all_lanes_outside.defined());
    // A reversed ramp's first lane is its highest.
    auto reversed = Internal::find_clamped_ramp(
        Internal::Max::make(Internal::Min::make(Internal::Ramp::make(b, i32(-1), 8), hi), lo));
    ASSERT_TRUE(reversed);
    EXPECT_EQ(Internal::to_string(reversed->all_lanes_inside), "((lo <= (b + -7)) && (b <= hi))");
    // Not a clamp of a ramp: one bound only, a bound that varies by lane, a scalar.
    EXPECT_FALSE(Internal::find_clamped_ramp(Internal::Min::make(ramp, hi)));
    EXPECT_FALSE(
        Internal::find_clamped_ramp(Internal::Max::make(Internal::Min::make(ramp, ramp), lo)));
    EXPECT_FALSE(Internal::find_clamped_ramp(Internal::Max::make(Internal::Min::make(b, c), c)));
}

// ---------------------------------------------------------------------------------------------
// Inputs flush against a page that faults on access.

/** Memory for n elements of T placed so that the first (at_end == false) or the last element
 * touches an inaccessible page. */
template <typename T> class GuardedArray {
public:
    GuardedArray(size_t n, bool at_end) : n(n) {
        page = (size_t)sysconf(_SC_PAGESIZE);
        data_pages = (n * sizeof(T) + page - 1) / page;
        size_t total = (data_pages + 2) * page;
        region = (char *)mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                              -1, 0);
        EXPECT_NE(region, MAP_FAILED);
        mprotect(region, page, PROT_NONE);
        mprotect(region + (data_pages + 1) * page, page, PROT_NONE);
        char *start = region + page;
        if (at_end) start = region + (data_pages + 1) * page - n * sizeof(T);
        ptr = (T *)start;
    }
    ~GuardedArray() { munmap(region, (data_pages + 2) * page); }
    GuardedArray(const GuardedArray &) = delete;
    GuardedArray &operator=(const GuardedArray &) = delete;
    T *data() { return ptr; }

private:
    size_t n, page = 0, data_pages = 0;
    char *region = nullptr;
    T *ptr = nullptr;
};

/** Runs `out(x) = body(in)` over [0, width) with `in` holding exactly `extent` elements from
 * `min` (flush against a guard page before, then after), against the reference `ref(in, x)`. */
template <typename T>
void check_1d(const std::string &what, int min, int extent, int width,
              const std::function<Expr(ImageParam &, Var &)> &body,
              const std::function<T(const std::function<T(int)> &, int)> &ref,
              const std::function<void(Func &, Var &)> &schedule) {
    std::vector<T> values = loom_test::random_values<T>((size_t)extent, 1234);
    for (bool at_end : {false, true}) {
        GuardedArray<T> mem((size_t)extent, at_end);
        std::copy(values.begin(), values.end(), mem.data());
        Buffer<T> in(mem.data(), {extent}, "in");
        in.set_min({min});
        ImageParam input(type_of<T>(), 1, "input");
        input.set(in);
        Var x("x");
        Func f("f");
        f(x) = body(input, x);
        schedule(f, x);
        Buffer<T> out = f.realize({width});
        auto at = [&](int i) { return values[(size_t)(i - min)]; };
        for (int i = 0; i < width; i++) {
            ASSERT_TRUE(loom_test::same_value(out(i), ref(at, i)))
                << what << (at_end ? " (input at the end of a page)" : " (input at a page start)")
                << ": out(" << i << ") = " << loom_test::show(out(i)) << ", expected "
                << loom_test::show(ref(at, i));
        }
    }
}

auto vectorized(int lanes, TailStrategy tail = TailStrategy::Auto) {
    return [=](Func &f, Var &x) { f.vectorize(x, lanes, tail); };
}

template <typename T>
void check_strided(int stride, int offset, int lanes, int width, TailStrategy tail) {
    // Lane x reads stride * x + offset, for x in [0, width).
    int lo = std::min(offset, stride * (width - 1) + offset);
    int hi = std::max(offset, stride * (width - 1) + offset);
    std::string what = "stride " + std::to_string(stride) + " x " + std::to_string(lanes) +
                       " lanes of " + loom_test::show(sizeof(T)) + "-byte elements";
    check_1d<T>(
        what, lo, hi - lo + 1, width,
        [&](ImageParam &in, Var &x) { return in(stride * x + offset); },
        [&](const std::function<T(int)> &in, int x) { return in(stride * x + offset); },
        vectorized(lanes, tail));
}

TEST(StridedVectorLoad, StrideTwo) {
    check_strided<uint16_t>(2, 0, 32, 128, TailStrategy::Auto);
    check_strided<uint16_t>(2, 1, 16, 100, TailStrategy::ShiftInwards);
    check_strided<uint8_t>(2, 3, 32, 77, TailStrategy::GuardWithIf);
    check_strided<int32_t>(2, 0, 8, 64, TailStrategy::Auto);
    check_strided<float>(2, 1, 16, 40, TailStrategy::ShiftInwards);
    check_strided<double>(2, 0, 4, 9, TailStrategy::ShiftInwards);
}

TEST(StridedVectorLoad, StridesThreeAndFour) {
    check_strided<int16_t>(3, 2, 16, 50, TailStrategy::ShiftInwards);
    check_strided<uint8_t>(4, 1, 32, 64, TailStrategy::Auto);
    check_strided<float>(3, 0, 8, 24, TailStrategy::Auto);
    check_strided<int32_t>(4, 3, 16, 35, TailStrategy::ShiftInwards);
}

TEST(StridedVectorLoad, NegativeStrides) {
    check_strided<uint16_t>(-1, 200, 32, 150, TailStrategy::ShiftInwards);
    check_strided<float>(-1, 63, 8, 64, TailStrategy::Auto);
    check_strided<int8_t>(-2, 300, 16, 120, TailStrategy::ShiftInwards);
    check_strided<int32_t>(-3, 100, 8, 30, TailStrategy::ShiftInwards);
}

TEST(StridedVectorLoad, LargeStridesStillCorrect) {
    // Beyond stride 4: a gather (32-bit) or one load per lane (16-bit).
    check_strided<int32_t>(7, 0, 8, 40, TailStrategy::Auto);
    check_strided<uint16_t>(9, 5, 16, 33, TailStrategy::ShiftInwards);
}

// Taps at 2x - 1, 2x and 2x + 1 (stride 2, 3 and 4 likewise) of a computed Func, whose
// region is exactly the one the taps need: loads that start before the lowest lane or end
// past the highest read the allocation's padding, never another element into a lane.
template <typename T>
void check_strided_taps_of_allocation(int stride, int lanes, int width, TailStrategy tail) {
    const int lo = -1, hi = stride * (width - 1) + 1;
    std::vector<T> values = loom_test::random_values<T>((size_t)(hi - lo + 1), 99);
    Buffer<T> in(std::vector<int>{hi - lo + 1}, "in");
    in.set_min({lo});
    for (int i = lo; i <= hi; i++)
        in(i) = values[(size_t)(i - lo)];
    Var x("x");
    Func g("g"), f("f");
    g(x) = in(x) ^ cast(type_of<T>(), 0x5a);
    f(x) = g(stride * x - 1) + g(stride * x) * cast(type_of<T>(), 3) + g(stride * x + 1);
    g.compute_root();
    f.vectorize(x, lanes, tail);
    Buffer<T> out = f.realize({width});
    auto ref_g = [&](int i) { return T(values[(size_t)(i - lo)] ^ T(0x5a)); };
    for (int i = 0; i < width; i++) {
        using loom_test::ref_add, loom_test::ref_mul;
        T expected = ref_add(ref_add(ref_g(stride * i - 1), ref_mul(ref_g(stride * i), T(3))),
                             ref_g(stride * i + 1));
        ASSERT_EQ(out(i), expected) << "stride " << stride << ", " << lanes << " lanes, x = " << i;
    }
}

TEST(StridedVectorLoad, TapsOfAnAllocationEveryStrideAndTail) {
    check_strided_taps_of_allocation<int32_t>(2, 16, 100, TailStrategy::ShiftInwards);
    check_strided_taps_of_allocation<int32_t>(2, 8, 64, TailStrategy::RoundUp);
    check_strided_taps_of_allocation<uint8_t>(2, 32, 77, TailStrategy::GuardWithIf);
    check_strided_taps_of_allocation<int16_t>(3, 16, 50, TailStrategy::ShiftInwards);
    check_strided_taps_of_allocation<uint16_t>(4, 16, 41, TailStrategy::Auto);
    check_strided_taps_of_allocation<int64_t>(2, 4, 9, TailStrategy::ShiftInwards);
}

// Taps of an input at stride * x + each of `taps` (a stencil on a subsampled row), the input
// holding exactly the elements they read, flush against a guard page: the taps of one vector
// load the span they cover together, once, and nothing outside it.
template <typename T>
void check_strided_taps_of_input(int stride, const std::vector<int> &taps, int lanes, int width,
                                 TailStrategy tail) {
    const int lo = *std::min_element(taps.begin(), taps.end());
    const int hi = stride * (width - 1) + *std::max_element(taps.begin(), taps.end());
    std::string what = "taps of stride " + std::to_string(stride) + " x " + std::to_string(lanes) +
                       " lanes of " + loom_test::show(sizeof(T)) + "-byte elements";
    check_1d<T>(
        what, lo, hi - lo + 1, width,
        [&](ImageParam &in, Var &x) {
            Expr sum = cast(type_of<T>(), 0);
            for (size_t k = 0; k < taps.size(); k++)
                sum = sum + in(stride * x + taps[k]) * cast(type_of<T>(), (int)k + 1);
            return sum;
        },
        [&](const std::function<T(int)> &in, int x) {
            T sum = T(0);
            for (size_t k = 0; k < taps.size(); k++)
                sum =
                    loom_test::ref_add(sum, loom_test::ref_mul(in(stride * x + taps[k]), T(k + 1)));
            return sum;
        },
        vectorized(lanes, tail));
}

TEST(StridedVectorLoad, TapsOfAnInputReadOnlyTheirSpan) {
    check_strided_taps_of_input<int32_t>(2, {-1, 0, 1}, 16, 100, TailStrategy::ShiftInwards);
    check_strided_taps_of_input<int32_t>(2, {0, 2}, 16, 45, TailStrategy::GuardWithIf);
    check_strided_taps_of_input<uint8_t>(2, {-1, 0, 1}, 32, 77, TailStrategy::GuardWithIf);
    check_strided_taps_of_input<int16_t>(3, {0, 1, 2}, 16, 50, TailStrategy::ShiftInwards);
    check_strided_taps_of_input<uint16_t>(4, {-2, 3}, 16, 41, TailStrategy::Auto);
}

template <typename T>
void check_divided(int k, int offset, int lanes, int width, TailStrategy tail) {
    using loom_test::ref_div;
    int lo = ref_div(offset, k), hi = ref_div(width - 1 + offset, k);
    std::string what = "(x + " + std::to_string(offset) + ") / " + std::to_string(k) + " over " +
                       std::to_string(lanes) + " lanes";
    check_1d<T>(
        what, lo, hi - lo + 1, width, [&](ImageParam &in, Var &x) { return in((x + offset) / k); },
        [&](const std::function<T(int)> &in, int x) { return in(ref_div(x + offset, k)); },
        vectorized(lanes, tail));
}

TEST(HalvedVectorLoad, EveryParityOfTheFirstLane) {
    // ShiftInwards moves the last vector to an odd start: both shuffles run.
    check_divided<int16_t>(2, 0, 32, 127, TailStrategy::ShiftInwards);
    check_divided<int16_t>(2, 1, 32, 127, TailStrategy::ShiftInwards);
    check_divided<uint16_t>(2, -7, 16, 61, TailStrategy::ShiftInwards);
    check_divided<uint8_t>(2, 0, 32, 64, TailStrategy::Auto);
    check_divided<float>(2, 3, 8, 21, TailStrategy::ShiftInwards);
    check_divided<int32_t>(3, 1, 16, 47, TailStrategy::ShiftInwards);
    // 16 lanes of 32 bits in two classes: one two-source permute on AVX-512.
    check_divided<int32_t>(2, 1, 16, 61, TailStrategy::ShiftInwards);
    check_divided<float>(2, -4, 16, 80, TailStrategy::Auto);
    check_divided<uint8_t>(4, -2, 32, 99, TailStrategy::ShiftInwards);
}

TEST(HalvedVectorLoad, ModuloIndex) {
    check_1d<int16_t>(
        "in(x % 3)", 0, 3, 64, [](ImageParam &in, Var &x) { return in(x % 3); },
        [](const std::function<int16_t(int)> &in, int x) { return in(x % 3); }, vectorized(16));
}

TEST(HalvedVectorLoad, TwoDimensionalUpsampleAndDeinterleave) {
    const int w = 64, h = 6;
    Buffer<uint16_t> in(std::vector<int>{w, h}, "in");
    std::vector<uint16_t> values = loom_test::random_values<uint16_t>((size_t)(w * h), 7);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            in(x, y) = values[(size_t)(y * w + x)];
    }
    Var x("x"), y("y");
    Func up("up"), down("down");
    up(x, y) = in(x / 2, y / 2) + in((x + 1) / 2, y / 2);
    down(x, y) = in(2 * x, y) - in(2 * x + 1, y);
    up.vectorize(x, 16, TailStrategy::ShiftInwards);
    down.vectorize(x, 16);
    Buffer<uint16_t> u = up.realize({2 * w - 1, 2 * h});
    Buffer<uint16_t> d = down.realize({w / 2, h});
    for (int yy = 0; yy < 2 * h; yy++) {
        for (int xx = 0; xx < 2 * w - 1; xx++) {
            uint16_t e = (uint16_t)(in(xx / 2, yy / 2) + in((xx + 1) / 2, yy / 2));
            ASSERT_EQ(u(xx, yy), e) << "up(" << xx << ", " << yy << ")";
        }
    }
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w / 2; xx++) {
            uint16_t e = (uint16_t)(in(2 * xx, yy) - in(2 * xx + 1, yy));
            ASSERT_EQ(d(xx, yy), e) << "down(" << xx << ", " << yy << ")";
        }
    }
}

TEST(GatherVectorLoad, LookupTables) {
    const int n = 64;
    for (bool at_end : {false, true}) {
        GuardedArray<float> lut_mem(256, at_end);
        for (int i = 0; i < 256; i++)
            lut_mem.data()[i] = (float)i * 0.5f - 3.0f;
        Buffer<float> lut(lut_mem.data(), {256}, "lut");
        Buffer<uint8_t> idx(std::vector<int>{n}, "idx");
        std::vector<uint8_t> iv = loom_test::random_values<uint8_t>(n, 99);
        for (int i = 0; i < n; i++)
            idx(i) = iv[(size_t)i];
        idx(0) = 0; // the table's first and last entries
        idx(1) = 255;
        Var x("x");
        Func f("f");
        f(x) = lut(cast<int32_t>(idx(x)));
        f.vectorize(x, 16);
        Buffer<float> out = f.realize({n});
        for (int i = 0; i < n; i++)
            ASSERT_EQ(out(i), lut_mem.data()[idx(i)]) << "f(" << i << ")";
    }
}

// Lanes clamped to the input, x from before its start to past its end: the vectors inside load
// without the clamp, those at the edges gather, and none reads outside the input.
template <typename T> void check_clamped(int stride, int lanes) {
    const int extent = 100, width = 160, offset = stride > 0 ? -40 : 220;
    std::string what = "clamp of stride " + std::to_string(stride) + " x " + std::to_string(lanes) +
                       " lanes of " + loom_test::show(sizeof(T)) + "-byte elements";
    auto clamped = [=](int x) { return std::min(std::max(stride * x + offset, 0), extent - 1); };
    check_1d<T>(
        what, 0, extent, width,
        [&](ImageParam &in, Var &x) { return in(clamp(stride * x + offset, 0, extent - 1)); },
        [&](const std::function<T(int)> &in, int x) { return in(clamped(x)); }, vectorized(lanes));
}

TEST(ClampedVectorLoad, StrideOneTwoAndReversed) {
    for (int stride : {1, 2, -1}) {
        check_clamped<uint8_t>(stride, 16);
        check_clamped<float>(stride, 16);
        check_clamped<int16_t>(stride, 8);
    }
}

// Taps of a stencil at several offsets, each clamped to the input: one test per vector for all
// of them (the vector loads every tap without its clamp where all lie inside), each tap's own
// test at the edges. Widths that are no multiple of the vector, x from before the input's start
// to past its end, the input flush against a guard page on either side.
template <typename T> void check_clamped_taps(int stride, int lanes, int width) {
    const int extent = 100, offset = -37;
    std::string what = "taps of stride " + std::to_string(stride) + " x " + std::to_string(lanes) +
                       " lanes of " + loom_test::show(sizeof(T)) + "-byte elements over " +
                       std::to_string(width);
    auto tap = [=](int x, int k) {
        return std::min(std::max(stride * x + offset + k, 0), extent - 1);
    };
    check_1d<T>(
        what, 0, extent, width,
        [&](ImageParam &in, Var &x) {
            Expr sum = in(clamp(stride * x + offset - 1, 0, extent - 1));
            for (int k : {0, 1, 5})
                sum = sum + in(clamp(stride * x + offset + k, 0, extent - 1));
            return cast(type_of<T>(), sum);
        },
        [&](const std::function<T(int)> &in, int x) {
            T sum = in(tap(x, -1));
            for (int k : {0, 1, 5})
                sum = (T)(sum + in(tap(x, k)));
            return sum;
        },
        vectorized(lanes));
}

TEST(ClampedVectorLoad, TapsAtSeveralOffsetsTestOncePerVector) {
    for (int stride : {1, 2, -1}) {
        for (int width : {16, 77, 160}) {
            check_clamped_taps<float>(stride, 16, width);
            check_clamped_taps<uint8_t>(stride, 16, width);
            check_clamped_taps<int16_t>(stride, 8, width);
        }
    }
}

TEST(ClampedVectorLoad, RepeatEdgeInTwoDimensions) {
    Buffer<uint8_t> in(std::vector<int>{37, 23}, "in");
    for (int y = 0; y < 23; y++)
        for (int x = 0; x < 37; x++)
            in(x, y) = (uint8_t)(x * 7 + y * 31);
    Func edge = BoundaryConditions::repeat_edge(in);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = edge(x - 5, y - 3) + edge(x + 4, y + 2);
    f.vectorize(x, 16);
    Buffer<uint8_t> out = f.realize({64, 30});
    auto at = [&](int xx, int yy) { return in(std::clamp(xx, 0, 36), std::clamp(yy, 0, 22)); };
    for (int yy = 0; yy < 30; yy++)
        for (int xx = 0; xx < 64; xx++)
            ASSERT_EQ(out(xx, yy), (uint8_t)(at(xx - 5, yy - 3) + at(xx + 4, yy + 2)))
                << "at " << xx << ", " << yy;
}

// A lookup into a table the pipeline computes (an allocation) of 8- and 16-bit entries, with
// indices reaching its last entries: gathered as 32-bit words from the entries' addresses.
template <typename T> void check_table_lookup(int entries) {
    Buffer<uint16_t> idx(std::vector<int>{300}, "idx");
    for (int i = 0; i < 300; i++)
        idx(i) = (uint16_t)((i * 37 + (i % 3 == 0 ? entries - 1 : 0)) % entries);
    Var x("x");
    Func table("table"), f("f");
    table(x) = cast(type_of<T>(), x * 7 + 3);
    table.compute_root();
    f(x) = table(clamp(cast<int32_t>(idx(x)), 0, entries - 1));
    f.vectorize(x, 16);
    Buffer<T> out = f.realize({300});
    for (int i = 0; i < 300; i++) {
        ASSERT_EQ(out(i), (T)(idx(i) * 7 + 3)) << "entry " << idx(i) << " at x = " << i;
    }
}

TEST(GatherVectorLoad, NarrowEntriesOfAComputedTable) {
    for (int entries : {256, 1024, 61}) {
        check_table_lookup<uint8_t>(entries);
        check_table_lookup<int16_t>(entries);
    }
}

// A byte table of the pipeline's own, looked up by every vector width: up to 1024 entries it is
// byte permutes over the whole table where the CPU has them (vpermi2b), above that a gather.
// The values are checked on any CPU; the code, for a target that has the permutes.
TEST(GatherVectorLoad, ByteTablesArePermutedWhereTheyFit) {
    const Target sapphire_rapids("x86-64-linux-avx512-avx512_skylake-avx512_sapphirerapids");
    for (int entries : {64, 200, 1024, 1025}) {
        for (int lanes : {16, 32, 64, 128}) {
            Buffer<uint16_t> idx(std::vector<int>{500}, "idx");
            for (int i = 0; i < 500; i++)
                idx(i) = (uint16_t)((i * 389 + i / 7) % entries);
            idx(3) = (uint16_t)(entries - 1);
            Var x("x");
            Func table("table"), f("f");
            table(x) = cast<uint8_t>(x * 13 + x / 5);
            table.compute_root();
            f(x) = table(clamp(cast<int32_t>(idx(x)), 0, entries - 1));
            f.vectorize(x, lanes);
            Buffer<uint8_t> out = f.realize({500});
            for (int i = 0; i < 500; i++) {
                ASSERT_EQ(out(i), (uint8_t)(idx(i) * 13 + idx(i) / 5))
                    << entries << " entries, " << lanes << " lanes, x = " << i;
            }
            // The loop's first block: its loads, before the store's own blocks (a 64-lane
            // store streams with a permute of its own, see JoinedStreamingStores.h).
            std::string ir =
                loom_test::ir_block_labelled(Pipeline(f).llvm_ir(sapphire_rapids), "f.s0.x.x.loop");
            ASSERT_FALSE(ir.empty());
            // 64 lanes a block, one permute per 128 entries.
            const int permutes = ((lanes + 63) / 64) * ((entries + 127) / 128);
            if (entries <= 1024) {
                EXPECT_EQ(occurrences(ir, "call <64 x i8> @llvm.x86.avx512.vpermi2var.qi.512"),
                          permutes)
                    << entries << " entries, " << lanes << " lanes\n"
                    << ir;
                EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
            } else {
                EXPECT_THAT(ir, HasSubstr("gather")) << ir;
                EXPECT_THAT(ir, Not(HasSubstr("vpermi2var"))) << ir;
            }
        }
    }
}

} // namespace
