// Whole pipelines: Funcs calling Funcs (inlined and compute_root), a separable blur, inputs
// through Buffers, ImageParams and Params, Tuples, output buffers with non-zero mins, Funcs of
// zero to four dimensions, and reuse of compiled code across realizations.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

// A pipeline of `output` that the JIT compiles on `threads` threads.
Pipeline compiled_on(Func output, int threads) {
    Pipeline p(output);
    CompileOptions options;
    options.compile_threads = threads;
    p.set_options(options);
    return p;
}

/** Whether the pipeline's code has a loop outlined into a function of its own
 * (codegen/LoopOutlining). */
bool has_outlined_loop(Pipeline &p) {
    return p.assembly().find(".loop,@function") != std::string::npos;
}

using Pos = std::vector<int>;

// ---------------------------------------------------------------------------------------------
// Funcs calling Funcs.

int producer_ref(int x, int y) { return x * 10 + y; }
int consumer_ref(int x, int y) { return producer_ref(x + 1, y) * 2 + producer_ref(x, y + 2); }

TEST(FuncsCallingFuncs, InlinedByDefault) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x + 1, y) * 2 + producer(x, y + 2);
    Buffer<int32_t> out = consumer.realize({6, 5});
    expect_buffer<int32_t>(out, [](const Pos &p) { return consumer_ref(p[0], p[1]); });
}

TEST(FuncsCallingFuncs, ComputeRoot) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x + 1, y) * 2 + producer(x, y + 2);
    producer.compute_root();
    Buffer<int32_t> out = consumer.realize({6, 5});
    expect_buffer<int32_t>(out, [](const Pos &p) { return consumer_ref(p[0], p[1]); });
}

TEST(FuncsCallingFuncs, ChainMixingRootAndInline) {
    // a is computed at root over the region b needs; b is inlined into c.
    Var x("x");
    Func a("a"), b("b"), c("c");
    a(x) = x * x;
    b(x) = a(x - 1) + a(x + 1);
    c(x) = b(x) - b(2 * x) + a(x);
    a.compute_root();
    Buffer<int32_t> out = c.realize({9});
    auto a_ref = [](int v) { return v * v; };
    auto b_ref = [&](int v) { return a_ref(v - 1) + a_ref(v + 1); };
    expect_1d<int32_t>(out, [&](int i) { return b_ref(i) - b_ref(2 * i) + a_ref(i); });
}

TEST(FuncsCallingFuncs, ProducerOfAnotherType) {
    Var x("x");
    Func half("half"), total("total");
    half(x) = cast<float>(x) * 0.5f;
    total(x) = cast<int16_t>(half(x) * 4.0f) + cast<int16_t>(x);
    half.compute_root();
    Buffer<int16_t> out = total.realize({5});
    expect_1d<int16_t>(out, [](int i) { return (int16_t)(3 * i); });
}

// ---------------------------------------------------------------------------------------------
// A two-stage separable 3x3 box blur on uint16, from an input Buffer. The sums wrap at 2^16.

class Blur : public ::testing::TestWithParam<bool> {};

TEST_P(Blur, Separable3x3OnUint16) {
    const bool blur_x_at_root = GetParam();
    const int W = 37, H = 19;
    std::vector<uint16_t> values = random_values<uint16_t>((W + 2) * (H + 2), 21);
    Buffer<uint16_t> input(std::vector<int>{W + 2, H + 2}, "input");
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W + 2; x++)
            input(x, y) = values[y * (W + 2) + x];
    }

    Var x("x"), y("y");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    if (blur_x_at_root) blur_x.compute_root();
    Buffer<uint16_t> out = blur_y.realize({W, H});

    auto bx = [&](int x, int y) {
        return (uint16_t)((uint16_t)(input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3);
    };
    expect_buffer<uint16_t>(out, [&](const Pos &p) {
        int x = p[0], y = p[1];
        return (uint16_t)((uint16_t)(bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3);
    });
}

INSTANTIATE_TEST_SUITE_P(BlurXInlineOrRoot, Blur, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                             return info.param ? "BlurXComputeRoot" : "BlurXInline";
                         });

// ---------------------------------------------------------------------------------------------
// Inputs bound at run time.

