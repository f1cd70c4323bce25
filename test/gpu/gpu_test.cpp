// The CUDA backend. Pipelines with GPU schedules are lowered and compiled to PTX on any
// machine (those tests always run); running them needs an NVIDIA driver, and the tests that do
// skip with the reason where none is present. Every output is checked element by element
// against plain C++ loops.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include "CudaTest.h"
#include "loom.h"

using namespace loom;

namespace {

using loom_test::cuda_target;

template<typename T>
Buffer<T> pattern_2d(int w, int h, int seed) {
    Buffer<T> b(w, h);
    uint32_t s = 2654435761u * uint32_t(seed + 1);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            s = s * 1664525u + 1013904223u;
            if constexpr (std::is_floating_point<T>::value) {
                b(x, y) = T(int(s >> 8) % 2001 - 1000) / T(64);
            } else {
                b(x, y) = T(s >> 13);
            }
        }
    }
    return b;
}

std::string message_of(const std::function<void()> &f) {
    try {
        f();
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

// A separable 3x3 mean of 16-bit values, each mean truncated, reading in(x .. x + 2,
// y .. y + 2) for output (x, y); schedules are the caller's.
struct Blur {
    ImageParam input{UInt(16), 2, "input"};
    Func blur_x{"blur_x"}, blur_y{"blur_y"};
    Var x{"x"}, y{"y"};
    Blur() {
        blur_x(x, y) = cast<uint16_t>((cast<uint32_t>(input(x, y)) + input(x + 1, y) + input(x + 2, y)) / 3);
        blur_y(x, y) = cast<uint16_t>((cast<uint32_t>(blur_x(x, y)) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3);
    }
};

// Blur's output (x, y) computed in plain C++.
uint16_t blur_reference(const Buffer<uint16_t> &in, int x, int y) {
    auto bx = [&](int xx, int yy) {
        return uint32_t((uint32_t(in(xx, yy)) + in(xx + 1, yy) + in(xx + 2, yy)) / 3);
    };
    return uint16_t((bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3);
}

// ---- lowering and PTX, on any machine -------------------------------------------------------

TEST(GPULowering, TiledFuncBecomesAKernelWithDeviceCopies) {
    ImageParam in(Float(32), 2, "in");
    Func f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    std::string stmt = Pipeline(f).lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("gpu_block"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("gpu_thread"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("loom_cuda_copy_to_device(in.buffer"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("loom_cuda_copy_to_device(f.buffer"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("loom_cuda_mark_device_dirty(f.buffer)"), std::string::npos) << stmt;
    // The input is only read: nothing marks it.
    EXPECT_EQ(stmt.find("loom_cuda_mark_device_dirty(in.buffer)"), std::string::npos) << stmt;
}

TEST(GPULowering, PipelineWithoutKernelsHasNoDeviceCalls) {
    Func f("f");
    Var x("x");
    f(x) = x * 2;
    f.vectorize(x, 8);
    std::string stmt = Pipeline(f).lowered_stmt(cuda_target());
    EXPECT_EQ(stmt.find("loom_cuda"), std::string::npos) << stmt;
}

TEST(GPULowering, HostConsumerOfAKernelCopiesBack) {
    Func g("g"), h("h");
    Var x("x"), bx("bx"), tx("tx");
    g(x) = x * 3;
    h(x) = g(x) + g(x + 1);
    g.compute_root().gpu_tile(x, bx, tx, 32);
    std::string stmt = Pipeline(h).lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("loom_cuda_copy_to_host(g.buffer"), std::string::npos) << stmt;
}

TEST(GPULowering, CompilesToPTXWithoutADriver) {
    ImageParam in(UInt(8), 2, "in");
    Param<float> gain("gain");
    Func f("f");
    Var x("x"), y("y"), tx("tx"), ty("ty");
    f(x, y) = cast<uint8_t>(clamp(in(x, y) * gain, 0.0f, 255.0f));
    f.gpu_tile(x, y, tx, ty, 32, 4);
    Pipeline p(f);
    p.compile_jit(cuda_target());
    std::string ir = p.llvm_ir(cuda_target());
    EXPECT_NE(ir.find("loom_cuda_launch"), std::string::npos);
    // The PTX is in the host module, as a string.
    EXPECT_NE(ir.find(".entry loom_kernel_0_f"), std::string::npos) << ir.substr(0, 4000);
    EXPECT_NE(ir.find("%ctaid.x"), std::string::npos);
    EXPECT_NE(ir.find("%tid.y"), std::string::npos);
}

TEST(GPULowering, ScheduleSourcePrintsGPUDirectives) {
    Func f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    f(x, y) = x + y;
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    std::string src = Pipeline(f).schedule_source();
    EXPECT_NE(src.find("gpu_threads(tx)"), std::string::npos) << src;
    EXPECT_NE(src.find("gpu_threads(ty)"), std::string::npos) << src;
    EXPECT_NE(src.find("gpu_blocks(bx)"), std::string::npos) << src;
    EXPECT_NE(src.find("gpu_blocks(by)"), std::string::npos) << src;
}

TEST(GPULowering, RunWithoutADriverSaysWhy) {
    char why[512] = {0};
    if (loom_cuda_available(why, sizeof(why))) GTEST_SKIP() << "a CUDA device is present";
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 64);
    std::string m = message_of([&] { f.realize({256}, cuda_target()); });
    EXPECT_NE(m.find("libcuda"), std::string::npos) << m;
}

TEST(GPULowering, ProducerAtABlockLoopUsesSharedMemoryAndABarrier) {
    ImageParam in(Float(32), 2, "in");
    Func g("g"), f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    g(x, y) = in(x, y) * 2.0f;
    f(x, y) = g(x, y) + g(x, y + 2);
    f.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    g.compute_at(f, bx).gpu_threads(x, y);
    std::string ir = Pipeline(f).llvm_ir(cuda_target());
    EXPECT_NE(ir.find(".shared .align 16 .b8 g["), std::string::npos) << ir.substr(0, 6000);
    EXPECT_NE(ir.find("bar.sync"), std::string::npos);
    // g's nest uses 32 x 10 threads, f's 32 x 8: blocks of 320.
    EXPECT_NE(ir.find(".maxntid 320, 1, 1"), std::string::npos);
}

TEST(GPULowering, GuardWithIfTileSizesSharedStorageForItsLargestBlock) {
    // The tiles at the right and bottom edges cover fewer points than the others: g's region
    // in a block varies, and its storage and threads take the largest, 33 x 10.
    ImageParam in(Float(32), 2, "in");
    Func g("g"), f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    g(x, y) = in(x, y) * 2.0f;
    f(x, y) = g(x, y) + g(x, y + 2) + g(x + 1, y);
    f.gpu_tile(x, y, bx, by, tx, ty, 32, 8, TailStrategy::GuardWithIf);
    g.compute_at(f, bx).gpu_threads(x, y);
    std::string stmt = Pipeline(f).lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("allocate g[float32 * 33 * 10]"), std::string::npos) << stmt;
    std::string ir = Pipeline(f).llvm_ir(cuda_target());
    EXPECT_NE(ir.find(".shared .align 16 .b8 g[1320]"), std::string::npos) << ir.substr(0, 6000);
    EXPECT_NE(ir.find(".maxntid 330, 1, 1"), std::string::npos);
}

// ---- schedule errors ------------------------------------------------------------------------

TEST(GPUErrors, TargetWithoutCUDA) {
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 64);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(get_host_target()); });
    EXPECT_NE(m.find("Target::CUDA"), std::string::npos) << m;
    EXPECT_NE(m.find("f.s0.x.bx"), std::string::npos) << m;
}

TEST(GPUErrors, ThreadsWithoutBlocks) {
    Func f("f");
    Var x("x"), xo("xo"), xi("xi");
    f(x) = x;
    f.split(x, xo, xi, 32).gpu_threads(xi);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("no gpu_blocks loop"), std::string::npos) << m;
    EXPECT_NE(m.find("xi"), std::string::npos) << m;
}

