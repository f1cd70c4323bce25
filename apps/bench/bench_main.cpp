// loom_bench: every app, Loom against Halide 14 with the same algorithm and schedule, measured
// in one run, with the machine's ceilings measured beside them.
//
//   loom_bench [--apps=a,b,...] [--reps=N] [--jit-reps=N] [--min-time=SECONDS]
//              [--markdown=FILE] [--quick] [--no-auto] [--autotune-budget=SECONDS]
//              [--benchmark_* flags of Google Benchmark]
//
// A second table compares automatic schedules (AutoScheduleColumns.h): Loom's heuristic, Loom's
// search scheduler (LOOM_SEARCH_BUDGET seconds an app, default 10), Loom's autotuner
// (--autotune-budget seconds an app, default 20, from a fresh database; 0 leaves it out) and Halide
// 14's three auto-schedulers, each against Loom's hand schedule; --no-auto leaves the table out.
//
// For each app it compiles five pipelines on the app's own buffers (Loom and Halide hand
// schedules, Loom and Halide unfused, and OpenBLAS sgemm for the matrix multiplies), the hand
// schedules --jit-reps times each, alternating, for the median compile time; checks Loom's outputs
// against the C++ reference and compares them byte for byte with Halide's; then hands every
// pipeline to Google Benchmark, which runs N repetitions of each in random interleaved order and
// reports medians. Loom and Halide are timed in pairs: each iteration of an app's pair benchmark
// runs Loom once and Halide once, back to back (which goes first alternates), and the ratio is
// the median of the per-pair ratios, so that both runs of a pair share the state of a machine
// whose load changes from second to second (a neighbour's job slows a whole repetition). The
// ceilings are benchmarks of the same run: a streaming copy of 1 GiB (bandwidth), a vector FMA loop
// (arithmetic: AVX-512, else AVX2), and OpenBLAS sgemm at 2048 (the arithmetic a tuned library
// reaches). The table at the end gives every figure as a ratio.
//
// Unfused is every stage compute_root: how an eager framework runs the pipeline, one whole
// intermediate after another, with a caching allocator (PyTorch's, for one) that hands the
// memory of the last run's intermediates to the next. Loom's heap keeps freed large blocks
// (loom/MemoryCache.h), and the Halide peer allocates from that same heap (HalideRunner.h;
// Halide 14 has no such cache), so the unfused columns measure the intermediates' memory
// traffic, not page faults of freshly mapped memory. LOOM_MEMORY_CACHE_SIZE=0 turns the cache
// off for both.
#include "apps/common/HalideRunner.h"

#include <benchmark/benchmark.h>
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "apps/bench/AutoScheduleColumns.h"
#include "apps/bench/BenchCommon.h"
#include "apps/bench/Ceilings.h"

using namespace loom_apps;
using namespace loom_bench;

namespace {

struct Options {
    std::vector<std::string> apps; // empty: all
    int reps = 9;
    // Compiles per system and app for the JIT columns (the median): one compile alone swings
    // by a third on a shared machine, and a median of 5 still read harris at 31 ms in one run
    // against 23-25 in the runs around it (a neighbour taking one of Loom's two compile
    // threads costs it more than Halide's one).
    int jit_reps = 9;
    double min_time = 0.05;
    std::string markdown;
    /** The automatic schedules' table (AutoScheduleColumns.h); --no-auto leaves it out. */
    bool autos = true;
    /** Seconds the autotuner gets per app (its column), from a fresh database; 0 leaves the
     * column out. */
    double autotune_budget = 20;
};

/** Times of Loom and Halide run back to back, in milliseconds: entry i of each is pair i. */
struct Pairs {
    std::vector<double> loom_ms, halide_ms;
};

/** One app's pipelines, compiled, checked and ready to time. */
struct Entry {
    std::string name;
    std::unique_ptr<App> app;
    Work work;
    Runner loom, halide, loom_unfused, halide_unfused;
    Pairs pairs;                     // Loom and Halide timed back to back
    // Memory-bound apps: Loom's hand schedule and the 1 GiB copy timed back to back, so that
    // the app's bandwidth is compared with the copy's in the same seconds (the copy alone, at
    // another moment of the run, read 26 to 63 GB/s in runs of one day).
    std::vector<double> beside_copy_ms, copy_ms; // entry i of each: pair i
    std::function<void()> openblas; // matrix multiplies only
    std::string loom_check;         // "" when Loom's output matches the C++ reference
    bool same_bytes_as_halide = false;
    double first_pair_seconds = 0; // the first run of each, cold: an upper bound on a pair
    AutoColumns autos;
};

std::vector<std::vector<uint8_t>> snapshot(const App &app) {
    std::vector<std::vector<uint8_t>> bytes;
    for (const auto &out : app.outputs) {
        const uint8_t *p = (const uint8_t *)out.raw_data();
        bytes.emplace_back(p, p + out.number_of_elements() * out.type().bytes());
    }
    return bytes;
}

/** sgemm on a matmul app's buffers: C(x, y) = sum_k A(k, y) * B(x, k), x innermost, which
 * is row-major C = A * B. Returns nothing when the app's layout is not that one. */
std::function<void()> openblas_runner(App &app) {
    if (app.inputs.size() < 2 || app.inputs[0].dimensions() != 2) return nullptr;
    loom::Buffer<float> a(app.inputs[0]), b(app.inputs[1]);
    const int m = a.height(), k = a.width(), n = b.width();
    if (b.height() != k || a.stride(1) != k || b.stride(1) != n) return nullptr;
    auto c = std::make_shared<std::vector<float>>((size_t)m * n);
    return [a, b, c, m, n, k]() {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data(), k, b.data(),
                    n, 0.0f, c->data(), n);
    };
}

