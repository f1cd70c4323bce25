// The performance fuzzer: random pipelines under random legal schedules (the
// schedule-invariance fuzzer's generators, with outputs of about 1-16 MiB so that running
// dominates), each built by Loom and by Halide 14 from one description, their outputs checked
// equal byte for byte, then timed in pairs back to back as loom_bench times them (which system
// goes first alternates; the pair's ratio is the median of the per-run ratios), with each
// system's JIT compile time. Prints the distribution of Loom/Halide run-time and compile-time
// ratios and writes the worst pairs as programs that build against either system, each beside
// both systems' lowered loop nests.
//
//   loom_perf_fuzz [--seed=N] [--pairs=N] [--out=DIR] [--worst=N] [--min-time=SECONDS]
//                  [--timeout=SECONDS] [--only=K[,K...]] [--check-only] [--small]
//
// --only=K runs pair K alone and writes its program and loop nests; --only=K1,K2,... runs those
// pairs of the seed's sequence (a rerun of an earlier run's worst, say) and writes each.
//
// --check-only compares outputs and times nothing (CI's batch: no timing in tests); --small
// generates the correctness fuzzer's small pipelines. The exit status is 1 when Loom failed to
// compile a legal schedule or when the two systems' outputs differ.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <csignal>
#include <poll.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "FuzzHalide.h"
#include "FuzzIR.h"

using namespace loom_fuzz;

namespace {

struct Options {
    uint32_t seed = 1;
    int pairs = 100;
    int worst = 8;
    double min_time = 0.3;
    double timeout = 60;  // seconds a pair may take, compiles and runs together
    std::vector<int> only;  // not empty: run and write only these pairs
    bool check_only = false, small = false;
    std::string out = "perf_fuzz_out";
};

struct PairResult {
    int k = 0;
    uint32_t pipeline_seed = 0, schedule_seed = 0;
    // "timed", "checked"; "halide-rejects" (Halide 14 refuses the schedule), "halide-differs"
    // (Halide's outputs differ where Loom's equal Loom's unscheduled pipeline's); failures:
    // "loom-error" (Loom refuses a legal schedule), "mismatch" (Loom's outputs are wrong).
    std::string status;
    std::string detail;
    double loom_ms = 0, halide_ms = 0, ratio = 0;
    double loom_compile_ms = 0, halide_compile_ms = 0;
    double output_mib = 0;
};

double ms_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

double time_ms(const std::function<void()> &run) {
    auto start = std::chrono::steady_clock::now();
    run();
    return ms_since(start);
}

double median(std::vector<double> v) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/** The q-quantile of v (nearest rank). */
double quantile(std::vector<double> v, double q) {
    if (v.empty()) return NAN;
    std::sort(v.begin(), v.end());
    size_t i = (size_t)std::ceil(q * (double)v.size());
    return v[std::min(v.size() - 1, i == 0 ? 0 : i - 1)];
}

double geomean(const std::vector<double> &v) {
    if (v.empty()) return NAN;
    double s = 0;
    for (double x : v) s += std::log(x);
    return std::exp(s / (double)v.size());
}

bool same_bytes(const std::vector<loom::Buffer<>> &a, const std::vector<loom::Buffer<>> &b,
                std::string *where) {
    for (size_t i = 0; i < a.size(); i++) {
        size_t n = (size_t)a[i].number_of_elements() * a[i].type().bytes();
        const char *pa = (const char *)a[i].raw_data(), *pb = (const char *)b[i].raw_data();
        for (size_t e = 0; e < n; e++) {
            if (pa[e] != pb[e]) {
                *where = a[i].name() + " differs at byte " + std::to_string(e);
                return false;
            }
        }
    }
    return true;
}

/** Loom and Halide run back to back, alternating which goes first, until min_time has passed
 * (at least 3 pairs, at most 25). */
void time_pair(PreparedRun &loom_run, PreparedRun &halide_run, double min_time, PairResult &r) {
    std::vector<double> loom_ms, halide_ms, ratios;
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 25; i++) {
        double a, b;
        if (i % 2 == 0) {
            a = time_ms(loom_run.run);
            b = time_ms(halide_run.run);
        } else {
            b = time_ms(halide_run.run);
            a = time_ms(loom_run.run);
        }
        loom_ms.push_back(a);
        halide_ms.push_back(b);
        ratios.push_back(a / b);
        if (i >= 2 && ms_since(start) >= min_time * 1000) break;
    }
    r.loom_ms = median(loom_ms);
    r.halide_ms = median(halide_ms);
    r.ratio = median(ratios);
}