TEST(GPUErrors, ThreadLoopOfUnknownExtent) {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x + y;
    f.gpu_blocks(y).gpu_threads(x);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("not a constant"), std::string::npos) << m;
}

TEST(GPUErrors, TooManyThreadsPerBlock) {
    Func f("f");
    Var x("x"), y("y"), tx("tx"), ty("ty");
    f(x, y) = x + y;
    f.gpu_tile(x, y, tx, ty, 64, 32);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("2048 threads"), std::string::npos) << m;
    EXPECT_NE(m.find("1024"), std::string::npos) << m;
}

TEST(GPUErrors, BlockLoopInsideASerialLoop) {
    Func f("f");
    Var x("x"), y("y"), z("z"), bx("bx"), tx("tx");
    f(x, y, z) = x + y + z;
    // bx (blocks) > z (serial) > y (blocks) > tx (threads)
    f.split(x, bx, tx, 32).reorder(tx, y, z, bx).gpu_blocks(bx).gpu_blocks(y).gpu_threads(tx);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("f.s0.y"), std::string::npos) << m;
    EXPECT_NE(m.find("f.s0.z"), std::string::npos) << m;
    EXPECT_NE(m.find("reorder"), std::string::npos) << m;
}

TEST(GPUErrors, ParallelLoopInsideAKernel) {
    Func f("f");
    Var x("x"), y("y"), bx("bx"), tx("tx");
    f(x, y) = x + y;
    f.gpu_tile(x, bx, tx, 32).parallel(y).reorder(y, tx, bx);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("is parallel inside kernel"), std::string::npos) << m;
    EXPECT_NE(m.find("f.s0.y"), std::string::npos) << m;
}