TEST(ImageParamInput, SetThenRebindToAnotherBuffer) {
    ImageParam in(UInt(8), 2, "img");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = cast<uint16_t>(in(x, y)) * 3 + cast<uint16_t>(in(x + 1, y));

    Buffer<uint8_t> first(std::vector<int>{9, 4}, "first");
    first.for_each_position([&](const Pos &p) { first(p) = (uint8_t)(p[0] * 20 + p[1]); });
    in.set(first);
    Buffer<uint16_t> out1 = f.realize({8, 4});
    expect_buffer<uint16_t>(out1, [&](const Pos &p) {
        return (uint16_t)(first(p[0], p[1]) * 3 + first(p[0] + 1, p[1]));
    });

    // Another buffer of other sizes and values: same Func, no redefinition.
    Buffer<uint8_t> second(std::vector<int>{6, 2}, "second");
    second.for_each_position([&](const Pos &p) { second(p) = (uint8_t)(255 - p[0] - 7 * p[1]); });
    in.set(second);
    Buffer<uint16_t> out2 = f.realize({5, 2});
    expect_buffer<uint16_t>(out2, [&](const Pos &p) {
        return (uint16_t)(second(p[0], p[1]) * 3 + second(p[0] + 1, p[1]));
    });
}

TEST(ParamInput, ChangedBetweenRunsWithoutRedefining) {
    Param<int32_t> offset("offset");
    Param<float> scale("scale");
    Var x("x");
    Func f("f");
    f(x) = cast<float>(x + offset) * scale;

    offset.set(3);
    scale.set(0.5f);
    Buffer<float> out1 = f.realize({5});
    expect_1d<float>(out1, [](int i) { return (float)(i + 3) * 0.5f; });

    offset.set(-7);
    scale.set(2.0f);
    Buffer<float> out2 = f.realize({5});
    expect_1d<float>(out2, [](int i) { return (float)(i - 7) * 2.0f; });
    // The first result is its own buffer, untouched by the second run.
    expect_1d<float>(out1, [](int i) { return (float)(i + 3) * 0.5f; });
}

TEST(ParamInput, NarrowAndWideScalarTypes) {
    Param<uint8_t> p8("p8");
    Param<int16_t> p16("p16");
    Param<double> pd("pd");
    Param<uint64_t> p64("p64");
    Buffer<uint8_t> in = buffer_of<uint8_t>({0, 100, 200, 255}, "in");
    Var x("x");
    Func f("f");
    f(x) = Tuple(in(x) + p8, cast<int16_t>(in(x)) * p16, cast<double>(in(x)) * pd,
                 cast<uint64_t>(in(x)) + p64);
    p8.set(100);
    p16.set(-300);
    pd.set(0.1);
    p64.set(UINT64_MAX - 100);
    Realization r = f.realize({4});
    const std::vector<uint8_t> v = {0, 100, 200, 255};
    expect_1d<uint8_t>(r[0], [&](int i) { return (uint8_t)(v[i] + 100); });
    expect_1d<int16_t>(r[1], [&](int i) { return (int16_t)(v[i] * -300); });
    expect_1d<double>(r[2], [&](int i) { return (double)v[i] * 0.1; });
    expect_1d<uint64_t>(r[3], [&](int i) { return (uint64_t)v[i] + (UINT64_MAX - 100); });
}

TEST(CompiledCode, RealizingTwiceReusesItAndSeesTheNewParamValue) {
    Param<int32_t> k("k");
    Var x("x");
    Func f("f");
    f(x) = x * k;

    k.set(2);
    Buffer<int32_t> out1 = f.realize({4});
    k.set(5);
    Buffer<int32_t> out2 = f.realize({4});
    EXPECT_EQ(f.pipeline().last_compile_seconds(), 0.0)
        << "the second realize of the same Func must reuse the compiled code";
    Buffer<int32_t> out3 = f.realize({7});
    EXPECT_EQ(f.pipeline().last_compile_seconds(), 0.0)
        << "new output sizes must not recompile either";

    expect_1d<int32_t>(out1, [](int i) { return 2 * i; });
    expect_1d<int32_t>(out2, [](int i) { return 5 * i; });
    expect_1d<int32_t>(out3, [](int i) { return 5 * i; });
}

