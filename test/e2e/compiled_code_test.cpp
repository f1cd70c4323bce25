// Compiled code: functions compiled on several threads and linked as one program, loop nests
// outlined into functions of their own (codegen/LoopOutlining) and which loops are, and the
// values each arrangement gives.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <string>
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
        // (Computed per strip: slid down the strip's rows instead, each row's producer would be
        // a row loop of one iteration, which is no loop.)
        bx.compute_at(by, yo).vectorize(x, 16);
        Pipeline p = compiled_on(by, threads);
        Buffer<int32_t> out = p.realize({83, 37});
        expect_buffer<int32_t>(out, [&](const Pos &q) { return by_ref(q[0], q[1]); });
        const std::string ir = p.llvm_ir();
        const std::string task = "loom_pipelineby.by.s0.y.yo.task";
        const std::string task_attributes = attributes_of(ir, task);
        ASSERT_NE(task_attributes, "") << ir;
        if (threads == 2) {
            EXPECT_NE(ir.find("@" + task + ".bx.s0.y.loop("), std::string::npos) << ir;
            EXPECT_NE(ir.find("@" + task + ".by.s0.y.yi.loop("), std::string::npos) << ir;
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

// A small reduction per point (a 2x2 window of a repeat_edge input) inside the loop over every
// point: loop partitioning splits each RDom loop into pieces whose extents are lets (the
// window's rows inside the input, above it, below it), but each piece still runs at most twice
// per point, and a call per point to an outlined piece cost the pipeline 3x its run time (fuzz
// seed 2026 pair 268). The RDom's pieces are not outlined.
TEST(CompiledCode, PiecesOfASmallReductionPerPointAreNotOutlined) {
    Buffer<float> in(std::vector<int>{40, 30}, "in");
    in.for_each_position([&](const Pos &q) { in(q) = (float)((q[0] * 7 + q[1] * 13) % 17); });
    auto in_ref = [&](int x, int y) { return in(std::clamp(x, 0, 39), std::clamp(y, 0, 29)); };
    Var x("x"), y("y"), xy("xy");
    RDom r(0, 2, -1, 2, "r");
    Func clamped = BoundaryConditions::repeat_edge(in);
    Func f("f");
    f(x, y) = -1.0f;
    f(x, y) = max(f(x, y), clamped(x + r.x, y + r.y) - clamped(x + r.x, y + r.y + 2) * 0.5f);
    f.parallel(y); // the update's loops hold the serial code: its loop over points is too large
    f.update(0).fuse(x, y, xy);
    Pipeline p = compiled_on(f, 2);
    Buffer<float> out = p.realize({45, 36});
    expect_buffer<float>(out, [&](const Pos &q) {
        float v = -1.0f;
        for (int ry = -1; ry < 1; ry++)
            for (int rx = 0; rx < 2; rx++)
                v = std::max(v, in_ref(q[0] + rx, q[1] + ry) -
                                    in_ref(q[0] + rx, q[1] + ry + 2) * 0.5f);
        return v;
    });
    const std::string code = p.assembly();
    EXPECT_EQ(code.find("r$y.loop"), std::string::npos) << code;
    EXPECT_EQ(code.find("r$x.loop"), std::string::npos) << code;
}

} // namespace
