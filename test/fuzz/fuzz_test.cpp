// Schedule-invariance fuzzer: random pipelines (pointwise, stencils, reductions over RDoms,
// inline reductions, Tuples, two outputs; uint8/uint16/int16/int32/float) under random legal
// schedules (compute_root/compute_at/store_at/inline, split with every tail strategy, tile,
// reorder, fuse, vectorize, unroll, parallel, update schedules), each compared bit for bit with
// the same pipeline unscheduled. Loom promises that any legal schedule gives identical bytes.
//
// Usage:
//   loom_fuzz_test                          the CI batch: seed 1, LOOM_FUZZ_PAIRS pairs (300)
//   loom_fuzz_test --seed 7 --pairs 5000    more pairs under another seed
//   loom_fuzz_test --seed 7 --pipeline 12 --schedule 1 --print
//                                           rerun one pair and print its reproducer
//   LOOM_FUZZ_SEED / LOOM_FUZZ_PAIRS        the same as --seed / --pairs
//   --verbose                               one line per pair
//   --avoid fuse,nested-vectorize,guard-derived   (or LOOM_FUZZ_AVOID) leave constructs out,
//                                           to explore past a known bug; CI uses none
//   --auto                                  each pipeline auto-scheduled (Loom's Heuristic, with
//                                           the output region as its estimate, or eight times
//                                           it for every other pipeline) instead of its random
//                                           schedules: the scheduler must never make an
//                                           illegal schedule or change a bit. Every other pair
//                                           of pipelines, one to three of the schedule's knobs
//                                           (lower/autoschedule/Choices.h) are then turned to
//                                           random values, as the autotuner turns them;
//                                           every fourth pair, the search scheduler's
//                                           schedule (half a second of search)
//   --auto --gpu                            the same for a CUDA target (the heuristic and its
//                                           knobs, GPU blocks among them), run on the GPU
//
// A pair is one pipeline and one schedule; each pipeline gets 1-3 schedules. On a mismatch, an
// exception from the scheduled pipeline (the generator only makes legal schedules, so a
// CompileError is a Loom bug or a generator bug, to be looked at), or a crash, the fuzzer
// prints the seed, the pair and a self-contained C++ reproducer (a main() that builds the
// pipeline unscheduled and scheduled and compares them), and goes on; the test fails if any
// pair failed.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "FuzzData.h"
#include "FuzzIR.h"
#include "lower/autoschedule/Heuristic.h"