// Each parallel loop's body is a function of its own; the JIT compiles the functions on
// several threads, each in its own LLVM module, and links the objects; the entry (optnone, no
// loops of its own here) is an object of its own compiled without optimization, so with 2 or 3
// threads there are more objects than threads. Whatever the number of threads, the entry must
// find every closure and give the same values.
TEST(CompiledCode, FunctionsCompiledOnSeveralThreadsLinkAsOneProgram) {
    auto a_ref = [](int x, int y) { return x + y * 3; };
    auto b_ref = [&](int x, int y) { return a_ref(x, y) * 2 + a_ref(x + 1, y); };
    for (int threads : {1, 2, 3, 8}) {
        Var x("x"), y("y");
        Func a("a"), b("b"), c("c");
        a(x, y) = x + y * 3;
        b(x, y) = a(x, y) * 2 + a(x + 1, y);
        c(x, y) = b(x, y) - b(x, y + 1) * 5;
        a.compute_root().parallel(y);
        b.compute_root().parallel(y).vectorize(x, 8);
        c.parallel(y);
        Pipeline p = compiled_on(c, threads);
        Buffer<int32_t> out = p.realize({19, 7});
        expect_buffer<int32_t>(
            out, [&](const Pos &q) { return b_ref(q[0], q[1]) - b_ref(q[0], q[1] + 1) * 5; });
    }
}

// With more compile threads than parallel loops, the JIT moves the large loop nests of a task
// into functions of their own (codegen/LoopOutlining), which compile at the same time: here the
// producer's nest, computed per row of the consumer's strip. On one thread nothing is outlined.
// The values are the same either way.
TEST(CompiledCode, OutlinedLoopNestsGiveTheSameValues) {
    auto in_ref = [](int x, int y) { return x * 3 + y * 7 + ((x * y) % 5 + 5) % 5; }; // Euclidean
    auto bx_ref = [&](int x, int y) {
        return in_ref(x - 2, y) + in_ref(x - 1, y) * 2 + in_ref(x, y) * 3 + in_ref(x + 1, y) * 2 +
               in_ref(x + 2, y);
    };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func in("in"), bx("bx"), by("by");
        in(x, y) = x * 3 + y * 7 + (x * y) % 5;
        bx(x, y) = in(x - 2, y) + in(x - 1, y) * 2 + in(x, y) * 3 + in(x + 1, y) * 2 + in(x + 2, y);
        by(x, y) = bx(x, y - 2) + bx(x, y - 1) * 2 + bx(x, y) * 3 + bx(x, y + 1) * 2 + bx(x, y + 2);
        by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
        bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 8);
        Pipeline p = compiled_on(by, threads);
        Buffer<int32_t> out = p.realize({67, 40});
        expect_buffer<int32_t>(out, [&](const Pos &q) {
            return bx_ref(q[0], q[1] - 2) + bx_ref(q[0], q[1] - 1) * 2 + bx_ref(q[0], q[1]) * 3 +
                   bx_ref(q[0], q[1] + 1) * 2 + bx_ref(q[0], q[1] + 2);
        });
        EXPECT_EQ(has_outlined_loop(p), threads == 2);
    }
}

// As many parallel loops as compile threads, but small ones, while the stages at root in the
// entry hold most of the code: the entry's loop nests are outlined on two threads, so that the
// two threads share them. The values are the same either way.
TEST(CompiledCode, EntryHoldingMostOfTheCodeHasItsLoopsOutlinedBesideSmallParallelLoops) {
    auto a_ref = [](int x, int y) {
        int v = 0;
        for (int k = 0; k < 12; k++)
            v += (x + k) * (y + 2 * k + 1) ^ (k * 37);
        return v;
    };
    auto b_ref = [&](int x, int y) {
        int v = 0;
        for (int k = 0; k < 12; k++)
            v += a_ref(x + k % 3, y + k % 4) * (k + 1);
        return v;
    };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y");
        Func a("a"), b("b"), c("c"), out("out");
        Expr av = 0, bv = 0;
        for (int k = 0; k < 12; k++)
            av += (x + k) * (y + 2 * k + 1) ^ (k * 37);
        a(x, y) = av;
        for (int k = 0; k < 12; k++)
            bv += a(x + k % 3, y + k % 4) * (k + 1);
        b(x, y) = bv;
        c(x, y) = b(x, y) + 1;
        out(x, y) = c(x, y) * 2;
        a.compute_root();
        b.compute_root();
        c.compute_root().parallel(y);
        out.parallel(y);
        Pipeline p = compiled_on(out, threads);
        Buffer<int32_t> result = p.realize({37, 21});
        expect_buffer<int32_t>(result, [&](const Pos &q) { return (b_ref(q[0], q[1]) + 1) * 2; });
        EXPECT_EQ(has_outlined_loop(p), threads == 2);
    }
}

// A width x height matrix of `value(column, row)`.
Buffer<float> matrix(int width, int height, const char *name,
                     const std::function<float(int, int)> &value) {
    Buffer<float> m(std::vector<int>{width, height}, name);
    for (int j = 0; j < height; j++) {
        for (int i = 0; i < width; i++)
            m(i, j) = value(i, j);
    }
    return m;
}

