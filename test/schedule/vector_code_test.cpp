// Tests of the vector code the scheduling directives and the code generator give: the vector
// width of the loads and stores in the LLVM IR and the assembly, dense loads for stencils, address
// arithmetic LLVM can vectorize, and which loops LLVM is left to vectorize or unroll by itself.
// Each test that compiles a schedule also checks its values against a direct C++ computation
// where the schedule's shape makes a wrong value possible.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <loom.h>

#include "StmtText.h"
#include "codegen/LLVMTarget.h"

namespace {

using namespace loom;
using namespace loom_test;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// ---------------------------------------------------------------------------------------------
// Vector widths in the generated code.

TEST(VectorCode, EightFloatLanesAreYmmLoadsAndStores) {
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.vectorize(x, 8);
    Pipeline p(f);
    Target avx2("x86-64-linux-avx2-fma");
    std::string ir = p.llvm_ir(avx2), assembly = p.assembly(avx2);
    EXPECT_THAT(ir, HasSubstr("load <8 x float>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <8 x float>")) << ir;
    EXPECT_THAT(assembly, HasSubstr("ymm")) << assembly;
    EXPECT_THAT(assembly, Not(HasSubstr("zmm"))) << assembly;
}

TEST(VectorCode, SixteenFloatLanesAreZmmWithAvx512) {
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f + 1.0f;
    f.vectorize(x, 16);
    Pipeline p(f);
    Target avx512("x86-64-linux-avx512-avx512_skylake");
    std::string ir = p.llvm_ir(avx512), assembly = p.assembly(avx512);
    EXPECT_THAT(ir, HasSubstr("load <16 x float>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <16 x float>")) << ir;
    EXPECT_THAT(assembly, HasSubstr("zmm")) << assembly;
    // Without AVX-512 the same 16 lanes are two ymm halves.
    std::string avx2_assembly = p.assembly(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(avx2_assembly, HasSubstr("ymm")) << avx2_assembly;
    EXPECT_THAT(avx2_assembly, Not(HasSubstr("zmm"))) << avx2_assembly;
}

TEST(VectorCode, ThirtyTwoByteLanes) {
    Buffer<uint8_t> in(std::vector<int>{100, 100}, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) + in(x, y + 1);
    f.vectorize(x, 32);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("load <32 x i8>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <32 x i8>")) << ir;
}

TEST(VectorCode, StencilSteadyStateUsesDenseVectorLoadsNotGathers) {
    // Three taps at x - 1, x, x + 1: each is a dense load of 8 consecutive floats at an offset,
    // never a gather or a lane-by-lane assembly of the vector.
    Buffer<float> in(std::vector<int>{100, 100}, "in");
    in.set_min(-1, 0);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x - 1, y) + in(x, y) + in(x + 1, y);
    f.vectorize(x, 8);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    EXPECT_EQ(occurrences(stmt, "in[ramp("), 3) << stmt;
    EXPECT_EQ(occurrences(block(stmt, "produce f"), ", 1, 8)]"), 4) << stmt; // 3 loads, 1 store
    Target avx2("x86-64-linux-avx2-fma");
    std::string ir = p.llvm_ir(avx2), assembly = p.assembly(avx2);
    EXPECT_EQ(occurrences(ir, "load <8 x float>"), 3) << ir;
    EXPECT_EQ(occurrences(ir, "store <8 x float>"), 1) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement <8 x float>"))) << ir;
    EXPECT_THAT(assembly, Not(HasSubstr("gather"))) << assembly;
    EXPECT_THAT(assembly, Not(HasSubstr("vinsertps"))) << assembly;
}

