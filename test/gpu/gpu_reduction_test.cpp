// Reductions across the threads of GPU kernels: atomic() updates (many threads updating one
// element of an output at once: Halide's GPU histograms and split reductions), and block
// reductions, where a block's threads stage partial results in shared memory (an rfactor's
// intermediate on gpu_threads) and code of the block's alone (the update that combines them)
// runs on its first thread after a barrier. The lowering and PTX are checked on any machine;
// runs need an NVIDIA driver and skip with the reason where none is present. Every output is
// checked against plain C++, exactly: integer sums and maxima do not depend on the order the
// threads reach an element, and the float sums here add small integers, which every order adds
// exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "CudaTest.h"
#include "loom.h"

using namespace loom;

namespace {

using loom_test::cuda_target;

bool has(const std::string &text, const std::string &what) {
    return text.find(what) != std::string::npos;
}

// An atomic instruction of PTX with the given operation and type suffix (".add.u32"), in the
// global or the generic address space.
bool has_atomic(const std::string &ptx, const std::string &operation) {
    return has(ptx, "atom.global" + operation) || has(ptx, "atom" + operation);
}

// hist(v) counts the values v of `in` (n of them): the update's RDom split over blocks and
// threads, every thread adding 1 to the bin of its value.
template <typename Bin> struct Histogram {
    ImageParam in{UInt(8), 1, "in"};
    Func hist{"hist"};
    Var x{"x"}, bx{"bx"}, tx{"tx"};
    RVar ro{"ro"}, ri{"ri"};
    explicit Histogram(int n) {
        RDom r(0, n, "r");
        hist(x) = cast(type_of<Bin>(), 0);
        hist(cast<int>(in(r))) += cast(type_of<Bin>(), 1);
        hist.gpu_tile(x, bx, tx, 64);
        hist.update().atomic().split(r.x, ro, ri, 256, TailStrategy::GuardWithIf);
        hist.update().gpu_blocks(ro).gpu_threads(ri);
    }
};

// sum(y) adds row y of `in` (w values): blocks of 256 columns each add their partial sums into
// the row's element.
struct RowSums {
    ImageParam in{Float(32), 2, "in"};
    Func sum{"sum"};
    Var y{"y"}, by{"by"}, ty{"ty"};
    RVar ro{"ro"}, ri{"ri"};
    explicit RowSums(int w) {
        RDom r(0, w, "r");
        sum(y) = 0.0f;
        sum(y) += in(r, y);
        sum.gpu_tile(y, by, ty, 32);
        sum.update().atomic().split(r.x, ro, ri, 256, TailStrategy::GuardWithIf);
        sum.update().gpu_blocks(ro, y).gpu_threads(ri);
    }
};

// best(k) is the largest of the values in `in` whose key is k: not a sum, so each thread reads
// the element, computes the maximum and stores it with a compare-and-swap.
struct MaxByKey {
    ImageParam keys{UInt(8), 1, "keys"};
    ImageParam values{Float(32), 1, "values"};
    Func best{"best"};
    Var x{"x"}, bx{"bx"}, tx{"tx"};
    RVar ro{"ro"}, ri{"ri"};
    explicit MaxByKey(int n) {
        RDom r(0, n, "r");
        best(x) = -1e30f;
        Expr k = cast<int>(keys(r)) % 16;
        best(k) = max(best(k), values(r));
        best.gpu_tile(x, bx, tx, 16);
        best.update().atomic().split(r.x, ro, ri, 128, TailStrategy::GuardWithIf);
        best.update().gpu_blocks(ro).gpu_threads(ri);
    }
};

std::vector<uint8_t> bytes(int n, uint32_t seed) {
    std::vector<uint8_t> v(n);
    for (int i = 0; i < n; i++) {
        seed = seed * 1664525u + 1013904223u;
        // Skewed towards low values, so that many threads meet at one bin.
        v[i] = uint8_t((seed >> 24) % ((seed >> 8) % 4 == 0 ? 256 : 8));
    }
    return v;
}

// ---- PTX, on any machine -------------------------------------------------------------------

TEST(GPUAtomics, AHistogramIsOneAtomicAddPerPoint) {
    Histogram<int32_t> h(5000);
    const std::string ir = Pipeline(h.hist).llvm_ir(cuda_target());
    EXPECT_TRUE(has_atomic(ir, ".add.u32") || has_atomic(ir, ".add.s32")) << ir.substr(0, 4000);
    EXPECT_FALSE(has(ir, ".cas.")) << "an integer sum needs no compare-and-swap loop";
}

TEST(GPUAtomics, AFloatSumIsOneAtomicFloatAdd) {
    RowSums s(1000);
    const std::string ir = Pipeline(s.sum).llvm_ir(cuda_target());
    EXPECT_TRUE(has_atomic(ir, ".add.f32")) << ir.substr(0, 4000);
    EXPECT_FALSE(has(ir, ".cas.")) << ir.substr(0, 4000);
}

TEST(GPUAtomics, AMaximumIsACompareAndSwapLoop) {
    MaxByKey m(1000);
    const std::string ir = Pipeline(m.best).llvm_ir(cuda_target());
    EXPECT_TRUE(has_atomic(ir, ".cas.b32")) << ir.substr(0, 4000);
}

// ---- on the device ---------------------------------------------------------------------------

TEST(GPUAtomics, HistogramsOf32And16BitBinsEqualCpp) {
    REQUIRE_CUDA();
    const int n = 60000; // a 16-bit bin holds every count
    const std::vector<uint8_t> data = bytes(n, 7);
    Buffer<uint8_t> input(n);
    std::vector<int64_t> expected(256, 0);
    for (int i = 0; i < n; i++) {
        input(i) = data[i];
        expected[data[i]]++;
    }
    {
        Histogram<int32_t> h(n);
        h.in.set(input);
        Buffer<int32_t> out = h.hist.realize({256}, cuda_target());
        out.copy_to_host();
        for (int b = 0; b < 256; b++)
            ASSERT_EQ(out(b), expected[b]) << "32-bit bin " << b;
    }
    {
        // 16-bit elements: each atomic add is a 32-bit compare-and-swap of the word around it,
        // which its neighbour bin's threads also change.
        Histogram<uint16_t> h(n);
        h.in.set(input);
        Buffer<uint16_t> out = h.hist.realize({256}, cuda_target());
        out.copy_to_host();
        for (int b = 0; b < 256; b++)
            ASSERT_EQ(out(b), expected[b]) << "16-bit bin " << b;
    }
}

TEST(GPUAtomics, RowSumsSplitAcrossBlocksEqualCpp) {
    REQUIRE_CUDA();
    const int w = 5000, h = 37; // the last block of each row is partial
    Buffer<float> input(w, h);
    std::vector<float> expected(h, 0.0f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            input(x, y) = float((x * 7 + y * 3) % 13) - 6.0f;
            expected[y] += input(x, y);
        }
    RowSums s(w);
    s.in.set(input);
    Buffer<float> out = s.sum.realize({h}, cuda_target());
    out.copy_to_host();
    for (int y = 0; y < h; y++)
        ASSERT_EQ(out(y), expected[y]) << "row " << y;
}

TEST(GPUAtomics, MaximaByKeyEqualCpp) {
    REQUIRE_CUDA();
    const int n = 20000;
    const std::vector<uint8_t> keys = bytes(n, 3);
    Buffer<uint8_t> key_buffer(n);
    Buffer<float> value_buffer(n);
    std::vector<float> expected(16, -1e30f);
    for (int i = 0; i < n; i++) {
        key_buffer(i) = keys[i];
        value_buffer(i) = float((i * 2654435761u) % 100003) * 0.125f - 5000.0f;
        expected[keys[i] % 16] = std::max(expected[keys[i] % 16], value_buffer(i));
    }
    MaxByKey m(n);
    m.keys.set(key_buffer);
    m.values.set(value_buffer);
    Buffer<float> out = m.best.realize({16}, cuda_target());
    out.copy_to_host();
    for (int k = 0; k < 16; k++)
        ASSERT_EQ(out(k), expected[k]) << "key " << k;
}

// ---- block reductions: code of the block's alone on its first thread --------------------------

// sum(y) = the sum of row y (w values) in one block per row: intm(u, y), the rfactor of the
// row's RDom split by 128, is computed at the block by its 128 threads (each adding every 128th
// value), into shared memory; the update that adds intm's 128 values runs on the block's first
// thread, after a barrier.
struct BlockRowSums {
    ImageParam in{Float(32), 2, "in"};
    Func sum{"sum"}, intm;
    Var y{"y"}, u{"u"};
    RVar ro{"ro"}, ri{"ri"};
    explicit BlockRowSums(int w) {
        RDom r(0, w, "r");
        sum(y) = 0.0f;
        sum(y) += in(r, y);
        sum.update().split(r.x, ro, ri, 128);
        intm = sum.update().rfactor(ri, u);
        sum.gpu_blocks(y);
        sum.update().gpu_blocks(y);
        intm.compute_at(sum, y).gpu_threads(u);
        intm.update().gpu_threads(u);
    }
};

TEST(GPUBlockCode, AnRfactorsCombiningUpdateRunsOnOneThreadAfterABarrier) {
    BlockRowSums s(1024);
    Pipeline p(s.sum);
    const std::string stmt = p.lowered_stmt(cuda_target());
    // sum's pure definition (a kernel of one thread a block) and the update that combines intm.
    EXPECT_NE(stmt.find(".block_code0, 0, 1)"), std::string::npos) << stmt;
    EXPECT_NE(stmt.find("allocate " + s.intm.name() + "[float32 * 1 * 128]"), std::string::npos)
        << stmt;
    const std::string ir = p.llvm_ir(cuda_target());
    EXPECT_TRUE(has(ir, ".shared")) << ir.substr(0, 4000);
    EXPECT_TRUE(has(ir, "bar.sync")) << ir.substr(0, 4000);
}

TEST(GPUBlockCode, BlockRowSumsEqualCpp) {
    REQUIRE_CUDA();
    const int w = 1024, h = 300;
    Buffer<float> input(w, h);
    std::vector<float> expected(h, 0.0f);
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++) {
            input(x, y) = float((x * 5 + y * 11) % 17) - 8.0f;
            expected[y] += input(x, y);
        }
    BlockRowSums s(w);
    s.in.set(input);
    Buffer<float> out = s.sum.realize({h}, cuda_target());
    out.copy_to_host();
    for (int y = 0; y < h; y++)
        ASSERT_EQ(out(y), expected[y]) << "row " << y;
}