// prod(x, y) summed over k, scheduled as apps/matmul's tile: computed at `consumer`'s loop
// `at`, 32 x 8 in 16-lane vectors, unrolled; its sum split by 4 (leaving a tail) and unrolled.
void schedule_as_a_matmul_tile(Func prod, const Var &x, const Var &y, const RVar &k, Func consumer,
                               const Var &at) {
    Var pxo("pxo"), pxi("pxi"), pyo("pyo"), pyi("pyi");
    RVar ko("ko"), ki("ki");
    prod.compute_at(consumer, at)
        .split(x, pxo, pxi, 32)
        .split(y, pyo, pyi, 8)
        .reorder(pxi, pyi, pxo, pyo)
        .vectorize(pxi, 16)
        .unroll(pxi)
        .unroll(pyi);
    prod.update()
        .split(x, pxo, pxi, 32)
        .split(y, pyo, pyi, 8)
        .split(k, ko, ki, 4)
        .reorder(pxi, pyi, ki, ko, pxo, pyo)
        .vectorize(pxi, 16)
        .unroll(pxi)
        .unroll(pyi)
        .unroll(ki);
}

// A tile of accumulators on the stack, updated by a reduction whose split leaves a tail (k
// runs to 103, split by 4; the tail runs three steps): on two compile threads a loop of the
// reduction, large once unrolled, is outlined with a copy of the tile, which the callee copies
// into a tile of its own and back, and the caller copies back after the call; no pointer to
// the caller's tile escapes, so it stays in registers. The sums are those of C++, on one
// thread (nothing outlined) and on two.
TEST(CompiledCode, OutlinedLoopThatUpdatesAStackTileWorksOnACopy) {
    const int kK = 103;
    auto a_ref = [](int k, int y) { return (float)((k * 7 + y * 3) % 11) - 5.0f; };
    auto b_ref = [](int x, int k) { return (float)((x * 5 + k * 2) % 13) * 0.25f; };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
        // Of a size known only when the pipeline runs, as a matrix's width: the tail is a loop
        // nest (at most one step of ko, min(k_extent - 4 * ko, 4) of ki), not a constant one.
        Param<int> k_extent("k_extent");
        k_extent.set(kK);
        RDom k(0, k_extent, "k");
        Buffer<float> a = matrix(kK, 16, "a", a_ref), b = matrix(64, kK, "b", b_ref);
        Func prod("prod"), out("out");
        prod(x, y) = 0.0f;
        prod(x, y) += a(k, y) * b(x, k);
        out(x, y) = prod(x, y);
        out.split(x, xo, xi, 32)
            .split(y, yo, yi, 8)
            .reorder(xi, yi, xo, yo)
            .parallel(yo)
            .vectorize(xi, 16)
            .unroll(xi)
            .unroll(yi);
        schedule_as_a_matmul_tile(prod, x, y, k, out, xo);
        Pipeline p = compiled_on(out, threads);
        Buffer<float> result = p.realize({64, 16});
        expect_buffer<float>(result, [&](const Pos &q) {
            float sum = 0.0f;
            for (int i = 0; i < kK; i++)
                sum = sum + a_ref(i, q[1]) * b_ref(q[0], i);
            return sum;
        });
        const std::string ir = p.llvm_ir();
        EXPECT_EQ(ir.find("prod.s1.k$x.ko.loop\"(") != std::string::npos, threads == 2) << ir;
        EXPECT_EQ(ir.find("prod.copy") != std::string::npos, threads == 2) << ir;
    }
}

// The attributes LLVM IR text gives the definition of the function named `name`.
std::string attributes_of(const std::string &ir, const std::string &name) {
    const size_t def = ir.find("@" + name + "(");
    if (def == std::string::npos) return "";
    const size_t line_end = ir.find('\n', def);
    const size_t hash = ir.rfind('#', line_end);
    if (hash == std::string::npos || hash < def) return "";
    const std::string group = ir.substr(hash, ir.find(' ', hash) - hash);
    const size_t attrs = ir.find("attributes " + group + " = {");
    if (attrs == std::string::npos) return "";
    return ir.substr(attrs, ir.find('\n', attrs) - attrs);
}