TEST(GPUErrors, FourBlockDimensions) {
    Func f("f");
    Var x("x"), y("y"), z("z"), w("w"), tx("tx");
    f(x, y, z, w) = x + y + z + w;
    f.split(x, x, tx, 8).gpu_threads(tx).gpu_blocks(x, y, z).gpu_blocks(w);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("more than 3 gpu_blocks loops"), std::string::npos) << m;
}

TEST(GPUErrors, HostDeviceAPIIsNotAGPU) {
    Func f("f");
    Var x("x");
    f(x) = x;
    std::string m = message_of([&] { f.gpu_blocks(x, DeviceAPI::Host); });
    EXPECT_NE(m.find("DeviceAPI::Host"), std::string::npos) << m;
}

// Two Funcs of one input, on the GPU, sharing their block loops (compute_with at bx): one
// kernel whose blocks run both Funcs' thread loops; a and b are the caller's to schedule.
struct TwoOfOneInput {
    ImageParam in{Float(32), 2, "in"};
    Func a{"a"}, b{"b"}, out{"out"};
    Var x{"x"}, y{"y"}, bx{"bx"}, by{"by"}, tx{"tx"}, ty{"ty"};
    TwoOfOneInput() {
        a(x, y) = in(x, y) * 2.0f + in(x + 1, y);
        b(x, y) = in(x, y + 1) - in(x, y) * 0.5f;
        out(x, y) = a(x, y) * b(x, y);
        a.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 8);
        b.compute_root().gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    }
    static float reference(const Buffer<float> &in, int x, int y) {
        return (in(x, y) * 2.0f + in(x + 1, y)) * (in(x, y + 1) - in(x, y) * 0.5f);
    }
};

TEST(GPULowering, ComputeWithSharesTheBlocksOfOneKernel) {
    for (const char *level : {"bx", "tx"}) {
        SCOPED_TRACE(level);
        TwoOfOneInput p;
        p.b.compute_with(p.a, Var(level));
        std::string ir = Pipeline(p.out).llvm_ir(cuda_target());
        EXPECT_NE(ir.find(".entry loom_kernel_0_a"), std::string::npos) << ir.substr(0, 4000);
        // b has no kernel of its own.
        EXPECT_EQ(ir.find(".entry loom_kernel_1"), std::string::npos) << ir.substr(0, 4000);
    }
}

// ---- on the GPU -----------------------------------------------------------------------------

