// Ahead-of-time libraries built by loom_add_library from the Generators of app_generators.cpp:
// each must give exactly the bytes the JIT gives for the same algorithm and schedule, in a C++
// program (this test) and in a C program that links nothing else from Loom
// (aot_c_program.c, run from here); every misuse must return its error code with a message.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <loom.h>

#include "aot_inputs.h"
#include "apps/common/App.h"
#include "bilateral_grid_aot.h"
#include "blur_aot.h"
#include "blur_auto_aot.h"
#include "blur_auto_aot.schedule.h"
#include "blur_baseline_aot.h"
#include "blur_gpu_aot.h"
#include "blur_multi_aot.h"
#include "blur_unfused_aot.h"
#include "extern_rows_aot.h"
#include "gamma_lut_aot.h"

namespace loom_apps {
namespace blur_jit {
using namespace loom;
#include "apps/blur/blur.inc"
} // namespace blur_jit
namespace bilateral_grid_jit {
using namespace loom;
#include "apps/bilateral_grid/bilateral_grid.inc"
} // namespace bilateral_grid_jit
} // namespace loom_apps

// The extern stage of extern_rows_aot: out(x, y) = in(x, y - 1) + in(x, y) + in(x, y + 1) + k.
static int aot_row_sums_calls = 0;
extern "C" int loom_aot_row_sums(loom_buffer_t *in, int k, loom_buffer_t *out) {
    if (in->is_bounds_query()) {
        in->dim[0] = {out->dim[0].min, out->dim[0].extent, 0, 0};
        in->dim[1] = {out->dim[1].min - 1, out->dim[1].extent + 2, 0, 0};
        return 0;
    }
    aot_row_sums_calls++;
    auto at = [](loom_buffer_t *b, int x, int y) -> int32_t & {
        return ((int32_t *)b->host)[(x - b->dim[0].min) * b->dim[0].stride +
                                    (y - b->dim[1].min) * b->dim[1].stride];
    };
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++)
            at(out, x, y) = at(in, x, y - 1) + at(in, x, y) + at(in, x, y + 1) + k;
    }
    return 0;
}

