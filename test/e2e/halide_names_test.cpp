// Names of Halide 14's API that Halide programs use beside the scheduling language: evaluate,
// Buffer's named constructor and edge accessors, pointer types, Target's feature setters and
// the GPU APIs Loom lacks, the lowered statement as HTML, print()'s misuses.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using loom_test::error_of;
using ::testing::AllOf;
using ::testing::HasSubstr;

int occurrences(const std::string &text, const std::string &piece) {
    int n = 0;
    for (size_t p = text.find(piece); p != std::string::npos; p = text.find(piece, p + 1))
        n++;
    return n;
}

TEST(HalideNames, EvaluateComputesAConstantExpression) {
    EXPECT_EQ(evaluate<int>(cast<int32_t>(cast<uint8_t>(255))), 255);
    EXPECT_EQ(evaluate<uint16_t>(cast<uint16_t>(cast<int8_t>(-1))), 65535);
    EXPECT_FLOAT_EQ(evaluate<float>(sqrt(Expr(2.0f)) * 3.0f), std::sqrt(2.0f) * 3.0f);
    EXPECT_THAT(error_of([] { evaluate<float>(Expr(3)); }),
                HasSubstr("evaluate<float32>() of an Expr of type int32"));
}

TEST(HalideNames, BuffersTakeANameAfterTheirSizesAndNameTheirEdges) {
    Buffer<uint8_t> input(8, 6, "input");
    EXPECT_EQ(input.name(), "input");
    EXPECT_EQ(input.dimensions(), 2);
    EXPECT_EQ(input.width(), 8);
    input.set_min(-1, 3);
    EXPECT_EQ(input.left(), -1);
    EXPECT_EQ(input.right(), 6);
    EXPECT_EQ(input.top(), 3);
    EXPECT_EQ(input.bottom(), 8);
    Buffer<float> named(4, 3, 2, std::string("volume"));
    EXPECT_EQ(named.name(), "volume");
    EXPECT_EQ(named.channels(), 2);
}

TEST(HalideNames, PointersAreHandles) {
    EXPECT_EQ(type_of<void *>(), Handle());
    EXPECT_EQ(type_of<const char *const **>(), Handle());
}

// Halide's no_asserts: the run checks nothing, so an input smaller than the region read is read
// past its end (here into the rest of the buffer it was cropped from). jit and strict_float
// are accepted and change nothing: Loom's JIT needs no mark, and its floats are strict always.
TEST(HalideNames, NoAssertsDropsTheRunTimeChecksAndJITAndStrictFloatChangeNothing) {
    Buffer<int> whole(16);
    for (int i = 0; i < 16; i++)
        whole(i) = i * 3 - 5;
    ImageParam in(Int(32), 1, "in_unchecked");
    in.set(whole.cropped(0, 0, 4));
    Var x("x");
    Func f("reads_eight");
    f(x) = in(x)*2;
    EXPECT_THAT(error_of([&] { f.realize({8}); }), HasSubstr("in_unchecked"));
    const Target unchecked = get_host_target().with_feature(Target::NoAsserts);
    Buffer<int> out = f.realize({8}, unchecked);
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(out(i), whole(i) * 2) << "at " << i;

    const Target marked("host-jit-strict_float");
    EXPECT_TRUE(marked.has_feature(Target::JIT) && marked.has_feature(Target::StrictFloat));
    EXPECT_EQ(Target(unchecked.to_string()), unchecked);
    EXPECT_EQ(Target(marked.to_string()), marked);
    Func g("float_chain");
    g(x) = (cast<float>(x) * 0.1f + 0.7f) / 3.0f - cast<float>(x) * cast<float>(x) * 1e-3f;
    Buffer<float> plain = g.realize({64}), with_marks = g.realize({64}, marked);
    for (int i = 0; i < 64; i++) {
        const float expected = ((float)i * 0.1f + 0.7f) / 3.0f - (float)i * (float)i * 1e-3f;
        EXPECT_EQ(plain(i), expected) << "at " << i;
        EXPECT_EQ(with_marks(i), expected) << "at " << i;
    }
}

