#include "lower/autoschedule/Search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "lower/Lower.h"
#include "lower/Simplify.h"
#include "lower/autoschedule/CostModel.h"
#include "lower/autoschedule/Heuristic.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

using Clock = std::chrono::steady_clock;

/** Seconds the heuristic's own schedule may take to lower and cost, whatever the budget. */
constexpr double kFirstCandidateSeconds = 60;

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

/** LOOM_LOG=search (in a comma-separated list): each candidate on stderr as it is costed. */
bool logging_candidates() {
    static const bool on = [] {
        const char *log = std::getenv("LOOM_LOG");
        return log && ("," + std::string(log) + ",").find(",search,") != std::string::npos;
    }();
    return on;
}

std::string megacycles(double cycles) {
    std::ostringstream s;
    s.precision(3);
    s << cycles / 1e6 << " Mcycles";
    return s.str();
}

/** Beam search over the knobs, from the heuristic's values. Why a beam: the knobs are few (a
 * placement per Func, a strip height per root, a tile per reduction) and mostly act on their
 * own, so one change at a time from the best schedules finds most of what there is; keeping
 * several schedules, not only the best (hill climbing), reaches pairs of changes that pay only
 * together (a Func moved into strips that are then too tall) without the cost of a tree
 * search's or an evolution's many more evaluations, each of which lowers the pipeline. */
class BeamSearch {
public:
    /** `warn` receives the heuristic's warnings (missing estimates), once. */
    BeamSearch(const std::vector<FunctionPtr> &outputs, const Target &target,
               const MachineParams &params, const SearchOptions &options,
               const std::function<void(const std::string &)> &warn)
        : outputs(outputs), target(target.is_host_default() ? get_host_target() : target),
          params(params), options(options), warn(warn),
          graph(outputs, [](const std::string &) {}),
          machine(MachineModel::of(this->target, params)) {}

    SearchReport run() {
        start = Clock::now();
        SearchReport report;
        const Candidate first = evaluate_first();
        report.heuristic = first.choices;
        report.heuristic_cycles = first.cycles();
        std::vector<Candidate> beam{first};
        Candidate best = first;
        while (time_left()) {
            std::vector<Choices> asked;
            for (const Candidate &b : beam) {
                for (const Choices &c : neighbours(b.choices))
                    asked.push_back(c);
            }
            bool finished = true;
            std::vector<Candidate> next = evaluate_all(asked, &finished);
            next.insert(next.end(), beam.begin(), beam.end());
            std::sort(next.begin(), next.end(), [](const Candidate &a, const Candidate &b) {
                return a.cycles() < b.cycles() || (a.cycles() == b.cycles() && a.key < b.key);
            });
            std::vector<Candidate> kept;
            for (const Candidate &c : next) {
                if ((int)kept.size() == options.beam_width) break;
                const bool seen = std::any_of(kept.begin(), kept.end(),
                                              [&](const Candidate &k) { return k.key == c.key; });
                if (!seen) kept.push_back(c);
            }
            report.rounds++;
            const bool same =
                kept.size() == beam.size() &&
                std::equal(kept.begin(), kept.end(), beam.begin(),
                           [](const Candidate &a, const Candidate &b) { return a.key == b.key; });
            beam = kept;
            if (!beam.empty() && beam[0].cycles() < best.cycles()) best = beam[0];
            if (same || !finished) break;
        }
        const Candidate &chosen =
            best.cycles() < first.cycles() * (1 - kMinimumGain) ? best : first;
        report.chosen = chosen.choices;
        report.chosen_cycles = chosen.cycles();
        report.chosen_estimate = chosen.estimate;
        report.costed = (int)costs.size();
        report.seconds = seconds_since(start);
        return report;
    }

private:
    struct Candidate {
        Choices choices;
        std::string key;
        CostEstimate estimate;
        double cycles() const { return estimate.cycles; }
    };

    const std::vector<FunctionPtr> &outputs;
    const Target target;
    const MachineParams params;
    const SearchOptions options;
    const std::function<void(const std::string &)> warn;
    static void quiet(const std::string &) {}
    const PipelineGraph graph;
    const MachineModel machine;
    Clock::time_point start;
    double first_seconds = 0;                  // lowering and costing the heuristic's schedule took
    std::map<std::string, CostEstimate> costs; // by the applied choices' text

    bool time_left() const { return seconds_since(start) < options.budget_seconds; }
    double time_remaining() const { return options.budget_seconds - seconds_since(start); }

