// The autotuner (dsl/Autotune.h): hill climbing over the heuristic scheduler's knobs
// (lower/autoschedule/Heuristic.h's Choices), each candidate compiled and timed here.
//
// Why hill climbing from the heuristic's schedule: the knobs are few per Func (a placement, a
// strip height, a register tile) and mostly act apart from each other, so one change at a time
// from the best so far finds most of what a wider search would, and every step is a schedule
// the heuristic itself calls legal. A budget of a minute measures tens of candidates (each a
// compile of 0.1 to a few seconds and a few runs); at a local optimum the climb tries two
// changes at once, drawn at random. Knobs that pay only together (a matrix product's strip
// height with its register tile) the search scheduler finds under its cost model in seconds:
// its schedule is raced first, and the climb starts from it where it wins.
//
// Why races in pairs: this kind of machine drifts (a neighbour's load doubles a run's time for
// seconds at a stretch), so a candidate timed once against a best timed minutes before wins
// or loses by luck. Each candidate runs back to back with the best, which goes first
// alternating, and wins on the median of the pairs' ratios.
#include "dsl/Autotune.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

#include "codegen/JITCacheKey.h"
#include "dsl/Error.h"
#include "dsl/IRPrinter.h"
#include "dsl/Pipeline.h"
#include "dsl/RDom.h"
#include "dsl/ScheduleSource.h"
#include "lower/InferArguments.h"
#include "lower/autoschedule/Heuristic.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"
#include "lower/autoschedule/Search.h"
#include "lower/autoschedule/TuningDatabase.h"
#include "runtime/loom_runtime.h"

namespace loom {
namespace {

using namespace Internal;
using namespace Internal::autoschedule;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::vector<FunctionPtr> output_functions(const Pipeline &p) {
    std::vector<FunctionPtr> outputs;
    for (const Func &f : p.outputs())
        outputs.push_back(f.function());
    return outputs;
}

/** 64-bit FNV-1a of `text`, in hex: the database key's digest. */
std::string digest(const std::string &text) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", (unsigned long long)h);
    return hex;
}

/** What a measurement depends on: every Func's definitions (not its schedule), the regions the
 * estimates give them, the target, the machine, and Loom's version (not its build: rebuilding
 * the same version keeps the measurements). */
std::string database_key(const PipelineGraph &graph, const Target &target,
                         const MachineModel &machine) {
    std::ostringstream s;
    for (const std::string &name : graph.order()) {
        const FuncNode &n = graph.node(name);
        const FunctionContents &f = *n.func;
        s << name << "(";
        for (const std::string &a : f.args)
            s << a << ",";
        s << ")" << (n.is_output ? " output" : "") << " region";
        for (const Span &span : n.region)
            s << " [" << span.min << "," << span.max << "]";
        for (int k = 0; k < f.stages(); k++) {
            const Definition &d = k == 0 ? f.init : f.updates[k - 1];
            s << "\n  ";
            for (const Expr &e : d.args)
                s << e << ",";
            s << " = ";
            for (const Expr &e : d.values)
                s << e << ",";
            if (d.predicate.defined()) s << " if " << d.predicate;
            if (d.rdom) {
                for (const ReductionVariable &rv : d.rdom->domain)
                    s << " " << rv.var << " in [" << rv.min << ", " << rv.extent << "]";
            }
            s << " specializations " << d.specializations.size();
        }
        s << "\n";
    }
    std::string version = loom_build_id();
    version = version.substr(0, version.find(" sources"));
    s << target.to_string() << "\n" << machine.to_string() << "\n" << version;
    return digest(s.str());
}

/** Binds each ImageParam the pipeline reads and no buffer is bound to, to a buffer of its
 * estimated region filled with test values, for the time of the tuning. */
class TemporaryInputs {
public:
    explicit TemporaryInputs(const std::vector<FunctionPtr> &outputs) {
        for (const LoweredArgument &a : infer_arguments(outputs, find_environment(outputs), {})) {
            if (a.kind != Argument::InputBuffer || !a.param || a.param->buffer) continue;
            std::vector<int> sizes, mins;
            for (int d = 0; d < a.dimensions; d++) {
                const Region &r = a.param->buffer_estimates;
                const int64_t *min = d < (int)r.size() ? as_const_int(r[d].min) : nullptr;
                const int64_t *extent = d < (int)r.size() ? as_const_int(r[d].extent) : nullptr;
                user_assert(min && extent)
                    << "autotune: ImageParam " << a.name << " is bound to no buffer and has no "
                    << "estimate for dimension " << d << ". Bind it (" << a.name
                    << ".set(buffer)) or call " << a.name << ".set_estimates(...).";
                mins.push_back((int)*min);
                sizes.push_back((int)*extent);
            }
            Buffer<> b(a.type, sizes, a.name);
            b.set_min(mins);
            fill(b);
            a.param->buffer = b.contents_ptr();
            bound.push_back(a.param);
        }
    }
    ~TemporaryInputs() {
        for (const auto &param : bound)
            param->buffer = nullptr;
    }
    TemporaryInputs(const TemporaryInputs &) = delete;
    TemporaryInputs &operator=(const TemporaryInputs &) = delete;

private:
    std::vector<std::shared_ptr<ParameterContents>> bound;