namespace {

using namespace loom_fuzz;

struct Options {
    uint32_t seed = 1;
    int pairs = 300;
    int pipeline = -1;  // only this pipeline
    int schedule = -1;  // only this schedule of it
    bool print = false;
    bool verbose = false;
    bool auto_schedule = false;
    bool gpu = false;             // with auto_schedule: for and on a CUDA GPU
    std::set<std::string> avoid;  // constructs to leave out (see generate_schedule)
};

Options g_options;

// What to print if a compiled pipeline crashes the process.
std::string g_crash_report;

extern "C" void on_crash(int sig) {
    const char head[] = "\n==== CRASH (signal) while running this pair:\n";
    ssize_t ignored = write(2, head, sizeof(head) - 1);
    ignored = write(2, g_crash_report.data(), g_crash_report.size());
    (void)ignored;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

std::string describe_position(const loom::Buffer<> &b, int64_t e) {
    std::string s = "(";
    int64_t rest = e;
    for (int d = 0; d < b.dimensions(); d++) {
        s += (d ? ", " : "") + std::to_string(b.dim(d).min() + rest % b.dim(d).extent());
        rest /= b.dim(d).extent();
    }
    return s + ")";
}

std::string describe_value(const loom::Buffer<> &b, int64_t e) {
    const char *p = (const char *)b.raw_data();
    std::ostringstream s;
    s.precision(9);
    loom::Type t = b.type();
    if (t.is_float()) s << ((const float *)p)[e];
    else if (t == loom::UInt(8)) s << (int)((const uint8_t *)p)[e];
    else if (t == loom::UInt(16)) s << ((const uint16_t *)p)[e];
    else if (t == loom::Int(16)) s << ((const int16_t *)p)[e];
    else s << ((const int32_t *)p)[e];
    return s.str();
}

bool within_tolerance(float a, float b) {
    if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
    if (std::isinf(a) || std::isinf(b)) return a == b;
    const double scale = std::max({1.0, std::fabs((double)a), std::fabs((double)b)});
    return std::fabs((double)a - (double)b) <= kReorderedReductionTolerance * scale;
}

/** Empty when a and b hold the same bytes (with `tolerant`, float elements need only be
 * within_tolerance); otherwise where they differ. */
std::string compare(const std::vector<loom::Buffer<>> &a, const std::vector<loom::Buffer<>> &b,
                    bool tolerant = false) {
    std::string diff;
    for (size_t i = 0; i < a.size(); i++) {
        const int bytes = a[i].type().bytes();
        const bool is_float = a[i].type().is_float();
        const char *pa = (const char *)a[i].raw_data(), *pb = (const char *)b[i].raw_data();
        int64_t n = a[i].number_of_elements(), bad = 0, first = -1;
        if (std::memcmp(pa, pb, n * bytes) == 0) continue;
        for (int64_t e = 0; e < n; e++) {
            if (std::memcmp(pa + e * bytes, pb + e * bytes, bytes) == 0) continue;
            if (tolerant && is_float &&
                within_tolerance(((const float *)pa)[e], ((const float *)pb)[e]))
                continue;
            if (first < 0) first = e;
            bad++;
        }
        if (bad == 0) continue;
        diff += a[i].name() + ": " + std::to_string(bad) + " of " + std::to_string(n) +
                " elements differ, first at " + describe_position(a[i], first) + ": unscheduled " +
                describe_value(a[i], first) + ", scheduled " + describe_value(b[i], first) +
                (tolerant && is_float ? " (beyond the tolerance for a reordered float reduction)"
                                      : "") +
                "; ";
    }
    return diff;
}

/** How many different values the outputs hold (up to 1000): a degenerate pipeline has few. */
size_t distinct_values(const std::vector<loom::Buffer<>> &bufs) {
    std::set<std::string> seen;
    for (const loom::Buffer<> &b : bufs) {
        const int bytes = b.type().bytes();
        const char *p = (const char *)b.raw_data();
        for (int64_t e = 0; e < b.number_of_elements() && seen.size() < 1000; e++) {
            seen.insert(b.name() + std::string(p + e * bytes, bytes));
        }
    }
    return seen.size();
}

// Trace events of the pairs that trace a Func: counted, not printed (a pair has thousands).
std::atomic<int64_t> g_trace_events{0};
int32_t count_trace_event(void *, const loom_trace_event_t *) {
    return (int32_t)(++g_trace_events & 0x3fffffff) + 1;
}

int has_directive(const Schedule &s, Directive::Kind kind) {
    return std::any_of(s.directives.begin(), s.directives.end(),
                       [&](const Directive &d) { return d.kind == kind; });
}

struct Outcome {
    int pairs = 0;
    int failures = 0;
    int pipelines = 0;
    int sharing_loops = 0; // pairs whose schedule has a compute_with
    int traced = 0;        // pairs whose schedule traces a Func
    int atomic = 0;        // pairs whose schedule makes an update atomic
    int async = 0;         // pairs whose schedule makes a Func async
    int wrapped = 0;       // pairs whose schedule wraps a Func (f.in(g))
    int heap = 0;          // pairs whose schedule stores a Func in MemoryType::Heap
    int float_reordered = 0; // pairs whose schedule reorders a float reduction (tolerance)
    int with_extern = 0;     // pipelines with an extern stage
};

std::string header(uint32_t seed, int k, int j, const std::string &what) {
    std::ostringstream s;
    s << "// Loom schedule-invariance fuzzer reproducer: seed " << seed << ", pipeline " << k
      << ", schedule " << j << ".\n// " << what << "\n// Rerun: loom_fuzz_test --seed " << seed
      << " --pipeline " << k << " --schedule " << j << " --print\n";
    return s.str();
}

void report_failure(Outcome &out, uint32_t seed, int k, int j, const std::string &what,
                    const std::string &repro) {
    out.failures++;
    std::cout << "\n==== FAILURE " << out.failures << ": seed " << seed << ", pipeline " << k
              << ", schedule " << j << ": " << what << "\n---- reproducer ----\n"
              << repro << "---- end of reproducer ----\n"
              << std::flush;
}

/** Pipeline k auto-scheduled, its outputs compared with the unscheduled ones (`expected`). */
void run_auto_schedule(Outcome &out, const Options &o, int k, const PipelineDesc &p,
                       const Schedule &base, const std::vector<loom::Buffer<>> &inputs,
                       const std::vector<loom::Buffer<>> &expected) {
    const int scale = k % 2 ? 8 : 1;
    const loom::Target target =
        o.gpu ? loom::get_host_target().with_feature(loom::Target::CUDA) : loom::Target();
    std::string source;
    auto schedule = [&](loom::Pipeline &pipeline) {
        for (loom::Func f : pipeline.outputs()) {
            std::vector<loom::Var> args = f.args();
            for (size_t d = 0; d < args.size() && d < p.out_extents.size(); d++) {
                f.set_estimate(args[d], p.out_mins[d], p.out_extents[d] * scale);
            }
        }
        if ((k / 2) % 4 == 2 && !o.gpu) {
            // The search scheduler, briefly: any schedule it reaches must be as legal.
            setenv("LOOM_SEARCH_BUDGET", "0.5", 1);
            source = pipeline.auto_schedule("Search", loom::Target(), loom::MachineParams::host())
                         .schedule_source;
            return;
        }
        source = pipeline.auto_schedule("Heuristic", target, loom::MachineParams::host())
                     .schedule_source;
        if ((k / 2) % 2 == 0) return;
        // The autotuner's space: the heuristic's knobs, one to three turned at random.
        namespace as = loom::Internal::autoschedule;
        std::vector<loom::Internal::FunctionPtr> outputs;
        for (const loom::Func &f : pipeline.outputs())
            outputs.push_back(f.function());
        auto quiet = [](const std::string &) {};
        as::Choices made;
        as::heuristic_schedule(outputs, target, loom::MachineParams::host(), quiet, {}, &made);
        const std::vector<as::Choices> singles = as::neighbours(made);
        if (singles.empty()) return;
        uint32_t state = pipeline_seed(o.seed, k) * 2654435761u + 1;
        auto pick = [&] {
            state = state * 1664525u + 1013904223u;
            return singles[(state >> 8) % singles.size()];
        };
        as::Choices varied = pick();
        for (int turns = 1 + (int)(state >> 30) % 3; turns > 1; turns--)
            varied = as::combine(varied, pick(), made);
        as::heuristic_schedule(outputs, target, loom::MachineParams::host(), quiet, varied);
        source = "// the heuristic's knobs turned: " + varied.to_string() + "\n" +
                 pipeline.schedule_source();
    };
    const std::string repro = reproducer(
        p, base, base,
        header(o.seed, k, 0, "The pipeline unscheduled; auto-scheduled (--auto) it failed."));
    g_crash_report = repro + "\n// (auto-scheduled; its schedule is printed once it is made)\n";
    std::string what;
    Timing timing;
    auto start = std::chrono::steady_clock::now();
    try {
        std::vector<loom::Buffer<>> got = realize(p, base, inputs, &timing, schedule, target);
        std::string diff = compare(expected, got);
        if (!diff.empty()) what = "outputs differ: " + diff;
    } catch (const std::exception &e) {
        what = std::string("the auto-scheduled pipeline threw: ") + e.what();
    }
    out.pairs++;
    if (!what.empty() || o.print) {
        if (!what.empty()) out.failures++;
        std::cout << "\n==== "
                  << (what.empty() ? "PRINTED" : "FAILURE " + std::to_string(out.failures))
                  << ": seed " << o.seed << ", pipeline " << k << " auto-scheduled (estimates x"
                  << scale << "): " << (what.empty() ? "ok" : what) << "\n---- reproducer ----\n"
                  << repro << "---- the schedule auto_schedule chose ----\n"
                  << source << "---- end ----\n"
                  << std::flush;
    }
    if (o.verbose) {
        double ms =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        std::cout << "pipeline " << k << " auto: " << (what.empty() ? "ok" : "FAILED") << " ("
                  << p.funcs.size() << " Funcs, " << ms << " ms: compile " << timing.compile_ms
                  << ", run " << timing.run_ms << ")\n";
    }
}

Outcome run_fuzz(const Options &o) {
    Outcome out;
    for (int k = 0; out.pairs < o.pairs; k++) {
        if (o.pipeline >= 0 && k != o.pipeline) {
            if (k > o.pipeline) break;
            continue;
        }
        const uint32_t ps = pipeline_seed(o.seed, k);
        GenOptions gen;
        gen.extern_stages = true; // loom_fuzz_extern is exported (ENABLE_EXPORTS)
        PipelineDesc p = generate_pipeline(ps, gen);
        Schedule base = generate_schedule(p, ps, true);
        std::vector<loom::Buffer<>> inputs = make_inputs(p);
        const int schedules = 1 + (int)(ps % 3);
        out.pipelines++;
        out.with_extern += std::any_of(p.funcs.begin(), p.funcs.end(),
                                       [](const FuncDesc &fd) { return fd.is_extern; });

        std::vector<loom::Buffer<>> expected;
        {
            Schedule first = generate_schedule(p, schedule_seed(o.seed, k, 0), false, o.avoid);
            std::string repro = reproducer(p, base, first, header(o.seed, k, 0, "The unscheduled pipeline failed."));
            g_crash_report = repro;
            try {
                expected = realize(p, base, inputs);
            } catch (const std::exception &e) {
                report_failure(out, o.seed, k, 0,
                               std::string("the unscheduled pipeline threw: ") + e.what(), repro);
                out.pairs++;
                continue;
            }
        }
        if (o.auto_schedule) {
            run_auto_schedule(out, o, k, p, base, inputs, expected);
            continue;
        }
        for (int j = 0; j < schedules && out.pairs < o.pairs; j++) {
            if (o.schedule >= 0 && j != o.schedule) continue;
            Schedule sched = generate_schedule(p, schedule_seed(o.seed, k, j), false, o.avoid);
            auto start = std::chrono::steady_clock::now();
            std::string what;
            Timing timing;
            g_crash_report = reproducer(p, base, sched, header(o.seed, k, j, "The scheduled pipeline crashed."));
            try {
                std::vector<loom::Buffer<>> got = realize(p, sched, inputs, &timing);
                std::string diff = compare(expected, got, sched.reorders_float_reduction);
                if (!diff.empty()) what = "outputs differ: " + diff;
            } catch (const std::exception &e) {
                what = std::string("the scheduled pipeline threw: ") + e.what();
            }
            out.pairs++;
            out.float_reordered += sched.reorders_float_reduction;
            out.sharing_loops += has_directive(sched, Directive::ComputeWith);
            out.traced += has_directive(sched, Directive::Trace);
            out.atomic += has_directive(sched, Directive::Atomic);
            out.async += has_directive(sched, Directive::Async);
            out.wrapped += has_directive(sched, Directive::Wrap);
            out.heap += has_directive(sched, Directive::StoreInHeap);
            if (o.print && what.empty()) std::cout << reproducer(p, base, sched, header(o.seed, k, j, "Printed on request.")) << "\n";
            if (!what.empty()) {
                report_failure(out, o.seed, k, j, what,
                               reproducer(p, base, sched, header(o.seed, k, j, what)));
            }
            if (o.verbose) {
                double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
                std::cout << "pipeline " << k << " schedule " << j << ": " << (what.empty() ? "ok" : "FAILED")
                          << " (" << p.funcs.size() << " Funcs, " << sched.directives.size()
                          << " directives, " << ms << " ms: compile " << timing.compile_ms
                          << ", run " << timing.run_ms << "; distinct output values " << distinct_values(expected)
                          << ")\n";
            }
        }
    }
    g_crash_report.clear();
    return out;
}

TEST(ScheduleInvariance, RandomPipelinesAndSchedules) {
    const Options &o = g_options;
    auto start = std::chrono::steady_clock::now();
    Outcome out = run_fuzz(o);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cout << "seed " << o.seed << ": ran " << out.pairs << " pairs (" << out.pipelines
              << " pipelines, " << out.with_extern << " with extern stages) in " << s
              << " s: " << (out.pairs - out.failures) << " clean, " << out.failures << " failed; "
              << out.sharing_loops << " schedules with compute_with, " << out.traced << " tracing ("
              << g_trace_events.load() << " events), " << out.atomic << " with atomic(), "
              << out.async << " with async(), " << out.wrapped << " with wrappers, " << out.heap
              << " with store_in, " << out.float_reordered
              << " reordering a float reduction (compared within a relative "
              << kReorderedReductionTolerance << ")\n";
    if (out.failures == 0) std::cout << "ran " << out.pairs << " pairs clean\n";
    EXPECT_EQ(out.failures, 0) << "see the reproducers above";
}

}  // namespace

void add_avoid(const std::string &list) {
    std::stringstream s(list);
    for (std::string item; std::getline(s, item, ',');) {
        if (!item.empty()) g_options.avoid.insert(item);
    }
}

int main(int argc, char **argv) {
    loom_set_trace_handler(count_trace_event);
    // Every pair must go through code generation: a pipeline loaded from the persistent JIT
    // cache (from an earlier run of the same seed) would skip what the fuzzer exercises, and
    // random pipelines would only fill the user's cache. LOOM_JIT_CACHE=1 turns it back on.
    setenv("LOOM_JIT_CACHE", "0", /*overwrite=*/0);
    if (const char *s = std::getenv("LOOM_FUZZ_SEED")) g_options.seed = (uint32_t)std::strtoul(s, nullptr, 10);
    if (const char *s = std::getenv("LOOM_FUZZ_PAIRS")) g_options.pairs = std::atoi(s);
    if (const char *s = std::getenv("LOOM_FUZZ_AVOID")) add_avoid(s);
    std::vector<char *> rest = {argv[0]};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() { return i + 1 < argc ? argv[++i] : (char *)"0"; };
        if (a == "--seed") g_options.seed = (uint32_t)std::strtoul(value(), nullptr, 10);
        else if (a == "--pairs") g_options.pairs = std::atoi(value());
        else if (a == "--pipeline") g_options.pipeline = std::atoi(value());
        else if (a == "--schedule") g_options.schedule = std::atoi(value());
        else if (a == "--print") g_options.print = true;
        else if (a == "--verbose") g_options.verbose = true;
        else if (a == "--auto")
            g_options.auto_schedule = true;
        else if (a == "--gpu")
            g_options.gpu = true;
        else if (a == "--avoid") add_avoid(value());
        else rest.push_back(argv[i]);
    }
    if (g_options.pipeline >= 0 && !std::getenv("LOOM_FUZZ_PAIRS")) g_options.pairs = 1 << 20;
    for (int sig : {SIGSEGV, SIGFPE, SIGBUS, SIGILL, SIGABRT}) std::signal(sig, on_crash);
    // An argument vector ends with a null pointer (argv[argc] == NULL), which InitGoogleTest
    // reads and moves when it removes the flags it takes.
    int n = (int)rest.size();
    rest.push_back(nullptr);
    ::testing::InitGoogleTest(&n, rest.data());
    return RUN_ALL_TESTS();
}
