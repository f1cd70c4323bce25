// The heuristic auto-scheduler and the autotuner for a CUDA target: which Funcs become kernels
// and how (checked in the lowered loop nest and the PTX, on any machine), and, where a GPU is,
// outputs bit-identical to the same pipeline unscheduled on the CPU, for the heuristic's
// schedule and for every GPU block shape the knobs allow.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "CudaTest.h"
#include "loom.h"
#include "lower/autoschedule/Heuristic.h"

using namespace loom;

namespace {

using loom_test::cuda_target;

template <typename T> Buffer<T> pattern(std::vector<int> sizes, int seed) {
    Buffer<T> b(sizes);
    uint32_t s = 2654435761u * uint32_t(seed + 1);
    b.for_each_position([&](const std::vector<int> &pos) {
        s = s * 1664525u + 1013904223u;
        if constexpr (std::is_floating_point_v<T>) {
            b(pos) = T(int(s >> 8) % 2001 - 1000) / T(64);
        } else {
            b(pos) = T(s >> 13);
        }
    });
    return b;
}

/** A pipeline built afresh each call (Funcs carry their schedules): its output Func and the
 * region it is realized over. */
struct Case {
    std::string name;
    std::function<Func()> build;
    std::vector<int> sizes;
};

// Each case's input buffers live as long as the process: the builders read them.
const Buffer<uint16_t> &image16() {
    static const Buffer<uint16_t> b = pattern<uint16_t>({203, 77}, 1);
    return b;
}
const Buffer<float> &matrix_a() {
    static const Buffer<float> b = pattern<float>({37, 45}, 2);
    return b;
}
const Buffer<float> &matrix_b() {
    static const Buffer<float> b = pattern<float>({70, 37}, 3);
    return b;
}
const Buffer<float> &volume() {
    static const Buffer<float> b = pattern<float>({19, 6, 5, 4}, 4);
    return b;
}

Func blur() {
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(image16());
    Func bx("bx"), by("by");
    bx(x, y) =
        cast<uint16_t>((cast<uint32_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
    by(x, y) = cast<uint16_t>((cast<uint32_t>(bx(x, y - 1)) + bx(x, y) + bx(x, y + 1)) / 3);
    by.set_estimates({{0, 203}, {0, 77}});
    return by;
}

// A product with a bias and relu: a reduction (its RVar inside each thread) and an epilogue.
Func matmul() {
    Var x("x"), y("y");
    RDom k(0, 37, "k");
    Func prod("prod"), out("out");
    prod(x, y) = 0.0f;
    prod(x, y) = fma(matrix_a()(k, y), matrix_b()(x, k), prod(x, y));
    out(x, y) = max(prod(x, y) + 0.5f, 0.0f);
    out.set_estimates({{0, 70}, {0, 45}});
    return out;
}

// A scan along x (each point reads the one before it): only y runs in parallel.
Func scan() {
    Var x("x"), y("y");
    RDom r(1, 202, "r");
    Func s("s"), out("out");
    s(x, y) = cast<int32_t>(image16()(x, y));
    s(r, y) = s(r - 1, y) + s(r, y) * 3;
    out(x, y) = s(x, y) ^ 0x55;
    out.set_estimates({{0, 203}, {0, 77}});
    return out;
}

// A stage calling sin (no GPU version) between two that can run on the GPU.
Func with_sine() {
    Var x("x"), y("y");
    Func a("a"), b("b"), c("c");
    a(x, y) = matrix_b()(x, y) * 1.5f + 2.0f;
    b(x, y) = sin(a(x, y)) + a(x, y + 1) * sin(a(x + 1, y));
    c(x, y) = b(x, y) * b(x + 1, y) + b(x, y) * 0.25f;
    c.set_estimates({{0, 60}, {0, 30}});
    return c;
}

// Four dimensions: CUDA's grid has three, the outer two fuse.
Func four_d() {
    Var x("x"), y("y"), z("z"), w("w");
    Func f("f"), g("g");
    f(x, y, z, w) = volume()(x, y, z, w) * 2.0f - cast<float>(z * w);
    g(x, y, z, w) = f(x, y, z, w) + f(x, y, z, (w + 1) % 4) * 0.5f;
    g.set_estimates({{0, 19}, {0, 6}, {0, 5}, {0, 4}});
    return g;
}

// A gradient read at nine points by a 3 x 3 sum, itself read at three by the output: the
// gradient is stored (inlined, each point would compute it 27 times) and staged in the output
// kernel's blocks.
Func gradient_energy() {
    Var x("x"), y("y");
    Func clamped = BoundaryConditions::repeat_edge(matrix_b());
    Func grad("grad"), energy("energy"), out("out");
    Expr gx = clamped(x + 1, y) - clamped(x - 1, y), gy = clamped(x, y + 1) - clamped(x, y - 1);
    grad(x, y) = (gx * gx + gy * gy) * 0.5f + (gx * gy - 1.0f) * (gx + gy) * 0.25f;
    Expr sum = 0.0f;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++)
            sum = sum + grad(x + dx, y + dy) * grad(x + dx, y + dy);
    energy(x, y) = sum;
    out(x, y) = energy(x, y - 1) * 0.25f + energy(x, y) * 0.5f + energy(x, y + 1) * 0.25f;
    out.set_estimates({{0, 1024}, {0, 512}});
    return out;
}

// Each channel of the output reads its own channel of p and p's last channel: p's region in a
// block of one channel spans from that channel to the last, a size that depends on the channel.
// Staged, its shared storage would have no constant size: the heuristic keeps it at root.
Func channel_and_last() {
    Var x("x"), y("y"), c("c");
    Func p("p"), out("out");
    p(x, y, c) = volume()(x, y, c, 0) * 3.0f + volume()(x, y, c, 1) * volume()(x, y, c, 2);
    out(x, y, c) = p(x, y, c) * p(x, y, 4) + p(x, y, 4) * 0.5f - p(x, y, c) * p(x, y, c);
    out.set_estimates({{0, 19}, {0, 6}, {0, 5}});
    return out;
}

std::vector<Case> cases() {
    return {{"blur", blur, {203, 77}},
            {"gradient_energy", gradient_energy, {300, 77}},
            {"channel_and_last", channel_and_last, {19, 6, 5}},
            {"matmul", matmul, {70, 45}},
            {"scan", scan, {203, 77}},
            {"with_sine", with_sine, {60, 30}},
            {"four_d", four_d, {19, 6, 5, 4}}};
}

const Case &case_named(const std::string &name) {
    static const std::vector<Case> all = cases();
    for (const Case &c : all) {
        if (c.name == name) return c;
    }
    throw std::runtime_error("no case " + name);
}

/** The summary and lowered loop nest of `c` auto-scheduled for CUDA with the heuristic. */
struct Scheduled {
    std::string summary, stmt;
};
Scheduled schedule_for_gpu(const Case &c) {
    Pipeline p(c.build());
    Scheduled s;
    s.summary = p.auto_schedule("Heuristic", cuda_target(), MachineParams::host()).schedule_source;
    s.stmt = p.lowered_stmt(cuda_target());
    return s;
}

size_t count(const std::string &text, const std::string &what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        n++;
    return n;
}

template <typename T>
void expect_same_bits(const Case &c, Buffer<T> want, Buffer<T> got, const std::string &how) {
    int64_t differ = 0;
    want.for_each_position([&](const std::vector<int> &pos) {
        differ += std::memcmp(&want(pos), &got(pos), sizeof(T)) != 0;
    });
    EXPECT_EQ(differ, 0) << c.name << " " << how << ": elements differ from the CPU's";
}

/** `c` realized unscheduled on the CPU, and with `schedule` applied for CUDA. */
template <typename T>
void run_against_cpu(const Case &c, const std::function<std::string(Pipeline &)> &schedule) {
    Buffer<T> want = Pipeline(c.build()).realize(c.sizes);
    Pipeline p(c.build());
    const std::string how = schedule(p);
    Buffer<T> got = p.realize(c.sizes, cuda_target());
    expect_same_bits(c, want, got, how);
}

// ---- Lowering and PTX, on any machine -----------------------------------------------------

TEST(GPUAutoSchedule, BlurIsOneKernelWithItsProducerInlined) {
    const Scheduled s = schedule_for_gpu(case_named("blur"));
    EXPECT_NE(s.summary.find("with a CUDA GPU"), std::string::npos) << s.summary;
    EXPECT_NE(s.summary.find("bx: inlined"), std::string::npos) << s.summary;
    EXPECT_NE(s.summary.find("by: output; a GPU kernel: blocks of 64 threads along x, 4 points"),
              std::string::npos)
        << s.summary;
    EXPECT_NE(s.summary.find("by.gpu_threads(x_thread)"), std::string::npos) << s.summary;
    EXPECT_NE(s.summary.find("by.gpu_blocks(y)"), std::string::npos) << s.summary;
    EXPECT_EQ(count(s.stmt, "gpu_block"), 2u) << s.stmt;
    EXPECT_EQ(s.stmt.find("bx.buffer"), std::string::npos) << s.stmt;
}

TEST(GPUAutoSchedule, ReductionRunsItsRVarInsideEachThread) {
    const Scheduled s = schedule_for_gpu(case_named("matmul"));
    EXPECT_NE(s.summary.find("prod: has updates: not inlined; a GPU kernel"), std::string::npos)
        << s.summary;
    EXPECT_NE(s.summary.find("update 0: a GPU kernel: blocks of 32 threads along x, 4 points"),
              std::string::npos)
        << s.summary;
    // The update's kernel: its blocks and threads, then k, then the vector.
    const size_t update = s.stmt.find("prod.s1.y");
    ASSERT_NE(update, std::string::npos) << s.stmt;
    const size_t thread = s.stmt.find("gpu_thread", update), k = s.stmt.find("prod.s1.k$x", update);
    ASSERT_NE(thread, std::string::npos) << s.stmt;
    ASSERT_NE(k, std::string::npos) << s.stmt;
    EXPECT_LT(thread, k) << s.stmt;
}

TEST(GPUAutoSchedule, ScanRunsItsOrderedDimensionInsideEachThread) {
    const Scheduled s = schedule_for_gpu(case_named("scan"));
    EXPECT_NE(s.summary.find("update 0: a GPU kernel: blocks of 128 threads along y; grid"),
              std::string::npos)
        << s.summary;
}

TEST(GPUAutoSchedule, FuncCallingSineRunsOnTheCPUAndSaysWhy) {
    const Scheduled s = schedule_for_gpu(case_named("with_sine"));
    EXPECT_NE(s.summary.find("on the CPU: its definition calls sin_f32, which has no GPU version"),
              std::string::npos)
        << s.summary;
    EXPECT_NE(s.summary.find("c: output; a GPU kernel"), std::string::npos) << s.summary;
    EXPECT_NE(s.stmt.find("loom_cuda_copy_to_device(b.buffer"), std::string::npos) << s.stmt;
}

TEST(GPUAutoSchedule, FourDimensionsFuseTheOuterTwoIntoTheGrid) {
    const Scheduled s = schedule_for_gpu(case_named("four_d"));
    EXPECT_NE(s.summary.find("grid x_block y z_w"), std::string::npos) << s.summary;
}

TEST(GPUAutoSchedule, StencilProducersAreStagedInSharedMemory) {
    const Scheduled s = schedule_for_gpu(case_named("gradient_energy"));
    EXPECT_NE(s.summary.find("grad: stored"), std::string::npos) << s.summary;
    EXPECT_NE(s.summary.find("staged in out's blocks"), std::string::npos) << s.summary;
    EXPECT_NE(s.summary.find("out: output; a GPU kernel: blocks of 32 threads along x by 8 "
                             "along y"),
              std::string::npos)
        << s.summary;
    EXPECT_NE(s.summary.find("grad.compute_at(out.at(x_block))"), std::string::npos) << s.summary;
    // One kernel (energy inlined into it: 3 evaluations a point); its tile of 32 x 4 points by
    // 8 rows needs the gradient over 130 x 12, in shared memory.
    EXPECT_NE(s.summary.find("energy: inlined"), std::string::npos) << s.summary;
    EXPECT_EQ(count(s.stmt, "gpu_block<"), 2u) << s.stmt;
    EXPECT_NE(s.stmt.find("allocate grad[float32 * 130 * 12]"), std::string::npos) << s.stmt;
    Pipeline p(case_named("gradient_energy").build());
    p.auto_schedule("Heuristic", cuda_target(), MachineParams::host());
    const std::string ir = p.llvm_ir(cuda_target());
    EXPECT_NE(ir.find(".shared .align 16 .b8 grad[6240]"), std::string::npos);
    // A barrier after each of the kernel's two nests of threads (grad's, out's), in each of
    // its compilations (lane by lane, and with wide accesses where a launch check passes).
    EXPECT_EQ(count(ir, ".entry "), 2u);
    EXPECT_EQ(count(ir, "bar.sync"), 2u * count(ir, ".entry "));
}

std::vector<Internal::FunctionPtr> outputs_of(Pipeline &p) {
    std::vector<Internal::FunctionPtr> outputs;
    for (const Func &f : p.outputs())
        outputs.push_back(f.function());
    return outputs;
}

TEST(GPUAutoSchedule, StagingWhoseSizeDependsOnTheBlockIsLeftOut) {
    namespace as = Internal::autoschedule;
    Pipeline p(case_named("channel_and_last").build());
    as::Choices asked;
    asked.placement["p"] = "shared";
    const std::string summary = as::heuristic_schedule(
        outputs_of(p), cuda_target(), MachineParams::host(), [](const std::string &) {}, asked);
    EXPECT_NE(summary.find("p: stored (as asked); in device memory: the size of its region in a "
                           "block of out depends on the block; a GPU kernel"),
              std::string::npos)
        << summary;
    const std::string stmt = p.lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("loom_cuda_copy_to_device(p.buffer"), std::string::npos) << stmt;
}

// Read at x * k, with k estimated at 1: a block's region of p is 128 points wide for the
// estimates, and k times that for other values of k, so that no constant sizes its storage.
// The heuristic finds out by lowering its schedule, and stages nothing.
Func strided_read() {
    Var x("x"), y("y");
    Param<int> k("k");
    k.set_estimate(1);
    k.set(1);
    Func p("p"), out("out");
    p(x, y) = matrix_b()(clamp(x, 0, 69), y) * 2.0f + 1.0f;
    out(x, y) = p(x * k, y) + p(x * k + 1, y) * 0.5f;
    out.set_estimates({{0, 68}, {0, 37}});
    return out;
}

TEST(GPUAutoSchedule, StagingThatDoesNotLowerIsUndone) {
    namespace as = Internal::autoschedule;
    Pipeline p(strided_read());
    as::Choices asked;
    asked.placement["p"] = "shared";
    const std::string summary = as::heuristic_schedule(
        outputs_of(p), cuda_target(), MachineParams::host(), [](const std::string &) {}, asked);
    EXPECT_NE(summary.find("nothing staged in shared memory: with it, lowering said: Buffer p"),
              std::string::npos)
        << summary;
    const std::string stmt = p.lowered_stmt(cuda_target());
    EXPECT_NE(stmt.find("loom_cuda_copy_to_device(p.buffer"), std::string::npos) << stmt;
}

TEST(GPUAutoSchedule, EveryCaseCompilesToPTX) {
    for (const Case &c : cases()) {
        Pipeline p(c.build());
        p.auto_schedule("Heuristic", cuda_target(), MachineParams::host());
        p.compile_jit(cuda_target());
        EXPECT_NE(p.llvm_ir(cuda_target()).find(".entry loom_kernel_"), std::string::npos)
            << c.name;
    }
}

TEST(GPUAutoSchedule, SearchSaysItsModelIsTheCPUs) {
    Pipeline p(blur());
    try {
        p.auto_schedule("Search", cuda_target(), MachineParams::host());
        FAIL() << "no error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("use \"Heuristic\", or \"Autotune\""),
                  std::string::npos)
            << e.what();
    }
}