    /** Floats in [0, 1), integers a pattern of small values: data a pipeline computes on as on
     * an image, with no NaNs or denormals to slow it. */
    static void fill(Buffer<> &b) {
        const Type t = b.type();
        uint8_t *data = (uint8_t *)b.raw_buffer()->host;
        const size_t n = b.number_of_elements();
        uint32_t state = 12345;
        for (size_t i = 0; i < n; i++) {
            state = state * 1664525u + 1013904223u;
            const double unit = (state >> 8) / double(1 << 24);
            uint8_t *p = data + i * t.bytes();
            if (t.is_float() && t.bits() == 32) {
                const float v = (float)unit;
                std::memcpy(p, &v, 4);
            } else if (t.is_float()) {
                std::memcpy(p, &unit, 8);
            } else {
                const uint64_t v = (uint64_t)(unit * 200);
                std::memcpy(p, &v, t.bytes());
            }
        }
    }
};

/** The outputs' buffers, of the regions their estimates give. */
std::vector<Buffer<>> output_buffers(const PipelineGraph &graph,
                                     const std::vector<FunctionPtr> &outputs) {
    std::vector<Buffer<>> buffers;
    for (const FunctionPtr &f : outputs) {
        const Region64 &region = graph.node(f->name).region;
        std::vector<int> sizes, mins;
        for (const Span &s : region) {
            mins.push_back((int)s.min);
            sizes.push_back((int)s.extent());
        }
        for (const Type &t : f->output_types) {
            Buffer<> b(t, sizes, f->name);
            b.set_min(mins);
            buffers.push_back(b);
        }
    }
    return buffers;
}

std::string milliseconds(double seconds) {
    std::ostringstream s;
    s.precision(4);
    s << seconds * 1e3 << " ms";
    return s.str();
}

class Autotuner {
public:
    Autotuner(Pipeline &pipeline, const Target &target, const MachineParams &params,
              const AutotuneOptions &options)
        : pipeline(pipeline), target(target), params(params), options(options),
          outputs(output_functions(pipeline)), graph(outputs, [](const std::string &) {}),
          machine(MachineModel::of(target.is_host_default() ? get_host_target() : target, params)),
          key(database_key(graph, target, machine)),
          database(options.database.empty() ? TuningDatabase::default_path() : options.database),
          rng(options.seed), terminal(isatty(STDERR_FILENO)) {}