// A producer computed at a block loop with serial loops (no threads of its own): the block's
// first thread fills its tile in shared memory, and after a barrier every thread reads it.
TEST(GPUBlockCode, AProducerAtABlockLoopWithoutThreadsIsFilledByOneThread) {
    ImageParam in(Int(32), 2, "in");
    Func g("g"), f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    g(x, y) = in(x, y) * 3;
    f(x, y) = g(x, y) + g(x + 1, y) - g(x, y + 1);
    f.gpu_tile(x, y, bx, by, tx, ty, 16, 8);
    g.compute_at(f, bx);
    Pipeline p(f);
    const std::string ir = p.llvm_ir(cuda_target());
    EXPECT_TRUE(has(ir, ".shared .align 16 .b8 g[612]")) << ir.substr(0, 4000); // 17 x 9 ints
    EXPECT_TRUE(has(ir, "bar.sync")) << ir.substr(0, 4000);
    if (!loom_cuda_available(nullptr, 0)) GTEST_SKIP() << "no CUDA device to run it";
    const int w = 100, h = 37;
    Buffer<int> input(w + 1, h + 1);
    for (int yy = 0; yy <= h; yy++)
        for (int xx = 0; xx <= w; xx++)
            input(xx, yy) = xx * 31 - yy * 7 + (xx ^ yy);
    in.set(input);
    Buffer<int> out(w, h);
    p.realize(out, cuda_target());
    out.copy_to_host();
    for (int yy = 0; yy < h; yy++)
        for (int xx = 0; xx < w; xx++)
            ASSERT_EQ(out(xx, yy),
                      input(xx, yy) * 3 + input(xx + 1, yy) * 3 - input(xx, yy + 1) * 3)
                << "at " << xx << ", " << yy;
}

