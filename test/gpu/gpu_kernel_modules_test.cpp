// Kernels as the device sees them: the CUDA modules a pipeline loads (unloaded with its code),
// its dense vector accesses made 8 and 16 bytes wide (ld.global.v4) where a launch-time
// check proves them aligned, per lane where it does not, and the stream its work goes on. The PTX
// is checked on any machine; runs need an NVIDIA driver and skip with the reason where none is
// present. Outputs are checked element by element against plain C++.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <dlfcn.h>

#include "CudaTest.h"
#include "loom.h"

using namespace loom;

namespace {

using loom_test::cuda_target;

// Each thread 4 consecutive columns of a row as one vector, as the pointwise apps schedule.
void schedule_rows_of_vectors(Func f) {
    Var x = f.args()[0], y = f.args()[1], bx("bx"), xo("xo"), tx("tx"), v("v");
    f.split(x, xo, v, 4).split(xo, bx, tx, 64, TailStrategy::GuardWithIf).reorder(v, tx, bx, y);
    f.vectorize(v).gpu_threads(tx).gpu_blocks(bx, y);
}

// The PTX text of kernel `kernel` in the host module's IR (where it is a string constant).
std::string kernel_ptx(const std::string &ir, const std::string &kernel) {
    const size_t start = ir.find(".entry " + kernel + "(");
    if (start == std::string::npos) return "";
    const size_t end = ir.find(".entry ", start + 1);
    return ir.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

int count_of(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

struct SumOfTwo {
    ImageParam a{Float(32), 2, "a"}, b{Float(32), 2, "b"};
    Func f{"f"};
    Var x{"x"}, y{"y"};
    explicit SumOfTwo(int a_offset) {
        f(x, y) = a(x + a_offset, y) + b(x, y) * 2.0f;
        schedule_rows_of_vectors(f);
    }
};

float value_at(int x, int y, int seed) {
    return float((x * 7 + y * 13 + seed) % 101) * 0.5f - 9.0f;
}

Buffer<float> filled(int w, int h, int seed, int x_min = 0) {
    Buffer<float> b(w, h);
    b.set_min(x_min, 0);
    for (int y = 0; y < h; y++)
        for (int x = x_min; x < x_min + w; x++)
            b(x, y) = value_at(x, y, seed);
    return b;
}

// ---- PTX, on any machine -------------------------------------------------------------------

TEST(GPUWideAccess, DenseRowsGetSixteenByteAccessesInAKernelOfTheirOwn) {
    SumOfTwo p(0);
    const std::string ir = Pipeline(p.f).llvm_ir(cuda_target());
    const std::string narrow = kernel_ptx(ir, "loom_kernel_0_f_s0_y");
    const std::string wide = kernel_ptx(ir, "loom_kernel_0_f_s0_y_wide");
    ASSERT_FALSE(narrow.empty()) << ir.substr(0, 3000);
    ASSERT_FALSE(wide.empty()) << ir.substr(0, 3000);
    EXPECT_EQ(count_of(wide, "ld.global.v4.f32"), 2) << wide;
    EXPECT_EQ(count_of(wide, "st.global.v4.f32"), 1) << wide;
    EXPECT_EQ(count_of(wide, "ld.global.f32"), 0) << wide;
    // The kernel launched where a check fails reads and writes lane by lane.
    EXPECT_EQ(count_of(narrow, ".v4."), 0) << narrow;
    EXPECT_EQ(count_of(narrow, "ld.global.f32"), 8) << narrow;
}

TEST(GPUWideAccess, AnInputReadOneElementOverKeepsItsLoadsPerLane) {
    SumOfTwo p(1);
    const std::string ir = Pipeline(p.f).llvm_ir(cuda_target());
    const std::string wide = kernel_ptx(ir, "loom_kernel_0_f_s0_y_wide");
    ASSERT_FALSE(wide.empty()) << ir.substr(0, 3000);
    EXPECT_EQ(count_of(wide, "ld.global.v4.f32"), 1) << wide; // b
    EXPECT_EQ(count_of(wide, "ld.global.f32"), 4) << wide;    // a(x + 1 .. x + 4)
    EXPECT_EQ(count_of(wide, "st.global.v4.f32"), 1) << wide;
}

TEST(GPUWideAccess, EightByteVectorsOfHalfWidthElements) {
    ImageParam in(UInt(16), 2, "in");
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = in(x, y) / 3 + 1;
    schedule_rows_of_vectors(f);
    const std::string ir = Pipeline(f).llvm_ir(cuda_target());
    const std::string wide = kernel_ptx(ir, "loom_kernel_0_f_s0_y_wide");
    ASSERT_FALSE(wide.empty()) << ir.substr(0, 3000);
    EXPECT_EQ(count_of(wide, "ld.global.v4.u16"), 1) << wide;
    EXPECT_EQ(count_of(wide, "st.global.v4.u16"), 1) << wide;
}

TEST(GPUWideAccess, KernelsWithoutVectorsHaveNoWideKernel) {
    ImageParam in(Float(32), 2, "in");
    Func f("f");
    Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
    f(x, y) = in(x, y) * 3.0f;
    f.gpu_tile(x, y, bx, by, tx, ty, 32, 8);
    const std::string ir = Pipeline(f).llvm_ir(cuda_target());
    EXPECT_NE(ir.find(".entry loom_kernel_0_"), std::string::npos);
    EXPECT_EQ(ir.find("_wide("), std::string::npos) << ir.substr(0, 3000);
}

// ---- on the device ---------------------------------------------------------------------------

// Which kernel ran is seen in the modules loaded: each kernel's module loads at its first
// launch. Aligned buffers take the wide kernel; a width of 1022 (the last vector of a row
// starts at 1018), an input whose rows start a column before the output's, or whose row stride
// is odd, take the narrow one; every run's values equal C++'s.
TEST(GPUWideAccess, TheLaunchCheckPicksTheKernelAndBothGiveTheSameValues) {
    REQUIRE_CUDA();
    SumOfTwo p(0);
    Pipeline pipeline(p.f);
    // a_x_min <= 0: the input's rows start that many columns before the output's.
    auto run = [&](int w, int h, int a_x_min, const char *what) {
        Buffer<float> a = filled(w - a_x_min, h, 1, a_x_min), b = filled(w, h, 2);
        p.a.set(a);
        p.b.set(b);
        Buffer<float> out(w, h);
        pipeline.realize(out, cuda_target());
        out.copy_to_host();
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++)
                ASSERT_EQ(out(x, y), a(x, y) + b(x, y) * 2.0f) << what << " at " << x << ", " << y;
    };
    const int64_t before = loom_cuda_loaded_module_count();
    run(1024, 9, 0, "aligned");
    EXPECT_EQ(loom_cuda_loaded_module_count() - before, 1) << "the wide kernel only";
    run(1022, 9, 0, "width 1022");
    EXPECT_EQ(loom_cuda_loaded_module_count() - before, 2) << "the narrow kernel too";
    run(512, 5, 0, "aligned again");
    EXPECT_EQ(loom_cuda_loaded_module_count() - before, 2) << "no new module";
    run(512, 5, -1, "input rows from column -1");

    // A row stride of 1027 floats: a crop of a wider buffer, whose rows start at odd floats.
    Buffer<float> wide_a = filled(1027, 6, 3), b = filled(1024, 6, 4);
    Buffer<float> a = wide_a.cropped(0, 0, 1024);
    p.a.set(a);
    p.b.set(b);
    Buffer<float> out(1024, 6);
    pipeline.realize(out, cuda_target());
    out.copy_to_host();
    for (int y = 0; y < 6; y++)
        for (int x = 0; x < 1024; x++)
            ASSERT_EQ(out(x, y), a(x, y) + b(x, y) * 2.0f) << "odd stride at " << x << ", " << y;
}

// A pipeline's kernels are loaded into CUDA modules at their first launch and unloaded when its
// code is freed (the Pipeline and its Funcs gone), so a program that builds pipelines again
// and again does not fill the device with modules.
TEST(GPUModules, AKernelsModuleIsUnloadedWithItsPipeline) {
    REQUIRE_CUDA();
    const int64_t before = loom_cuda_loaded_module_count();
    for (int round = 0; round < 6; round++) {
        {
            Func g("g"), h("h");
            Var x("x"), bx("bx"), tx("tx");
            g(x) = x * 3 + round;
            h(x) = g(x) + g(x + 1);
            g.compute_root().gpu_tile(x, bx, tx, 32);
            h.gpu_tile(x, bx, tx, 64);
            Pipeline p(h);
            Buffer<int> out(1000);
            p.realize(out, cuda_target());
            p.realize(out, cuda_target());
            out.copy_to_host();
            for (int i = 0; i < 1000; i++)
                ASSERT_EQ(out(i), (i * 3 + round) + ((i + 1) * 3 + round)) << "at " << i;
            EXPECT_EQ(loom_cuda_loaded_module_count() - before, 2) << "round " << round;
        }
        EXPECT_EQ(loom_cuda_loaded_module_count(), before) << "round " << round;
    }
}

// ---- streams ---------------------------------------------------------------------------------

// The few driver entry points the stream tests call themselves, from the process's libcuda.
struct TestDriver {
    using Stream = void *;
    int (*cuCtxSetCurrent)(void *);
    int (*cuStreamCreate)(Stream *, unsigned);
    int (*cuStreamDestroy)(Stream);
    int (*cuStreamSynchronize)(Stream);
    int (*cuModuleLoadData)(void **, const void *);
    int (*cuModuleGetFunction)(void **, void *, const char *);
    int (*cuLaunchKernel)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          unsigned, Stream, void **, void **);
    TestDriver() {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) throw std::runtime_error("libcuda.so.1 did not load");
        auto get = [lib](auto &fn, const char *name) {
            fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(dlsym(lib, name));
            if (!fn) throw std::runtime_error(std::string("libcuda has no ") + name);
        };
        get(cuCtxSetCurrent, "cuCtxSetCurrent");
        get(cuStreamCreate, "cuStreamCreate");
        get(cuStreamDestroy, "cuStreamDestroy_v2");
        get(cuStreamSynchronize, "cuStreamSynchronize");
        get(cuModuleLoadData, "cuModuleLoadData");
        get(cuModuleGetFunction, "cuModuleGetFunction");
        get(cuLaunchKernel, "cuLaunchKernel");
    }
};