    AutoSchedulerResults run() {
        start = Clock::now();
        TemporaryInputs inputs(outputs);
        OutputsStayOnDevice stay(pipeline, on_gpu);
        buffers = output_buffers(graph, outputs);
        known = database.measured(key);
        from_database = known.size();

        // The heuristic's schedule, then the best the database holds, are the first to beat.
        heuristic = canonical(Choices());
        heuristic_seconds = measure(heuristic);
        best = heuristic;
        best_seconds = heuristic_seconds;
        for (const auto &[text, seconds] : known) {
            if (seconds >= best_seconds) continue;
            try {
                Choices c = canonical(Choices::parse(text));
                if (c.to_string() == text) {
                    best = c;
                    best_seconds = seconds;
                }
            } catch (const CompileError &) {
                // A record from another version of the knobs: not a starting point.
            }
        }
        report(true);
        start_from_search();
        climb();
        if (options.progress && terminal) std::cerr << "\n";
        confirm();

        std::ostringstream what;
        what << "Autotuned in " << std::lround(seconds_since(start)) << " s: " << tried
             << " candidates measured here, " << from_database << " known from the database; best "
             << milliseconds(best_seconds) << ", the heuristic's "
             << milliseconds(heuristic_seconds) << "\n"
             << confirmation << "\n"
             << search_note << "database " << database.path() << ", key " << key << "\n"
             << "choices: " << best.to_string() << "\n";
        const std::string summary = heuristic_schedule(
            outputs, target, params, [](const std::string &) {}, best);
        AutoSchedulerResults results;
        results.schedule_source =
            as_comment(what.str() + summary) +
            apply_schedule_function(pipeline, "apply_schedule_" + identifier_of_output());
        if (!options.schedule_file.empty()) {
            results.scheduler_name = "Autotune";
            results.target = target;
            results.machine_params_string = params.to_string();
            std::ofstream out(options.schedule_file);
            out << schedule_header(pipeline, identifier_of_output(), results);
            user_assert(out.good()) << "autotune: can't write " << options.schedule_file;
        }
        return results;
    }

private:
    Pipeline &pipeline;
    const Target target;
    const MachineParams params;
    const AutotuneOptions options;
    const std::vector<FunctionPtr> outputs;
    const PipelineGraph graph;
    const MachineModel machine;
    const std::string key;
    const TuningDatabase database;
    std::mt19937 rng;
    const bool terminal;
    /** A CUDA target: candidates are timed on the GPU, to the end of their kernels. */
    const bool on_gpu = target.has_feature(Target::CUDA);

    /** On the GPU, for the autotuner's runs: the outputs stay in device memory (copying them
     * back would add the same time to every candidate's and hide their differences). */
    struct OutputsStayOnDevice {
        Pipeline &pipeline;
        const CompileOptions before;
        OutputsStayOnDevice(Pipeline &p, bool on_gpu) : pipeline(p), before(p.options()) {
            if (!on_gpu) return;
            char why[512] = {0};
            user_assert(loom_cuda_available(why, sizeof(why)))
                << "autotune for a CUDA target times candidates on the GPU, and there is none: "
                << why << ". Autotune on a machine with an NVIDIA GPU, or use "
                << "auto_schedule(\"Heuristic\"), which needs none.";
            CompileOptions o = before;
            o.copy_outputs_to_host = false;
            pipeline.set_options(o);
        }
        ~OutputsStayOnDevice() { pipeline.set_options(before); }
    };

    Clock::time_point start;
    std::vector<Buffer<>> buffers;
    std::map<std::string, double> known; // choices -> seconds, here and in the database
    size_t from_database = 0;
    int tried = 0;
    Choices heuristic, best;
    double heuristic_seconds = 0, best_seconds = 0;
    std::string confirmation = "the heuristic's schedule is the best measured";
    std::string search_note; // what start_from_search did, a line; empty where it did not run

    std::string identifier_of_output() const { return cpp_identifier(outputs[0]->name); }

    /** Whether the budget and the candidate count allow measuring another candidate. */
    bool may_measure_more() const {
        const bool count_left = options.max_candidates == 0 || tried < options.max_candidates;
        return count_left && seconds_since(start) < options.budget_seconds;
    }

    /** The choices the heuristic applies when asked for `asked` (and applies them): where a
     * value is not legal for its Func, the heuristic's own, so equal results are one schedule. */
    Choices canonical(const Choices &asked) {
        Choices made;
        heuristic_schedule(
            outputs, target, params, [](const std::string &) {}, asked, &made);
        return made;
    }

    /** Seconds of one run of the pipeline as `c` schedules it (time_once), or as the database
     * recorded it. Recorded. A failure is thrown: this is the heuristic's own schedule, and
     * its failing means the pipeline can't run as given (its inputs, say). */
    double measure(const Choices &c) {
        const std::string text = c.to_string();
        if (auto it = known.find(text); it != known.end()) return it->second;
        const double seconds = time_once(c);
        tried++;
        known[text] = seconds;
        database.record(key, text, seconds);
        return seconds;
    }