// debug_to_file's refusals, each naming the Func: a Tuple, a folded storage, more than four
// dimensions, an empty file name, and a file that cannot be written (a run error).
TEST(HalideNames, DebugToFileMisusesAreRefusedNamingTheFunc) {
    Var x("x"), y("y"), z("z"), w("w"), v("v");
    Func pair("dump_pair"), folded("dump_folded"), five("dump_five"), nowhere("dump_nowhere");
    pair(x) = Tuple(x, x * 2);
    pair.debug_to_file("/tmp/never_written.tmp");
    EXPECT_THAT(error_of([&] { pair.realize({4}); }),
                AllOf(HasSubstr("dump_pair"), HasSubstr("Tuple")));
    folded(x, y) = x + y;
    Func reads_folded("reads_folded");
    reads_folded(x, y) = folded(x, y) + folded(x, y + 1);
    folded.store_root().compute_at(reads_folded, y).fold_storage(y, 2);
    folded.debug_to_file("/tmp/never_written.tmp");
    EXPECT_THAT(error_of([&] {
                    reads_folded.realize({4, 4});
                }),
                AllOf(HasSubstr("dump_folded"), HasSubstr("fold_storage")));
    five(x, y, z, w, v) = x + y + z + w + v;
    five.debug_to_file("/tmp/never_written.tmp");
    EXPECT_THAT(error_of([&] {
                    five.realize({2, 2, 2, 2, 2});
                }),
                AllOf(HasSubstr("dump_five"), HasSubstr("at most four")));
    nowhere(x) = x;
    nowhere.debug_to_file("/no/such/folder/nowhere.tmp");
    EXPECT_THAT(error_of([&] { nowhere.realize({4}); }),
                AllOf(HasSubstr("dump_nowhere"), HasSubstr("/no/such/folder/nowhere.tmp"),
                      HasSubstr("could not be opened")));
    EXPECT_THAT(error_of([&] { nowhere.debug_to_file(""); }), HasSubstr("dump_nowhere"));
}

// Halide's Buffer(const halide_buffer_t &): a view of a raw buffer's memory with a copy of its
// shape (mins, extents and strides, here rows padded to 5 elements), read and written by a
// pipeline and by element access through the caller's memory; a wrong element type and a newer
// device copy are refused naming the Buffer.
TEST(HalideNames, ABufferViewsARawBuffersMemoryAndShape) {
    std::vector<int16_t> memory(15);
    for (int i = 0; i < 15; i++)
        memory[i] = (int16_t)(i * 7 - 30);
    // x in [10, 13] with stride 1, y in [-1, 1] with stride 5: (x, y) at x - 10 + 5 (y + 1).
    auto at = [&](int x, int y) { return memory[x - 10 + 5 * (y + 1)]; };
    loom_dimension_t dims[2] = {{10, 4, 1, 0}, {-1, 3, 5, 0}};
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(memory.data());
    raw.type = Int(16).to_runtime();
    raw.dimensions = 2;
    raw.dim = dims;
    Buffer<int16_t> view(raw, "from_raw");
    EXPECT_EQ(view.name(), "from_raw");
    EXPECT_EQ(view.dim(0).min(), 10);
    EXPECT_EQ(view.dim(1).stride(), 5);
    EXPECT_EQ(view.dim(1).min(), -1);
    EXPECT_EQ(view(12, 1), at(12, 1));
    view(13, -1) = 1000;
    EXPECT_EQ(memory[3], 1000);

    Var x("x"), y("y");
    Func doubled("doubled_raw");
    doubled(x, y) = cast<int16_t>(view(x, y) * 2 + y);
    Buffer<int16_t> out(4, 3);
    out.set_min({10, -1});
    doubled.realize(out);
    for (int yy = -1; yy <= 1; yy++) {
        for (int xx = 10; xx <= 13; xx++)
            EXPECT_EQ(out(xx, yy), at(xx, yy) * 2 + yy) << xx << ", " << yy;
    }

    EXPECT_THAT(error_of([&] { Buffer<float> wrong(raw, "from_raw_as_float"); }),
                HasSubstr("from_raw_as_float"));
    raw.flags = loom_buffer_device_dirty;
    EXPECT_THAT(error_of([&] { Buffer<int16_t> stale(raw, "from_raw_stale"); }),
                AllOf(HasSubstr("from_raw_stale"), HasSubstr("device copy is newer")));
}