// An address in the innermost loop is its 64-bit induction variable (times a constant step)
// plus a base computed outside the loop: no 32-bit index sum sign-extended per load, so that
// the loads of a reduction walk by pointer increments. (The reduction's extent is a Param: of a
// constant 64, LLVM unrolls the loop whole and vectorizes across x, as it may now that a store
// to the output never changes the input.)
TEST(VectorCode, InnermostLoopAddressesAdvanceByAFixedStep) {
    ImageParam in(Float(32), 2, "in");
    Param<int> n("n");
    Var x("x"), y("y");
    RDom r(0, n, "r");
    Func f("f");
    f(x, y) = 0.0f;
    f(x, y) += in(r, x + y);
    std::string loop = ir_block(Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma")),
                                "f.s1.r$x.loop\":"); // not its preheader
    EXPECT_GE(occurrences(loop, "load float"), 1) << loop;
    EXPECT_EQ(occurrences(loop, "sext"), 0) << loop;
    Buffer<float> input(std::vector<int>{64, 20}, "input");
    for (int yy = 0; yy < 20; yy++)
        for (int k = 0; k < 64; k++)
            input(k, yy) = (float)((k * 7 + yy * 3) % 11);
    in.set(input);
    n.set(64);
    Buffer<float> out = f.realize({10, 10});
    for (int yy = 0; yy < 10; yy++) {
        for (int xx = 0; xx < 10; xx++) {
            float expected = 0.0f;
            for (int k = 0; k < 64; k++)
                expected += input(k, xx + yy);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// A split's inner loop the schedule leaves scalar (16 points of x, a user's first schedule)
// becomes vector code: its point is a let of the loop variable plus the split's base, which
// the uses read as `base + xi` (lower/PeelLoopVariables.h), so that LLVM, unrolling the 16
// iterations, finds the loads and stores consecutive and combines them. Each read as its own
// 32-bit sum, sign-extended, they stayed 16 scalar loads (8x Halide's time on the performance
// fuzzer's pair 235 of seed 2026).
TEST(VectorCode, ScalarInnerLoopOfASplitBecomesVectorCode) {
    Buffer<int32_t> in(std::vector<int>{70, 9}, "in");
    for (int yy = 0; yy < 9; yy++)
        for (int xx = 0; xx < 70; xx++)
            in(xx, yy) = xx * 1001 - yy * 77;
    Var x("x"), y("y"), xi("xi");
    Func f("f");
    f(x, y) = cast<uint16_t>(y) ^ cast<uint16_t>(in(x + 2, y + 1));
    f.split(x, x, xi, 16);
    std::string ir = Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <16 x i16>"), 1) << ir; // one store of the 16 points
    Buffer<uint16_t> out = f.realize({60, 8});
    for (int yy = 0; yy < 8; yy++) {
        for (int xx = 0; xx < 60; xx++) {
            EXPECT_EQ(out(xx, yy), (uint16_t)((uint16_t)yy ^ (uint16_t)in(xx + 2, yy + 1)))
                << xx << ", " << yy;
        }
    }
}

// The scalar tail of a vectorized argmin over 4 rows of bytes (GuardWithIf): LLVM unrolls
// the 4-tap minimum, and LLVM 19's SLP vectorizer would turn the minimum of the bytes' 32-bit
// zero extensions into a signed byte minimum, wrong for bytes of 128 and above (the
// schedule-invariance fuzzer's seed 7, pipeline 62). Its horizontal reductions are off
// (codegen/LLVMTarget.cpp).
TEST(VectorCode, MinimumOfBytesUnrolledByLLVMStaysUnsigned) {
    Buffer<float> in(std::vector<int>{40, 30}, "in");
    in.set_min({0, -1});
    for (int yy = -1; yy < 29; yy++)
        for (int xx = 0; xx < 40; xx++)
            in(xx, yy) = (float)((xx * 37 + yy * 101 + 400) % 300) - 20.0f;
    Var x("x"), y("y");
    RDom r(-1, 4, "r");
    Func bytes("bytes"), f("f");
    bytes(x, y) = cast<uint8_t>(clamp(in(x, y), 0.0f, 255.0f));
    f(x, y) =
        argmin(cast<int32_t>(bytes(x + 1, y + r.x) - (cast<uint8_t>(y) & cast<uint8_t>(11))))[1] +
        52;
    f.vectorize(x, 16, TailStrategy::GuardWithIf);
    Buffer<int32_t> out = f.realize({23, 20});
    for (int yy = 0; yy < 20; yy++) {
        for (int xx = 0; xx < 23; xx++) {
            int best = 1 << 30;
            for (int k = -1; k < 3; k++) {
                float v = std::min(std::max(in(xx + 1, yy + k), 0.0f), 255.0f);
                best = std::min(best, (int)(uint8_t)((uint8_t)v - (uint8_t)(yy & 11)));
            }
            EXPECT_EQ(out(xx, yy), best + 52) << xx << ", " << yy;
        }
    }
}

// A nest of a few constant iterations (an argmin's 2 x 2 taps per pixel, no schedule) may be
// unrolled whole by LLVM, though its outer loop is around a loop: the pixel loop is then
// innermost and LLVM vectorizes it, as Halide's code is (fuzz seed 2026 pair 285: 10x Halide's
// time with the taps' outer loop kept).
TEST(VectorCode, SmallConstantNestInsideAPixelLeavesThePixelLoopVectorizable) {
    Buffer<int32_t> in(std::vector<int>{80, 12}, "in");
    in.set_min({0, -2});
    for (int yy = -2; yy < 10; yy++)
        for (int xx = 0; xx < 80; xx++)
            in(xx, yy) = (xx * 53 + yy * 29) % 1000;
    Var x("x"), y("y");
    RDom r(-2, 2, -1, 2, "r");
    Func f("f");
    f(x, y) = cast<int32_t>(argmin(cast<uint8_t>(in(x, y + r.x)) ^ cast<uint8_t>(11))[2]);
    std::string ir = Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <"), 1) << ir;
    Buffer<int32_t> out = f.realize({80, 8});
    for (int yy = 0; yy < 8; yy++) {
        for (int xx = 0; xx < 80; xx++) {
            int best = 255;
            for (int k = -2; k < 0; k++)
                best = std::min(best, (int)(uint8_t)((uint8_t)in(xx, yy + k) ^ 11));
            EXPECT_EQ(out(xx, yy), best) << xx << ", " << yy;
        }
    }
}

// The same for an RDom trimmed by its where(): the inner loop's extent varies with the outer
// one's variable (r.x from r.y + 1 to 3) but has a constant bound, so the 6 taps are still a
// small nest LLVM may unroll whole, and the pixel loop is vectorized (fuzz seed 2026 pair 463:
// 5.7x Halide's time with the taps' outer loop kept, 0.8x after).
TEST(VectorCode, TrimmedRDomNestInsideAPixelLeavesThePixelLoopVectorizable) {
    Buffer<float> in(std::vector<int>{80, 14}, "in");
    for (int yy = 0; yy < 14; yy++)
        for (int xx = 0; xx < 80; xx++)
            in(xx, yy) = (float)((xx * 53 + yy * 29) % 1000) / 8;
    Var x("x"), y("y");
    RDom r(0, 4, 0, 4, "r");
    r.where(r.y <= r.x - 1);
    Func f("f");
    f(x, y) = cast<int32_t>(in(x, y)) * 3;
    f(x, y) = f(x, y) - cast<int32_t>(in(x, y + r.y));
    std::string ir = Pipeline(f).llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <"), 2) << ir; // the pure stage's and the update's
    Buffer<int32_t> out = f.realize({80, 10});
    for (int yy = 0; yy < 10; yy++) {
        for (int xx = 0; xx < 80; xx++) {
            int expected = (int)in(xx, yy) * 3;
            for (int ry = 0; ry < 4; ry++)
                for (int rx = 0; rx < 4; rx++)
                    if (ry <= rx - 1) expected -= (int)in(xx, yy + ry);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// unroll(x, 4) of a pointwise Func: the blocks of 4 stores, at multiples of 4 in the steady
// state (lower/ScheduleFunctions: ShiftInwards tails of a loop around unrolled ones), are
// consecutive from block to block, and LLVM vectorizes across them (fuzz seed 2026 pair 307:
// 2.6x Halide's time with each block's base shifted by a min).
TEST(VectorCode, UnrolledBlocksAreVectorizedAcrossTheBlocks) {
    Buffer<uint16_t> in(std::vector<int>{203, 5}, "in");
    for (int yy = 0; yy < 5; yy++)
        for (int xx = 0; xx < 203; xx++)
            in(xx, yy) = (uint16_t)(xx * 31 + yy * 7);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = (cast<uint16_t>(x) * cast<uint16_t>(16)) ^ in(x, y);
    f.unroll(x, 4);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <"), 1) << ir;
    Buffer<uint16_t> out = p.realize({203, 5});
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 0; xx < 203; xx++) {
            EXPECT_EQ(out(xx, yy), (uint16_t)(((uint16_t)xx * 16) ^ in(xx, yy)))
                << xx << ", " << yy;
        }
    }
}

// The 7 points of a split, each a minimum over 12 taps: LLVM unrolls the taps, and the points'
// loop becomes innermost. Its addresses separate that loop's variable as well as the taps'
// (codegen_offset), so LLVM vectorizes it without the run-time overflow checks it refuses for
// a loop of 7 iterations (fuzz seed 2026 pair 363: 6x Halide's time, 1.5x after).
TEST(VectorCode, LoopAroundUnrolledTapsIsVectorized) {
    Buffer<int16_t> in(std::vector<int>{300}, "in");
    in.set_min({-1});
    for (int i = -1; i < 299; i++)
        in(i) = (int16_t)((i * 37 + 101) % 101 - 50);
    Var x("x"), xo("xo"), xi("xi");
    RDom r(-1, 4, -2, 3, "r");
    Func f("f");
    f(x) = cast<float>(argmin(cast<float>(in(x + r.x)))[0]) + cast<float>(in(x));
    f.split(x, xo, xi, 7);
    // LLVM's cost model vectorizes it for AVX-512 (without the separated terms: 3 float
    // vector operations in the module, all outside this loop; with them, dozens).
    Target avx512("x86-64-linux-avx2-fma-avx512-avx512_skylake");
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_GE(occurrences(ir, "x float>"), 20) << ir;
    Buffer<float> out = f.realize({280});
    for (int xx = 0; xx < 280; xx++) {
        // argmin's first coordinate: the first tap (r.y outer, r.x inner) holding the minimum.
        int best_at = 0;
        float best = INFINITY;
        for (int ry = -2; ry < 1; ry++) {
            for (int rx = -1; rx < 3; rx++) {
                if ((float)in(xx + rx) < best) {
                    best = (float)in(xx + rx);
                    best_at = rx;
                }
            }
        }
        EXPECT_EQ(out(xx), (float)best_at + (float)in(xx)) << xx;
    }
}

// LLVM doesn't unroll a loop around other loops behind the schedule's back: the channel loop
// (constant trip count 4) around the vectorized x loop stays a loop, so the store appears once
// (LLVM's full unrolling made four copies of the x loop). The schedule's unroll() still does.
TEST(VectorCode, LoopsAroundLoopsAreUnrolledOnlyByTheSchedule) {
    Buffer<float> in(std::vector<int>{64, 8, 4}, "in");
    Var x("x"), y("y"), c("c");
    Func f("f");
    f(x, y, c) = in(x, y, c) * 2.0f + in(x, y, 3);
    f.bound(c, 0, 4).reorder(x, c, y).vectorize(x, 8);
    Target avx2("x86-64-linux-avx2-fma");
    EXPECT_EQ(occurrences(Pipeline(f).llvm_ir(avx2), "store <8 x float>"), 1);
    f.unroll(c);
    EXPECT_EQ(occurrences(Pipeline(f).llvm_ir(avx2), "store <8 x float>"), 4);
}

// Where every loop runs in parallel tasks, the entry function is straight-line setup and is
// compiled without optimization (optnone); where a loop runs in it, it is optimized. Both
// compute the same values.
TEST(VectorCode, EntryFunctionIsOptimizedOnlyWhereItLoops) {
    Var x("x"), y("y");
    Func serial("serial"), parallel("parallel");
    serial(x, y) = x * 2 + y;
    parallel(x, y) = x * 2 + y;
    serial.vectorize(x, 8);
    parallel.vectorize(x, 8).parallel(y);
    Target avx2("x86-64-linux-avx2-fma");
    EXPECT_THAT(Pipeline(serial).llvm_ir(avx2), Not(HasSubstr("optnone")));
    EXPECT_THAT(Pipeline(parallel).llvm_ir(avx2), HasSubstr("optnone"));
    Buffer<int> a = serial.realize({24, 5}), b = parallel.realize({24, 5});
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 0; xx < 24; xx++) {
            EXPECT_EQ(a(xx, yy), xx * 2 + yy);
            EXPECT_EQ(b(xx, yy), xx * 2 + yy);
        }
    }
}

TEST(VectorCode, StencilOverAComputeAtProducerUsesDenseVectorLoads) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func g("g"), f("f");
    g(x, y) = x * 3 + y;
    f(x, y) = g(x - 1, y) + g(x, y) * 2 + g(x + 1, y);
    f.split(x, xo, xi, 8).vectorize(xi);
    g.compute_at(f, xo).vectorize(x, 8, TailStrategy::RoundUp);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("load <8 x i32>")) << ir;
    EXPECT_THAT(ir, HasSubstr("store <8 x i32>")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

// A partition's edge can be most of the loop: here the steady state of x is where both x and
// 2x - 2 lie inside the input, about half the row, and the epilogue is the other half. LLVM
// vectorizes the epilogue as well as the steady state (the schedule left both scalar); left
// scalar, such an edge ran 3x Halide's time (fuzz seed 2026 pair 311).
TEST(VectorCode, AnEdgeHalfTheRowLongIsVectorizedLikeTheSteadyState) {
    Buffer<uint8_t> in(std::vector<int>{400, 6}, "in");
    for (int yy = 0; yy < 6; yy++)
        for (int xx = 0; xx < 400; xx++)
            in(xx, yy) = (uint8_t)(xx * 13 + yy * 7);
    Var x("x"), y("y");
    Func mirrored = BoundaryConditions::mirror_image(in, {{0, 400}}); // columns only
    Func f("f");
    f(x, y) = cast<int32_t>(mirrored(x, y)) ^ cast<int32_t>(mirrored(x * 2 - 2, y));
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "\nvector.body"), 2) << ir; // the steady state's and the epilogue's
    Buffer<int32_t> out = p.realize({400, 6});
    auto mirror = [](int c) { return c < 0 ? -1 - c : c >= 400 ? 799 - c : c; };
    for (int yy = 0; yy < 6; yy++) {
        for (int xx = 0; xx < 400; xx++) {
            int expected = (int)in(mirror(xx), yy) ^ (int)in(mirror(xx * 2 - 2), yy);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}
} // namespace

// An RDom's where() inside a pixel loop the schedule leaves scalar: LLVM unrolls the 4 taps
// whole, and their conditions, constant after unrolling, must be folded away before its
// vectorizer looks at the pixel loop; with their branches left in, the loads counted as
// conditional, which AVX2 cannot load as vectors of 16-bit lanes, and the loop stayed scalar
// (fuzz seed 2026 pair 380 on a Zen 3 machine: 7.5x Halide's time, 1.2x after).
TEST(VectorCode, TapsOfAWhereUnrolledByLLVMLeaveThePixelLoopVectorizable) {
    Buffer<int16_t> in(std::vector<int>{200, 12}, "in");
    in.set_min({-4, -3});
    for (int yy = -3; yy < 9; yy++)
        for (int xx = -4; xx < 196; xx++)
            in(xx, yy) = (int16_t)((xx * 53 + yy * 29) % 1000 - 500);
    Var x("x"), y("y");
    RDom r(-2, 4, "r");
    r.where(r.x % 2 != 1);
    Func f("f");
    f(x, y) = sum(cast<uint16_t>(in(x + r.x, y + r.x)) & cast<uint16_t>(in(x - 1 + r.x, y))) +
              cast<uint16_t>(in(x * 2, y));
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_GE(occurrences(ir, "store <"), 1) << ir;
    Buffer<uint16_t> out = p.realize({90, 6});
    for (int yy = 0; yy < 6; yy++) {
        for (int xx = 0; xx < 90; xx++) {
            uint16_t expected = 0;
            for (int k = -2; k < 2; k++) {
                if (((k % 2) + 2) % 2 != 1)
                    expected +=
                        (uint16_t)((uint16_t)in(xx + k, yy + k) & (uint16_t)in(xx - 1 + k, yy));
            }
            expected += (uint16_t)in(xx * 2, yy);
            EXPECT_EQ(out(xx, yy), expected) << xx << ", " << yy;
        }
    }
}

// absd of integers is the larger minus the smaller (a max, a min and a subtraction per vector),
// not a select between two differences, which LLVM turned into compares for equality, an or
// and a blend where one operand is a constant (fuzz seed 2026 pair 35: 2x Halide's time).
// Signed operands give the unsigned distance, wrapping nothing.
TEST(VectorCode, AbsdOfBytesIsTheLargerMinusTheSmaller) {
    Buffer<uint8_t> in(std::vector<int>{256}, "in");
    Buffer<int8_t> signed_in(std::vector<int>{256}, "signed_in");
    for (int i = 0; i < 256; i++) {
        in(i) = (uint8_t)i;
        signed_in(i) = (int8_t)(i - 128);
    }
    Var x("x");
    Func f("f"), g("g");
    f(x) = absd(in(x), cast<uint8_t>(2));
    g(x) = absd(signed_in(x), cast<int8_t>(-100));
    f.vectorize(x, 16);
    g.vectorize(x, 16);
    const Target avx2("x86-64-linux-avx2-fma");
    std::string ir = Pipeline(f).llvm_ir(avx2);
    EXPECT_THAT(ir, HasSubstr("@llvm.umax.v16i8")) << ir;
    EXPECT_THAT(ir, HasSubstr("@llvm.umin.v16i8")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("select <16 x i1>"))) << ir;
    Buffer<uint8_t> out = f.realize({256});
    Buffer<uint8_t> signed_out = g.realize({256});
    for (int i = 0; i < 256; i++) {
        EXPECT_EQ(out(i), (uint8_t)std::abs(i - 2)) << i;
        EXPECT_EQ(signed_out(i), (uint8_t)std::abs((i - 128) - -100)) << i;
    }
}