// A serial loop between the block and thread loops: every thread runs it, and its nest of
// threads inside, once per iteration.
TEST(GPUBlockCode, ASerialLoopAroundThreadLoopsRunsOnEveryThread) {
    Func f("f");
    Var x("x"), y("y"), bx("bx"), tx("tx");
    f(x, y) = x * 7 - y * 3;
    f.split(x, bx, tx, 32).reorder(tx, y, bx).gpu_blocks(bx).gpu_threads(tx);
    Pipeline p(f);
    const std::string stmt = p.lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("for (f.s0.y"), std::string::npos) << stmt;
    if (!loom_cuda_available(nullptr, 0)) GTEST_SKIP() << "no CUDA device to run it";
    Buffer<int> out = p.realize({96, 13}, cuda_target());
    out.copy_to_host();
    for (int yy = 0; yy < 13; yy++)
        for (int xx = 0; xx < 96; xx++)
            ASSERT_EQ(out(xx, yy), xx * 7 - yy * 3);
}

// A kernel of block loops alone runs one thread a block.
TEST(GPUBlockCode, BlocksWithoutThreadsRunOneThreadEach) {
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = x * 1000 + y;
    f.gpu_blocks(x, y);
    Pipeline p(f);
    EXPECT_TRUE(has(p.llvm_ir(cuda_target()), ".maxntid 1, 1, 1"));
    if (!loom_cuda_available(nullptr, 0)) GTEST_SKIP() << "no CUDA device to run it";
    Buffer<int> out = p.realize({50, 20}, cuda_target());
    out.copy_to_host();
    for (int yy = 0; yy < 20; yy++)
        for (int xx = 0; xx < 50; xx++)
            ASSERT_EQ(out(xx, yy), xx * 1000 + yy);
}

} // namespace