TEST(HalideNames, TargetFeaturesAreSetInPlaceAndOtherGPUAPIsAreRefused) {
    Target t("x86-64-linux-avx2");
    t.set_feature(Target::FMA);
    EXPECT_TRUE(t.has_feature(Target::FMA));
    t.set_feature(Target::FMA, false);
    EXPECT_FALSE(t.has_feature(Target::FMA));
    t.set_features({Target::SSE41, Target::AVX});
    EXPECT_TRUE(t.features_all_of({Target::SSE41, Target::AVX, Target::AVX2}));
    EXPECT_FALSE(t.features_any_of({Target::CUDA, Target::OpenCL}));
    EXPECT_TRUE(t != Target("x86-64-linux"));
    EXPECT_TRUE(host_supports_target_device(t));

    Target opencl = t;
    opencl.set_feature(Target::OpenCL);
    EXPECT_TRUE(opencl.has_gpu_feature());
    EXPECT_FALSE(host_supports_target_device(opencl));
    EXPECT_EQ(Target(opencl.to_string()), opencl);
    Func f("f_for_opencl");
    Var x("x");
    f(x) = x;
    EXPECT_THAT(error_of([&] { f.compile_jit(opencl); }),
                HasSubstr("Loom's GPU backend is CUDA: use Target::CUDA instead"));

    Target mac = Target("x86-64-linux");
    mac.os = Target::OSX;
    EXPECT_EQ(mac.to_string(), "x86-64-osx");
    EXPECT_THAT(error_of([&] { f.compile_jit(mac); }),
                HasSubstr("Loom generates code for x86-64 Linux only"));

    // Halide's DeviceAPI names compile; a directive naming a device Loom has no backend for
    // is refused when given.
    for (DeviceAPI api :
         {DeviceAPI::OpenCL, DeviceAPI::Metal, DeviceAPI::OpenGLCompute, DeviceAPI::D3D12Compute,
          DeviceAPI::Hexagon, DeviceAPI::HexagonDma, DeviceAPI::None}) {
        Func g("g_on_other_gpu");
        g(x) = x;
        EXPECT_THAT(error_of([&] { g.gpu_blocks(x, api); }),
                    HasSubstr("In gpu_blocks of g_on_other_gpu: Loom's only GPU API is CUDA"));
    }
}

TEST(HalideNames, TheLoweredStatementAsAPageWithCollapsibleBlocks) {
    Func f("html_f");
    Var x("x"), y("y");
    f(x, y) = select(x < y, x, y) * 2;
    const std::string path = ::testing::TempDir() + "loom_html_test.html";
    f.compile_to_lowered_stmt(path, {}, HTML);
    std::ifstream in(path);
    std::stringstream page;
    page << in.rdbuf();
    const std::string html = page.str();
    std::remove(path.c_str());
    EXPECT_THAT(html, HasSubstr("<!DOCTYPE html>"));
    EXPECT_THAT(html, HasSubstr("<title>html_f</title>"));
    // The loops are blocks that open and close; the comparison's '<' is escaped.
    EXPECT_THAT(html, HasSubstr("<details open><summary class=\"loop\">for (html_f.s0.y"));
    EXPECT_THAT(html, HasSubstr("&lt;"));
    size_t opened = 0, closed = 0;
    for (size_t p = html.find("<details"); p != std::string::npos; p = html.find("<details", p + 1))
        opened++;
    for (size_t p = html.find("</details>"); p != std::string::npos;
         p = html.find("</details>", p + 1))
        closed++;
    EXPECT_GE(opened, 2u);
    EXPECT_EQ(opened, closed);
}

TEST(HalideNames, PrintMisusesAreNamed) {
    Var x("x");
    EXPECT_THAT(error_of([&] { print_when(x, x, "text"); }),
                HasSubstr("print_when()'s condition must be a boolean Expr"));
    EXPECT_THAT(error_of([&] { print(Expr(std::string("hello")), x); }),
                HasSubstr("print()'s first argument is also its value"));
}