std::string pair_name(const PairResult &r) { return "pair_" + std::to_string(r.k); }

void write_file(const std::string &path, const std::string &text) {
    std::ofstream out(path);
    out << text;
}

/** The pair's program and both lowered loop nests, under opt.out. */
void write_pair(const Options &opt, const PairResult &r) {
    PipelineDesc p = generate_pipeline(r.pipeline_seed, GenOptions{!opt.small, true});
    Schedule s = generate_schedule(p, r.schedule_seed, false, {"trace", "atomic", "async"});
    std::vector<loom::Buffer<>> inputs;
    try {
        inputs = make_inputs(p);
    } catch (const std::exception &e) {
        std::printf("  (%s: no inputs to lower with: %s)\n", pair_name(r).c_str(), e.what());
        return;
    }
    char header[512];
    std::snprintf(header, sizeof(header),
                  "// loom_perf_fuzz --seed=%u: pair %d (pipeline seed %u, schedule seed %u)%s\n"
                  "// %s: Loom %.3f ms, Halide 14 %.3f ms (ratio %.2f); compile %.1f / %.1f ms\n"
                  "// Lowered loop nests beside this file: %s.loom.stmt, %s.halide.stmt\n",
                  opt.seed, r.k, r.pipeline_seed, r.schedule_seed, opt.small ? ", --small" : "",
                  r.status.c_str(), r.loom_ms, r.halide_ms, r.ratio, r.loom_compile_ms,
                  r.halide_compile_ms, pair_name(r).c_str(), pair_name(r).c_str());
    std::string detail = r.detail.empty() ? "" : "// " + r.detail + "\n";
    const std::string base = opt.out + "/" + pair_name(r);
    write_file(base + ".cpp", perf_program(p, s, std::string(header) + detail));
    try {
        write_file(base + ".loom.stmt", loom_lowered(p, s, inputs));
    } catch (const std::exception &e) {
        write_file(base + ".loom.stmt", std::string("Loom failed: ") + e.what() + "\n");
    }
    try {
        write_file(base + ".halide.stmt", halide_lowered(p, s, inputs));
    } catch (const std::exception &e) {
        write_file(base + ".halide.stmt", std::string("Halide failed: ") + e.what() + "\n");
    }
}

/** What a pair has done so far, for the report of one stopped by the time limit: written to
 * the parent as it happens. Lines start with '#'. */
using Progress = std::function<void(const std::string &)>;