    /** The schedule the Funcs have now, lowered and costed here. A schedule that fails to
     * lower costs infinitely much. */
    CostEstimate cost_here() const {
        CostEstimate e;
        try {
            std::ostringstream unused_log;
            const LoweredPipeline lowered =
                lower(outputs, outputs[0]->name, target, CompileOptions(), {}, unused_log);
            e = estimate_cost(lowered.body, machine, run_sizes(lowered.args, graph));
        } catch (const std::exception &) {
            e.cycles = INFINITY;
        }
        return e;
    }

    /** The schedule `asked` gives (the heuristic's where a value is not legal), applied to the
     * Funcs; its text is the candidate's key. */
    Candidate apply(const Choices &asked,
                    const std::function<void(const std::string &)> &say = quiet) const {
        Candidate c;
        heuristic_schedule(outputs, target, params, say, asked, &c.choices);
        c.key = c.choices.to_string();
        return c;
    }

    Candidate &record(Candidate &c, const CostEstimate &e) {
        c.estimate = e;
        costs[c.key] = e;
        if (logging_candidates())
            std::cerr << "loom search: " << c.key << ": " << megacycles(c.cycles()) << " ("
                      << megacycles(e.arithmetic) << " arithmetic, " << megacycles(e.memory)
                      << " memory, " << megacycles(e.overhead) << " loops)\n";
        return c;
    }

    /** The heuristic's own schedule, costed whatever the budget (it is the answer where nothing
     * else is costed); the time it takes sets how long any other may take. */
    Candidate evaluate_first() {
        Candidate c = apply(Choices(), warn);
        const auto costing = Clock::now();
        const CostEstimate e = cost_within(std::max(time_remaining(), kFirstCandidateSeconds));
        first_seconds = seconds_since(costing);
        return record(c, e);
    }

    /** A child costing one candidate: it lowers the Funcs as they were scheduled when it was
     * made (fork), and writes its estimate to `fd`. */
    struct Child {
        pid_t pid = -1;
        int fd = -1;
        Clock::time_point deadline;
        size_t index = 0; // into the candidates
    };

    /** Forks a child that runs cost_here() on the Funcs' schedules now; pid -1 where a child
     * can't be made. */
    Child start_child(double seconds) const {
        Child c;
        int fds[2];
        if (pipe(fds) != 0) return c;
        const pid_t pid = fork();
        if (pid < 0) {
            close(fds[0]);
            close(fds[1]);
            return c;
        }
        if (pid == 0) {
            close(fds[0]);
            const CostEstimate e = cost_here();
            const ssize_t written = write(fds[1], &e, sizeof e);
            _exit(written == (ssize_t)sizeof e ? 0 : 1);
        }
        close(fds[1]);
        c.pid = pid;
        c.fd = fds[0];
        c.deadline = Clock::now() + std::chrono::microseconds((int64_t)(seconds * 1e6));
        return c;
    }

    /** The child's estimate where it has written one (it is done), else infinitely costly (it
     * was killed, or failed); reaps it. */
    static CostEstimate finish_child(Child &c, bool kill_it) {
        CostEstimate e;
        e.cycles = INFINITY;
        if (kill_it) {
            kill(c.pid, SIGKILL);
        } else {
            CostEstimate got;
            if (read(c.fd, &got, sizeof got) == (ssize_t)sizeof got) e = got;
        }
        close(c.fd);
        waitpid(c.pid, nullptr, 0);
        return e;
    }

    /** cost_here() in a child process, given up (infinitely costly) past `seconds`. */
    CostEstimate cost_within(double seconds) const {
        Child c = start_child(seconds);
        if (c.pid < 0) return cost_here();
        pollfd ready{c.fd, POLLIN, 0};
        const int ms = (int)std::clamp(seconds * 1000, 1.0, 1e9);
        return finish_child(c, poll(&ready, 1, ms) != 1);
    }

