// Extern stages (Func::define_extern, Halide's calling convention): a C function computes a
// Func over the region bounds inference gives it, after telling, in bounds-query mode, which
// region of each input it reads. Values against plain C++ references, the calls each schedule
// makes (one per production), the buffers it is handed (Func, Buffer, ImageParam, Param, Tuple
// inputs and outputs), and the errors of every misuse. The functions are found by the JIT in
// this executable (built with ENABLE_EXPORTS).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <fstream>
#include <iterator>
#include <vector>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using loom_test::compile_error_of;
using ::testing::HasSubstr;

// The element at (x, y) of a 2-D buffer of T.
template <typename T> T &at(halide_buffer_t *b, int x, int y) {
    return ((T *)b->host)[(x - b->dim[0].min) * b->dim[0].stride +
                          (y - b->dim[1].min) * b->dim[1].stride];
}

// Each call of box3 (not its bounds queries): the region of its output.
std::vector<std::array<int, 4>> box3_calls;

// Loom's % of an int is never negative (as Halide's), unlike C++'s.
int g_value(int x, int y) { return x * 3 + y * 7 - (((x * y) % 5) + 5) % 5; }
int box3_value(int x, int y, int k) {
    return g_value(x - 1, y) + 2 * g_value(x, y) + g_value(x + 1, y) + k;
}

} // namespace

// out(x, y) = in(x - 1, y) + 2 in(x, y) + in(x + 1, y) + k: reads one more column each side.
extern "C" int loom_test_box3(halide_buffer_t *in, int k, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        in->dim[0].min = out->dim[0].min - 1;
        in->dim[0].extent = out->dim[0].extent + 2;
        in->dim[1].min = out->dim[1].min;
        in->dim[1].extent = out->dim[1].extent;
        return 0;
    }
    box3_calls.push_back(
        {out->dim[0].min, out->dim[0].extent, out->dim[1].min, out->dim[1].extent});
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at<int>(out, x, y) =
                at<int>(in, x - 1, y) + 2 * at<int>(in, x, y) + at<int>(in, x + 1, y) + k;
    }
    return 0;
}

// out(x, y) = a(x, y) * b(x, y) + p, reading a uint8 Buffer and a float ImageParam where it
// writes.
extern "C" int loom_test_scale(halide_buffer_t *a, halide_buffer_t *b, float p,
                               halide_buffer_t *out) {
    if (a->is_bounds_query() || b->is_bounds_query() || out->is_bounds_query()) {
        for (halide_buffer_t *in : {a, b}) {
            for (int d = 0; d < 2; d++) {
                in->dim[d].min = out->dim[d].min;
                in->dim[d].extent = out->dim[d].extent;
            }
        }
        return 0;
    }
    if (a->type.code != 1 || a->type.bits != 8 || b->type.code != 2 || b->type.bits != 32 ||
        out->type.code != 2)
        return 3; // not the types the definition gives
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at<float>(out, x, y) = at<uint8_t>(a, x, y) * at<float>(b, x, y) + p;
    }
    return 0;
}

// A Tuple in and a Tuple out: (s, d) = (u + v, u - v) of the input's two elements.
extern "C" int loom_test_sum_difference(halide_buffer_t *u, halide_buffer_t *v, halide_buffer_t *s,
                                        halide_buffer_t *d) {
    if (s->is_bounds_query()) {
        for (halide_buffer_t *in : {u, v}) {
            for (int i = 0; i < 2; i++) {
                in->dim[i].min = s->dim[i].min;
                in->dim[i].extent = s->dim[i].extent;
            }
        }
        return 0;
    }
    for (int y = s->dim[1].min; y < s->dim[1].min + s->dim[1].extent; y++) {
        for (int x = s->dim[0].min; x < s->dim[0].min + s->dim[0].extent; x++) {
            at<int>(s, x, y) = at<int>(u, x, y) + at<float>(v, x, y);
            at<float>(d, x, y) = at<int>(u, x, y) - at<float>(v, x, y);
        }
    }
    return 0;
}

extern "C" int loom_test_fails(halide_buffer_t *out) { return out->is_bounds_query() ? 0 : 7; }
extern "C" int loom_test_query_fails(halide_buffer_t *in, halide_buffer_t *) {
    return in->is_bounds_query() ? 5 : 0;
}