TEST(GPURun, PointwiseFloatWithTail) {
    REQUIRE_CUDA();
    const int w = 203, h = 77;  // not multiples of the tile: ShiftInwards tails
    Buffer<float> in = pattern_2d<float>(w, h, 1);
    ImageParam input(Float(32), 2, "input");
    Param<float> scale("scale");
    Func f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    f(x, y) = input(x, y) * scale - input(x, y) / 3.0f + cast<float>(x - y);
    f.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    input.set(in);
    scale.set(1.75f);
    Buffer<float> out = f.realize({w, h}, cuda_target());
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) {
            float v = in(xx, yy);
            float expected = v * 1.75f - v / 3.0f + float(xx - yy);
            ASSERT_EQ(out(xx, yy), expected) << "at " << xx << ", " << yy;
        }
    }
}

TEST(GPURun, BlurInlinedAndStagedMatchesCPU) {
    REQUIRE_CUDA();
    const int w = 300, h = 131;
    Buffer<uint16_t> in = pattern_2d<uint16_t>(w + 2, h + 2, 2);
    for (bool staged : {false, true}) {
        Blur b;
        Var bx("bx"), by("by"), tx("tx"), ty("ty");
        b.blur_y.gpu_tile(b.x, b.y, bx, by, tx, ty, 16, 16);
        if (staged) b.blur_x.compute_root().gpu_tile(b.x, b.y, bx, by, tx, ty, 32, 4);
        b.input.set(in);
        Buffer<uint16_t> out = b.blur_y.realize({w, h}, cuda_target());
        for (int yy = 0; yy < h; yy++) {
            for (int xx = 0; xx < w; xx++) {
                ASSERT_EQ(out(xx, yy), blur_reference(in, xx, yy))
                    << (staged ? "staged" : "inlined") << " at " << xx << ", " << yy;
            }
        }
    }
}

TEST(GPURun, HostAndDeviceStagesHandOver) {
    REQUIRE_CUDA();
    // A CPU stage feeds a GPU stage, which feeds a CPU stage: each buffer moves where it is
    // read next.
    const int n = 1000;
    Func a("a"), b("b"), c("c");
    Var x("x"), bx("bx"), tx("tx");
    a(x) = x * 7 + 3;
    b(x) = a(x) * a(x + 1) - x;
    c(x) = b(x) + b(x + 2) * 2;
    a.compute_root().vectorize(x, 8);
    b.compute_root().gpu_tile(x, bx, tx, 128);
    c.vectorize(x, 8);
    Buffer<int32_t> out = c.realize({n}, cuda_target());
    auto av = [](int i) { return i * 7 + 3; };
    auto bv = [&](int i) { return av(i) * av(i + 1) - i; };
    for (int i = 0; i < n; i++) ASSERT_EQ(out(i), bv(i) + bv(i + 2) * 2) << "at " << i;
}

TEST(GPURun, ReductionPerThreadAndUpdateStage) {
    REQUIRE_CUDA();
    const int w = 97, h = 45;
    Buffer<float> in = pattern_2d<float>(w + 4, h, 3);
    ImageParam input(Float(32), 2, "input");
    Func box("box"), f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    RDom r(0, 5, "r");
    box(x, y) = sum(input(x + r, y));
    f(x, y) = box(x, y);
    f(x, y) = f(x, y) * 0.5f + 1.0f;
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 4);
    // GuardWithIf: Auto would round the update's tiles up (Halide's rule), and the output's
    // region with them, reading the input past its right edge.
    f.update().gpu_tile(x, y, bx, by, tx, ty, 8, 8, TailStrategy::GuardWithIf);
    input.set(in);
    Buffer<float> out = f.realize({w, h}, cuda_target());
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) {
            float s = 0.0f;
            for (int i = 0; i < 5; i++) s += in(xx + i, yy);
            ASSERT_EQ(out(xx, yy), s * 0.5f + 1.0f) << "at " << xx << ", " << yy;
        }
    }
}

