// Streaming stores (codegen/StreamingStores.h): the few stores of an innermost loop to an output
// the pipeline does not read streams past the cache where the output is large and the address
// aligned; the values are those of plain stores wherever each vector lands.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using ::testing::HasSubstr;
using ::testing::Not;

const Target avx512("x86-64-linux-avx512-avx512_skylake");
const Target avx2("x86-64-linux-avx2");

constexpr char kStreamingStore[] = "!nontemporal";
constexpr char kStoreFence[] = "call void @llvm.x86.sse.sfence()";

float input_value(int x, int y) { return float((x * 7 + y * 13) % 1000) * 0.25f - 100.0f; }

Buffer<float> input_of(int width, int height) {
    Buffer<float> in({width, height}, "in");
    for (int y = 0; y < height; y++)
        for (int x = 0; x < width; x++) in(x, y) = input_value(x, y);
    return in;
}

int occurrences(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

// The text of the function whose definition line contains `signature`, up to the next
// definition ("" if there is none).
std::string function_text(const std::string &ir, const std::string &signature) {
    size_t begin = ir.find(signature);
    if (begin == std::string::npos) return "";
    begin = ir.rfind("define", begin);
    const size_t end = ir.find("\ndefine", begin + 1);
    return ir.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

TEST(StreamingStores, OneVectorStorePerIterationToAnOutputStreams) {
    Buffer<float> in = input_of(64, 4);
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = max(in(x, y) * 2.0f + 1.0f, 0.0f);
    f.parallel(y).vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr(kStreamingStore)) << ir;
    // One fence, in the entry function before it returns: the task's rows don't wait for their
    // stores (the thread pool fences once per thread and loop).
    EXPECT_EQ(occurrences(ir, kStoreFence), 1) << ir;
    EXPECT_THAT(function_text(ir, "@loom_pipelinef("), HasSubstr(kStoreFence)) << ir;
    // The plain store stays for misaligned vectors and small outputs.
    EXPECT_THAT(ir, HasSubstr("store <16 x float>")) << ir;
}

TEST(StreamingStores, SerialLoopsFenceInTheEntry) {
    Buffer<float> in = input_of(64, 4);
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) + 1.0f;
    f.vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr(kStreamingStore)) << ir;
    EXPECT_THAT(ir, HasSubstr(kStoreFence)) << ir;
}

TEST(StreamingStores, NotWithoutFullLineVectors) {
    Buffer<float> in = input_of(64, 4);
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = in(x, y) + 1.0f;
    f.vectorize(x, 8);  // 256 bits: half a line per store
    g(x, y) = in(x, y) + 1.0f;
    g.vectorize(x, 16);
    EXPECT_THAT(Pipeline(f).llvm_ir(avx512), Not(HasSubstr(kStreamingStore)));
    EXPECT_THAT(Pipeline(g).llvm_ir(avx2), Not(HasSubstr(kStreamingStore)));
}

TEST(StreamingStores, AFewPlanesPerIterationStream) {
    Buffer<float> in = input_of(64, 4);
    Func f("f");
    Var x("x"), y("y"), c("c");
    f(x, y, c) = in(x, y) * (c + 1.0f);
    // Three planes per iteration of the innermost loop, as interpolate's output.
    f.bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, 16);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr(kStreamingStore)) << ir;
    EXPECT_THAT(ir, HasSubstr(kStoreFence)) << ir;
}

TEST(StreamingStores, NotForLoopsThatStoreATile) {
    Buffer<float> in = input_of(256, 4);
    Func f("f");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    f(x, y) = in(x, y) * 3.0f;
    // Eight vectors per iteration of the innermost loop.
    f.split(x, xo, xi, 128).vectorize(xi, 16).unroll(xi);
    std::string ir = Pipeline(f).llvm_ir(avx512);
    EXPECT_THAT(ir, Not(HasSubstr(kStreamingStore))) << ir;
    EXPECT_THAT(ir, Not(HasSubstr(kStoreFence))) << ir;
}

TEST(StreamingStores, NotToAnIntermediate) {
    Buffer<float> in = input_of(64, 4);
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = in(x, y) * 3.0f;
    g(x, y) = f(x, y) + f(x, y);
    f.compute_root().vectorize(x, 16);
    g.vectorize(x, 8);
    std::string ir = Pipeline(g).llvm_ir(avx512);
    EXPECT_THAT(ir, Not(HasSubstr(kStreamingStore))) << ir;
}

// Big enough to stream (at least 16 MiB), with rows of 4100 floats: row starts fall at every
// 16-byte offset of a line and each row ends with a shifted last vector, so both the streaming
// and the plain stores run, in parallel tasks.
TEST(StreamingStores, LargeOutputHasTheValuesOfPlainStores) {
    const int width = 4100, height = 2080;
    ASSERT_GE(int64_t(width) * height * 4, int64_t(16) << 20);
    Buffer<float> in = input_of(width, height);
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = max(in(x, y) * 2.0f + 1.0f, 0.0f);
    f.parallel(y, 8).vectorize(x, 16);
    Buffer<float> out = f.realize({width, height});
    int wrong = 0;
    for (int yy = 0; yy < height; yy++) {
        for (int xx = 0; xx < width; xx++) {
            const float expected = std::max(input_value(xx, yy) * 2.0f + 1.0f, 0.0f);
            if (!loom_test::same_value(out(xx, yy), expected) && wrong++ < 5) {
                ADD_FAILURE() << "f(" << xx << ", " << yy << ") = " << out(xx, yy)
                              << ", expected " << expected;
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

} // namespace