// With two compile threads, a blur's producer nest and its consumer's row loop are both
// outlined (their values passed as arguments), and what stays of the strip's task, index
// arithmetic around two calls, is compiled unoptimized. The values are those of one thread,
// where nothing is outlined, and of the C++ reference.
TEST(CompiledCode, ATaskLeftWithOnlyCallsOfOutlinedLoopsIsCompiledUnoptimized) {
    // Loom's % is Euclidean, as Halide's.
    auto in_ref = [](int x, int y) { return ((x * 5 + y * 11) % 97 + 97) % 97 - 40; };
    auto bx_ref = [&](int x, int y) {
        int sum = 0;
        for (int k = -3; k <= 3; k++)
            sum += in_ref(x + k, y) * (k + 5);
        return sum;
    };
    auto by_ref = [&](int x, int y) {
        int sum = 0;
        for (int k = -3; k <= 3; k++)
            sum += bx_ref(x, y + k) * (9 - k);
        return sum;
    };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func in("in"), bx("bx"), by("by");
        in(x, y) = (x * 5 + y * 11) % 97 - 40;
        Expr bsum = 0, ysum = 0;
        for (int k = -3; k <= 3; k++)
            bsum = bsum + in(x + k, y) * (k + 5);
        bx(x, y) = bsum;
        for (int k = -3; k <= 3; k++)
            ysum = ysum + bx(x, y + k) * (9 - k);
        by(x, y) = ysum;
        by.split(y, yo, yi, 8).parallel(yo).vectorize(x, 16);
        bx.store_at(by, yo).compute_at(by, yi).vectorize(x, 16);
        Pipeline p = compiled_on(by, threads);
        Buffer<int32_t> out = p.realize({83, 37});
        expect_buffer<int32_t>(out, [&](const Pos &q) { return by_ref(q[0], q[1]); });
        const std::string ir = p.llvm_ir();
        const std::string task = "loom_pipelineby.by.s0.y.yo.task";
        const std::string task_attributes = attributes_of(ir, task);
        ASSERT_NE(task_attributes, "") << ir;
        if (threads == 2) {
            EXPECT_NE(ir.find("@" + task + ".bx.s0.y.loop("), std::string::npos) << ir;
            EXPECT_NE(ir.find("@" + task + ".by.s0.x.x.loop("), std::string::npos) << ir;
            EXPECT_NE(task_attributes.find("optnone"), std::string::npos) << task_attributes;
        } else {
            EXPECT_EQ(ir.find(".loop("), std::string::npos) << ir;
            EXPECT_EQ(task_attributes.find("optnone"), std::string::npos) << task_attributes;
        }
    }
}

// A matrix product's schedule (apps/matmul): per tile of 32 x 8 outputs, the whole sum over k
// in registers, split by 4 with a tail, reading a packed copy of B's strip; the 8 tiles of a
// strip in a block of 64 rows one after the other, blocks in parallel. On two compile
// threads the sum's main loop is outlined as a whole (no loop of its stage around it; once per
// tile), beside its tail, and so is the strip's copy; what stays of the task (the tile's
// zeroing and write-out around the calls) is glue, compiled unoptimized. The sums are those of
// C++ either way.
TEST(CompiledCode, ATileSumOutlinedWholeLeavesItsTaskAsGlue) {
    const int kK = 103;
    auto a_ref = [](int k, int y) { return (float)((k * 5 + y * 3) % 7) - 3.0f; };
    auto b_ref = [](int x, int k) { return (float)((x * 3 + k * 2) % 9) * 0.5f; };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y"), xo("xo"), xi("xi"), yb("yb"), yo("yo"), yi("yi");
        Param<int> k_extent("k_extent");
        k_extent.set(kK);
        RDom k(0, k_extent, "k");
        Buffer<float> a = matrix(kK, 128, "a", a_ref), b = matrix(64, kK, "b", b_ref);
        Func packed("packed"), prod("prod"), out("out");
        packed(x, y) = b(x, y);
        prod(x, y) = 0.0f;
        prod(x, y) = fma(a(k, y), packed(x, k), prod(x, y));
        out(x, y) = prod(x, y) * 2.0f;
        out.split(y, yb, y, 64)
            .split(y, yo, yi, 8)
            .split(x, xo, xi, 32)
            .reorder(xi, yi, yo, xo, yb)
            .parallel(yb)
            .vectorize(xi, 16)
            .unroll(xi)
            .unroll(yi);
        packed.compute_at(out, xo).vectorize(x, 16);
        schedule_as_a_matmul_tile(prod, x, y, k, out, yo);
        Pipeline p = compiled_on(out, threads);
        Buffer<float> result = p.realize({64, 128});
        expect_buffer<float>(result, [&](const Pos &q) {
            float sum = 0.0f;
            for (int i = 0; i < kK; i++)
                sum = std::fma(a_ref(i, q[1]), b_ref(q[0], i), sum);
            return sum * 2.0f;
        });
        const std::string ir = p.llvm_ir();
        const std::string task = "loom_pipelineout.out.s0.y.yb.task";
        const std::string task_attributes = attributes_of(ir, task);
        ASSERT_NE(task_attributes, "") << ir;
        const bool main_sum =
            ir.find("@\"" + task + ".prod.s1.k$x.ko.loop\"(") != std::string::npos;
        const bool tail_sum =
            ir.find("@\"" + task + ".prod.s1.k$x.ko.loop.1\"(") != std::string::npos;
        const bool copy = ir.find("@" + task + ".packed.s0.y.loop(") != std::string::npos;
        const bool glue = task_attributes.find("optnone") != std::string::npos;
        EXPECT_EQ(main_sum, threads == 2) << ir;
        EXPECT_EQ(tail_sum, threads == 2) << ir;
        EXPECT_EQ(copy, threads == 2) << ir;
        EXPECT_EQ(glue, threads == 2) << task_attributes;
    }
}