TEST(GPURun, ChangedInputIsCopiedAgainAfterSetHostDirty) {
    REQUIRE_CUDA();
    Buffer<int32_t> in(512);
    for (int i = 0; i < 512; i++) in(i) = i;
    ImageParam input(Int(32), 1, "input");
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = input(x) * 2;
    f.gpu_tile(x, bx, tx, 64);
    input.set(in);
    Pipeline p(f);
    Buffer<int32_t> out1 = p.realize({512}, cuda_target());
    EXPECT_TRUE(in.has_device_allocation());
    for (int i = 0; i < 512; i++) in(i) = 1000 - i;
    in.set_host_dirty();
    Buffer<int32_t> out2 = p.realize({512}, cuda_target());
    for (int i = 0; i < 512; i++) {
        ASSERT_EQ(out1(i), 2 * i) << "at " << i;
        ASSERT_EQ(out2(i), 2 * (1000 - i)) << "at " << i;
    }
}

TEST(GPURun, ThreeDimensionalBlocksAndThreads) {
    REQUIRE_CUDA();
    Func f("f");
    Var x("x"), y("y"), z("z"), xo("xo"), yo("yo"), zo("zo"), xi("xi"), yi("yi"), zi("zi");
    f(x, y, z) = x + y * 100 + z * 10000;
    f.split(x, xo, xi, 8).split(y, yo, yi, 4).split(z, zo, zi, 2).reorder(xi, yi, zi, xo, yo, zo);
    f.gpu_threads(xi, yi, zi).gpu_blocks(xo, yo, zo);
    Buffer<int32_t> out = f.realize({20, 9, 5}, cuda_target());
    for (int zz = 0; zz < 5; zz++)
        for (int yy = 0; yy < 9; yy++)
            for (int xx = 0; xx < 20; xx++) ASSERT_EQ(out(xx, yy, zz), xx + yy * 100 + zz * 10000);
}

TEST(GPURun, VectorLanesInsideAThread) {
    REQUIRE_CUDA();
    const int n = 1000;  // not a multiple of 4 * 64: the last block shifts inwards
    Buffer<float> in(n);
    for (int i = 0; i < n; i++) in(i) = float(i % 97) * 0.25f - 3.0f;
    ImageParam input(Float(32), 1, "input");
    Func f("f");
    Var x("x"), bx("bx"), xi("xi"), tx("tx"), v("v");
    f(x) = sqrt(abs(input(x))) + floor(input(x) * 1.5f);
    f.split(x, bx, xi, 256).split(xi, tx, v, 4).vectorize(v).gpu_threads(tx).gpu_blocks(bx);
    input.set(in);
    Buffer<float> out = f.realize({n}, cuda_target());
    for (int i = 0; i < n; i++) {
        ASSERT_EQ(out(i), std::sqrt(std::abs(in(i))) + std::floor(in(i) * 1.5f)) << "at " << i;
    }
}

TEST(GPURun, TupleOutputAndBoundaryCondition) {
    REQUIRE_CUDA();
    const int w = 70, h = 33;
    Buffer<uint8_t> in = pattern_2d<uint8_t>(w, h, 4);
    ImageParam input(UInt(8), 2, "input");
    Func clamped = BoundaryConditions::repeat_edge(input);
    Func f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    f(x, y) = Tuple(cast<int16_t>(clamped(x - 2, y)) - clamped(x + 2, y + 1),
                    cast<float>(clamped(x, y - 3)) * 0.5f);
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 16);
    input.set(in);
    Realization r = f.realize({w, h}, cuda_target());
    Buffer<int16_t> diff = r[0];
    Buffer<float> half = r[1];
    auto at = [&](int xx, int yy) {
        return in(std::clamp(xx, 0, w - 1), std::clamp(yy, 0, h - 1));
    };
    for (int yy = 0; yy < h; yy++) {
        for (int xx = 0; xx < w; xx++) {
            ASSERT_EQ(diff(xx, yy), int16_t(at(xx - 2, yy) - at(xx + 2, yy + 1))) << xx << ", " << yy;
            ASSERT_EQ(half(xx, yy), float(at(xx, yy - 3)) * 0.5f) << xx << ", " << yy;
        }
    }
}