TEST(VectorCode, RunTimeStridedLanesAreAddressedAsScalars) {
    Buffer<int16_t> in(std::vector<int>{1024}, "in");
    for (int i = 0; i < 1024; i++) in(i) = (int16_t)(i * 7 - 300);
    Param<int> stride("stride");
    Var x("x");
    Func f("f");
    f(x) = in(x * stride) + cast<int16_t>(1);
    f.vectorize(x, 8);
    stride.set(3);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    // Each lane's address is the base plus a multiple of the stride, never a lane taken out of
    // a vector of indices.
    EXPECT_THAT(ir, Not(HasSubstr("extractelement <8 x i32>"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("extractelement <8 x i64>"))) << ir;
    for (int s : {3, 1, 0, -2}) {
        stride.set(s);
        in.set_min({s < 0 ? -1000 : 0});
        Buffer<int16_t> out = f.realize({100});
        for (int i = 0; i < 100; i++) {
            EXPECT_EQ(out(i), (int16_t)(in(i * s) + 1)) << "stride " << s << " x " << i;
        }
        in.set_min({0});
    }
}

TEST(VectorCode, ALoopReadingAColumnIsNotVersionedOnAStrideOfOne) {
    // A loop the schedule leaves scalar, reading its input down a column: the stride is the
    // input's row length, known only at run time. LLVM's vectorizer would guard a vector loop
    // by "stride == 1" (an `ident.check`) and run the scalar loop for any real image.
    Buffer<uint8_t> in(std::vector<int>{3, 1000}, "in");
    for (int r = 0; r < 1000; r++)
        for (int c = 0; c < 3; c++) in(c, r) = (uint8_t)(r * 5 + c * 77);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = cast<int32_t>(in(y, x)) * 3 + x;
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, Not(HasSubstr("ident.check"))) << ir;
    EXPECT_THAT(ir, HasSubstr("x i32>")) << ir;  // still vectorized, its lanes loaded one by one
    Buffer<int32_t> out = p.realize({1000, 3});
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 1000; c++) ASSERT_EQ(out(c, r), in(r, c) * 3 + c) << c << ", " << r;
}