namespace {

constexpr int W = 12, H = 9;

struct Box3Pipeline {
    Var x{"x"}, y{"y"};
    Func g{"g"}, e{"e"}, h{"h"};
    Box3Pipeline() {
        g(x, y) = x * 3 + y * 7 - (x * y) % 5;
        e.define_extern("loom_test_box3", {g, 4}, Int(32), 2);
        h(x, y) = e(x, y) * 2 + e(x, y + 1);
        g.compute_root();
    }
};

int mismatches(const Buffer<int> &out) {
    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const int want = box3_value(x, y, 4) * 2 + box3_value(x, y + 1, 4);
            bad += out(x, y) != want;
        }
    }
    return bad;
}

TEST(ExternStage, ComputedAtRootIsCalledOnceOverWhatItsConsumerReads) {
    Box3Pipeline p;
    p.e.compute_root();
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), 1u);
    EXPECT_EQ(box3_calls[0], (std::array<int, 4>{0, W, 0, H + 1}));
}

TEST(ExternStage, ComputedPerRowOfItsConsumerIsCalledPerRow) {
    Box3Pipeline p;
    p.e.compute_at(p.h, p.y);
    p.g.compute_at(p.h, p.y);
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), (size_t)H);
    for (int y = 0; y < H; y++)
        EXPECT_EQ(box3_calls[y], (std::array<int, 4>{0, W, y, 2}));
}

// Stored at the root and computed per row: each row computes the one new row (the sliding
// window), the loop started one row early to compute the first (as Halide 14 rewinds it), and
// the input, at the root, covers every row the calls ask for.
TEST(ExternStage, StoredAtRootAndComputedPerRowSlides) {
    Box3Pipeline p;
    p.e.store_root().compute_at(p.h, p.y);
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), (size_t)H + 1);
    for (int y = 0; y <= H; y++)
        EXPECT_EQ(box3_calls[y], (std::array<int, 4>{0, W, y, 1}));
}

// Not scheduled: like a Func with updates, computed at the innermost loop of its consumer, once
// per point of h.
TEST(ExternStage, UnscheduledIsComputedPerPointOfItsConsumer) {
    Box3Pipeline p;
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), (size_t)(W * H));
    EXPECT_EQ(box3_calls[0], (std::array<int, 4>{0, 1, 0, 2}));
}

// Not scheduled, read inside a vectorized loop: computed around the vector (its call takes a
// region, not one per lane), once per block of 4 points of h, as Halide 14 places it (inside
// the vector loop, it was called with vector coordinates and crashed: fuzz seed 7005 pair 104).
TEST(ExternStage, UnscheduledInsideAVectorizedLoopIsComputedAroundIt) {
    Box3Pipeline p;
    Var xo("xo"), xi("xi");
    p.h.split(p.x, xo, xi, 4).vectorize(xi);
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), (size_t)(W / 4 * H));
    EXPECT_EQ(box3_calls[0], (std::array<int, 4>{0, 4, 0, 2}));
    EXPECT_EQ(box3_calls[1], (std::array<int, 4>{4, 4, 0, 2}));
}

// Not scheduled, read inside a vectorized loop that is its consumer's outermost: computed at the
// consumer's Var::outermost(), inside its production (Halide's __outermost loop), once over all
// of h; its input, computed at that level too, is produced before it there (at the root, the
// stage read the input outside the level it was computed at: fuzz seed 8602 pair 995).
TEST(ExternStage, UnscheduledAroundAnOutermostVectorLoopIsAtItsConsumersOutermostLevel) {
    Box3Pipeline p;
    Var xo("xo"), xi("xi");
    p.h.split(p.x, xo, xi, 4).vectorize(xi).reorder(p.y, xo, xi);
    p.g.compute_at(p.h, Var::outermost());
    box3_calls.clear();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
    ASSERT_EQ(box3_calls.size(), 1u);
    EXPECT_EQ(box3_calls[0], (std::array<int, 4>{0, W, 0, H + 1}));
}

// Not scheduled, read by an async Func stored at the root and computed at its consumer's
// outermost level, and by that consumer: computed at the root, before the async Func's storage
// (at the consumer's outermost level, beside the async production that runs ahead of it, the
// schedule was refused: fuzz seed 8901 pipeline 724).
TEST(ExternStage, UnscheduledAndReadByAnAsyncFuncIsComputedBeforeItsStorage) {
    Box3Pipeline p;
    Func m("m"), out("out");
    m(p.x, p.y) = p.e(p.x, p.y) * 2;
    out(p.x, p.y) = m(p.x, p.y) + p.e(p.x, p.y + 1);
    m.store_root().compute_at(out, Var::outermost()).async();
    box3_calls.clear();
    Buffer<int> result = out.realize({W, H});
    EXPECT_EQ(mismatches(result), 0);
    ASSERT_EQ(box3_calls.size(), 1u);
}