TEST(GPURun, KernelsLaunchedFromParallelCPULoops) {
    REQUIRE_CUDA();
    // Each of the 8 planes is its own kernel launch, from the CPU's thread pool.
    Func f("f");
    Var x("x"), y("y"), c("c"), tx("tx"), ty("ty");
    f(x, y, c) = x * 3 + y * 5 + c * 1000;
    f.gpu_tile(x, y, tx, ty, 32, 8).parallel(c);
    Buffer<int32_t> out = f.realize({100, 50, 8}, cuda_target());
    for (int cc = 0; cc < 8; cc++)
        for (int yy = 0; yy < 50; yy++)
            for (int xx = 0; xx < 100; xx++) ASSERT_EQ(out(xx, yy, cc), xx * 3 + yy * 5 + cc * 1000);
}

TEST(GPURun, ComputeWithGivesTheCPUsValues) {
    REQUIRE_CUDA();
    const int w = 203, h = 77;
    Buffer<float> input = pattern_2d<float>(w + 1, h + 1, 4);
    for (const char *level : {"bx", "tx"}) {
        TwoOfOneInput p;
        p.b.compute_with(p.a, Var(level));
        p.in.set(input);
        Buffer<float> out = p.out.realize({w, h}, cuda_target());
        for (int yy = 0; yy < h; yy++) {
            for (int xx = 0; xx < w; xx++) {
                ASSERT_EQ(out(xx, yy), TwoOfOneInput::reference(input, xx, yy))
                    << level << " at " << xx << ", " << yy;
            }
        }
    }
}

TEST(GPURun, SpecializedScheduleOnTheGPUAndTheCPU) {
    REQUIRE_CUDA();
    Param<int> offset("offset");
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = x * 2 + offset;
    f.specialize(offset > 0).gpu_tile(x, bx, tx, 64);
    f.vectorize(x, 8);
    Pipeline p(f);
    for (int o : {5, -5}) {
        offset.set(o);
        Buffer<int32_t> out = p.realize({300}, cuda_target());
        for (int i = 0; i < 300; i++) ASSERT_EQ(out(i), i * 2 + o) << "offset " << o << " at " << i;
    }
}

TEST(GPURun, ProducerStagedInSharedMemory) {
    REQUIRE_CUDA();
    const int w = 150, h = 61;  // tails on both axes
    Buffer<uint16_t> in = pattern_2d<uint16_t>(w + 2, h + 2, 5);
    // Each block computes its 32 x 10 rows of blur_x into shared memory, one thread each, then
    // its 32 x 8 outputs from them. ShiftInwards: every block the same size; GuardWithIf: the
    // blocks at the right and bottom edges smaller (storage and threads sized for the largest).
    for (TailStrategy tail : {TailStrategy::ShiftInwards, TailStrategy::GuardWithIf}) {
        Blur b;
        Var bx("bx"), by("by"), tx("tx"), ty("ty");
        b.blur_y.gpu_tile(b.x, b.y, bx, by, tx, ty, 32, 8, tail);
        b.blur_x.compute_at(b.blur_y, bx).gpu_threads(b.x, b.y);
        b.input.set(in);
        Buffer<uint16_t> out = b.blur_y.realize({w, h}, cuda_target());
        for (int yy = 0; yy < h; yy++) {
            for (int xx = 0; xx < w; xx++) {
                ASSERT_EQ(out(xx, yy), blur_reference(in, xx, yy))
                    << "tail " << (int)tail << " at " << xx << ", " << yy;
            }
        }
    }
}

TEST(GPUErrors, SharedMemoryPastTheLimit) {
    // A producer's 33 x 8 x 64 floats per 32 x 8 tile: 67584 bytes of shared memory.
    ImageParam in(Float(32), 3, "in");
    Func a("a"), f("f");
    Var x("x"), y("y"), z("z"), bx("bx"), by("by"), tx("tx"), ty("ty");
    a(x, y, z) = in(x, y, z) * 2.0f;
    f(x, y) = a(x, y, 0) + a(x + 1, y, 63);
    f.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    a.compute_at(f, bx).reorder(z, x, y).gpu_threads(x, y);
    std::string m = message_of([&] { Pipeline(f).lowered_stmt(cuda_target()); });
    EXPECT_NE(m.find("needs 67584 bytes of shared memory a block (a 67584)"), std::string::npos)
        << m;
    EXPECT_NE(m.find("49152"), std::string::npos) << m;
}