Entry prepare_entry(const std::string &name, int jit_reps) {
    Entry e;
    e.name = name;
    e.app = make_app(name);
    e.app->prepare(Size::Bench);
    e.work = e.app->work();
    // The JIT columns: the median of jit_reps compiles of each system, alternating.
    std::vector<double> loom_jit, halide_jit;
    for (int i = 0; i < jit_reps; i++) {
        e.loom = e.app->compile_loom(Variant::Hand);
        e.halide = compile_halide(*e.app, Variant::Hand, halide_peer_target());
        loom_jit.push_back(e.loom.compile_seconds);
        halide_jit.push_back(e.halide.compile_seconds);
    }
    e.loom.compile_seconds = median_of(loom_jit);
    e.halide.compile_seconds = median_of(halide_jit);
    e.loom_unfused = e.app->compile_loom(Variant::Unfused);
    e.halide_unfused = compile_halide(*e.app, Variant::Unfused, halide_peer_target());

    auto start = std::chrono::steady_clock::now();
    e.loom.run();
    e.first_pair_seconds = seconds(start);
    e.loom_check = e.app->check();
    auto loom_bytes = snapshot(*e.app);
    start = std::chrono::steady_clock::now();
    e.halide.run();
    e.first_pair_seconds += seconds(start);
    e.same_bytes_as_halide = snapshot(*e.app) == loom_bytes;
    if (name.rfind("matmul", 0) == 0 && name.find("bias") == std::string::npos) {
        e.openblas = openblas_runner(*e.app);
    }
    return e;
}

/** Google Benchmark's medians, by benchmark name, in milliseconds. Prints one line per
 * benchmark (median and spread) instead of Google Benchmark's four aggregate rows. */
class MedianCollector : public benchmark::ConsoleReporter {
public:
    std::map<std::string, double> median_ms;
    void ReportRuns(const std::vector<Run> &runs) override {
        double median = NAN, stddev = NAN;
        std::string name;
        for (const Run &run : runs) {
            double t = run.GetAdjustedRealTime();
            switch (run.time_unit) {
            case benchmark::kNanosecond:
                t *= 1e-6;
                break;
            case benchmark::kMicrosecond:
                t *= 1e-3;
                break;
            case benchmark::kSecond:
                t *= 1e3;
                break;
            default:
                break;
            }
            name = run.run_name.function_name;
            if (run.aggregate_name == "median") median = t;
            if (run.aggregate_name == "stddev") stddev = t;
        }
        if (name.empty()) return;
        median_ms[name] = median;
        std::printf("  %-36s median %10.3f ms  stddev %8.3f ms\n", name.c_str(), median, stddev);
        std::fflush(stdout);
    }
};