// ---- On the GPU ---------------------------------------------------------------------------

template <typename T> void heuristic_matches_cpu(const std::string &name) {
    run_against_cpu<T>(case_named(name), [](Pipeline &p) {
        p.auto_schedule("Heuristic", cuda_target(), MachineParams::host());
        return std::string("heuristic");
    });
}

TEST(GPUAutoScheduleRun, HeuristicGivesTheCPUsBits) {
    REQUIRE_CUDA();
    heuristic_matches_cpu<uint16_t>("blur");
    heuristic_matches_cpu<float>("matmul");
    heuristic_matches_cpu<int32_t>("scan");
    heuristic_matches_cpu<float>("with_sine");
    heuristic_matches_cpu<float>("four_d");
    heuristic_matches_cpu<float>("gradient_energy");
    heuristic_matches_cpu<float>("channel_and_last");
}

// Every block shape the autotuner may ask for, on each kernel of two pipelines (32 to 1024
// threads, 1 to 8 lanes, one knob at a time), and the placements it may turn.
template <typename T> void every_knob_matches_cpu(const std::string &name) {
    namespace as = Internal::autoschedule;
    const Case &c = case_named(name);
    auto quiet = [](const std::string &) {};
    Pipeline probe(c.build());
    as::Choices made;
    as::heuristic_schedule(outputs_of(probe), cuda_target(), MachineParams::host(), quiet, {},
                           &made);
    ASSERT_FALSE(made.gpu.empty()) << name;
    for (const as::Choices &asked : as::neighbours(made)) {
        run_against_cpu<T>(c, [&](Pipeline &p) {
            as::heuristic_schedule(outputs_of(p), cuda_target(), MachineParams::host(), quiet,
                                   asked);
            return asked.to_string();
        });
    }
}