TEST(VectorCode, LLVMGathersAColumnOnlyWhereTheCPUsGathersAreFast) {
    using Internal::cpu_has_fast_gathers;
    const std::string triple = Internal::machine_spec(Target()).triple;
    EXPECT_TRUE(cpu_has_fast_gathers(triple, "sapphirerapids"));
    EXPECT_TRUE(cpu_has_fast_gathers(triple, "skylake-avx512"));
    EXPECT_FALSE(cpu_has_fast_gathers(triple, "znver4"));
    EXPECT_FALSE(cpu_has_fast_gathers(triple, "x86-64"));
    // A column of floats per row, read by a loop the schedule leaves scalar: LLVM vectorizes
    // it, with gathers only where they are fast. An explicit AVX-512 Target names the generic
    // CPU (no fast gathers), on which LLVM would gather but for Loom's preference.
    Buffer<float> in(std::vector<int>{64, 1000}, "in");
    for (int r = 0; r < 1000; r++)
        for (int c = 0; c < 64; c++) in(c, r) = (float)(r - 3 * c);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(y, x) * 2.0f + 1.0f;
    Pipeline p(f);
    std::string generic = p.llvm_ir(Target("x86-64-linux-avx512-avx512_skylake"));
    EXPECT_THAT(generic, Not(HasSubstr("masked.gather"))) << generic;
    if (cpu_has_fast_gathers(triple, Internal::machine_spec(Target()).cpu) &&
        get_host_target().has_feature(Target::AVX512)) {
        std::string host = p.llvm_ir(Target());
        EXPECT_THAT(host, HasSubstr("masked.gather")) << host;
    }
    Buffer<float> out = p.realize({1000, 64});
    for (int r = 0; r < 64; r++)
        for (int c = 0; c < 1000; c++) ASSERT_EQ(out(c, r), in(r, c) * 2.0f + 1.0f) << c << ", " << r;
}