// An entry whose only loop runs a parallel loop per image of a batch is glue as well: it is
// compiled unoptimized, on any number of threads, and gives the values of the C++ reference.
TEST(CompiledCode, AnEntryWhoseLoopOnlyLaunchesParallelLoopsIsCompiledUnoptimized) {
    auto ref = [](int x, int y, int n) { return (x * 3 + y * 5 + n * 7) % 11 * (n + 1); };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y"), n("n");
        Func f("f");
        f(x, y, n) = (x * 3 + y * 5 + n * 7) % 11 * (n + 1);
        f.parallel(y).vectorize(x, 8);
        Pipeline p = compiled_on(f, threads);
        Buffer<int32_t> out = p.realize({21, 6, 3});
        expect_buffer<int32_t>(out, [&](const Pos &q) { return ref(q[0], q[1], q[2]); });
        const std::string entry_attributes = attributes_of(p.llvm_ir(), "loom_pipelinef");
        EXPECT_NE(entry_attributes.find("optnone"), std::string::npos) << entry_attributes;
    }
}

// A row loop that reads a value its task keeps on the stack (the row's maximum, at a constant
// index) is outlined on two compile threads all the same: the value is read before the call
// and passed to it. The values are those of one thread and of the C++ reference.
TEST(CompiledCode, AnOutlinedLoopReadingARowMaximumOnTheStackGetsItsValue) {
    const int width = 45, height = 9;
    auto in_ref = [](int x, int y) { return float(((x * 7 + y * 13) % 50) - 20); };
    for (int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        Var x("x"), y("y");
        RDom r(0, width, "r");
        Func in("in"), row_max("row_max"), shifted("shifted"), out("out");
        in(x, y) = cast<float>((x * 7 + y * 13) % 50 - 20);
        row_max(y) = -1e30f;
        row_max(y) = max(row_max(y), in(r.x, y));
        Expr d = row_max(y) - in(x, y);
        shifted(x, y) = sqrt(d + 1.0f) + sqrt(d * 2.0f + 3.0f);
        out(x, y) = sqrt(shifted(x, y)) + sqrt(shifted(x, y) + 1.0f);
        out.parallel(y).vectorize(x, 16);
        row_max.compute_at(out, y);
        shifted.compute_at(out, y).vectorize(x, 16);
        Pipeline p = compiled_on(out, threads);
        Buffer<float> result = p.realize({width, height});
        expect_buffer<float>(result, [&](const Pos &q) {
            float m = -1e30f;
            for (int i = 0; i < width; i++)
                m = std::max(m, in_ref(i, q[1]));
            const float dd = m - in_ref(q[0], q[1]);
            const float s = std::sqrt(dd + 1.0f) + std::sqrt(dd * 2.0f + 3.0f);
            return std::sqrt(s) + std::sqrt(s + 1.0f);
        });
        const bool outlined = p.llvm_ir().find(".shifted.s0.x.x.loop(") != std::string::npos;
        EXPECT_EQ(outlined, threads == 2);
    }
}