PairResult run_pair(const Options &opt, int k, const Progress &progress = [](const std::string &) {}) {
    PairResult r;
    r.k = k;
    r.pipeline_seed = pipeline_seed(opt.seed, k);
    r.schedule_seed = schedule_seed(opt.seed, k, 0);
    PipelineDesc p = generate_pipeline(r.pipeline_seed, GenOptions{!opt.small, true});
    Schedule s = generate_schedule(p, r.schedule_seed, false, {"trace", "atomic", "async"});
    std::vector<loom::Buffer<>> inputs = make_inputs(p);

    // Each system compiled and run once (the run checked below, and the warm-up of the timing),
    // its progress reported; what it throws ends the pair with `failure`.
    auto first_run = [&](const char *who, const std::function<PreparedRun()> &prepare,
                         const char *failure, PreparedRun &out) {
        try {
            out = prepare();
            char line[160];
            std::snprintf(line, sizeof(line), "%s compiled in %.0f ms", who, out.compile_ms);
            progress(line);
            std::snprintf(line, sizeof(line), "%s's first run took %.0f ms", who, time_ms(out.run));
            progress(line);
            return true;
        } catch (const std::exception &e) {
            r.status = failure;
            r.detail = e.what();
            return false;
        }
    };
    PreparedRun halide_run, loom_run;
    if (!first_run("Halide", [&] { return prepare_halide(p, s, inputs); }, "halide-rejects", halide_run) ||
        !first_run("Loom", [&] { return prepare_loom(p, s, inputs, false); }, "loom-error", loom_run)) {
        return r;
    }
    r.loom_compile_ms = loom_run.compile_ms;
    r.halide_compile_ms = halide_run.compile_ms;
    std::vector<loom::Buffer<>> from_loom = requested_outputs(p, loom_run.whole);
    std::vector<loom::Buffer<>> from_halide = requested_outputs(p, halide_run.whole);
    for (const loom::Buffer<> &b : from_loom)
        r.output_mib += (double)b.number_of_elements() * b.type().bytes() / (1 << 20);
    std::string where;
    if (!same_bytes(from_loom, from_halide, &where)) {
        // Which system is wrong: Loom's pipeline without a schedule decides.
        std::vector<loom::Buffer<>> unscheduled =
            realize(p, generate_schedule(p, r.schedule_seed, true), inputs);
        std::string ignored;
        bool loom_right = same_bytes(from_loom, unscheduled, &ignored);
        bool halide_right = same_bytes(from_halide, unscheduled, &ignored);
        r.status = loom_right ? "halide-differs" : "mismatch";
        r.detail = where + (loom_right ? "; Loom's equal its unscheduled pipeline's"
                            : halide_right ? "; Halide's equal Loom's unscheduled pipeline's (Loom differs)"
                                           : "; neither equals Loom's unscheduled pipeline's");
        return r;
    }
    if (opt.check_only) {
        r.status = "checked";
        return r;
    }
    time_pair(loom_run, halide_run, opt.min_time, r);
    r.status = "timed";
    return r;
}

/** run_pair in a child process, so that a pair that runs for minutes (a deep stencil chain
 * inlined over 16 MiB) is stopped after opt.timeout seconds, and a crash of either system's
 * code is reported as that pair's result instead of ending the run. */
PairResult run_pair_isolated(const Options &opt, int k) {
    int fds[2];
    if (pipe(fds) != 0) return run_pair(opt, k);
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        // The child never returns into main's loop (it would fork pairs of its own).
        auto send = [&](const std::string &text) {
            size_t off = 0;
            while (off < text.size()) {
                ssize_t n = write(fds[1], text.data() + off, text.size() - off);
                if (n <= 0) break;
                off += (size_t)n;
            }
        };
        PairResult r;
        try {
            r = run_pair(opt, k, [&](const std::string &line) { send("#" + line + "\n"); });
        } catch (const std::exception &e) {
            r.status = "crash";
            r.detail = std::string("uncaught exception: ") + e.what();
        } catch (...) {
            r.status = "crash";
            r.detail = "uncaught exception";
        }
        std::string text = r.status + "\n" + std::to_string(r.loom_ms) + " " + std::to_string(r.halide_ms) +
                           " " + std::to_string(r.ratio) + " " + std::to_string(r.loom_compile_ms) + " " +
                           std::to_string(r.halide_compile_ms) + " " + std::to_string(r.output_mib) + "\n" +
                           r.detail;
        send(text);
        _exit(0);
    }
    close(fds[1]);
    PairResult r;
    r.k = k;
    r.pipeline_seed = pipeline_seed(opt.seed, k);
    r.schedule_seed = schedule_seed(opt.seed, k, 0);
    std::string text;
    auto start = std::chrono::steady_clock::now();
    bool timed_out = false;
    for (;;) {
        pollfd pfd{fds[0], POLLIN, 0};
        int left = (int)(opt.timeout * 1000 - ms_since(start));
        if (left <= 0 || poll(&pfd, 1, left) == 0) {
            timed_out = true;
            break;
        }
        char buf[4096];
        ssize_t n = read(fds[0], buf, sizeof(buf));
        if (n <= 0) break;
        text.append(buf, (size_t)n);
    }
    close(fds[0]);
    if (timed_out) kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    // The progress lines, then the result.
    std::string done;
    while (!text.empty() && text[0] == '#') {
        size_t end = text.find('\n');
        if (end == std::string::npos) break;
        done += (done.empty() ? "" : "; ") + text.substr(1, end - 1);
        text.erase(0, end + 1);
    }
    if (timed_out) {
        r.status = "timeout";
        r.detail = "stopped after " + std::to_string((int)opt.timeout) + " s" +
                   (done.empty() ? "" : " (" + done + ")");
        return r;
    }
    if (WIFSIGNALED(status)) {
        r.status = "crash";
        r.detail = std::string("signal ") + strsignal(WTERMSIG(status)) +
                   (done.empty() ? "" : " (" + done + ")");
        return r;
    }
    size_t line1 = text.find('\n'), line2 = text.find('\n', line1 + 1);
    if (line1 == std::string::npos || line2 == std::string::npos) {
        r.status = "crash";
        r.detail = "the pair's process exited without a result";
        return r;
    }
    r.status = text.substr(0, line1);
    std::sscanf(text.c_str() + line1 + 1, "%lf %lf %lf %lf %lf %lf", &r.loom_ms, &r.halide_ms, &r.ratio,
                &r.loom_compile_ms, &r.halide_compile_ms, &r.output_mib);
    r.detail = text.substr(line2 + 1);
    return r;
}