// One thread: waits `ns` nanoseconds of the GPU's clock, then stores `value` at `p`.
const char *const kWaitThenStorePTX = R"(
.version 7.0
.target sm_70
.address_size 64
.visible .entry wait_then_store(.param .u64 p, .param .u64 ns, .param .u32 value)
{
    .reg .pred %later;
    .reg .b64 %start, %now, %waited, %limit, %address;
    .reg .b32 %v;
    ld.param.u64 %address, [p];
    ld.param.u64 %limit, [ns];
    ld.param.u32 %v, [value];
    mov.u64 %start, %globaltimer;
WAIT:
    mov.u64 %now, %globaltimer;
    sub.u64 %waited, %now, %start;
    setp.lt.u64 %later, %waited, %limit;
    @%later bra WAIT;
    cvta.to.global.u64 %address, %address;
    st.global.u32 [%address], %v;
    ret;
}
)";

// A run's kernels and copies go on the stream its handler gives: the stream (created
// non-blocking, so the default stream does not wait for it) first waits 50 ms and then stores
// a value into the input's device copy; a run on that stream reads the value, since its kernel
// runs after that work. Both Halide's per-run JITHandlers::custom_cuda_get_stream and the
// process-wide handler (an ahead-of-time library's) are followed; a failing handler's code is
// reported.
TEST(GPUStreams, ARunsKernelsAndCopiesGoOnTheStreamItsHandlerGives) {
    REQUIRE_CUDA();
    TestDriver cu;
    ASSERT_EQ(cu.cuCtxSetCurrent(loom_cuda_primary_context()), 0);
    void *stream = nullptr, *module = nullptr, *wait_then_store = nullptr;
    ASSERT_EQ(cu.cuStreamCreate(&stream, /*CU_STREAM_NON_BLOCKING*/ 1), 0);
    ASSERT_EQ(cu.cuModuleLoadData(&module, kWaitThenStorePTX), 0);
    ASSERT_EQ(cu.cuModuleGetFunction(&wait_then_store, module, "wait_then_store"), 0);

    const int n = 256;
    Buffer<int> input(n);
    for (int i = 0; i < n; i++)
        input(i) = i;
    ImageParam in(Int(32), 1, "in");
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = in(x)*2;
    f.gpu_tile(x, bx, tx, 64);
    in.set(input);
    Pipeline p(f);
    Buffer<int> out(n);
    p.realize(out, cuda_target()); // input's device copy made, on the default stream
    out.copy_to_host();
    for (int i = 0; i < n; i++)
        ASSERT_EQ(out(i), 2 * i);

    auto store_later_on_stream = [&](uint32_t value) {
        uint64_t address = input.raw_buffer()->device, ns = 50'000'000;
        void *args[] = {&address, &ns, &value};
        ASSERT_EQ(cu.cuLaunchKernel(wait_then_store, 1, 1, 1, 1, 1, 1, 0, stream, args, nullptr),
                  0);
    };
    struct StreamContext : JITUserContext {
        void *stream = nullptr;
    } context;
    context.stream = stream;
    context.handlers.custom_cuda_get_stream = [](JITUserContext *c, void *, void **s) {
        *s = static_cast<StreamContext *>(c)->stream;
        return 0;
    };
    store_later_on_stream(1000);
    p.realize(&context, out, cuda_target());
    out.copy_to_host();
    EXPECT_EQ(out(0), 2000) << "the run's kernel did not wait for the stream's earlier work";
    for (int i = 1; i < n; i++)
        ASSERT_EQ(out(i), 2 * i);

    // The process-wide handler, as an ahead-of-time library's runs use it.
    static void *process_stream = nullptr;
    process_stream = stream;
    loom_cuda_stream_handler_t previous =
        loom_cuda_set_stream_handler([](void *, void *, void **s) -> int32_t {
            *s = process_stream;
            return 0;
        });
    store_later_on_stream(3000);
    p.realize(out, cuda_target());
    out.copy_to_host();
    EXPECT_EQ(out(0), 6000) << "the process handler's stream was not used";
    loom_cuda_set_stream_handler(previous);

    // A handler that fails stops the run with its code.
    context.handlers.custom_cuda_get_stream = [](JITUserContext *, void *, void **) { return -7; };
    try {
        p.realize(&context, out, cuda_target());
        ADD_FAILURE() << "a failing custom_cuda_get_stream was ignored";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("custom_cuda_get_stream returned -7"),
                  std::string::npos)
            << e.what();
    }
    EXPECT_EQ(cu.cuStreamSynchronize(stream), 0);
    EXPECT_EQ(cu.cuStreamDestroy(stream), 0);
}