    /** Each of `asked` applied and costed, as many at once as the machine has cores, each in
     * a child process that may take ten times as long as the heuristic's schedule did (at least
     * a second) while the budget lasts: lowering some schedules takes minutes (bounds that
     * grow with each Func computed at one loop: camera_pipe with its demosaic's stages all once
     * a strip), and the budget must hold whatever a candidate does. Stops where the budget is
     * spent (`*finished` false), returning those costed. */
    std::vector<Candidate> evaluate_all(const std::vector<Choices> &asked, bool *finished) {
        std::vector<Candidate> done;
        std::vector<Candidate> waiting; // launched, by Child::index
        std::vector<Child> running;
        std::set<std::string> launched;
        const size_t most = (size_t)std::max(1, machine.cores);
        const double per_candidate = std::max(1.0, 10 * first_seconds);
        size_t next = 0;
        *finished = true;
        while (next < asked.size() || !running.empty()) {
            // Launch while there are cores and budget.
            while (next < asked.size() && running.size() < most) {
                if (!time_left()) {
                    *finished = false;
                    next = asked.size();
                    break;
                }
                Candidate c = apply(asked[next++]);
                if (auto it = costs.find(c.key); it != costs.end()) {
                    c.estimate = it->second;
                    done.push_back(c);
                    continue;
                }
                if (!launched.insert(c.key).second) continue;
                Child child = start_child(std::min(time_remaining(), per_candidate));
                if (child.pid < 0) {
                    done.push_back(record(c, cost_here()));
                    continue;
                }
                child.index = waiting.size();
                waiting.push_back(c);
                running.push_back(child);
            }
            if (running.empty()) break;
            // Wait for the first child to finish or the nearest deadline.
            std::vector<pollfd> fds;
            Clock::time_point nearest = running[0].deadline;
            for (const Child &c : running) {
                fds.push_back(pollfd{c.fd, POLLIN, 0});
                nearest = std::min(nearest, c.deadline);
            }
            const double wait = std::chrono::duration<double>(nearest - Clock::now()).count();
            poll(fds.data(), fds.size(), (int)std::clamp(wait * 1000, 0.0, 1e9));
            std::vector<Child> still;
            for (size_t i = 0; i < running.size(); i++) {
                const bool ready = fds[i].revents != 0;
                const bool late = Clock::now() >= running[i].deadline;
                if (!ready && !late) {
                    still.push_back(running[i]);
                    continue;
                }
                Candidate &c = waiting[running[i].index];
                done.push_back(record(c, finish_child(running[i], !ready)));
                if (!ready) *finished = false;
            }
            running.swap(still);
        }
        return done;
    }
};

/** The knobs whose values differ between a and b, as "knob: a's -> b's". */
std::string changes(const Choices &a, const Choices &b) {
    std::ostringstream out;
    auto each = [&](const auto &from, const auto &to, const std::string &suffix, auto show) {
        for (const auto &[k, v] : to) {
            auto it = from.find(k);
            if (it == from.end() || it->second == v) continue;
            out << "  " << k << suffix << ": " << show(it->second) << " -> " << show(v) << "\n";
        }
    };
    each(a.placement, b.placement, "", [](const std::string &v) { return v; });
    each(a.strip, b.strip, " strip rows", [](int64_t v) { return std::to_string(v); });
    each(a.tile, b.tile, " register tile", [](const std::pair<int, int> &v) {
        return std::to_string(v.first) + "x" + std::to_string(v.second);
    });
    return out.str();
}

} // namespace

std::string search_schedule(const std::vector<FunctionPtr> &outputs, const Target &target,
                            const MachineParams &params,
                            const std::function<void(const std::string &)> &warn,
                            const SearchOptions &options, SearchReport *report) {
    user_assert(options.budget_seconds >= 0 && options.beam_width >= 1)
        << "auto_schedule(\"Search\"): the budget (" << options.budget_seconds
        << " s) must be 0 or more and the beam width (" << options.beam_width << ") at least 1.";
    // Its cost model is the CPU's (CostModel.h): a kernel's time is not the sum it counts.
    user_assert(!target.has_feature(Target::CUDA))
        << "auto_schedule(\"Search\") costs schedules with a model of the CPU; the target "
        << target.to_string() << " has CUDA. For the GPU, use \"Heuristic\", or \"Autotune\", "
        << "which times candidates on the GPU itself.";
    BeamSearch search(outputs, target, params, options, warn);
    const SearchReport r = search.run();
    if (report) *report = r;
    const std::string reasons = heuristic_schedule(
        outputs, target, params, [](const std::string &) {}, r.chosen);
    std::ostringstream summary;
    summary << "Search: " << r.costed << " schedules costed in " << r.rounds << " rounds, "
            << std::lround(r.seconds * 1000) << " ms (beam of " << options.beam_width
            << "); estimated " << megacycles(r.chosen_cycles) << ", the heuristic's schedule "
            << megacycles(r.heuristic_cycles) << "; the chosen one's parts, summed over the cores: "
            << megacycles(r.chosen_estimate.arithmetic) << " arithmetic, "
            << megacycles(r.chosen_estimate.memory) << " memory, "
            << megacycles(r.chosen_estimate.overhead) << " loops and tasks\n";
    const std::string changed = changes(r.heuristic, r.chosen);
    summary << (changed.empty() ? "the heuristic's schedule is kept\n"
                                : "changed from the heuristic's schedule:\n" + changed);
    return summary.str() + reasons;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