// The JIT borrows its LLVM TargetMachines from a pool shared by the process and returns them
// after each compile. Pipelines compiled on four threads at once, three after each other on
// each (each compile takes machines another just returned), must each give their own values.
TEST(CompiledCode, PipelinesCompiledOnSeveralThreadsAtOnceGiveTheirOwnValues) {
    constexpr int kThreads = 4, kPerThread = 3;
    std::vector<std::vector<Buffer<int32_t>>> outputs(kThreads);
    std::vector<std::string> failures(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([t, &outputs, &failures] {
            try {
                for (int i = 0; i < kPerThread; i++) {
                    const int k = t * kPerThread + i;
                    Var x("x"), y("y");
                    Func a("a"), b("b");
                    a(x, y) = x * (k + 1) + y;
                    b(x, y) = a(x, y) + a(x + 1, y) * k;
                    a.compute_root().parallel(y);
                    b.parallel(y).vectorize(x, 8);
                    outputs[t].push_back(b.realize({21, 5}));
                }
            } catch (const std::exception &e) {
                failures[t] = e.what();
            }
        });
    }
    for (std::thread &thread : threads)
        thread.join();
    for (int t = 0; t < kThreads; t++) {
        ASSERT_EQ(failures[t], "") << "thread " << t;
        ASSERT_EQ(outputs[t].size(), size_t(kPerThread));
        for (int i = 0; i < kPerThread; i++) {
            const int k = t * kPerThread + i;
            auto a_ref = [k](int x, int y) { return x * (k + 1) + y; };
            expect_buffer<int32_t>(outputs[t][i], [&](const Pos &q) {
                return a_ref(q[0], q[1]) + a_ref(q[0] + 1, q[1]) * k;
            });
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Tuples.

TEST(TupleFunc, RealizesIntoARealizationOfTwoBuffers) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = Tuple(x + y, cast<float>(x) * 0.5f);
    Realization r = f.realize({4, 3});
    ASSERT_EQ(r.size(), 2u);
    ASSERT_EQ(r[0].type(), Int(32));
    ASSERT_EQ(r[1].type(), Float(32));
    Buffer<int32_t> sum = r[0];
    Buffer<float> half = r[1];
    expect_buffer<int32_t>(sum, [](const Pos &p) { return p[0] + p[1]; });
    expect_buffer<float>(half, [](const Pos &p) { return (float)p[0] * 0.5f; });
}

TEST(TupleFunc, ConsumerReadsItsElements) {
    for (bool root : {false, true}) {
        SCOPED_TRACE(root ? "producer compute_root" : "producer inlined");
        Var x("x"), y("y");
        Func f("f"), g("g");
        f(x, y) = Tuple(x - y, cast<float>(y) * 1.5f);
        g(x, y) = f(x, y)[0] * 10 + cast<int32_t>(f(x + 1, y)[1] * 2.0f);
        if (root) f.compute_root();
        Buffer<int32_t> out = g.realize({5, 4});
        expect_buffer<int32_t>(out, [](const Pos &p) {
            return (p[0] - p[1]) * 10 + (int32_t)((float)p[1] * 1.5f * 2.0f);
        });
    }
}

TEST(TupleFunc, RealizesIntoGivenBuffersWithMins) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = Tuple(x * y, cast<uint8_t>(x + y));
    Buffer<int32_t> product(std::vector<int>{3, 2}, "product");
    Buffer<uint8_t> sum(std::vector<int>{3, 2}, "sum");
    product.set_min(1, 4);
    sum.set_min(1, 4);
    f.realize(Realization(product, sum));
    expect_buffer<int32_t>(product, [](const Pos &p) { return p[0] * p[1]; });
    expect_buffer<uint8_t>(sum, [](const Pos &p) { return (uint8_t)(p[0] + p[1]); });
}

// ---------------------------------------------------------------------------------------------
// Output and input coordinates.

TEST(RealizeIntoBuffer, NonZeroMinsGiveTheBuffersCoordinates) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x * 100 + y;
    Buffer<int32_t> out(std::vector<int>{5, 4}, "out");
    out.set_min(10, -3);
    f.realize(out);
    EXPECT_EQ(out(10, -3), 997);
    EXPECT_EQ(out(14, 0), 1400);
    expect_buffer<int32_t>(out, [](const Pos &p) { return p[0] * 100 + p[1]; });
}

TEST(RealizeIntoBuffer, InputWithNonZeroMinIsReadAtItsCoordinates) {
    Buffer<int16_t> in(std::vector<int>{10}, "shifted");
    in.set_min(-5);
    for (int i = -5; i < 5; i++)
        in(i) = (int16_t)(i * 3);
    Var x("x");
    Func f("f");
    f(x) = in(x)*2 + in(x + 1);
    Buffer<int16_t> out(std::vector<int>{6}, "out");
    out.set_min(-4);
    f.realize(out);
    expect_1d<int16_t>(out, [](int i) { return (int16_t)(i * 3 * 2 + (i + 1) * 3); });
}

