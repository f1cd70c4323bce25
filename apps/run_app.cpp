// loom_app: runs one app outside the benchmark, on a photograph of your choice.
//
//   loom_app NAME [--in photo.png] [--out result.png] [--variant hand|unfused|auto|search|autotune]
//   [--test-size]
//                 [--code PREFIX] [--runs N]
//
// Compiles NAME's pipeline with the chosen schedule (auto: Loom's heuristic auto-scheduler, from
// the estimates of the app's buffers; search: Loom's search scheduler, for LOOM_SEARCH_BUDGET
// seconds of costing; autotune: Loom's autotuner, for LOOM_AUTOTUNE_BUDGET seconds;
// LOOM_LOG=autoschedule prints their choices), runs it once
// (--runs N: N times, printing the median; a quick look, not a benchmark: loom_bench is one),
// checks the outputs against the plain C++ reference, prints the compile and run times, and writes
// the first output as a PNG when it is an 8- or 16-bit image. --code writes the loop nest, the LLVM
// IR and the assembly to PREFIX.stmt, PREFIX.ll and PREFIX.s. `loom_app --list` lists the apps.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "apps/common/App.h"
#include "apps/common/Images.h"

using namespace loom_apps;

namespace {

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s NAME [--in photo.png] [--out result.png] [--variant "
                 "hand|unfused|auto|search|autotune|gpu|gpu-auto|gpu-autotune] "
                 "[--test-size] [--code PREFIX] [--runs N]\n       %s --list\n",
                 argv0, argv0);
    return 2;
}

} // namespace

int main(int argc, char **argv) {
    if (argc < 2) return usage(argv[0]);
    if (std::strcmp(argv[1], "--list") == 0) {
        for (const auto &entry : all_apps()) {
            std::printf("%-18s %s\n", entry.first.c_str(), entry.second()->description().c_str());
        }
        return 0;
    }
    std::string name = argv[1], in_path, out_path, code_prefix;
    Variant variant = Variant::Hand;
    Size size = Size::Bench;
    int runs = 1;
    for (int i = 2; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--in" && i + 1 < argc) {
            in_path = argv[++i];
        } else if (arg == "--out" && i + 1 < argc) {
            out_path = argv[++i];
        } else if (arg == "--variant" && i + 1 < argc) {
            std::string v = argv[++i];
            if (v == "hand") {
                variant = Variant::Hand;
            } else if (v == "unfused") {
                variant = Variant::Unfused;
            } else if (v == "auto") {
                variant = Variant::Auto;
            } else if (v == "search") {
                variant = Variant::Search;
            } else if (v == "autotune") {
                variant = Variant::Autotune;
            } else if (v == "gpu") {
                variant = Variant::GPU;
            } else if (v == "gpu-auto") {
                variant = Variant::GPUAuto;
            } else if (v == "gpu-autotune") {
                variant = Variant::GPUAutotune;
            } else {
                return usage(argv[0]);
            }
        } else if (arg == "--code" && i + 1 < argc) {
            code_prefix = argv[++i];
        } else if (arg == "--runs" && i + 1 < argc) {
            runs = std::max(1, std::atoi(argv[++i]));
        } else if (arg == "--test-size") {
            size = Size::Test;
        } else {
            return usage(argv[0]);
        }
    }
    try {
        std::unique_ptr<App> app = make_app(name);
        app->prepare(size, in_path);
        Runner runner = app->compile_loom(variant);
        if (!code_prefix.empty()) {
            runner.write_code(code_prefix);
            std::printf("wrote %s.stmt, %s.ll and %s.s\n", code_prefix.c_str(),
                        code_prefix.c_str(), code_prefix.c_str());
        }
        std::vector<double> run_ms;
        for (int r = 0; r < runs; r++) {
            auto start = std::chrono::steady_clock::now();
            runner.run();
            // On the GPU, a run ends when its outputs are back in host memory.
            if (runner.sync) runner.sync();
            run_ms.push_back(
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() *
                1e3);
        }
        std::printf("%s (%s schedule): %s\n  compile %.1f ms, first run %.2f ms", name.c_str(),
                    variant_name(variant), app->description().c_str(), runner.compile_seconds * 1e3,
                    run_ms[0]);
        if (runs > 1) {
            std::sort(run_ms.begin(), run_ms.end());
            std::printf(", median of %d runs %.2f ms", runs, run_ms[runs / 2]);
        }
        std::printf("\n");
        std::string mismatch = app->check();
        if (!out_path.empty()) {
            write_png(app->outputs[0], out_path);
            std::printf("  wrote %s\n", out_path.c_str());
        }
        if (!mismatch.empty()) {
            std::fprintf(stderr, "FAILED: %s\n", mismatch.c_str());
            return 1;
        }
        std::printf("  matches the C++ reference\n");
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