TEST(GPUAutoScheduleRun, EveryKnobGivesTheCPUsBits) {
    REQUIRE_CUDA();
    every_knob_matches_cpu<uint16_t>("blur");
    every_knob_matches_cpu<float>("matmul");
    every_knob_matches_cpu<int32_t>("scan");
    every_knob_matches_cpu<float>("gradient_energy");
}

TEST(GPUAutoScheduleRun, AutotunerTimesOnTheGPUAndKeepsTheBits) {
    REQUIRE_CUDA();
    const Case &c = case_named("blur");
    run_against_cpu<uint16_t>(c, [](Pipeline &p) {
        AutotuneOptions options;
        options.budget_seconds = 3;
        options.progress = false;
        options.database = ::testing::TempDir() + "/gpu_autotune.db";
        const std::string source =
            autotune(p, cuda_target(), MachineParams::host(), options).schedule_source;
        EXPECT_NE(source.find("gpu_threads"), std::string::npos) << source;
        return std::string("autotuned");
    });
}

TEST(GPUAutoSchedule, AutotunerWithoutAGPUSaysSo) {
    char why[512] = {0};
    if (loom_cuda_available(why, sizeof(why))) GTEST_SKIP() << "a CUDA device is present";
    Pipeline p(blur());
    try {
        AutotuneOptions options;
        options.budget_seconds = 1;
        options.database = ::testing::TempDir() + "/gpu_autotune_none.db";
        autotune(p, cuda_target(), MachineParams::host(), options);
        FAIL() << "no error";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("times candidates on the GPU, and there is none"),
                  std::string::npos)
            << e.what();
    }
}

} // namespace