// As above, with a second async Func whose storage lies inside the first's production and which
// reads the stage too: the walk that finds the async readers kept a pointer into its list of
// open async storage across that inner storage, which grew the list (a use after free under
// AddressSanitizer: the schedule-invariance fuzz test, CI of 2026-12-01).
TEST(ExternStage, UnscheduledAndReadByNestedAsyncFuncsIsComputedBeforeTheirStorage) {
    Box3Pipeline p;
    Func n("n"), m("m"), out("out");
    n(p.x, p.y) = p.e(p.x, p.y) + 1;
    m(p.x, p.y) = n(p.x, p.y) * 2;
    out(p.x, p.y) = m(p.x, p.y) + p.e(p.x, p.y + 1);
    m.store_root().compute_at(out, Var::outermost()).async();
    n.compute_at(m, p.y).async();
    box3_calls.clear();
    Buffer<int> result = out.realize({W, H});
    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            bad += result(x, y) != (box3_value(x, y, 4) + 1) * 2 + box3_value(x, y + 1, 4);
    }
    EXPECT_EQ(bad, 0);
    ASSERT_EQ(box3_calls.size(), 1u);
}

// An input whose loads are traced: the stage reads its buffer itself, untraced, as in Halide 14
// (the corners describing the buffer were traced as loads, and the buffer then named after the
// event: fuzz seed 8201 pair 338, an internal error).
TEST(ExternStage, AnInputWithTracedLoadsIsPassedUntraced) {
    Box3Pipeline p;
    p.g.trace_loads();
    p.e.compute_root();
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
}

// The input stored at the root and computed per row of h in blocks of 16 rows (ShiftInwards):
// each block starts 14 rows before the 2 rows a call of e reads. Its storage covers every
// block: bounds inference takes each call's rows anywhere in the region all the calls read,
// not as that region (whose extent would then be fixed, the storage starting 14 rows late:
// fuzz seed 8202 pair 543, a heap overrun).
TEST(ExternStage, AnInputComputedPerRowInBlocksHasStorageForEveryBlock) {
    Box3Pipeline p;
    Var yo("yo"), yi("yi");
    p.g.store_root().compute_at(p.h, p.y).split(p.y, yo, yi, 16, TailStrategy::ShiftInwards);
    p.e.compute_at(p.h, p.y);
    Buffer<int> out = p.h.realize({W, H});
    EXPECT_EQ(mismatches(out), 0);
}

// The extern stage is the pipeline's output, over a region that does not start at 0.
TEST(ExternStage, AsThePipelinesOutputWritesTheOutputBuffer) {
    Box3Pipeline p;
    Buffer<int> out(W, H);
    out.set_min({-3, 5});
    p.e.realize(out);
    int bad = 0;
    for (int y = 5; y < 5 + H; y++) {
        for (int x = -3; x < -3 + W; x++)
            bad += out(x, y) != box3_value(x, y, 4);
    }
    EXPECT_EQ(bad, 0);
}

TEST(ExternStage, TakesBuffersImageParamsAndParams) {
    Buffer<uint8_t> a(W, H, "a");
    Buffer<float> b(W + 4, H + 4, "b");
    b.set_min({-2, -2});
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            a(x, y) = (uint8_t)(x * 17 + y);
    }
    for (int y = -2; y < H + 2; y++) {
        for (int x = -2; x < W + 2; x++)
            b(x, y) = 0.25f * x - 0.5f * y;
    }
    ImageParam image(Float(32), 2, "image");
    Param<float> p("p");
    image.set(b);
    p.set(1.5f);
    Var x("x"), y("y");
    Func scaled("scaled"), out("out");
    scaled.define_extern("loom_test_scale", {a, image, p}, Float(32), {x, y});
    out(x, y) = scaled(x, y) + 1.0f;
    scaled.compute_root();
    Buffer<float> result = out.realize({W, H});
    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            bad += result(x, y) != a(x, y) * b(x, y) + 1.5f + 1.0f;
    }
    EXPECT_EQ(bad, 0);
    // The ImageParam is checked against the region the query asks for.
    Buffer<float> small(W - 1, H, "small");
    image.set(small);
    try {
        out.realize({W, H});
        ADD_FAILURE() << "an ImageParam smaller than the region the extern stage reads ran";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("image"));
    }
}