TEST(VectorCode, AVectorizedStagePerPointLeavesThePixelLoopVectorizable) {
    // f is computed per point of g with its pure definition 4 lanes wide: its stack tile
    // becomes a 4-lane value whose lanes the unrolled update reads and writes, behind the
    // where()'s branches. Those lane accesses must fold to scalars before LLVM's vectorizer
    // sees g's loop, which it refuses while a vector-typed instruction is in it (fuzz seed
    // 2026 pair 104).
    Buffer<float> in(std::vector<int>{600, 50}, "in");
    for (int r = 0; r < 50; r++)
        for (int c = 0; c < 600; c++) in(c, r) = (float)((c * 7 + r * 13) % 300) - 20.0f;
    Var x("x"), y("y");
    RDom k(0, 3, "k");
    k.where(k.x % 3 != 1);
    Func f("f"), g("g");
    f(x, y) = cast<uint8_t>(0);
    f(x, y) = max(f(x, y), cast<uint8_t>(clamp(in(x / 2 + k, y), 0.0f, 255.0f)));
    g(x, y) = cast<float>(f(x, y)) * 0.5f;
    f.compute_at(g, x).vectorize(x, 4);
    Pipeline p(g);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("vector.body")) << ir;
    Buffer<float> out = p.realize({512, 50});
    for (int r = 0; r < 50; r++) {
        for (int c = 0; c < 512; c++) {
            uint8_t m = 0;
            for (int t = 0; t < 3; t += 2)
                m = std::max(m, (uint8_t)std::min(std::max(in(c / 2 + t, r), 0.0f), 255.0f));
            ASSERT_EQ(out(c, r), (float)m * 0.5f) << c << ", " << r;
        }
    }
}