// ---- device memory kept between runs ----------------------------------------------------------

// A GPU intermediate (blur_x, computed at the root on the GPU) takes device memory each run;
// from the second run on, it comes from what the previous run freed.
TEST(GPUMemory, IntermediatesReuseTheDeviceMemoryOfThePreviousRun) {
    REQUIRE_CUDA();
    const int w = 256, h = 96;
    Buffer<uint16_t> in = pattern_2d<uint16_t>(w + 2, h + 2, 3);
    Blur b;
    Var bx("bx"), by("by"), tx("tx"), ty("ty");
    b.blur_y.gpu_tile(b.x, b.y, bx, by, tx, ty, 16, 16);
    b.blur_x.compute_root().gpu_tile(b.x, b.y, bx, by, tx, ty, 32, 4);
    b.input.set(in);
    Pipeline p(b.blur_y);
    Buffer<uint16_t> out(w, h);
    p.realize(out, cuda_target());
    const DeviceMemoryStats before = device_memory_stats();
    for (int run = 0; run < 4; run++) {
        p.realize(out, cuda_target());
        out.copy_to_host();
        for (int yy = 0; yy < h; yy++)
            for (int xx = 0; xx < w; xx++)
                ASSERT_EQ(out(xx, yy), blur_reference(in, xx, yy))
                    << run << " at " << xx << ", " << yy;
    }
    const DeviceMemoryStats after = device_memory_stats();
    EXPECT_EQ(after.driver_allocations, before.driver_allocations)
        << "a run allocated from the driver";
    EXPECT_EQ(after.driver_frees, before.driver_frees) << "a run freed to the driver";
    EXPECT_GE(after.reuses - before.reuses, 4) << "one reuse per run at least (blur_x)";
    EXPECT_GE(after.kept_blocks, 1);

    // Released: the kept blocks go back to the driver, and the next run allocates again.
    release_unused_device_memory();
    const DeviceMemoryStats released = device_memory_stats();
    EXPECT_EQ(released.kept_blocks, 0);
    EXPECT_EQ(released.driver_frees - after.driver_frees, after.kept_blocks);
    p.realize(out, cuda_target());
    EXPECT_GT(device_memory_stats().driver_allocations, released.driver_allocations);

    // With reuse off, every free goes to the driver.
    reuse_device_allocations(false);
    const DeviceMemoryStats off = device_memory_stats();
    EXPECT_EQ(off.kept_blocks, 0);
    p.realize(out, cuda_target());
    const DeviceMemoryStats off_after = device_memory_stats();
    EXPECT_EQ(off_after.reuses, off.reuses);
    EXPECT_GT(off_after.driver_frees, off.driver_frees);
    reuse_device_allocations(true);
    out.copy_to_host();
    for (int yy = 0; yy < h; yy++)
        for (int xx = 0; xx < w; xx++)
            ASSERT_EQ(out(xx, yy), blur_reference(in, xx, yy));
}