TEST(ExternStage, TupleInputsAndOutputsAreOneBufferPerElement) {
    Var x("x"), y("y");
    Func pair("pair"), sd("sd"), out("out");
    pair(x, y) = Tuple(x * 10 + y, cast<float>(x) * 0.5f);
    sd.define_extern("loom_test_sum_difference", {pair}, {Int(32), Float(32)}, 2);
    out(x, y) = cast<float>(sd(x, y)[0]) + sd(x, y)[1] * 3.0f;
    pair.compute_root();
    sd.compute_root();
    Buffer<float> result = out.realize({W, H});
    int bad = 0;
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            const int u = x * 10 + y;
            const float v = x * 0.5f;
            bad += result(x, y) != (float)(int)(u + v) + (u - v) * 3.0f;
        }
    }
    EXPECT_EQ(bad, 0);
    EXPECT_TRUE(sd.is_extern());
    EXPECT_EQ(sd.extern_function_name(), "loom_test_sum_difference");
    EXPECT_FALSE(pair.is_extern());
}

TEST(ExternStage, ANonzeroResultStopsThePipelineAndNamesTheFunction) {
    Func f("f");
    f.define_extern("loom_test_fails", {}, Int(32), 1);
    try {
        f.realize({8});
        ADD_FAILURE() << "a failing extern stage did not stop the pipeline";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("loom_test_fails returned 7"));
    }
    Var x("x");
    Func g("g"), q("q"), out("out");
    g(x) = x;
    g.compute_root();
    q.define_extern("loom_test_query_fails", {g}, Int(32), 1);
    out(x) = q(x);
    q.compute_root();
    try {
        out.realize({8});
        ADD_FAILURE() << "a failing bounds query did not stop the pipeline";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(std::string(e.what()),
                    HasSubstr("loom_test_query_fails returned 5 in bounds-query mode"));
    }
}