TEST(VectorCode, ATriangleOfTapsPerPixelIsUnrolledWholeAndThePixelLoopVectorized) {
    // The RDom's where() trims its inner loop to r.y + 1 iterations: constant in each copy once
    // LLVM unrolls the outer loop of 4, so LLVM may unroll it too, and the pixel loop around
    // the taps is then innermost and vectorized.
    Buffer<float> in(std::vector<int>{300, 40}, "in");
    for (int r = 0; r < 40; r++)
        for (int c = 0; c < 300; c++) in(c, r) = (float)((c * 5 + r * 11) % 37) - 9.0f;
    Var x("x"), y("y");
    RDom k(0, 4, 0, 4, "k");
    k.where(k.x <= k.y);
    Func g("g");
    g(x, y) = 0.0f;
    g(x, y) += in(x + k.x, y + k.y);
    Pipeline p(g);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("fadd <8 x float>")) << ir; // the taps' sums, 8 pixels at once
    Buffer<float> out = p.realize({290, 36});
    for (int r = 0; r < 36; r++) {
        for (int c = 0; c < 290; c++) {
            float s = 0.0f;
            for (int ky = 0; ky < 4; ky++)
                for (int kx = 0; kx <= ky; kx++) s += in(c + kx, r + ky);
            ASSERT_EQ(out(c, r), s) << c << ", " << r;
        }
    }
}