void register_runner(const std::string &name, std::function<void()> run) {
    benchmark::RegisterBenchmark(name.c_str(),
                                 [run](benchmark::State &state) {
                                     for (auto _ : state)
                                         run();
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

/** How the intermediates' memory was served in this run: by Loom's heap cache, which both
 * systems allocate from (HalideRunner.h), or fresh each run. */
std::string memory_cache_note() {
    const loom::MemoryCacheStats s = loom::memory_cache_stats();
    if (s.size_limit == 0) {
        return "the intermediates' memory fresh from the system each run "
               "(LOOM_MEMORY_CACHE_SIZE=0 turned Loom's heap cache off, for both systems)";
    }
    return "the intermediates' memory reused between runs, as an eager framework's caching "
           "allocator does, by Loom's heap cache for Loom and the Halide peer alike (bound " +
           std::to_string(s.size_limit >> 20) + " MiB; " + std::to_string(s.hits) +
           " large allocations reused, " + std::to_string(s.misses) +
           " fresh): their traffic, not page faults";
}

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s [--apps=a,b,...] [--reps=N] [--jit-reps=N] [--min-time=SECONDS] "
                 "[--markdown=FILE] "
                 "[--quick] [--no-auto] [--autotune-budget=SECONDS] [--benchmark_* flags]\n",
                 argv0);
    return 2;
}

} // namespace

// OpenBLAS's idle worker threads spin (sched_yield in a loop) for 2^28 cycles by default
// after they start and after each call before they sleep. On this 2-core machine a spinning
// worker took its time slices from the JIT's compile threads and from every benchmark after
// an OpenBLAS run: unsharp's and harris's JIT columns read 58 and 46 ms in the benchmark
// against 37 and 31 ms in a process without OpenBLAS (and with OPENBLAS_THREAD_TIMEOUT=4).
// OpenBLAS reads the timeout when it is loaded, before main: the benchmark sets it and runs
// itself again, unless the caller set it.
void restart_with_quiet_openblas(char **argv) {
    if (std::getenv("OPENBLAS_THREAD_TIMEOUT")) return;
    setenv("OPENBLAS_THREAD_TIMEOUT", "4", 1); // 2^4 cycles: sleep at once
    execv("/proc/self/exe", argv);
    std::perror("loom_bench: could not restart itself with OPENBLAS_THREAD_TIMEOUT=4");
}