TEST(HalideNames, ABuffersTypeMayFixItsDimensionCount) {
    Buffer<uint8_t, 2> image(4, 3);
    EXPECT_EQ(image.dimensions(), 2);
    static_assert(Buffer<uint8_t, 2>::static_dimensions() == 2, "Dims is the type's");
    static_assert(!Buffer<uint8_t>::has_static_dimensions(), "AnyDims by default");
    Buffer<> any(image);
    Buffer<uint8_t, 2> back(any);
    EXPECT_EQ(back.width(), 4);
    Buffer<uint8_t> three(2, 2, 2);
    EXPECT_THAT(error_of([&] { Buffer<uint8_t, 2> wrong(three); }),
                HasSubstr("has 3 dimensions, but its type says 2"));
}

// Halide 14's Generator members with the dimension count in the type.
class FixedDimsGenerator : public Generator<FixedDimsGenerator> {
public:
    Input<Buffer<uint8_t, 2>> input{"input"};
    Input<uint8_t> offset{"offset"};
    Output<Buffer<uint8_t, 2>> brighter{"brighter"};
    Var x{"x"}, y{"y"};
    void generate() { brighter(x, y) = input(x, y) + offset; }
};
LOOM_REGISTER_GENERATOR(FixedDimsGenerator, halide_names_fixed_dims)

TEST(HalideNames, GeneratorMembersTakeTheirDimensionsFromTheType) {
    auto g = Internal::GeneratorRegistry::create("halide_names_fixed_dims");
    Pipeline p = g->build_pipeline(Target());
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 2u);
    EXPECT_EQ(args[0].dimensions, 2);
    auto *fixed = static_cast<FixedDimsGenerator *>(g.get());
    Buffer<uint8_t> in(5, 4);
    in(3, 2) = 40;
    fixed->input.set(in);
    fixed->offset.set(2);
    Buffer<uint8_t> out = p.realize({5, 4});
    EXPECT_EQ(out(3, 2), 42);
    EXPECT_EQ(out(0, 0), 2);
}

// Halide's warning for an update left unscheduled beside scheduled stages, and unscheduled().
TEST(HalideNames, AnUnscheduledUpdateBesideScheduledStagesIsWarnedAbout) {
    auto warnings_of = [](Func f) {
        std::ostringstream captured;
        std::streambuf *old = std::cerr.rdbuf(captured.rdbuf());
        f.compile_to_lowered_stmt(::testing::TempDir() + "loom_unscheduled.stmt", {});
        std::cerr.rdbuf(old);
        return captured.str();
    };
    Var x("x");
    RDom r(0, 4, "r");
    Func h("half_scheduled");
    h(x) = x;
    h(r) += 1;
    h.vectorize(x, 4);
    EXPECT_EQ(warnings_of(h),
              "Warning: Update definition 0 of function half_scheduled has not been scheduled, "
              "even though some other definitions have been. You may have forgotten to schedule "
              "it. If this was intentional, call half_scheduled.update(0).unscheduled() to "
              "suppress this warning.\n");
    h.update(0).unscheduled();
    EXPECT_EQ(warnings_of(h), "");
    Func s("scheduled_update");
    s(x) = x;
    s(r) += 1;
    s.update(0).unroll(r);
    EXPECT_THAT(error_of([&] { s.update(0).unscheduled(); }),
                HasSubstr("unscheduled() on scheduled_update.update(0), which has a schedule"));
}