// The device filled with 4 GiB device copies, all freed (so kept), then an allocation of 8 GiB:
// the driver runs out of memory, the pool gives back what it keeps, and the allocation succeeds.
TEST(GPUMemory, KeptMemoryIsGivenBackWhenTheDeviceIsFull) {
    REQUIRE_CUDA();
    struct Errors : JITUserContext {
        std::string text;
    } context;
    context.handlers.custom_error = [](JITUserContext *c, const char *message) {
        static_cast<Errors *>(c)->text += message;
    };
    // Device copies without host memory: nothing is copied, and nothing is allocated on the host.
    auto device_only = [](loom_dimension_t *dim, uint8_t bits, int32_t elements) {
        loom_buffer_t b{};
        b.type = loom_type_t{(uint8_t)loom_type_float, bits, 1};
        b.dimensions = 1;
        *dim = loom_dimension_t{0, elements, 1, 0};
        b.dim = dim;
        return b;
    };
    const int32_t four_gib_of_floats = 1 << 30;
    std::vector<loom_dimension_t> dims(256);
    std::vector<loom_buffer_t> filled;
    for (int i = 0; i < 256; i++) {
        loom_buffer_t b = device_only(&dims[i], 32, four_gib_of_floats);
        if (loom_cuda_copy_to_device(&context, &b, "filler") != 0) break;
        filled.push_back(b);
    }
    ASSERT_GE(filled.size(), 2u) << context.text;
    EXPECT_NE(context.text.find("out of memory"), std::string::npos) << context.text;
    for (loom_buffer_t &b : filled)
        ASSERT_EQ(loom_cuda_device_free(&context, &b), 0) << context.text;
    const DeviceMemoryStats full = device_memory_stats();
    EXPECT_GE(full.kept_bytes, (int64_t)filled.size() * (4LL << 30));

    // 8 GiB: no kept block is large enough, and the device has less than 4 GiB free.
    loom_dimension_t large_dim;
    context.text.clear();
    loom_buffer_t large = device_only(&large_dim, 64, four_gib_of_floats);
    ASSERT_EQ(loom_cuda_copy_to_device(&context, &large, "large"), 0) << context.text;
    const DeviceMemoryStats after = device_memory_stats();
    EXPECT_EQ(after.releases_under_pressure, full.releases_under_pressure + 1);
    EXPECT_LT(after.kept_bytes, full.kept_bytes);
    ASSERT_EQ(loom_cuda_device_free(&context, &large), 0) << context.text;
    release_unused_device_memory();
    EXPECT_EQ(device_memory_stats().kept_blocks, 0);
}

// LOOM_GPU_DEVICE (else Halide's HL_GPU_DEVICE) picks the device when the driver is first
// loaded, once per process: each value is tried in a child process running this test.
TEST(GPUDevice, TheDeviceVariablePicksTheDeviceOrSaysWhichExist) {
    if (const char *chosen = std::getenv("LOOM_GPU_TEST_CHILD")) {
        char why[512] = {0};
        const bool available = loom_cuda_available(why, sizeof why);
        if (std::string(chosen) == "past") {
            EXPECT_FALSE(available);
            EXPECT_NE(std::string(why).find("HL_GPU_DEVICE is \"99\""), std::string::npos) << why;
            EXPECT_NE(std::string(why).find("reports"), std::string::npos) << why;
            return;
        }
        ASSERT_TRUE(available) << why;
        Func f("f");
        Var x("x"), bx("bx"), tx("tx");
        f(x) = x * 3;
        f.gpu_tile(x, bx, tx, 32);
        Buffer<int> out = f.realize({100}, cuda_target());
        for (int i = 0; i < 100; i++)
            ASSERT_EQ(out(i), i * 3);
        return;
    }
    REQUIRE_CUDA();
    // This test binary's path (the shell's /proc/self/exe would be the shell's).
    char self[4096] = {0};
    ASSERT_GT(readlink("/proc/self/exe", self, sizeof self - 1), 0);
    auto run_child = [&self](const std::string &variables) {
        const std::string command =
            "env " + variables + " '" + self + "' --gtest_filter=GPUDevice.* > /dev/null 2>&1";
        return std::system(command.c_str());
    };
    EXPECT_EQ(run_child("LOOM_GPU_TEST_CHILD=past HL_GPU_DEVICE=99"), 0);
    EXPECT_EQ(run_child("LOOM_GPU_TEST_CHILD=first LOOM_GPU_DEVICE=0 HL_GPU_DEVICE=99"), 0)
        << "LOOM_GPU_DEVICE comes before HL_GPU_DEVICE";
}

TEST(GPUErrors, MathFunctionWithoutAGPUVersion) {
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = sin(cast<float>(x));
    f.gpu_tile(x, bx, tx, 64);
    std::string m = message_of([&] { Pipeline(f).compile_jit(cuda_target()); });
    EXPECT_NE(m.find("sin"), std::string::npos) << m;
    EXPECT_NE(m.find("without gpu_blocks"), std::string::npos) << m;
}

}  // namespace