int main(int argc, char **argv) {
    // The JIT columns time compiles: a pipeline loaded from the persistent JIT cache would time
    // the disk (loom_jit_cache_bench measures that). LOOM_JIT_CACHE=1 turns it back on.
    setenv("LOOM_JIT_CACHE", "0", /*overwrite=*/0);
    restart_with_quiet_openblas(argv);
    Options opt;
    std::vector<char *> gb_args = {argv[0]};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](const char *flag) { return a.substr(std::strlen(flag)); };
        if (a.rfind("--apps=", 0) == 0) {
            opt.apps = split_commas(value("--apps="));
        } else if (a.rfind("--reps=", 0) == 0) {
            opt.reps = std::max(1, std::atoi(value("--reps=").c_str()));
        } else if (a.rfind("--jit-reps=", 0) == 0) {
            opt.jit_reps = std::max(1, std::atoi(value("--jit-reps=").c_str()));
        } else if (a.rfind("--min-time=", 0) == 0) {
            opt.min_time = std::atof(value("--min-time=").c_str());
        } else if (a.rfind("--markdown=", 0) == 0) {
            opt.markdown = value("--markdown=");
        } else if (a == "--no-auto") {
            opt.autos = false;
        } else if (a.rfind("--autotune-budget=", 0) == 0) {
            opt.autotune_budget = std::max(0.0, std::atof(value("--autotune-budget=").c_str()));
        } else if (a == "--quick") {
            opt.apps = {"blur", "chain", "softmax", "matmul_1024"};
            opt.reps = 5;
        } else if (a.rfind("--benchmark_", 0) == 0) {
            gb_args.push_back(argv[i]);
        } else {
            return usage(argv[0]);
        }
    }
    if (opt.apps.empty()) {
        for (const auto &entry : all_apps())
            opt.apps.push_back(entry.first);
    }

    try {
        // One-time start-up of each system (LLVM's and Halide's initialization), so that the
        // per-app compile times below are what a user pays per pipeline.
        auto start = std::chrono::steady_clock::now();
        {
            Halide::Func f;
            Halide::Var x;
            f(x) = x;
            f.compile_jit(halide_peer_target());
        }
        const double halide_startup = seconds(start);
        start = std::chrono::steady_clock::now();
        {
            loom::Func f;
            loom::Var x;
            f(x) = x;
            f.compile_jit();
        }
        const double loom_startup = seconds(start);
        std::printf("one-time JIT start-up: Loom %.1f ms, Halide %.1f ms\n", loom_startup * 1e3,
                    halide_startup * 1e3);

        // The autotuner's column: its budget, and a database of this run alone, so that the
        // budget is all it measured.
        const std::string autotune_db =
            "/tmp/loom_bench_autotune_" + std::to_string(getpid()) + ".db";
        if (opt.autotune_budget > 0) {
            setenv("LOOM_AUTOTUNE_BUDGET", fixed(opt.autotune_budget, 1).c_str(), 1);
            setenv("LOOM_AUTOTUNE_DB", autotune_db.c_str(), 1);
        }
        std::vector<Entry> entries;
        for (const auto &name : opt.apps) {
            std::printf("preparing %s...\n", name.c_str());
            std::fflush(stdout);
            entries.push_back(prepare_entry(name, opt.jit_reps));
            if (opt.autos)
                entries.back().autos = prepare_auto_columns(
                    *entries.back().app, halide_peer_target(), opt.autotune_budget > 0);
        }

        // Ceilings. 1 GiB each way: far beyond the last-level cache.
        const size_t copy_bytes = size_t(1) << 30;
        std::vector<char> copy_src(copy_bytes, 1), copy_dst(copy_bytes, 0);
        auto copy = [&] { loom_bench::stream_copy(copy_src.data(), copy_dst.data(), copy_bytes); };
        register_runner("ceiling/copy_1GiB", copy);
        const long fma_iterations = 20'000'000;
        double fma_flops = 0; // per run of the FMA loop, over every thread
        register_runner("ceiling/fma", [&] { fma_flops = loom_bench::fma_peak(fma_iterations); });
        const int gemm_n = 2048;
        std::vector<float> ga((size_t)gemm_n * gemm_n, 0.5f), gb((size_t)gemm_n * gemm_n, 0.25f),
            gc((size_t)gemm_n * gemm_n);
        register_runner("ceiling/openblas_sgemm_2048", [&] {
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, gemm_n, gemm_n, gemm_n, 1.0f,
                        ga.data(), gemm_n, gb.data(), gemm_n, 0.0f, gc.data(), gemm_n);
        });
        for (auto &e : entries) {
            // Pairs of the slowest apps (local_laplacian: ~0.4 s a pair) would be one per
            // repetition at the default minimum time: at least a quarter of a second each, and
            // time for 4 pairs. At one pair a repetition, local_laplacian's median of 9 pair
            // ratios read 0.95 and 1.18 in two runs an hour apart.
            register_pairs(e.name + "/loom_and_halide", e.loom.run, e.halide.run, &e.pairs.loom_ms,
                           &e.pairs.halide_ms,
                           std::max({opt.min_time, 0.25, 4 * e.first_pair_seconds}));
            if (e.work.memory_bound) {
                register_pairs(e.name + "/loom_and_copy", e.loom.run, copy, &e.beside_copy_ms,
                               &e.copy_ms, 0.25);
            }
            if (opt.autos) {
                register_auto_pairs(e.autos, e.loom.run,
                                    std::max({opt.min_time, 0.25, 4 * e.first_pair_seconds}));
            }
            register_runner(e.name + "/loom_unfused", e.loom_unfused.run);
            register_runner(e.name + "/halide_unfused", e.halide_unfused.run);
            if (e.openblas) register_runner(e.name + "/openblas", e.openblas);
        }

        std::string reps = "--benchmark_repetitions=" + std::to_string(opt.reps);
        std::string min_time = "--benchmark_min_time=" + fixed(opt.min_time, 3);
        std::vector<std::string> defaults = {
            reps, min_time, "--benchmark_enable_random_interleaving=true",
            "--benchmark_report_aggregates_only=true", "--benchmark_color=false"};
        std::vector<char *> args = {gb_args[0]};
        for (auto &d : defaults)
            args.push_back(d.data());
        for (size_t i = 1; i < gb_args.size(); i++)
            args.push_back(gb_args[i]);
        int gb_argc = (int)args.size();
        benchmark::Initialize(&gb_argc, args.data());
        MedianCollector collector;
        benchmark::RunSpecifiedBenchmarks(&collector);
        benchmark::Shutdown();

        auto median = [&](const std::string &name) {
            auto it = collector.median_ms.find(name);
            return it == collector.median_ms.end() ? NAN : it->second;
        };
        auto copy_gbs_of = [&](double ms) { return 2.0 * copy_bytes / (ms * 1e-3) / 1e9; };
        const double copy_gbs = copy_gbs_of(median("ceiling/copy_1GiB"));
        std::vector<double> paired_copy_ms; // every copy run beside a memory-bound app
        for (const auto &e : entries)
            paired_copy_ms.insert(paired_copy_ms.end(), e.copy_ms.begin(), e.copy_ms.end());
        const double fma_gflops = fma_flops / (median("ceiling/fma") * 1e-3) / 1e9;
        const double gemm_gflops =
            2.0 * gemm_n * gemm_n * gemm_n / (median("ceiling/openblas_sgemm_2048") * 1e-3) / 1e9;

        Table t;
        t.header = {"app",         "Loom ms",         "Halide ms",
                    "Loom/Halide", "Loom unfused ms", "Halide unfused ms",
                    "fusion x",    "Loom JIT ms",     "Halide JIT ms",
                    "JIT ratio",   "achieved",        "of ceiling",
                    "same bytes",  "vs OpenBLAS"};
        double log_ratio_sum = 0, worst_ratio = 0;
        int ratio_count = 0;
        bool all_correct = true;
        for (auto &e : entries) {
            const Pairs &p = e.pairs;
            const bool timed = !p.loom_ms.empty();
            std::vector<double> ratios;
            for (size_t i = 0; i < p.loom_ms.size(); i++)
                ratios.push_back(p.loom_ms[i] / p.halide_ms[i]);
            const double loom_ms = timed ? median_of(p.loom_ms) : NAN;
            const double halide_ms = timed ? median_of(p.halide_ms) : NAN;
            const double unfused_ms = median(e.name + "/loom_unfused");
            const double halide_unfused_ms = median(e.name + "/halide_unfused");
            const double ratio = timed ? median_of(ratios) : NAN;
            if (std::isfinite(ratio)) {
                log_ratio_sum += std::log(ratio);
                worst_ratio = std::max(worst_ratio, ratio);
                ratio_count++;
            }
            std::string achieved, of_ceiling;
            if (e.work.memory_bound) {
                double gbs = e.work.min_bytes / (loom_ms * 1e-3) / 1e9;
                achieved = fixed(gbs, 1) + " GB/s";
                // The median over the pairs of the app's bandwidth over the copy's beside it.
                std::vector<double> fractions;
                for (size_t i = 0; i < e.copy_ms.size(); i++) {
                    fractions.push_back(e.work.min_bytes / (e.beside_copy_ms[i] * 1e-3) / 1e9 /
                                        copy_gbs_of(e.copy_ms[i]));
                }
                of_ceiling = fractions.empty() ? "" : fixed(100 * median_of(fractions), 0) + "% copy";
            } else {
                double gflops = e.work.flops / (loom_ms * 1e-3) / 1e9;
                achieved = fixed(gflops, 1) + " GFLOP/s";
                of_ceiling = fixed(100 * gflops / fma_gflops, 0) + "% FMA";
            }
            std::string vs_blas = "";
            if (e.openblas) vs_blas = fixed(median(e.name + "/openblas") / loom_ms, 2) + "x";
            if (!e.loom_check.empty()) all_correct = false;
            t.rows.push_back({e.name + (e.loom_check.empty() ? "" : " (WRONG)"), fixed(loom_ms, 3),
                              fixed(halide_ms, 3), fixed(ratio, 2), fixed(unfused_ms, 3),
                              fixed(halide_unfused_ms, 3), fixed(unfused_ms / loom_ms, 2),
                              fixed(e.loom.compile_seconds * 1e3, 1),
                              fixed(e.halide.compile_seconds * 1e3, 1),
                              fixed(e.loom.compile_seconds / e.halide.compile_seconds, 3), achieved,
                              of_ceiling, e.same_bytes_as_halide ? "yes" : "no", vs_blas});
        }

        const std::string paired_copy =
            paired_copy_ms.empty()
                ? std::string()
                : ", beside the memory-bound apps " + fixed(copy_gbs_of(median_of(paired_copy_ms)), 1) +
                      " GB/s (median of " + std::to_string(paired_copy_ms.size()) + " copies)";
        std::printf("\nCeilings measured in this run (%u threads): copy 1 GiB %.1f GB/s (read + "
                    "write; alone, between the other benchmarks)%s; FMA %.1f GFLOP/s, OpenBLAS "
                    "sgemm 2048 %.1f GFLOP/s\n",
                    std::max(1u, std::thread::hardware_concurrency()), copy_gbs,
                    paired_copy.c_str(), fma_gflops, gemm_gflops);
        const std::string cache_note = memory_cache_note();
        size_t fewest_pairs = SIZE_MAX;
        for (const auto &e : entries)
            fewest_pairs = std::min(fewest_pairs, e.pairs.loom_ms.size());
        std::printf("Loom ms, Halide ms: medians over every pair of runs back to back (at least "
                    "%zu pairs per app); "
                    "Loom/Halide: the median of the pairs' ratios (< 1: Loom faster). Other "
                    "times: medians of %d interleaved repetitions. unfused: every stage "
                    "compute_root, as an eager framework runs it, with %s. fusion x = unfused / "
                    "hand (Loom). JIT ratio = Loom / Halide compile time (medians of %d compiles "
                    "each).\n"
                    "of ceiling (memory-bound apps) = the median over pairs of the app and the "
                    "1 GiB copy run back to back of the app's bandwidth over the copy's.\n"
                    "vs OpenBLAS = OpenBLAS time / Loom time (1 = as fast).\n\n",
                    fewest_pairs, opt.reps, cache_note.c_str(), opt.jit_reps);
        t.print(stdout);
        if (ratio_count) {
            std::printf(
                "\ngeomean Loom/Halide: %.3f (target <= 1.0), worst: %.2f (target <= 1.15)\n",
                std::exp(log_ratio_sum / ratio_count), worst_ratio);
        }
        for (auto &e : entries) {
            if (!e.loom_check.empty()) std::printf("WRONG OUTPUT: %s\n", e.loom_check.c_str());
        }
        std::vector<AutoColumns> autos;
        for (const auto &e : entries) {
            if (opt.autos) autos.push_back(e.autos);
        }
        const std::string auto_note =
            "Automatic schedules: the app's algorithm with no schedule, estimates from its "
            "buffers, MachineParams " +
            loom::MachineParams::host().to_string() +
            "; each x = the median over pairs run back to back of auto time / Loom hand time "
            "(< 1: faster than the hand schedule); s = the scheduler's own seconds.";
        if (!autos.empty()) {
            std::printf("\n%s\n\n", auto_note.c_str());
            auto_table(autos).print(stdout);
            std::printf("\n%s", auto_summary(autos).c_str());
        }
        if (!opt.markdown.empty()) {
            std::ofstream md(opt.markdown);
            md << "Ceilings (this run, " << std::max(1u, std::thread::hardware_concurrency())
               << " threads): copy 1 GiB " << fixed(copy_gbs, 1)
               << " GB/s (read + write; alone, between the other benchmarks)" << paired_copy
               << "; the memory-bound apps' share of it against the copy run back to back with "
                  "each; FMA "
               << fixed(fma_gflops, 1) << " GFLOP/s, OpenBLAS sgemm 2048 " << fixed(gemm_gflops, 1)
               << " GFLOP/s. JIT start-up once per process: Loom " << fixed(loom_startup * 1e3, 1)
               << " ms, Halide " << fixed(halide_startup * 1e3, 1)
               << " ms. Loom and Halide timed in pairs back to back (at least " << fewest_pairs
               << " pairs per app). Unfused: every stage compute_root, with " << cache_note
               << ".\n\n"
               << t.markdown();
            if (ratio_count) {
                md << "\ngeomean Loom/Halide " << fixed(std::exp(log_ratio_sum / ratio_count), 3)
                   << ", worst " << fixed(worst_ratio, 2) << "\n";
            }
            if (!autos.empty()) {
                md << "\n"
                   << auto_note << "\n\n"
                   << auto_table(autos).markdown() << "\n"
                   << auto_summary(autos);
            }
        }
        return all_correct ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