namespace {

using loom::Buffer;
using loom_apps::Variant;

Buffer<uint16_t> blur_input() {
    Buffer<uint16_t> in(kBlurWidth, kBlurHeight);
    for (int y = 0; y < kBlurHeight; y++) {
        for (int x = 0; x < kBlurWidth; x++)
            in(x, y) = aot_blur_input(x, y);
    }
    return in;
}

Buffer<uint16_t> blur_output() {
    Buffer<uint16_t> out(kBlurWidth - 2, kBlurHeight - 2);
    out.set_min(1, 1);
    std::memset(out.data(), 0xA5, out.number_of_elements() * sizeof(uint16_t));
    return out;
}

Buffer<uint16_t> blur_with_jit(const Buffer<uint16_t> &in) {
    loom_apps::blur_jit::BlurPipeline p(Variant::Hand);
    p.input.set(in);
    Buffer<uint16_t> out = blur_output();
    loom::Pipeline(p.outputs()).realize(out);
    return out;
}

Buffer<float> grid_input() {
    Buffer<float> in(kGridWidth, kGridHeight);
    for (int y = 0; y < kGridHeight; y++) {
        for (int x = 0; x < kGridWidth; x++)
            in(x, y) = aot_grid_input(x, y);
    }
    return in;
}

Buffer<float> grid_with_jit(const Buffer<float> &in) {
    loom_apps::bilateral_grid_jit::BilateralGridPipeline p(Variant::Hand);
    p.input.set(in);
    Buffer<float> out(kGridWidth, kGridHeight);
    loom::Pipeline(p.outputs()).realize(out);
    return out;
}

template <typename T> uint64_t checksum(const Buffer<T> &b) {
    return aot_fnv1a(b.data(), b.number_of_elements() * sizeof(T));
}

template <typename T> bool same_bytes(const Buffer<T> &a, const Buffer<T> &b) {
    return a.number_of_elements() == b.number_of_elements() &&
           std::memcmp(a.data(), b.data(), a.number_of_elements() * sizeof(T)) == 0;
}

using BlurFn = int32_t (*)(loom_buffer_t *, loom_buffer_t *);

TEST(AheadOfTime, EveryBlurLibraryGivesTheJITsBytes) {
    Buffer<uint16_t> in = blur_input();
    Buffer<uint16_t> expected = blur_with_jit(in);
    const std::pair<const char *, BlurFn> libraries[] = {
        {"blur_aot (host, hand schedule)", blur_aot},
        {"blur_unfused_aot (host, unfused schedule)", blur_unfused_aot},
        {"blur_multi_aot (AVX-512, AVX2, baseline)", blur_multi_aot},
        {"blur_baseline_aot (x86-64 baseline only)", blur_baseline_aot},
    };
    for (const auto &[name, fn] : libraries) {
        Buffer<uint16_t> out = blur_output();
        EXPECT_EQ(fn(in.raw_buffer(), out.raw_buffer()), 0) << name;
        EXPECT_TRUE(same_bytes(out, expected)) << name;
    }
}

// A Generator run with auto_schedule=true (and -e schedule): its library gives the hand
// schedule's bytes, and the schedule header it wrote, applied to the same algorithm in the JIT,
// schedules it as auto-scheduling it here with the Generator's estimates and machine does.
TEST(AheadOfTime, AutoScheduledLibraryAndItsScheduleHeaderAgreeWithTheJIT) {
    Buffer<uint16_t> in = blur_input();
    Buffer<uint16_t> expected = blur_with_jit(in);
    Buffer<uint16_t> out = blur_output();
    EXPECT_EQ(blur_auto_aot(in.raw_buffer(), out.raw_buffer()), 0);
    EXPECT_TRUE(same_bytes(out, expected));

    loom_apps::blur_jit::BlurPipeline applied(Variant::Auto);
    loom::Pipeline p(applied.outputs());
    apply_schedule_blur_auto_aot(p, loom::get_host_target());
    loom_apps::blur_jit::BlurPipeline scheduled(Variant::Auto);
    scheduled.input.set_estimates({{0, 1536}, {0, 2560}});
    scheduled.outputs()[0].set_estimates({{0, 1534}, {0, 2558}});
    loom::Pipeline q(scheduled.outputs());
    q.auto_schedule(loom::get_host_target(), loom::MachineParams::generic());
    EXPECT_EQ(p.lowered_stmt(), q.lowered_stmt());
    // Not the default schedule: the strips run in parallel.
    EXPECT_NE(p.lowered_stmt().find("parallel"), std::string::npos);

    applied.input.set(in);
    Buffer<uint16_t> jit_out = blur_output();
    p.realize(jit_out);
    EXPECT_TRUE(same_bytes(jit_out, expected));
}

// A library compiled for host-cuda: its kernels' PTX is inside, and the runtime it carries
// loads the driver. Where there is none, the call fails with the device error code.
TEST(AheadOfTime, BlurGPULibraryGivesTheJITsBytes) {
    Buffer<uint16_t> in = blur_input();
    Buffer<uint16_t> out = blur_output();
    char why[512] = {0};
    if (!loom_cuda_available(why, sizeof(why))) {
        EXPECT_EQ(blur_gpu_aot(in.raw_buffer(), out.raw_buffer()), loom_code_device_error);
        GTEST_SKIP() << "no CUDA device to run blur_gpu_aot: " << why;
    }
    Buffer<uint16_t> expected = blur_with_jit(in);
    ASSERT_EQ(blur_gpu_aot(in.raw_buffer(), out.raw_buffer()), 0);
    EXPECT_TRUE(out.device_dirty());
    out.copy_to_host();
    EXPECT_TRUE(same_bytes(out, expected));
}

TEST(AheadOfTime, BilateralGridLibraryGivesTheJITsBytes) {
    Buffer<float> in = grid_input();
    Buffer<float> expected = grid_with_jit(in);
    Buffer<float> out(kGridWidth, kGridHeight);
    EXPECT_EQ(bilateral_grid_aot(in.raw_buffer(), out.raw_buffer()), 0);
    EXPECT_TRUE(same_bytes(out, expected));
}

TEST(AheadOfTime, CProgramGivesTheJITsBytesAndEveryErrorCode) {
    // The C program prints "name value" lines; its checksums must be the JIT's.
    std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(LOOM_AOT_C_PROGRAM " 2>/dev/null", "r"),
                                                pclose);
    ASSERT_TRUE(pipe) << "can't run " << LOOM_AOT_C_PROGRAM;
    std::string output;
    std::array<char, 256> line;
    while (std::fgets(line.data(), line.size(), pipe.get()))
        output += line.data();
    int status = pclose(pipe.release());
    EXPECT_EQ(status, 0) << output;