Options parse(int argc, char **argv) {
    Options opt;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&](const char *prefix) -> const char * {
            size_t n = std::strlen(prefix);
            return a.compare(0, n, prefix) == 0 ? argv[i] + n : nullptr;
        };
        if (const char *v = value("--seed=")) opt.seed = (uint32_t)std::strtoul(v, nullptr, 10);
        else if (const char *v = value("--pairs=")) opt.pairs = std::atoi(v);
        else if (const char *v = value("--worst=")) opt.worst = std::atoi(v);
        else if (const char *v = value("--min-time=")) opt.min_time = std::atof(v);
        else if (const char *v = value("--timeout=")) opt.timeout = std::atof(v);
        else if (const char *v = value("--only=")) {
            for (const char *p = v; *p;) {
                char *end = nullptr;
                opt.only.push_back((int)std::strtol(p, &end, 10));
                if (end == p) break;
                p = *end == ',' ? end + 1 : end;
            }
        }
        else if (const char *v = value("--out=")) opt.out = v;
        else if (a == "--check-only") opt.check_only = true;
        else if (a == "--small") opt.small = true;
        else {
            std::fprintf(stderr,
                         "unknown argument %s\nusage: loom_perf_fuzz [--seed=N] [--pairs=N] [--out=DIR] "
                         "[--worst=N] [--min-time=SECONDS] [--timeout=SECONDS] [--only=K[,K...]] [--check-only] [--small]\n",
                         argv[i]);
            std::exit(2);
        }
    }
    return opt;
}

void print_distribution(const char *what, const std::vector<double> &v) {
    std::printf("%s over %zu pairs: geomean %.3f, median %.3f, p90 %.3f, p99 %.3f, worst %.3f\n", what,
                v.size(), geomean(v), median(v), quantile(v, 0.9), quantile(v, 0.99),
                v.empty() ? NAN : *std::max_element(v.begin(), v.end()));
}

/** A CMake project beside the written programs: each as <name>_loom (find_package(Loom),
 * -DLOOM) and <name>_halide (Halide 14's library, as Loom's tests find it). */
void write_cmake_project(const std::string &dir) {
    write_file(dir + "/CMakeLists.txt", R"(# Written by loom_perf_fuzz: builds every pair_*.cpp here against Loom and against Halide 14.
#   cmake -S . -B build -DCMAKE_PREFIX_PATH=<where Loom is installed> && cmake --build build
cmake_minimum_required(VERSION 3.25)
project(LoomPerfFuzzPairs LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 17)
if(NOT CMAKE_BUILD_TYPE)
  set(CMAKE_BUILD_TYPE Release)
endif()
find_package(Loom REQUIRED)
find_path(HALIDE14_INCLUDE Halide.h PATHS /usr/include/halide14 NO_DEFAULT_PATH)
find_library(HALIDE14_LIB NAMES Halide14 Halide PATHS /usr/lib/x86_64-linux-gnu NO_DEFAULT_PATH)
file(GLOB programs ${CMAKE_CURRENT_SOURCE_DIR}/pair_*.cpp)
foreach(program ${programs})
  get_filename_component(name ${program} NAME_WE)
  add_executable(${name}_loom ${program})
  target_compile_definitions(${name}_loom PRIVATE LOOM)
  target_link_libraries(${name}_loom PRIVATE Loom::loom)
  add_executable(${name}_halide ${program})
  target_include_directories(${name}_halide SYSTEM PRIVATE ${HALIDE14_INCLUDE})
  target_link_libraries(${name}_halide PRIVATE ${HALIDE14_LIB} pthread ${CMAKE_DL_LIBS})
endforeach()
)");
}

}  // namespace