// Halide's buffer constraints: an interleaved input and output (stride 3 in x, 1 in c), checked
// at entry (a planar buffer is refused, naming the constraint) and used to index the buffers;
// lifting the constraints accepts either layout.
TEST(HalideNames, BufferConstraintsAreCheckedAndIndexTheBuffers) {
    ImageParam in(UInt(8), 3, "interleaved_in");
    Var x("x"), y("y"), c("c");
    Func f("interleaved_out");
    f(x, y, c) = in(x, y, c) + cast<uint8_t>(c);
    in.dim(0).set_stride(3);
    in.dim(2).set_stride(1).set_bounds(0, 3);
    f.output_buffer().dim(0).set_stride(3);
    f.output_buffer().dim(2).set_stride(1).set_bounds(0, 3);
    f.bound(c, 0, 3).reorder(c, x, y).unroll(c).vectorize(x, 8);
    Buffer<uint8_t> input = Buffer<uint8_t>::make_interleaved(16, 4, 3);
    EXPECT_EQ(input.dim(0).stride(), 3);
    EXPECT_EQ(input.dim(2).stride(), 1);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++)
                input(i, j, k) = (uint8_t)(i + 10 * j + 50 * k);
    in.set(input);
    Buffer<uint8_t> out = Buffer<uint8_t>::make_interleaved(16, 4, 3);
    f.realize(out);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++)
                ASSERT_EQ(out(i, j, k), i + 10 * j + 51 * k) << i << "," << j;

    Buffer<uint8_t> planar(16, 4, 3);
    in.set(planar);
    EXPECT_THAT(error_of([&] { f.realize(out); }),
                HasSubstr("Input buffer interleaved_in is constrained to have stride 3 in "
                          "dimension 0, but has 1"));
    EXPECT_THAT(error_of([&] { f.output_buffer().dim(0).set_stride(Expr(1.5f)); }),
                HasSubstr("In set_stride of dimension 0 of the output buffer of interleaved_out: "
                          "give an integer Expr"));

    in.dim(0).set_stride(Expr());
    in.dim(2).set_stride(Expr());
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++)
                planar(i, j, k) = (uint8_t)(2 * i + j + 7 * k);
    f.realize(out);
    for (int j = 0; j < 4; j++)
        for (int i = 0; i < 16; i++)
            for (int k = 0; k < 3; k++)
                ASSERT_EQ(out(i, j, k), 2 * i + j + 8 * k) << i << "," << j;
}

// A specialization on the output buffer's shape (Halide's tutorial lesson 16): inside it the
// extent is known, so the loop over it unrolls; elsewhere the general loop runs.
TEST(HalideNames, ASpecializationOnTheOutputsShapeUnrollsItsLoop) {
    Func f("spec_on_output");
    Var x("x"), y("y"), c("c");
    f(x, y, c) = x * 2 + y * 7 + c * 100;
    f.specialize(f.output_buffer().dim(2).extent() == 3).reorder(c, x, y).unroll(c);
    const std::string stmt = Pipeline(f).lowered_stmt();
    // Three stores, one per channel, in the specialized branch; the loop over c in the other.
    EXPECT_THAT(stmt, HasSubstr("(spec_on_output.stride.2*2)")) << stmt;
    EXPECT_EQ(occurrences(stmt, "for (spec_on_output.s0.c"), 1) << stmt;
    for (int channels : {3, 4}) {
        Buffer<int> out(5, 2, channels);
        f.realize(out);
        for (int k = 0; k < channels; k++)
            for (int j = 0; j < 2; j++)
                for (int i = 0; i < 5; i++)
                    ASSERT_EQ(out(i, j, k), i * 2 + j * 7 + k * 100);
    }
}

// LoopLevel compares as a value (Halide 14's == and !=, is_root, is_inlined); a Pipeline names
// the buffers realize fills as Pipeline::RealizationArg.
TEST(HalideNames, LoopLevelsCompareAndPipelineNamesItsRealizationArg) {
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = x + y;
    g(x, y) = f(x, y) * 2;
    const LoopLevel at_y(g, y), at_x(g, x);
    EXPECT_TRUE(at_y == LoopLevel(g, y));
    EXPECT_TRUE(at_y != at_x);
    EXPECT_FALSE(at_y != LoopLevel(g, y));
    EXPECT_TRUE(LoopLevel::root() != LoopLevel::inlined());
    EXPECT_TRUE(LoopLevel::root().is_root() && LoopLevel::inlined().is_inlined());
    f.compute_at(at_y);
    Buffer<int> out(5, 4);
    Pipeline::RealizationArg outputs(out);
    Pipeline(g).realize(std::move(outputs));
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 5; xx++)
            EXPECT_EQ(out(xx, yy), (xx + yy) * 2);
}