TEST(VectorCode, AZeroFilledRegionPerPointIsAMemset) {
    // hist is computed per point of g over bins 0 .. 12 and the point g reads: a region as
    // wide as the point's x, zeroed per point. LLVM's loop-idiom makes the zeroing a memset
    // (Halide 14's O3 does; stored 16 lanes at a time it ran 2x Halide's time: fuzz seed 2026
    // pair 349).
    Buffer<int32_t> in(std::vector<int>{8, 20}, "in");
    for (int r = 0; r < 20; r++)
        for (int c = 0; c < 8; c++) in(c, r) = (c * 5 + r * 3) % 17 - 2;
    Var x("x"), y("y");
    RDom k(0, 8, "k");
    Func hist("hist"), g("g");
    hist(x, y) = cast<uint16_t>(0);
    hist(clamp(in(k, y), 0, 12), y) += cast<uint16_t>(1);
    g(x, y) = hist(x, y);
    hist.compute_at(g, x);
    Pipeline p(g);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    EXPECT_THAT(ir, HasSubstr("llvm.memset")) << ir;
    Buffer<uint16_t> out = p.realize({100, 20});
    for (int r = 0; r < 20; r++) {
        for (int c = 0; c < 100; c++) {
            uint16_t n = 0;
            for (int t = 0; t < 8; t++) n += std::min(std::max(in(t, r), 0), 12) == c;
            ASSERT_EQ(out(c, r), n) << c << ", " << r;
        }
    }
}