    void report(bool improved) {
        if (!options.progress) return;
        std::ostringstream line;
        line << "loom autotune " << outputs[0]->name << ": " << tried << " measured, "
             << from_database << " from the database; best " << milliseconds(best_seconds)
             << " (heuristic " << milliseconds(heuristic_seconds) << "); "
             << std::max(0L, std::lround(options.budget_seconds - seconds_since(start)))
             << " s left";
        if (terminal) {
            std::cerr << "\r" << line.str() << "\033[K" << std::flush;
        } else if (improved || tried % 10 == 0) {
            std::cerr << line.str() << "\n";
        }
    }

    /** Candidates one change from `from`, in random order. */
    std::vector<Choices> one_change(const Choices &from) {
        std::vector<Choices> list = neighbours(from);
        std::shuffle(list.begin(), list.end(), rng);
        return list;
    }

    /** Candidates two changes from `from`: pairs of one-change candidates merged. */
    std::vector<Choices> two_changes(const Choices &from) {
        std::vector<Choices> singles = neighbours(from), list;
        if (singles.size() < 2) return list;
        std::uniform_int_distribution<size_t> pick(0, singles.size() - 1);
        for (int i = 0; i < 16; i++) {
            list.push_back(combine(singles[pick(rng)], singles[pick(rng)], from));
        }
        return list;
    }

    /** One run of the schedule `c` (applied and compiled here; compiled before, it comes from
     * the JIT cache): the least of three after one that warms the caches. */
    double time_once(const Choices &c) {
        canonical(c);
        pipeline.compile_jit(target);
        double least = INFINITY;
        for (int i = 0; i < 4; i++) {
            const Clock::time_point t = Clock::now();
            pipeline.realize(RealizationArg(buffers), target);
            if (on_gpu) {
                user_assert(loom_cuda_device_sync(nullptr) == 0)
                    << "autotune: the GPU failed running " << outputs[0]->name << "'s kernels";
            }
            if (i > 0) least = std::min(least, seconds_since(t));
        }
        return least;
    }

    /** Schedules a and b timed in up to `pairs` pairs of runs back to back, which goes first
     * alternating, so that the machine's drift weighs on both alike: the median of the pairs'
     * ratios (a's time over b's). One pair where a is far slower ends it. The least times of
     * each are left in *a_least and *b_least. */
    double paired_ratio(const Choices &a, const Choices &b, int pairs, double *a_least,
                        double *b_least) {
        std::vector<double> ratios;
        for (int pair = 0; pair < pairs; pair++) {
            double ta, tb;
            if (pair % 2 == 0) {
                ta = time_once(a);
                tb = time_once(b);
            } else {
                tb = time_once(b);
                ta = time_once(a);
            }
            *a_least = std::min(*a_least, ta);
            *b_least = std::min(*b_least, tb);
            ratios.push_back(ta / tb);
            if (pair == 0 && ta > 1.5 * tb) break;
        }
        std::sort(ratios.begin(), ratios.end());
        return ratios[ratios.size() / 2];
    }

    /** The climb keeps a candidate that won its race, and on a machine whose speed drifts some
     * of those are luck. The best is timed again against the heuristic's schedule in 5 pairs
     * and kept only where their median says it is faster. After the budget; not with a budget
     * of 0, which takes the database's fastest as measured. */
    void confirm() {
        if (best == heuristic || options.budget_seconds == 0) return;
        double best_least = INFINITY, heuristic_least = INFINITY;
        const double median = paired_ratio(best, heuristic, 5, &best_least, &heuristic_least);
        std::ostringstream said;
        said.precision(3);
        if (median < 0.98) {
            said << "confirmed: the best against the heuristic's schedule, 5 pairs back to back: "
                 << median << "x";
        } else {
            said << "not confirmed (5 pairs back to back: " << median
                 << "x the heuristic's time): the heuristic's schedule is kept";
            best = heuristic;
            best_seconds = heuristic_seconds;
        }
        confirmation = said.str();
    }