// A Param's type is known from its template argument (Halide's has_static_type, static_type).
TEST(HalideNames, AParamsTypeIsStatic) {
    static_assert(Param<float>::has_static_type, "a Param's type comes from T");
    EXPECT_EQ(Param<float>::static_type(), Float(32));
    EXPECT_EQ(Param<uint16_t>::static_type(), UInt(16));
    EXPECT_EQ(Param<int8_t>("p").type(), Param<int8_t>::static_type());
}

// An ImageParam converts to a Func reading it (Halide's operator Func), the same one each time,
// which can be scheduled: computed at the root, it is a copy of the image the consumer reads.
TEST(HalideNames, AnImageParamIsAFuncOfItsImage) {
    ImageParam im(Int(32), 2, "im");
    Func as_func = im;
    EXPECT_EQ(as_func.name(), Func(im).name());
    Var x("x"), y("y");
    Func g("g");
    g(x, y) = as_func(x + 1, y) * 2 + im(x, y);
    as_func.compute_root();
    Buffer<int> in(6, 4);
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 6; xx++)
            in(xx, yy) = xx * 10 + yy;
    im.set(in);
    EXPECT_NE(Pipeline(g).lowered_stmt().find("produce im_im"), std::string::npos);
    Buffer<int> out = g.realize({5, 4});
    for (int yy = 0; yy < 4; yy++)
        for (int xx = 0; xx < 5; xx++)
            EXPECT_EQ(out(xx, yy), in(xx + 1, yy) * 2 + in(xx, yy));
}

} // namespace

namespace {

// A one-dimensional raw buffer of n floats at `host`.
loom_buffer_t float_view(float *host, int n) {
    static loom_dimension_t dims[1];
    loom_buffer_t raw{};
    raw.host = reinterpret_cast<uint8_t *>(host);
    raw.type = Float(32).to_runtime();
    raw.dimensions = 1;
    dims[0] = {0, n, 1, 0};
    raw.dim = dims;
    return raw;
}

} // namespace

// Halide's set_host_alignment: every run checks the host pointers at entry.
TEST(HalideNames, HostAlignmentIsCheckedAtEntry) {
    ImageParam in(Float(32), 1, "aligned_in");
    EXPECT_EQ(in.host_alignment(), 4);
    in.set_host_alignment(64);
    EXPECT_EQ(in.host_alignment(), 64);
    Func out("aligned_out");
    Var x("x");
    out(x) = in(x)*2.0f;
    EXPECT_EQ(out.output_buffer().host_alignment(), 4);
    out.output_buffer().set_host_alignment(32);
    EXPECT_EQ(out.output_buffer().host_alignment(), 32);

    std::vector<float> memory(64 + 64);
    float *aligned = memory.data();
    while (reinterpret_cast<uintptr_t>(aligned) % 64 != 0)
        aligned++;
    for (int i = 0; i < 33; i++)
        aligned[i] = (float)i;
    std::vector<float> results(64 + 64);
    float *aligned_out = results.data();
    while (reinterpret_cast<uintptr_t>(aligned_out) % 64 != 0)
        aligned_out++;

    in.set(Buffer<float>(float_view(aligned, 16)));
    out.realize(Buffer<float>(float_view(aligned_out, 16)));
    for (int i = 0; i < 16; i++)
        EXPECT_EQ(aligned_out[i], 2.0f * i);

    in.set(Buffer<float>(float_view(aligned + 1, 16)));
    const std::string input_error = error_of([&] { out.realize({16}); });
    EXPECT_NE(input_error.find("Input buffer aligned_in has the host pointer"), std::string::npos)
        << input_error;
    EXPECT_NE(input_error.find("which is not aligned to 64 bytes"), std::string::npos)
        << input_error;
    in.set(Buffer<float>(float_view(aligned, 16)));
    const std::string output_error =
        error_of([&] { out.realize(Buffer<float>(float_view(aligned_out + 4, 16))); });
    EXPECT_NE(output_error.find("Output buffer aligned_out has the host pointer"),
              std::string::npos)
        << output_error;
    EXPECT_NE(output_error.find("not aligned to 32 bytes"), std::string::npos) << output_error;
    EXPECT_THROW(in.set_host_alignment(24), loom::Error);
}