TEST(VectorCode, ABlockComputedPerPointIsKeptInRegisters) {
    // g is computed per point of f as a ShiftInwards block of 16 rows, of which f reads one,
    // with an update of 8 taps over 2 columns. Once LLVM unrolls the block's loops, its
    // storage is at constant offsets: SROA puts it in registers (the 15 rows nobody reads go),
    // and early-cse computes the taps' loads and divisions, repeated over the 4 rows of the
    // RDom, once (fuzz seed 2026 pair 407: 3.4x Halide's time before, 0.5x after).
    // Rows -20 .. 39: the block's first rows lie above the rows f needs.
    Buffer<uint8_t> in(std::vector<int>{300, 60}, "in");
    in.set_min(std::vector<int>{0, -20});
    for (int r = -20; r < 40; r++)
        for (int c = 0; c < 300; c++) in(c, r) = (uint8_t)((c * 7 + r * 13 + 260) % 23);
    Var x("x"), y("y"), yo("yo"), yi("yi");
    RDom k(-2, 2, -1, 4, "k");
    Func g("g"), f("f");
    g(x, y) = cast<uint8_t>(x) + in(x, y);
    g(x, y) = g(x, y) + (cast<uint8_t>(x) % in(x + 1 + k.x, y + 1)) / cast<uint8_t>(9);
    f(x, y) = g(x + 2, y / 3 + 1) ^ cast<uint8_t>(6);
    g.compute_at(f, x).store_at(f, y).split(y, yo, yi, 16);
    Pipeline p(f);
    std::string ir = p.llvm_ir(Target("x86-64-linux-avx2-fma"));
    // One row of the block read from `in`, and the taps' two columns; one division each.
    // (Left in memory: 23 loads and 8 divisions.)
    EXPECT_EQ(occurrences(ir, "load i8"), 3) << ir;
    EXPECT_EQ(occurrences(ir, "urem i8"), 2) << ir;
    Buffer<uint8_t> out = p.realize({290, 30});
    for (int r = 0; r < 30; r++) {
        for (int c = 0; c < 290; c++) {
            const int gx = c + 2, gy = r / 3 + 1;
            uint8_t v = (uint8_t)((uint8_t)gx + in(gx, gy));
            for (int ky = -1; ky < 3; ky++) {
                for (int kx = -2; kx < 0; kx++) {
                    const uint8_t d = in(gx + 1 + kx, gy + 1);
                    v = (uint8_t)(v + (d == 0 ? 0 : (uint8_t)gx % d) / 9);
                }
            }
            ASSERT_EQ(out(c, r), (uint8_t)(v ^ 6)) << c << ", " << r;
        }
    }
}
