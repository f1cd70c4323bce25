// An app: one pipeline whose algorithm and schedules are written once in Halide's core API
// (apps/<name>/<name>.inc, compiled against Loom here and against Halide 14 by the benchmark's
// peer), its inputs, a plain C++ reference, and the minimum work of one run for roofline figures.
//
// Every app has two schedules: Hand, the one a performance engineer would write (fusion,
// tiling, vectors, threads), and Unfused, every stage compute_root with the same per-stage
// vectorization and parallelism: the eager baseline that writes each intermediate to memory.
// Some also have GPU, a hand schedule for an NVIDIA GPU (Target::CUDA).
#pragma once

#include <loom.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace loom_apps {

/** Auto: no schedule in the app's .inc; Loom's default auto-scheduler (Heuristic) schedules it,
 * from estimates of the app's buffers' sizes. Search: the same algorithm scheduled by Loom's
 * search scheduler (its budget from LOOM_SEARCH_BUDGET). Autotune: by Loom's autotuner (its
 * budget from LOOM_AUTOTUNE_BUDGET). Mullapudi2016, Adams2019, Li2018: the same, for
 * the Halide 14 peer, by Halide's auto-scheduler of that name (its plugin from Debian's
 * package). */
enum class Variant {
    Hand,
    Unfused,
    GPU,
    Auto,
    Search,
    Autotune,
    GPUAuto,
    GPUAutotune,
    Mullapudi2016,
    Adams2019,
    Li2018
};
const char *variant_name(Variant v);
/** One of Loom's auto-schedulers. GPUAuto and GPUAutotune: the heuristic and the autotuner for a
 * CUDA target (any app: what a kernel cannot compute stays on the CPU). */
inline bool is_loom_automatic(Variant v) {
    return v == Variant::Auto || v == Variant::Search || v == Variant::Autotune ||
           v == Variant::GPUAuto || v == Variant::GPUAutotune;
}
/** Runs kernels on the GPU: the app's own GPU schedule or an automatic one. */
inline bool is_gpu(Variant v) {
    return v == Variant::GPU || v == Variant::GPUAuto || v == Variant::GPUAutotune;
}
inline bool is_automatic(Variant v) {
    return is_loom_automatic(v) || v == Variant::Mullapudi2016 || v == Variant::Adams2019 ||
           v == Variant::Li2018;
}

/** Test: small inputs so that CI runs every app in seconds. Bench: the size the benchmark uses. */
enum class Size { Test, Bench };

/** A compiled pipeline bound to an app's buffers: run() computes the outputs once. */
struct Runner {
    std::function<void()> run;
    /** Wall-clock seconds from the pipeline's definition to runnable code (lowering + LLVM). */
    double compile_seconds = 0;
    /** Whether the compile loaded the machine code from Loom's persistent JIT cache. */
    bool from_cache = false;
    /** Automatic variants: the seconds the auto-scheduler took (part of compile_seconds), and
     * the schedule it wrote. */
    double schedule_seconds = 0;
    std::string schedule_source;
    /** Writes the compiled code as PREFIX.stmt (loop nest), PREFIX.ll (optimized LLVM IR) and
     * PREFIX.s (assembly); empty for peers that cannot. */
    std::function<void(const std::string &prefix)> write_code;
    /** GPU runners: run() leaves the outputs on the device (as a GPU pipeline that feeds
     * another would); sync() brings them to host memory. Empty for CPU runners. */
    std::function<void()> sync;
};

/** The least work one run can do: every input read once, every output written once. */
struct Work {
    double min_bytes = 0;
    double flops = 0;
    /** Judged against the bandwidth ceiling (true) or the arithmetic one (false). */
    bool memory_bound = true;
};

class App {
public:
    virtual ~App() = default;
    virtual std::string name() const = 0;
    /** One line: what the pipeline computes and on what data. */
    virtual std::string description() const = 0;
    /** Makes the inputs (deterministic: a photograph or a seeded pattern) and allocates the
     * outputs, at the given size. `photo` overrides the default image of image apps. */
    virtual void prepare(Size size, const std::string &photo = "") = 0;
    /** Compiles the Loom pipeline with the given schedule, bound to inputs and outputs. */
    virtual Runner compile_loom(Variant v) = 0;
    /** Compares the outputs (as the last run left them) with the C++ reference. Returns ""
     * when they match, else a message naming the output and the first differences. */
    virtual std::string check() const = 0;
    virtual Work work() const = 0;
    /** Whether the algorithm sums products with multiply_add (LoomRunner.h): fused, rounded
     * once. Halide 14 computes those only by contracting a * b + c, which StrictFloat forbids,
     * so its peer test runs such an app without it. */
    virtual bool fuses_multiply_adds() const { return false; }
    /** Whether compile_loom takes Variant::GPU. */
    virtual bool has_gpu_schedule() const { return false; }

    /** Inputs and outputs in the order the pipeline's ImageParams and output Funcs have them.
     * The Halide peer wraps this same memory, so both systems read and write the same bytes. */
    std::vector<loom::Buffer<>> inputs, outputs;
};

using AppFactory = std::function<std::unique_ptr<App>()>;

/** Every app, in the order the benchmark table lists them. */
const std::vector<std::pair<std::string, AppFactory>> &all_apps();
std::unique_ptr<App> make_app(const std::string &name);

/** The items of a comma-separated list (a command line's --apps=a,b), empty ones dropped. */
std::vector<std::string> split_commas(const std::string &list);

} // namespace loom_apps
