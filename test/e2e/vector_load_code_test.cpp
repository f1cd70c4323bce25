// The code Loom emits for vector loads whose lanes are not consecutive (the shapes whose values
// vector_load_test.cpp checks): dense loads plus shuffles where the lanes' span allows, one
// test per vector of clamped taps, gathers only for lookups, and the index terms that give
// pointers stepped per iteration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "../schedule/StmtText.h"
#include "E2ETestUtil.h"
#include "codegen/IndexTerms.h"
#include "dsl/IROperator.h"

namespace {

using namespace loom;
using loom_test::occurrences;
using ::testing::HasSubstr;
using ::testing::Not;

// How many of the IR's lines hold `what` and read or write Loom's allocation `buffer`: codegen
// tags each access with the buffer's TBAA node ("loom.alloc.<buffer>"), whose access tag is the
// metadata line `!N = !{!M, !M, i64 0}` naming it.
int occurrences_in_buffer(const std::string &ir, const std::string &what,
                          const std::string &buffer) {
    const std::string type_node = "= !{!\"loom.alloc." + buffer + "\"";
    size_t at = ir.find(type_node);
    if (at == std::string::npos) return 0;
    size_t bang = ir.rfind("\n!", at);
    const std::string type_id = ir.substr(bang + 1, ir.find(' ', bang + 1) - bang - 1);
    size_t tag = ir.find("= !{" + type_id + ", " + type_id + ", i64 0}");
    if (tag == std::string::npos) return 0;
    size_t tag_bang = ir.rfind("\n!", tag);
    const std::string tag_id = ir.substr(tag_bang + 1, ir.find(' ', tag_bang + 1) - tag_bang - 1);
    int n = 0;
    size_t line = 0;
    while (line < ir.size()) {
        size_t end = ir.find('\n', line);
        if (end == std::string::npos) end = ir.size();
        std::string text = ir.substr(line, end - line);
        const std::string marker = "!tbaa " + tag_id; // then the line's end or ", !other"
        size_t m = text.find(marker);
        if (text.find(what) != std::string::npos && m != std::string::npos &&
            (m + marker.size() == text.size() || text[m + marker.size()] == ','))
            n++;
        line = end + 1;
    }
    return n;
}
// ---------------------------------------------------------------------------------------------
// The code: dense loads and a shuffle, not one load per lane.

const Target avx512("x86-64-linux-avx512-avx512_skylake");

// Each tap alone spans 63 elements, two 32-lane loads; together they span 64, one load.
TEST(VectorLoadCode, StrideTwoIsDenseLoadsAndAShuffle) {
    Buffer<uint16_t> in(std::vector<int>{1000}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(2 * x) + in(2 * x + 1);
    f.vectorize(x, 32);
    // The loop's loads, not its store's blocks (JoinedStreamingStores.h).
    std::string ir = loom_test::ir_block_labelled(Pipeline(f).llvm_ir(avx512), "f.s0.x.x.loop");
    ASSERT_FALSE(ir.empty());
    EXPECT_EQ(occurrences(ir, "load <64 x i16>"), 1) << ir;
    EXPECT_EQ(occurrences(ir, "load <32 x i16>"), 0) << ir;
    EXPECT_THAT(ir, HasSubstr("shufflevector")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("load i16"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

TEST(VectorLoadCode, ReverseIsOneDenseLoad) {
    Buffer<float> in(std::vector<int>{1000}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(999 - x);
    f.vectorize(x, 16);
    // The loop's loads, not its store's blocks (JoinedStreamingStores.h).
    std::string ir = loom_test::ir_block_labelled(Pipeline(f).llvm_ir(avx512), "f.s0.x.x.loop");
    ASSERT_FALSE(ir.empty());
    EXPECT_THAT(ir, HasSubstr("load <16 x float>")) << ir;
    EXPECT_THAT(ir, HasSubstr("shufflevector <16 x float>")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

TEST(VectorLoadCode, HalvedIndexLoadsHalfTheLanes) {
    Buffer<int16_t> in(std::vector<int>{1000}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(x / 2);
    f.vectorize(x, 32);
    // The loop's loads, not its store's blocks (JoinedStreamingStores.h).
    std::string ir = loom_test::ir_block_labelled(Pipeline(f).llvm_ir(avx512), "f.s0.x.x.loop");
    ASSERT_FALSE(ir.empty());
    // 16 elements from the first lane's and 16 ending at the last lane's element.
    EXPECT_THAT(ir, HasSubstr("load <16 x i16>")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("load <32 x i16>"))) << ir;
    EXPECT_THAT(ir, HasSubstr("shufflevector")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement"))) << ir;
}

// f(x / 2) and f((x + 1) / 2) as Halide loads them: dense vectors of half the lanes at
// x / 2, (x + 1) / 2 and (x + 2) / 2 (the middle one shared), interleaved; no residue of x
// picking between shuffles at run time.
TEST(VectorLoadCode, HalvedIndexIsInterleavedDenseLoadsWithoutResidue) {
    Buffer<float> in(std::vector<int>{1000}, "in");
    Var x("x");
    Func f("f");
    f(x) = in(x / 2) + in((x + 1) / 2);
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_EQ(occurrences(ir, "load <8 x float>"), 3) << ir;
    // On AVX-512 each interleave is one two-source permute of halves loaded as broadcasts,
    // not zero-extending loads and an insert.
    std::string code = Pipeline(f).assembly(avx512);
    EXPECT_THAT(code, HasSubstr("vbroadcastf64x4")) << code;
    EXPECT_THAT(code, Not(HasSubstr("vpmovzxdq"))) << code;
    EXPECT_THAT(code, Not(HasSubstr("vinsert"))) << code;
    EXPECT_THAT(ir, Not(HasSubstr("srem"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("select i1"))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

// The three taps of a [1 2 1] filter on a subsampled row of a computed Func: the loads start
// at an even offset and read whole vectors end to end (the allocation's padding covers what
// lies outside the lanes), so 2x + 1 shares 2x's vectors and 2x - 1 adds two: four loads,
// not six, and none ends mid-vector just to stop at the last lane.
TEST(VectorLoadCode, StridedTapsOfAnAllocationShareWholeVectors) {
    Buffer<float> in(std::vector<int>{1000}, "in");
    Var x("x");
    Func g("g"), f("f");
    g(x) = in(x)*2.0f;
    f(x) = g(2 * x - 1) + g(2 * x) + g(2 * x + 1);
    g.compute_root();
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    // f's three taps load four whole vectors of g (g's own loop is LLVM's to vectorize).
    EXPECT_EQ(occurrences_in_buffer(ir, "load <16 x float>", "g"), 4) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

// The same taps of an input, which has no padding: the three load the span they cover
// together, 2X - 1 to 2X + 31, as two 32-lane pieces (the second ending at the last lane),
// not two 16-lane pieces each.
TEST(VectorLoadCode, StridedTapsOfAnInputShareTheirSpan) {
    Buffer<float> in(std::vector<int>{1000}, "in");
    in.set_min({-1});
    Var x("x");
    Func f("f");
    f(x) = in(2 * x - 1) + in(2 * x) * 2.0f + in(2 * x + 1);
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_EQ(occurrences(ir, "load <32 x float>"), 2) << ir;
    EXPECT_EQ(occurrences(ir, "load <16 x float>"), 0) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("gather"))) << ir;
}

TEST(VectorLoadCode, ClampedRampLoadsDenseInsideTheClamp) {
    Buffer<uint8_t> in(std::vector<int>{1000}, "in");
    Func edge = BoundaryConditions::repeat_edge(in);
    Var x("x");
    Func f("f");
    f(x) = edge(x - 3);
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    // One dense load where the 16 lanes lie inside, lane by lane at the edges, and one element
    // for all lanes beyond them.
    EXPECT_THAT(ir, HasSubstr("load <16 x i8>")) << ir;
    EXPECT_THAT(ir, HasSubstr("load i8")) << ir;
    EXPECT_THAT(ir, HasSubstr("outside:")) << ir;
}

TEST(VectorLoadCode, ClampedTapsShareOneTestPerVector) {
    Buffer<float> in(std::vector<int>{1000}, "in");
    Func edge = BoundaryConditions::repeat_edge(in);
    Var x("x");
    Func f("f");
    f(x) = edge(2 * x - 1) + edge(2 * x) + edge(2 * x + 1);
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    // The loop is partitioned (lower/PartitionLoops, through the ShiftInwards start): its
    // steady state loads without clamps; each of its two edge loops has one branch on all
    // three taps lying inside, and the vectors at the edges test each tap.
    EXPECT_EQ(occurrences(ir, "all_inside:"), 2) << ir;
    EXPECT_EQ(occurrences(ir, "at_edge:"), 2) << ir;
    EXPECT_EQ(occurrences(ir, "\ninside"), 6) << ir; // blocks inside, inside13, ...
    // One tap at one offset (channels of a pixel, say) keeps its own test only.
    Func g("g");
    g(x) = edge(x) * 2.0f;
    g.vectorize(x, 16);
    std::string one_tap = Pipeline(g).llvm_ir(avx512);
    EXPECT_EQ(occurrences(one_tap, "all_inside:"), 0) << one_tap;
}

TEST(VectorLoadCode, ShiftedLastVectorsOffsetIsExtendedOncePerIteration) {
    // x's last vector is shifted back (min(x * 16, width - 16)): the accesses of a row add
    // that one clamped offset, extended to 64 bits once, to bases computed outside the loop.
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = in(x, y) * 2.0f + in(x, y + 1);
    f.vectorize(x, 16);
    std::string loop = loom_test::ir_block_labelled(Pipeline(f).llvm_ir(avx512), "f.s0.x.x.loop");
    ASSERT_FALSE(loop.empty());
    EXPECT_EQ(occurrences(loop, " sext "), 1) << loop;
    EXPECT_EQ(occurrences(loop, "load <16 x float>"), 2) << loop;
    // With more rows than registers for their bases, each access extends its own sum.
    Func g("g");
    Expr sum = in(x, y);
    for (int row = 1; row < 6; row++)
        sum = sum + in(x, y + row);
    g(x, y) = sum;
    g.vectorize(x, 16);
    std::string many = loom_test::ir_block_labelled(Pipeline(g).llvm_ir(avx512), "g.s0.x.x.loop");
    ASSERT_FALSE(many.empty());
    EXPECT_GT(occurrences(many, " sext "), 1) << many;
}

TEST(IndexTerms, LoopVariableTimesAConstantIsTheLoopTerm) {
    Expr x = Internal::Variable::make(Int(32), "x"), r = Internal::Variable::make(Int(32), "r");
    Expr s = Internal::Variable::make(Int(32), "s");
    auto terms = Internal::split_index(x * 16 + r + 3, "x");
    EXPECT_TRUE(terms.loop_term);
    EXPECT_EQ(terms.loop_scale, 16);
    EXPECT_EQ(Internal::to_string(terms.rest), "r");
    EXPECT_EQ(terms.constant, 3);
    auto negated = Internal::split_index(r - (x + 1) * 4, "x");
    EXPECT_TRUE(negated.loop_term);
    EXPECT_EQ(negated.loop_scale, -4);
    EXPECT_EQ(negated.constant, -4);
    auto plain = Internal::split_index(r + x, "x");
    EXPECT_TRUE(plain.loop_term);
    EXPECT_EQ(plain.loop_scale, 1);
    // A step known only at run time, or the variable twice: it stays in the rest.
    auto by_stride = Internal::split_index(x * s + r, "x");
    EXPECT_FALSE(by_stride.loop_term);
    EXPECT_EQ(Internal::to_string(by_stride.rest), "((x*s) + r)");
    EXPECT_FALSE(Internal::split_index(x + x * 2, "x").loop_term);
}

TEST(VectorLoadCode, ReductionOverWholeVectorsStepsAPointer) {
    // Each lane's maximum over every 16th element: the loop reads in(r * 16 + lane) and its
    // address advances by 64 bytes per iteration, with no 32-bit index extended inside it.
    ImageParam in(Float(32), 1, "in");
    Var l("l");
    RDom r(1, in.width() / 16 - 1, "r");
    Func lane_max("lane_max");
    lane_max(l) = in(l);
    lane_max(l) = max(lane_max(l), in(r * 16 + l));
    lane_max.bound(l, 0, 16).vectorize(l, 16);
    lane_max.update().vectorize(l, 16);
    std::string loop = loom_test::ir_block_labelled(Pipeline(lane_max).llvm_ir(avx512),
                                                    "\"lane_max.s1.r$x.loop\"");
    ASSERT_FALSE(loop.empty());
    EXPECT_THAT(loop, HasSubstr("load <16 x float>")) << loop;
    EXPECT_EQ(occurrences(loop, " sext "), 0) << loop;
}

TEST(VectorLoadCode, LookupOfEightBitEntriesOfAnAllocationIsAWordGather) {
    Buffer<uint8_t> idx(std::vector<int>{1000}, "idx");
    Var x("x");
    Func table("table"), f("f");
    table(x) = cast<uint8_t>(x * 3);
    table.compute_root();
    f(x) = table(cast<int32_t>(idx(x)));
    f.bound(x, 0, 1000).vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr("llvm.masked.gather.v16i32")) << ir;
    EXPECT_THAT(ir, HasSubstr("trunc <16 x i32>")) << ir;
    EXPECT_THAT(ir, Not(HasSubstr("insertelement <16 x i8>"))) << ir;
}

TEST(VectorLoadCode, LookupOfThirtyTwoBitElementsIsAGather) {
    Buffer<int32_t> lut(std::vector<int>{256}, "lut");
    Buffer<uint8_t> idx(std::vector<int>{1000}, "idx");
    Var x("x");
    Func f("f");
    f(x) = lut(cast<int32_t>(idx(x)));
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr("llvm.masked.gather")) << ir;
    EXPECT_THAT(Pipeline(f).assembly(avx512), HasSubstr("vpgatherdd"));
}

// A lookup of 8 lanes loads each lane on its own: below 16 lanes a hardware gather costs about
// as much, and cannot take a lane from a store just before it. The values are the table's.
TEST(VectorLoadCode, LookupOfEightLanesLoadsLaneByLane) {
    Buffer<int32_t> lut(std::vector<int>{256}, "lut");
    for (int i = 0; i < 256; i++)
        lut(i) = i * 7 - 300;
    Buffer<uint8_t> idx(std::vector<int>{1000}, "idx");
    for (int i = 0; i < 1000; i++)
        idx(i) = (uint8_t)((i * 37 + 11) % 256);
    Var x("x");
    Func f("f");
    f(x) = lut(cast<int32_t>(idx(x)));
    f.vectorize(x, 8);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, Not(HasSubstr("llvm.masked.gather"))) << ir;
    EXPECT_THAT(ir, HasSubstr("insertelement <8 x i32>")) << ir;
    Buffer<int32_t> out = f.realize({1000});
    for (int i = 0; i < 1000; i++)
        ASSERT_EQ(out(i), lut(idx(i))) << "at " << i;
}

} // namespace