int main(int argc, char **argv) {
    // Every compile is timed as a first one: the JIT cache would load pipelines met in an
    // earlier run (LOOM_JIT_CACHE=1 turns it back on).
    setenv("LOOM_JIT_CACHE", "0", /*overwrite=*/0);
    const Options opt = parse(argc, argv);
    mkdir(opt.out.c_str(), 0755);
    write_cmake_project(opt.out);
    std::vector<PairResult> results;
    int failures = 0;
    std::vector<int> pairs = opt.only;
    if (pairs.empty())
        for (int k = 0; k < opt.pairs; k++) pairs.push_back(k);
    for (int k : pairs) {
        PairResult r = run_pair_isolated(opt, k);
        if (!opt.only.empty()) write_pair(opt, r);
        if (r.status == "timed") {
            std::printf("pair %3d: Loom %9.3f ms  Halide %9.3f ms  ratio %5.2f  compile %6.1f / %7.1f ms  %.1f MiB\n",
                        k, r.loom_ms, r.halide_ms, r.ratio, r.loom_compile_ms, r.halide_compile_ms,
                        r.output_mib);
        } else {
            std::printf("pair %3d: %s%s%s\n", k, r.status.c_str(), r.detail.empty() ? "" : ": ",
                        r.detail.substr(0, 300).c_str());
        }
        std::fflush(stdout);
        if (r.status == "loom-error" || r.status == "mismatch") failures++;
        if (r.status == "loom-error" || r.status == "mismatch" || r.status == "halide-differs" ||
            r.status == "crash")
            write_pair(opt, r);
        results.push_back(r);
    }

    std::vector<double> run_ratios, compile_ratios;
    int rejected = 0, halide_differs = 0;
    std::ofstream csv(opt.out + "/pairs.csv");
    csv << "pair,pipeline_seed,schedule_seed,status,loom_ms,halide_ms,ratio,loom_compile_ms,"
           "halide_compile_ms,output_mib\n";
    for (const PairResult &r : results) {
        csv << r.k << "," << r.pipeline_seed << "," << r.schedule_seed << "," << r.status << ","
            << r.loom_ms << "," << r.halide_ms << "," << r.ratio << "," << r.loom_compile_ms << ","
            << r.halide_compile_ms << "," << r.output_mib << "\n";
        if (r.status == "halide-rejects") rejected++;
        if (r.status == "halide-differs") halide_differs++;
        if (r.status == "timed") run_ratios.push_back(r.ratio);
        if (r.status == "timed" || r.status == "checked")
            compile_ratios.push_back(r.loom_compile_ms / r.halide_compile_ms);
    }
    std::printf("\nloom_perf_fuzz --seed=%u: %d pairs; %zu compared equal, %d rejected by Halide 14, %d "
                "where Halide 14's outputs are wrong, %d failures of Loom\n",
                opt.seed, (int)pairs.size(), compile_ratios.size(), rejected, halide_differs, failures);
    if (!opt.check_only) print_distribution("run time Loom/Halide", run_ratios);
    print_distribution("compile time Loom/Halide", compile_ratios);

    if (!opt.check_only) {
        std::vector<PairResult> timed;
        for (const PairResult &r : results)
            if (r.status == "timed") timed.push_back(r);
        std::sort(timed.begin(), timed.end(),
                  [](const PairResult &a, const PairResult &b) { return a.ratio > b.ratio; });
        if (timed.size() > (size_t)opt.worst) timed.resize(opt.worst);
        std::printf("worst pairs (programs and loop nests in %s/):\n", opt.out.c_str());
        for (const PairResult &r : timed) {
            std::printf("  %s: ratio %.2f (Loom %.3f ms, Halide %.3f ms)\n", pair_name(r).c_str(), r.ratio,
                        r.loom_ms, r.halide_ms);
            write_pair(opt, r);
        }
    }
    return failures ? 1 : 0;
}