    /** Candidate c raced against the best so far in up to 3 pairs (paired_ratio): the median
     * ratio, infinite where c fails. c's least time is recorded. */
    double race(const Choices &c) {
        double ratio = INFINITY, least = INFINITY;
        try {
            ratio = paired_ratio(c, best, 3, &least, &best_seconds);
        } catch (const Error &e) {
            // A variation failing where the heuristic's schedule ran is Loom's bug: said, and
            // the others go on.
            std::cerr << "loom: autotune: the candidate " << c.to_string()
                      << " failed: " << e.what() << "\n";
        }
        tried++;
        const std::string text = c.to_string();
        known[text] = std::min(least, known.count(text) ? known.at(text) : INFINITY);
        database.record(key, text, least);
        return ratio;
    }

    /** The search scheduler's schedule (Search.h) raced against the best so far, which it
     * replaces where it wins: the climb then starts from it. The search costs whole schedules
     * under a model and reaches combinations of changes the climb would take many races to
     * find (a matrix product's strip height and register tile together), so a short budget
     * starts near them. A quarter of the budget left after the heuristic's schedule was
     * measured, at most the search's default; not on the GPU (the search's model is the CPU's)
     * nor where no time is left. */
    void start_from_search() {
        const double left = options.budget_seconds - seconds_since(start);
        if (on_gpu || !may_measure_more()) return;
        SearchOptions search;
        search.budget_seconds = std::min(search.budget_seconds, left / 4);
        SearchReport found;
        search_schedule(
            outputs, target, params, [](const std::string &) {}, search, &found);
        const Choices c = canonical(found.chosen);
        const std::string text = c.to_string();
        search_note = "the search scheduler's schedule (" + text + "): ";
        if (c == best) {
            search_note += "the climb's start already\n";
            return;
        }
        if (known_no_faster(text)) {
            search_note += "measured slower before\n";
            return;
        }
        const double ratio = challenge(c);
        std::ostringstream said;
        said.precision(3);
        said << ratio << "x the best's time in a race, "
             << (best == c ? "the climb's start" : "not kept") << "\n";
        search_note += said.str();
    }

    /** Whether this run or the database measured `text` no faster than the best. */
    bool known_no_faster(const std::string &text) const {
        auto it = known.find(text);
        return it != known.end() && it->second >= best_seconds;
    }

    /** c raced against the best (race), and the best from then on where it wins by more than
     * the timing's noise; reported. Returns the race's ratio. */
    double challenge(const Choices &c) {
        const double ratio = race(c);
        const bool won = ratio < 0.97;
        if (won) {
            best = c;
            best_seconds = known.at(c.to_string());
        }
        report(won);
        return ratio;
    }

    /** First-improvement hill climbing from `best` until the budget is spent: each candidate
     * one change away (two, at a local optimum) is raced against the best and replaces it
     * where it wins by more than the timing's noise. A candidate the database knows is raced
     * again only where it was recorded faster than the best. */
    void climb() {
        std::vector<Choices> queue = one_change(best);
        std::set<std::string> tried_here;
        while (may_measure_more()) {
            if (queue.empty()) {
                queue = two_changes(best);
                if (queue.empty()) return; // nothing to vary
            }
            Choices c = canonical(queue.back());
            queue.pop_back();
            const std::string text = c.to_string();
            if (!tried_here.insert(text).second) continue;
            if (known_no_faster(text)) continue;
            challenge(c);
            if (best == c) queue = one_change(best);
        }
    }
};

} // namespace

AutoSchedulerResults autotune(Pipeline &pipeline, const Target &target, const MachineParams &params,
                              const AutotuneOptions &options) {
    user_assert(!pipeline.outputs().empty())
        << "autotune of a Pipeline with no outputs: give it the Funcs to compute.";
    user_assert(options.budget_seconds >= 0)
        << "autotune: AutotuneOptions::budget_seconds is " << options.budget_seconds
        << "; give the seconds to spend (0 measures the heuristic's schedule only).";
    user_assert(options.max_candidates >= 0)
        << "autotune: AutotuneOptions::max_candidates is " << options.max_candidates
        << "; give the most candidates to measure, or 0 for as many as the budget allows.";
    AutoSchedulerResults results = Autotuner(pipeline, target, params, options).run();
    results.scheduler_name = "Autotune";
    results.target = target;
    results.machine_params_string = params.to_string();
    return results;
}

} // namespace loom