    char blur_sum[32], grid_sum[32];
    std::snprintf(blur_sum, sizeof blur_sum, "%016llx",
                  (unsigned long long)checksum(blur_with_jit(blur_input())));
    std::snprintf(grid_sum, sizeof grid_sum, "%016llx",
                  (unsigned long long)checksum(grid_with_jit(grid_input())));
    EXPECT_NE(output.find(std::string("blur_checksum ") + blur_sum), std::string::npos) << output;
    EXPECT_NE(output.find(std::string("bilateral_grid_checksum ") + grid_sum), std::string::npos)
        << output;
    for (const char *expected : {"null_buffer -4", "wrong_type -4", "wrong_dimensions -4",
                                 "input_too_small -2", "messages 4"}) {
        EXPECT_NE(output.find(expected), std::string::npos) << expected << "\n" << output;
    }
}

// Every misuse returns its code and passes one message, naming the argument, to the handler.
std::vector<std::string> messages;
void record_message(void *, const char *message) { messages.push_back(message); }

struct Misuse {
    const char *what;
    int32_t code;
    const char *message_part;
};

TEST(AheadOfTime, MisusesReturnTheirErrorCodeWithAMessage) {
    Buffer<uint16_t> in = blur_input();
    Buffer<uint16_t> out = blur_output();
    loom_error_handler_t previous = loom_set_error_handler(record_message);

    loom_buffer_t in_raw = *in.raw_buffer(), out_raw = *out.raw_buffer();
    std::vector<std::pair<Misuse, std::function<int32_t()>>> cases;
    cases.push_back({{"NULL output", loom_code_bad_buffer, "is NULL"},
                     [&] { return blur_aot(&in_raw, nullptr); }});
    cases.push_back({{"NULL host", loom_code_bad_buffer, "NULL host pointer"}, [&] {
                         loom_buffer_t b = in_raw;
                         b.host = nullptr;
                         return blur_aot(&b, &out_raw);
                     }});
    cases.push_back({{"float output", loom_code_bad_buffer, "wrong element type code"}, [&] {
                         loom_buffer_t b = out_raw;
                         b.type.code = loom_type_float;
                         return blur_aot(&in_raw, &b);
                     }});
    cases.push_back({{"1-D input", loom_code_bad_buffer, "wrong number of dimensions"}, [&] {
                         loom_buffer_t b = in_raw;
                         b.dimensions = 1;
                         return blur_aot(&b, &out_raw);
                     }});
    cases.push_back({{"NULL dim", loom_code_bad_buffer, "NULL dim array"}, [&] {
                         loom_buffer_t b = in_raw;
                         b.dim = nullptr;
                         return blur_aot(&b, &out_raw);
                     }});
    cases.push_back({{"odd host pointer", loom_code_bad_buffer, "multiple of its element size"}, [&] {
                         loom_buffer_t b = in_raw; // 16-bit elements, one byte in
                         b.host += 1;
                         return blur_aot(&b, &out_raw);
                     }});
    loom_dimension_t short_rows[2] = {in_raw.dim[0], in_raw.dim[1]};
    short_rows[1].extent -= 1; // the last row the blur reads is missing
    cases.push_back({{"input too small", loom_code_out_of_bounds, "input"}, [&] {
                         loom_buffer_t b = in_raw;
                         b.dim = short_rows;
                         return blur_aot(&b, &out_raw);
                     }});
    loom_dimension_t strided[2] = {in_raw.dim[0], in_raw.dim[1]};
    strided[0].stride = 2;
    strided[0].extent /= 2;
    cases.push_back({{"input not dense", loom_code_generic_error, "dense"}, [&] {
                         loom_buffer_t b = in_raw;
                         b.dim = strided;
                         return blur_aot(&b, &out_raw);
                     }});
    for (auto &[misuse, call] : cases) {
        messages.clear();
        EXPECT_EQ(call(), misuse.code) << misuse.what;
        ASSERT_EQ(messages.size(), 1u) << misuse.what;
        EXPECT_NE(messages[0].find(misuse.message_part), std::string::npos)
            << misuse.what << ": " << messages[0];
        EXPECT_NE(messages[0].find(misuse.code == loom_code_bad_buffer ? "blur_aot" : "input"),
                  std::string::npos)
            << misuse.what << ": " << messages[0];
    }
    loom_set_error_handler(previous);
}

} // namespace

