// Func::memoize (Halide 14's): a memoized Func computed at the root keeps its region between
// runs; a run with the same region, Params and input buffers copies it instead of computing
// it. The Funcs here are extern stages that count their calls, so the test sees each
// computation; values are checked against plain C++ every run.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

int fill_calls = 0;

template <typename T> T &at(halide_buffer_t *b, int x, int y) {
    return ((T *)b->host)[(x - b->dim[0].min) * b->dim[0].stride +
                          (y - b->dim[1].min) * b->dim[1].stride];
}

} // namespace

// out(x, y) = x * k + y, counting its calls.
extern "C" int loom_test_memo_fill(int k, halide_buffer_t *out) {
    if (out->is_bounds_query()) return 0;
    fill_calls++;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at<int>(out, x, y) = x * k + y;
    }
    return 0;
}

// out(x, y) = 2 in(x, y), counting its calls.
extern "C" int loom_test_memo_double(halide_buffer_t *in, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < 2; d++) {
            in->dim[d].min = out->dim[d].min;
            in->dim[d].extent = out->dim[d].extent;
        }
        return 0;
    }
    fill_calls++;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at<int>(out, x, y) = 2 * at<int>(in, x, y);
    }
    return 0;
}

namespace {

using namespace loom;
using loom_test::compile_error_of;
using ::testing::AllOf;
using ::testing::HasSubstr;

// h(x, y) = g(x, y) + g(x + 1, y), g the memoized extern stage over k.
struct Memoized {
    Var x{"x"}, y{"y"};
    Func g{"g"}, h{"h"};
    explicit Memoized(Expr k, EvictionKey eviction = EvictionKey()) {
        g.define_extern("loom_test_memo_fill", {k}, Int(32), {x, y});
        g.compute_root().memoize(eviction);
        h(x, y) = g(x, y) + g(x + 1, y);
    }
    int mismatches(int w, int ht, int k) {
        Buffer<int> out = h.realize({w, ht});
        int bad = 0;
        for (int yy = 0; yy < ht; yy++) {
            for (int xx = 0; xx < w; xx++)
                bad += out(xx, yy) != (xx * k + yy) + ((xx + 1) * k + yy);
        }
        return bad;
    }
};

TEST(Memoize, ALaterRunWithTheSameKeyCopiesTheRegion) {
    loom_memoization_cache_cleanup();
    fill_calls = 0;
    Param<int> k("k");
    Memoized m(k);
    k.set(3);
    EXPECT_EQ(m.mismatches(10, 6, 3), 0);
    EXPECT_EQ(m.mismatches(10, 6, 3), 0);
    EXPECT_EQ(fill_calls, 1);
    // Another region, another Param value: computed; each then found again.
    EXPECT_EQ(m.mismatches(12, 6, 3), 0);
    k.set(5);
    EXPECT_EQ(m.mismatches(10, 6, 5), 0);
    EXPECT_EQ(fill_calls, 3);
    k.set(3);
    EXPECT_EQ(m.mismatches(10, 6, 3), 0);
    EXPECT_EQ(m.mismatches(12, 6, 3), 0);
    EXPECT_EQ(fill_calls, 3);
    EXPECT_EQ(loom_memoization_cache_entries(), 3);
}

// The same Func name with another definition (another pipeline) is another key.
TEST(Memoize, AnotherDefinitionOfTheSameNameIsNotConfused) {
    loom_memoization_cache_cleanup();
    fill_calls = 0;
    Memoized three(3), four(4);
    EXPECT_EQ(three.mismatches(8, 4, 3), 0);
    EXPECT_EQ(four.mismatches(8, 4, 4), 0);
    EXPECT_EQ(fill_calls, 2);
}

TEST(Memoize, AnInputBufferIsKeyedByItsAddressAndShape) {
    loom_memoization_cache_cleanup();
    fill_calls = 0;
    Buffer<int> a(8, 5, "a"), b(8, 5, "b");
    a.for_each_position([&](const std::vector<int> &p) { a(p) = p[0] + 10 * p[1]; });
    b.for_each_position([&](const std::vector<int> &p) { b(p) = p[0] - p[1]; });
    ImageParam in(Int(32), 2, "in");
    Var x("x"), y("y");
    Func doubled("doubled"), out("out");
    doubled.define_extern("loom_test_memo_double", {in}, Int(32), {x, y});
    doubled.compute_root().memoize();
    out(x, y) = doubled(x, y) + 1;
    for (Buffer<int> *input : {&a, &a, &b, &a, &b}) {
        in.set(*input);
        Buffer<int> result = out.realize({8, 5});
        int bad = 0;
        result.for_each_position(
            [&](const std::vector<int> &p) { bad += result(p) != 2 * (*input)(p) + 1; });
        EXPECT_EQ(bad, 0);
    }
    EXPECT_EQ(fill_calls, 2);
}

TEST(Memoize, EvictionAndCapacity) {
    loom_memoization_cache_cleanup();
    fill_calls = 0;
    Memoized m(7, EvictionKey(Expr(42)));
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(fill_calls, 1);
    loom_memoization_cache_evict(nullptr, 41);
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(fill_calls, 1);
    loom_memoization_cache_evict(nullptr, 42);
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(fill_calls, 2);
    // A cache smaller than the region keeps nothing; every run computes.
    loom_memoization_cache_set_size(64);
    EXPECT_EQ(loom_memoization_cache_entries(), 0);
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(m.mismatches(10, 6, 7), 0);
    EXPECT_EQ(fill_calls, 4);
    loom_memoization_cache_set_size(1 << 20);
}

// A memoized Func of loops (a pure definition and an update over an RDom): each run's values
// follow the Param (a stale region would not), run after run.
TEST(Memoize, AFuncWithAnUpdateFollowsItsParam) {
    loom_memoization_cache_cleanup();
    Param<float> scale("scale");
    Var x("x"), y("y");
    RDom r(0, 4, "r");
    Func g("g"), h("h");
    g(x, y) = cast<float>(x + y) * scale;
    g(x, y) += cast<float>(r) * 0.5f;
    g.compute_root().memoize();
    h(x, y) = g(x, y) * 2.0f;
    for (float s : {1.0f, 2.5f, 1.0f, 2.5f, -3.0f}) {
        scale.set(s);
        Buffer<float> out = h.realize({9, 7});
        int bad = 0;
        for (int yy = 0; yy < 7; yy++) {
            for (int xx = 0; xx < 9; xx++) {
                float v = (float)(xx + yy) * s;
                for (int i = 0; i < 4; i++)
                    v += (float)i * 0.5f;
                bad += out(xx, yy) != v * 2.0f;
            }
        }
        EXPECT_EQ(bad, 0) << "scale " << s;
    }
    EXPECT_EQ(loom_memoization_cache_entries(), 3);
}

// memoize_tag (Halide 14's): alone, the key holds the tagged value instead of the Params it
// reads (a float Param quantized to an integer keys by the integer); with tags, the key holds
// the tags and nothing the value reads, so a run that changes only an untagged Param gets the
// region of the run with the same tags. ApiNamesVsHalide.MemoizeTagsKeyAsHalides compares the
// values with Halide's.
TEST(Memoize, ATaggedValueKeysInsteadOfTheParamsItReads) {
    loom_memoization_cache_cleanup();
    Param<float> scale("scale");
    Param<int> offset("offset"), version("version");
    Var x("x");
    Func quantized("quantized"), quantized_out("quantized_out");
    quantized(x) = x * memoize_tag(cast<int>(scale));
    quantized.compute_root().memoize();
    quantized_out(x) = quantized(x) + 1;
    const float scales[] = {1.2f, 1.7f, 2.3f, 1.9f};
    const int entries_after[] = {1, 1, 2, 2};
    for (int run = 0; run < 4; run++) {
        scale.set(scales[run]);
        Buffer<int> out = quantized_out.realize({5});
        for (int i = 0; i < 5; i++)
            EXPECT_EQ(out(i), i * (int)scales[run] + 1) << "run " << run << ", x " << i;
        EXPECT_EQ(loom_memoization_cache_entries(), entries_after[run]) << "run " << run;
    }

    loom_memoization_cache_cleanup();
    Func tagged("tagged"), tagged_out("tagged_out");
    tagged(x) = x + memoize_tag(offset, version);
    tagged.compute_root().memoize();
    tagged_out(x) = tagged(x) * 2;
    // (offset, version) per run, and the offset whose region the run gets: the second and the
    // fourth runs keep version 1, so they get the first run's region.
    const int runs[4][3] = {{1, 1, 1}, {5, 1, 1}, {5, 2, 5}, {9, 1, 1}};
    for (const auto &[o, v, seen] : runs) {
        offset.set(o);
        version.set(v);
        Buffer<int> out = tagged_out.realize({5});
        for (int i = 0; i < 5; i++)
            EXPECT_EQ(out(i), (i + seen) * 2) << "offset " << o << ", version " << v;
    }
    EXPECT_EQ(loom_memoization_cache_entries(), 2);

    // The key is computed once per production: a tag may read Params only.
    EXPECT_THAT(compile_error_of([&] { (void)memoize_tag(x * 2); }),
                AllOf(HasSubstr("memoize_tag"), HasSubstr("the Var x"), HasSubstr("Params only")));
    EXPECT_THAT(compile_error_of([&] { (void)memoize_tag(offset, quantized(x)); }),
                HasSubstr("the Func quantized"));
    // The value itself may read anything where tags stand for it.
    EXPECT_NO_THROW((void)memoize_tag(x * offset, version));
}

TEST(Memoize, MisusesAreRefusedWithErrorsNamingTheFunc) {
    Var x("x");
    Func f("f"), g("g"), h("h");
    f(x) = x;
    f.memoize();
    EXPECT_THAT(compile_error_of([&] { f.realize({4}); }),
                HasSubstr("Func f is memoized and is an output"));
    g(x) = x * 2;
    g.memoize();
    h(x) = g(x) + 1;
    EXPECT_THAT(compile_error_of([&] { h.realize({4}); }), HasSubstr("compute_root()"));
    EXPECT_THAT(compile_error_of([&] { g.memoize(EvictionKey(Expr(1.5f))); }),
                HasSubstr("an eviction key is an integer or a handle"));
}

} // namespace