TEST(RealizeIntoBuffer, SameFuncIntoBuffersOfDifferentPlacement) {
    Var x("x");
    Func f("f");
    f(x) = x * x - 3;
    Buffer<int32_t> a(std::vector<int>{4}, "a"), b(std::vector<int>{7}, "b");
    b.set_min(-100);
    f.realize(a);
    f.realize(b);
    expect_1d<int32_t>(a, [](int i) { return i * i - 3; });
    expect_1d<int32_t>(b, [](int i) { return i * i - 3; });
}

// ---------------------------------------------------------------------------------------------
// Dimensions.

TEST(Dimensions, OneD) {
    Var x("x");
    Func f("f");
    f(x) = x * 3 - 1;
    Buffer<int32_t> out = f.realize({7});
    ASSERT_EQ(out.dimensions(), 1);
    EXPECT_EQ(out.width(), 7);
    expect_1d<int32_t>(out, [](int i) { return i * 3 - 1; });
}

TEST(Dimensions, TwoD) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x - 2 * y;
    Buffer<int32_t> out = f.realize({5, 3});
    ASSERT_EQ(out.dimensions(), 2);
    EXPECT_EQ(out.width(), 5);
    EXPECT_EQ(out.height(), 3);
    expect_buffer<int32_t>(out, [](const Pos &p) { return p[0] - 2 * p[1]; });
}

TEST(Dimensions, ThreeD) {
    Var x("x"), y("y"), c("c");
    Func f("f");
    f(x, y, c) = cast<uint16_t>(x + 10 * y + 100 * c);
    Buffer<uint16_t> out = f.realize({4, 3, 2});
    ASSERT_EQ(out.dimensions(), 3);
    EXPECT_EQ(out.channels(), 2);
    expect_buffer<uint16_t>(out,
                            [](const Pos &p) { return (uint16_t)(p[0] + 10 * p[1] + 100 * p[2]); });
}

TEST(Dimensions, FourD) {
    Var x("x"), y("y"), z("z"), w("w");
    Func f("f");
    f(x, y, z, w) = x + 10 * y + 100 * z + 1000 * w;
    Buffer<int32_t> out = f.realize({3, 2, 2, 3});
    ASSERT_EQ(out.dimensions(), 4);
    EXPECT_EQ(out.dim(3).extent(), 3);
    expect_buffer<int32_t>(
        out, [](const Pos &p) { return p[0] + 10 * p[1] + 100 * p[2] + 1000 * p[3]; });
}

TEST(Dimensions, ZeroD) {
    Func f("f");
    f() = 42;
    Buffer<int32_t> out = f.realize();
    ASSERT_EQ(out.dimensions(), 0);
    EXPECT_EQ(out(), 42);
}

TEST(Dimensions, ZeroDFromAParamAndFuncOfExpr) {
    Param<float> p("p");
    Func f("f");
    f() = p * 1.5f;
    p.set(4.0f);
    Buffer<float> out = f.realize();
    EXPECT_EQ(out(), 6.0f);

    Func g(Expr(7) * 6); // Halide's Func(Expr): a zero-dimensional Func of that value
    Buffer<int32_t> out_g = g.realize();
    EXPECT_EQ(out_g(), 42);
}

// ---------------------------------------------------------------------------------------------
// LOOM_PERF_MAP: every JIT-compiled function listed for perf, at an address in this process.

TEST(PerfMap, ListsEveryCompiledFunctionWhenAsked) {
    std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::remove(path.c_str());
    setenv("LOOM_PERF_MAP", "1", 1);
    Var x("x"), y("y");
    Func profiled("profiled");
    profiled(x, y) = x + y;
    profiled.parallel(y);
    profiled.compile_jit();
    unsetenv("LOOM_PERF_MAP");
    std::ifstream map(path);
    ASSERT_TRUE(map.good()) << path;
    std::set<std::string> names;
    std::string address, size, name;
    while (map >> address >> size >> name) {
        EXPECT_NE(std::stoull(address, nullptr, 16), 0u) << name;
        EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << name;
        names.insert(name);
    }
    std::remove(path.c_str());
    // The entry and the body of the parallel loop.
    EXPECT_EQ(names.count("loom_pipelineprofiled"), 1u) << path;
    EXPECT_EQ(names.count("loom_pipelineprofiled.profiled.s0.y.task"), 1u) << path;
    // Without the variable, no map.
    Func quiet("quiet");
    quiet(x) = x;
    quiet.compile_jit();
    EXPECT_FALSE(std::ifstream(path).good());
}

} // namespace
