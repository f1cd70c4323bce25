// loom_gpu_bench: the apps that have a GPU schedule (Variant::GPU), run by Loom's CUDA backend
// and timed on the GPU, for the table against torch.compile (apps/bench/gpu_peer.py runs the
// peer in the same call, apps/bench/gpu_table.py joins them; README's GPU section).
//
//   loom_gpu_bench [--apps=a,b,...] [--variants=gpu,gpu-auto,gpu-autotune]
//                  [--benchmark_* flags of Google Benchmark]
//
// Variants: the app's own GPU schedule (gpu, the default with gpu-auto), the heuristic
// auto-scheduler's for a CUDA target (gpu-auto), the autotuner's (gpu-autotune: its budget from
// LOOM_AUTOTUNE_BUDGET, default 60 s an app). --apps defaults to the apps with a GPU schedule
// of their own.
//
// For each app and variant: the benchmark-size inputs, the schedule compiled (the JIT time is
// reported), one run checked against the app's C++ reference (outputs copied back), then a
// Google Benchmark of run(): its kernels, with the inputs already on the device and the outputs
// left there, as a GPU pipeline feeding another would run. Times are the GPU's, between CUDA
// events recorded around each run, measured as triton.testing.do_bench measures the peer:
// before each run, 256 MiB of zeros written on the device clear the L2 cache and keep the GPU
// busy while the host issues the run (so its host side is not in the time); kBatch runs are
// issued back to back with one wait at the end; each benchmark iteration reports a batch's
// mean. Prints one line per app and variant, "gpu-app NAME VARIANT MIN_BYTES JIT_MS
// SCHEDULE_MS", which gpu_table.py reads beside Google Benchmark's JSON (benchmarks named
// VARIANT/NAME), and each automatic schedule's source after "gpu-schedule NAME VARIANT".
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "apps/common/App.h"

using namespace loom_apps;

namespace {

constexpr int kBatch = 20;
constexpr int kBatchesPerRepetition = 10;
// do_bench's: 256 MiB, several times the L2 of any current NVIDIA GPU.
constexpr size_t kCacheClearBytes = size_t(256) << 20;

void check_cuda(int32_t code, const char *what) {
    if (code != 0) {
        std::fprintf(stderr, "loom_gpu_bench: %s failed (%d)\n", what, code);
        std::exit(1);
    }
}

struct Entry {
    std::unique_ptr<App> app;
    Runner runner;
};

}  // namespace

int main(int argc, char **argv) {
    std::vector<std::string> names;
    std::vector<Variant> variants{Variant::GPU, Variant::GPUAuto};
    std::vector<char *> rest{argv[0]};
    for (int i = 1; i < argc; i++) {
        if (std::strncmp(argv[i], "--apps=", 7) == 0) {
            names = split_commas(argv[i] + 7);
        } else if (std::strncmp(argv[i], "--variants=", 11) == 0) {
            variants.clear();
            for (const std::string &v : split_commas(argv[i] + 11)) {
                if (v == "gpu") {
                    variants.push_back(Variant::GPU);
                } else if (v == "gpu-auto") {
                    variants.push_back(Variant::GPUAuto);
                } else if (v == "gpu-autotune") {
                    variants.push_back(Variant::GPUAutotune);
                } else {
                    std::fprintf(stderr,
                                 "loom_gpu_bench: unknown variant %s (gpu, gpu-auto, "
                                 "gpu-autotune)\n",
                                 v.c_str());
                    return 2;
                }
            }
        } else {
            rest.push_back(argv[i]);
        }
    }
    char why[512] = {0};
    if (!loom_cuda_available(why, sizeof(why))) {
        std::fprintf(stderr, "loom_gpu_bench: no CUDA device: %s\n", why);
        return 1;
    }
    if (names.empty()) {
        for (const auto &[name, factory] : all_apps()) {
            if (factory()->has_gpu_schedule()) names.push_back(name);
        }
    }
    if (!std::getenv("LOOM_AUTOTUNE_BUDGET")) setenv("LOOM_AUTOTUNE_BUDGET", "60", 1);
    std::vector<std::unique_ptr<Entry>> entries;
    for (const std::string &name : names) {
        for (Variant variant : variants) {
            auto e = std::make_unique<Entry>();
            e->app = make_app(name);
            if (variant == Variant::GPU && !e->app->has_gpu_schedule()) {
                std::fprintf(stderr,
                             "loom_gpu_bench: %s has no GPU schedule of its own (ask for "
                             "--variants=gpu-auto)\n",
                             name.c_str());
                return 1;
            }
            e->app->prepare(Size::Bench);
            e->runner = e->app->compile_loom(variant);
            e->runner.run();
            e->runner.sync();
            std::string mismatch = e->app->check();
            if (!mismatch.empty()) {
                std::fprintf(stderr, "loom_gpu_bench: %s (%s) on the GPU: %s\n", name.c_str(),
                             variant_name(variant), mismatch.c_str());
                return 1;
            }
            std::printf("gpu-app %s %s %.0f %.3f %.3f\n", name.c_str(), variant_name(variant),
                        e->app->work().min_bytes, e->runner.compile_seconds * 1e3,
                        e->runner.schedule_seconds * 1e3);
            if (!e->runner.schedule_source.empty()) {
                std::printf("gpu-schedule %s %s\n%s\n", name.c_str(), variant_name(variant),
                            e->runner.schedule_source.c_str());
            }
            Entry *raw = e.get();
            benchmark::RegisterBenchmark(
                (std::string(variant_name(variant)) + "/" + name).c_str(),
                [raw](benchmark::State &state) {
                    void *start[kBatch] = {}, *end[kBatch] = {};
                    for (auto _ : state) {
                        for (int i = 0; i < kBatch; i++) {
                            check_cuda(loom_cuda_clear_cache(nullptr, kCacheClearBytes),
                                       "cache clear");
                            check_cuda(loom_cuda_event_record(nullptr, &start[i]), "event");
                            raw->runner.run();
                            check_cuda(loom_cuda_event_record(nullptr, &end[i]), "event");
                        }
                        double total_ms = 0;
                        for (int i = 0; i < kBatch; i++) {
                            float ms = 0;
                            check_cuda(loom_cuda_event_elapsed_ms(nullptr, start[i], end[i], &ms),
                                       "timing");
                            total_ms += ms;
                        }
                        state.SetIterationTime(total_ms / kBatch * 1e-3);
                    }
                })
                ->Unit(benchmark::kMillisecond)
                ->UseManualTime()
                // 200 timed runs a repetition (do_bench's 300 ms at these sizes): Google
                // Benchmark's minimum time would count only the kernels' time, while each run also
                // waits for its cache clear.
                ->Iterations(kBatchesPerRepetition);
            entries.push_back(std::move(e));
        }
    }
    std::fflush(stdout);
    int rest_argc = (int)rest.size();
    benchmark::Initialize(&rest_argc, rest.data());
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