// On a CUDA target, an extern stage between kernels runs on the host: the input a kernel wrote
// is copied to the host before the call, and the output it writes is marked newer on the host
// (the next kernel copies it over). Checked in the lowered statement, which needs no GPU.
TEST(ExternStage, BetweenKernelsGetsItsInputOnTheHostAndMarksItsOutput) {
    Box3Pipeline p;
    Var bx("bx"), tx("tx");
    p.g.compute_root().gpu_tile(p.x, bx, tx, 16);
    p.e.compute_root();
    p.h.gpu_tile(p.x, bx, tx, 16);
    const std::string file = ::testing::TempDir() + "extern_between_kernels.stmt";
    p.h.compile_to_lowered_stmt(file, {}, Text, Target("host-cuda"));
    std::ifstream in(file);
    const std::string stmt((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t to_host = stmt.find("loom_cuda_copy_to_host(g.buffer");
    const size_t call = stmt.find("extern_stage(\"loom_test_box3\"");
    const size_t dirty = stmt.find("loom_cuda_mark_host_dirty(e.buffer");
    ASSERT_NE(to_host, std::string::npos) << stmt;
    ASSERT_NE(call, std::string::npos) << stmt;
    ASSERT_NE(dirty, std::string::npos) << stmt;
    EXPECT_LT(to_host, call);
    EXPECT_LT(call, dirty);
}

TEST(ExternStage, MisusesAreRefusedWithErrorsNamingTheFunc) {
    Var x("x"), y("y");
    {
        Box3Pipeline p;
        p.g.compute_inline();
        const std::string m = compile_error_of([&] { p.h.realize({W, H}); });
        EXPECT_THAT(m, HasSubstr("Func g is read by the extern stage e"));
        EXPECT_THAT(m, HasSubstr("compute_root()"));
    }
    {
        Box3Pipeline p;
        Var xo("xo"), xi("xi");
        p.e.compute_root().split(Var("_0"), xo, xi, 4);
        EXPECT_THAT(compile_error_of([&] {
                        p.h.realize({W, H});
                    }),
                    HasSubstr("Func e is an extern stage"));
        Box3Pipeline q;
        q.e.compute_root().parallel(Var("_1"));
        EXPECT_THAT(compile_error_of([&] {
                        q.h.realize({W, H});
                    }),
                    HasSubstr("no loops of its own"));
    }
    {
        Box3Pipeline p;
        Var xo("xo"), xi("xi");
        p.h.split(p.x, xo, xi, 4).vectorize(xi);
        p.e.compute_at(p.h, xi);
        const std::string m = compile_error_of([&] { p.h.realize({W, H}); });
        EXPECT_THAT(m, HasSubstr("Func e is an extern stage computed at h.x.xi, inside the "
                                 "vectorized loop h.x.xi"));
        EXPECT_THAT(m, HasSubstr("outside the vectorized one: root, h.y, h.x.xo."));
    }
    {
        Box3Pipeline p;
        EXPECT_THAT(compile_error_of([&] { p.e(x, y) = p.e(x, y) + 1; }),
                    HasSubstr("can't have update definitions"));
        EXPECT_THAT(compile_error_of([&] {
                        p.e.define_extern("loom_test_box3", {p.g, 4}, Int(32), 2);
                    }),
                    HasSubstr("already has a definition"));
    }
    Func f("f"), g("g");
    g(x) = x;
    EXPECT_THAT(compile_error_of([&] {
                    f.define_extern("loom_test_box3", {g, 1}, Int(32), 2, NameMangling::CPlusPlus);
                }),
                HasSubstr("extern \"C\""));
    EXPECT_THAT(compile_error_of([&] {
                    f.define_extern("loom_test_box3", {g, x + 1}, Int(32), 2);
                }),
                HasSubstr("uses the Var x"));
    EXPECT_THAT(compile_error_of([&] {
                    f.define_extern("loom_test_box3", {g, 1}, Int(32), 2, NameMangling::Default,
                                    DeviceAPI::CUDA);
                }),
                HasSubstr("on the host"));
    EXPECT_THAT(compile_error_of([&] { (void)g.extern_function_name(); }),
                HasSubstr("not an extern stage"));
}

// Internal linkage: the process's symbol search can't find these, so only set_jit_externs
// links them. Each fills its output with x * scale + y.
template <int scale> int fill_scaled(halide_buffer_t *out) {
    if (out->is_bounds_query()) return 0;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            ((int32_t *)out->host)[(x - out->dim[0].min) * out->dim[0].stride +
                                   (y - out->dim[1].min) * out->dim[1].stride] = x * scale + y;
        }
    }
    return 0;
}
int fill_with_gain(halide_buffer_t *out, float) { return fill_scaled<1>(out); }

// Halide's Pipeline::set_jit_externs: the C function an extern stage calls, given by address.
TEST(ExternStage, JITExternsAreLinkedInPlaceOfTheProcesssSymbols) {
    Var x("x"), y("y");
    Func filled("jit_filled"), plus_one("jit_plus_one");
    filled.define_extern("loom_test_jit_filled", {}, Int(32), 2);
    plus_one(x, y) = filled(x, y) + 1;
    Pipeline p(plus_one);
    p.set_jit_externs({{"loom_test_jit_filled", JITExtern(fill_scaled<10>)}});
    Buffer<int> tens = p.realize({6, 4});
    // Another function under the same name: the code is linked again.
    p.set_jit_externs({{"loom_test_jit_filled", JITExtern(fill_scaled<100>)}});
    Buffer<int> hundreds = p.realize({6, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 6; i++) {
            EXPECT_EQ(tens(i, j), i * 10 + j + 1) << i << ", " << j;
            EXPECT_EQ(hundreds(i, j), i * 100 + j + 1) << i << ", " << j;
        }
    }
    ASSERT_EQ(p.get_jit_externs().size(), 1u);
    EXPECT_EQ(p.get_jit_externs().begin()->second.extern_c_function().address(),
              (void *)&fill_scaled<100>);

    p.set_jit_externs({{"loom_test_jit_filled", JITExtern(fill_with_gain)}});
    EXPECT_THAT(compile_error_of([&] {
                    p.realize({6, 4});
                }),
                HasSubstr("set_jit_externs: loom_test_jit_filled is int32 (*)(handle64, float32), "
                          "but Func jit_filled calls it as int32 (*)(handle64)"));
    EXPECT_THAT(compile_error_of([&] {
                    p.set_jit_externs({{"loom_malloc", JITExtern(fill_scaled<1>)}});
                }),
                HasSubstr("loom_malloc is a function of Loom's runtime"));
}

} // namespace