namespace {

// A Buffer the pipeline reads (the generator's table) is embedded in the library: the C
// function takes the input and the output only, and reads the table's elements as they were
// when the library was built (the generator's formula, repeated here).
// A 2-D buffer over `host` with the given element type and dimensions.
loom_buffer_t buffer_2d(void *host, loom_type_t type, loom_dimension_t *dims) {
    loom_buffer_t b{};
    b.host = (uint8_t *)host;
    b.type = type;
    b.dimensions = 2;
    b.dim = dims;
    return b;
}

TEST(AheadOfTime, ABufferThePipelineReadsIsEmbeddedInTheLibrary) {
    const int w = 37, h = 5;
    std::vector<uint8_t> in(w * h);
    for (int i = 0; i < w * h; i++)
        in[i] = (uint8_t)(i * 53 + 11);
    std::vector<uint16_t> out(w * h, 0);
    loom_dimension_t in_dims[2] = {{0, w, 1, 0}, {0, h, w, 0}};
    loom_dimension_t out_dims[2] = {{0, w, 1, 0}, {0, h, w, 0}};
    loom_buffer_t in_buf = buffer_2d(in.data(), {1, 8, 1}, in_dims);
    loom_buffer_t out_buf = buffer_2d(out.data(), {1, 16, 1}, out_dims);
    int32_t (*fn)(loom_buffer_t *, loom_buffer_t *) = gamma_lut_aot; // two parameters: no table
    ASSERT_EQ(fn(&in_buf, &out_buf), 0);
    auto entry = [](int i) { return (uint16_t)(i < 0 ? 7 : (i * i * 3) / 17 + i); };
    for (int i = 0; i < w * h; i++)
        ASSERT_EQ(out[i], (uint16_t)(entry(in[i]) + entry(-1))) << i;
}

// An extern stage in a library: the library calls loom_aot_row_sums (defined below, as a
// program using such a library defines it), first to ask which rows of its input it reads,
// then once per row of the output.
TEST(AheadOfTime, AnExternStageIsCalledByTheLibrary) {
    const int w = 9, h = 6;
    std::vector<int32_t> in(w * (h + 2)), out(w * h, 0);
    for (int i = 0; i < (int)in.size(); i++)
        in[i] = i * 7 % 23;
    // The input covers rows -1 .. h: the stage reads a row above and one below.
    loom_dimension_t in_dims[2] = {{0, w, 1, 0}, {-1, h + 2, w, 0}};
    loom_dimension_t out_dims[2] = {{0, w, 1, 0}, {0, h, w, 0}};
    loom_buffer_t in_buf = buffer_2d(in.data(), {0, 32, 1}, in_dims);
    loom_buffer_t out_buf = buffer_2d(out.data(), {0, 32, 1}, out_dims);
    aot_row_sums_calls = 0;
    ASSERT_EQ(extern_rows_aot(&in_buf, &out_buf), 0);
    EXPECT_EQ(aot_row_sums_calls, h);
    auto input = [&](int x, int y) { return in[(y + 1) * w + x] + 1; };
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            const int want = (input(x, y - 1) + input(x, y) + input(x, y + 1) + 10) * 2;
            ASSERT_EQ(out[y * w + x], want) << x << ", " << y;
        }
    }
}

} // namespace