// Device memory a run on one stream freed, reused by a run on another: the second run's work
// waits for the first's on the device (an event), so values stay right with no host wait.
TEST(GPUStreams, MemoryFreedOnOneStreamIsReusedSafelyOnAnother) {
    REQUIRE_CUDA();
    TestDriver cu;
    ASSERT_EQ(cu.cuCtxSetCurrent(loom_cuda_primary_context()), 0);
    void *streams[2] = {nullptr, nullptr};
    for (void *&s : streams)
        ASSERT_EQ(cu.cuStreamCreate(&s, 1), 0);
    // g is a GPU intermediate: its device memory is freed at the end of each run and kept.
    const int n = 1 << 20;
    ImageParam in(Float(32), 1, "in");
    Func g("g"), h("h");
    Var x("x"), bx("bx"), tx("tx");
    g(x) = in(x)*3.0f + 1.0f;
    h(x) = g(x) - in(x);
    g.compute_root().gpu_tile(x, bx, tx, 128);
    h.gpu_tile(x, bx, tx, 128);
    Buffer<float> input(n);
    for (int i = 0; i < n; i++)
        input(i) = float(i % 1000) * 0.25f;
    in.set(input);
    Pipeline p(h);
    struct StreamContext : JITUserContext {
        void *stream = nullptr;
    };
    auto on = [](void *s) {
        StreamContext c;
        c.stream = s;
        c.handlers.custom_cuda_get_stream = [](JITUserContext *ctx, void *, void **out) {
            *out = static_cast<StreamContext *>(ctx)->stream;
            return 0;
        };
        return c;
    };
    const DeviceMemoryStats before = device_memory_stats();
    for (int run = 0; run < 6; run++) {
        StreamContext c = on(streams[run % 2]);
        Buffer<float> out(n);
        p.realize(&c, out, cuda_target());
        out.copy_to_host();
        for (int i = 0; i < n; i += 997)
            ASSERT_EQ(out(i), (input(i) * 3.0f + 1.0f) - input(i)) << "run " << run << " at " << i;
    }
    EXPECT_GE(device_memory_stats().reuses - before.reuses, 5);
    for (void *s : streams)
        EXPECT_EQ(cu.cuStreamDestroy(s), 0);
}

// Halide's CUDA context hooks (Loom's runtime owns the context) are refused, naming the hook
// that orders a run with the caller's work.
TEST(GPUStreams, TheContextHooksAreRefusedNamingTheStreamHook) {
    JITUserContext context;
    context.handlers.custom_cuda_acquire_context = [](JITUserContext *, void **, bool) {
        return 0;
    };
    Func f("f");
    Var x("x"), bx("bx"), tx("tx");
    f(x) = x;
    f.gpu_tile(x, bx, tx, 32);
    Buffer<int> out(64);
    try {
        Pipeline(f).realize(&context, out, cuda_target());
        ADD_FAILURE() << "custom_cuda_acquire_context was accepted";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("custom_cuda_acquire_context"), std::string::npos)
            << e.what();
        EXPECT_NE(std::string(e.what()).find("custom_cuda_get_stream"), std::string::npos)
            << e.what();
    }
}

} // namespace
