#include "lower/autoschedule/Heuristic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/RDom.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

/** Where a Func is computed. Strip: once per strip of its group's root, before the strip's
 * rows (compute_at the strip loop). Row: once per row of the strip (compute_at the row loop),
 * where consecutive rows read disjoint parts. Sliding: per row, but stored for the whole strip,
 * so that each row computes only what the rows before it did not (store_at the strip loop,
 * compute_at the row loop). */
enum class Placement { Inline, Root, Strip, Row, Sliding };

struct Plan {
    Placement placement = Placement::Root;
    std::string group;   // the root Func whose strips it is computed in (itself at root)
    int group_stage = 0; // the stage of that Func whose loop it is computed in
    int64_t width = 0;   // members: the extent of dimension 0 it is computed over in a strip
    std::string why;
};

/** A root Func and the loops its strips run in. */
struct Group {
    int strip_dim = -1;            // the pure dimension split into strips; -1: no strip loop
    int64_t strip = 1;             // rows (points of strip_dim) a strip
    std::string outer, inner;      // the strip loop and the row loop inside it
    std::vector<bool> stage_split; // per stage of the root: whether it runs in the strips
    /** How many strips cover the root's region. */
    int64_t strips_over(const Region64 &region) const {
        return (region[strip_dim].extent() + strip - 1) / strip;
    }
};

int64_t floor_pow2(int64_t v) {
    int64_t p = 1;
    while (p * 2 <= v)
        p *= 2;
    return p;
}

std::string fmt(double v) {
    std::ostringstream s;
    s.precision(3);
    s << v;
    return s.str();
}

/** Restores the schedule a Func has when defined: inlined, its stages' loops in definition
 * order, no splits. Bounds and estimates are part of what the user stated about sizes, kept. */
void reset_schedule(FunctionContents &f) {
    f.schedule.compute_level = LoopLevel();
    f.schedule.store_level = LoopLevel();
    f.schedule.storage_order.clear();
    f.schedule.folds.clear();
    for (int k = 0; k < f.stages(); k++) {
        Definition &d = k == 0 ? f.init : f.updates[k - 1];
        d.schedule = StageSchedule();
        d.schedule.dims = default_loops(d);
    }
}

class HeuristicScheduler {
public:
    HeuristicScheduler(const PipelineGraph &graph, const MachineModel &machine)
        : graph(graph), machine(machine) {}

    std::string run() {
        decide_inlining();
        decide_groups();
        apply();
        std::ostringstream summary;
        summary << "Heuristic auto-schedule for " << machine.to_string() << ":\n";
        for (const std::string &name : graph.order()) {
            summary << "  " << name << ": " << plans.at(name).why << "\n";
        }
        return summary.str();
    }

private:
    const PipelineGraph &graph;
    const MachineModel &machine;
    std::map<std::string, Plan> plans;
    std::map<std::string, Group> groups;

    int lanes_of(const FuncNode &n) const {
        int smallest = 8;
        for (const Type &t : n.func->output_types)
            smallest = std::min(smallest, t.bytes());
        return machine.lanes(smallest);
    }

    /** Cycles of one iteration of a stage, vectorized: its arithmetic and its reads from the
     * nearest cache. */
    double iteration_cycles(const StageInfo &s) const {
        return s.op_bytes / machine.vector_bytes + s.load_bytes * near_byte_cost();
    }

    /** Cycles a byte costs from a cache near the core: a Func computed in the strip it is
     * read in, a tile of an input read again by a stencil. */
    double near_byte_cost() const { return machine.byte_cost((double)machine.l2_bytes); }

    /** Cycles of computing every stage of f over `box`. */
    double compute_cycles(const std::string &f, const Region64 &box) const {
        const FuncNode &n = graph.node(f);
        double cycles = 0;
        for (int k = 0; k < (int)n.stages.size(); k++) {
            cycles += iteration_cycles(n.stages[k]) * (double)graph.iterations(f, k, box);
        }
        return cycles;
    }

    /** Whether stage k of consumer c reads f, directly or through Funcs inlined into it. */
    bool stage_reaches(const std::string &c, int k, const std::string &f) const {
        for (const CallSite &call : graph.node(c).stages[k].calls) {
            if (!call.is_func) continue;
            if (call.callee == f) return true;
            if (plans.count(call.callee) && plans.at(call.callee).placement == Placement::Inline &&
                stage_reaches(call.callee, 0, f)) {
                return true;
            }
        }
        return false;
    }

    // --- Inline or not -------------------------------------------------------------------

    /** Inlined, a Func is computed again at each of its `uses` (its reads included); stored, it
     * is computed once a point, written once and read back at each use. Inlined wins where it
     * costs no more, or where the uses repeat no points. */
    struct Weighing {
        double inline_cost, materialize_cost;
        bool inline_wins;
    };
    Weighing weigh_inlining(double cycles_per_use, double points, double uses, int bytes) const {
        Weighing w;
        w.inline_cost = cycles_per_use * uses;
        w.materialize_cost = cycles_per_use * points + (points + uses) * bytes * near_byte_cost();
        w.inline_wins = uses <= points * 1.05 || w.inline_cost <= w.materialize_cost;
        return w;
    }

    /** A Func inlined into another is computed as part of it: its cost per evaluation is its
     * own plus that of the Funcs inlined into it, at each of its reads of them. */
    struct Inlined {
        double cycles = 0, nodes = 0;
    };
    Inlined inlined_cost(const std::string &name, std::map<std::string, Inlined> &memo) const {
        if (auto it = memo.find(name); it != memo.end()) return it->second;
        const StageInfo &s = graph.node(name).stages[0];
        Inlined cost{iteration_cycles(s), s.nodes};
        for (const CallSite &call : s.calls) {
            if (!call.is_func || plans.at(call.callee).placement != Placement::Inline) continue;
            const Inlined callee = inlined_cost(call.callee, memo);
            // The read becomes the callee's computation.
            cost.cycles += callee.cycles - call.bytes * near_byte_cost();
            cost.nodes += callee.nodes;
        }
        return memo[name] = cost;
    }

    /** The largest expression inlining may make, in operations: beyond it, compile time and
     * code size grow faster than any saving (a pyramid's levels read their inputs at 2 to 4
     * points each, and inlined into each other they multiply). */
    static constexpr double max_inlined_nodes = 256;

    /** The second pass over the inlining choices, producers first: a Func inlined into a
     * consumer it makes too costly (its own work with the Funcs inlined into it, at each use) or
     * too large is stored after all. Storing it only lowers its producers' uses, so the choices
     * made for them stay right. */
    void recheck_inlining(const std::map<std::string, double> &uses) {
        std::map<std::string, Inlined> memo;
        for (const std::string &name : graph.order()) {
            Plan &plan = plans.at(name);
            if (plan.placement != Placement::Inline) continue;
            const FuncNode &n = graph.node(name);
            const Inlined cost = inlined_cost(name, memo);
            const Weighing w =
                weigh_inlining(cost.cycles, (double)points_in(n.region), uses.at(name), n.bytes);
            if (cost.nodes <= max_inlined_nodes && w.inline_wins) continue;
            plan.placement = Placement::Root;
            plan.why = "stored: inlined with the Funcs inlined into it, it would cost " +
                       fmt(w.inline_cost) + " cycles against " + fmt(w.materialize_cost) +
                       " and be " + fmt(cost.nodes) + " operations";
            memo.clear();
        }
    }

    void decide_inlining() {
        // How many times each Func's value is evaluated in a run, given its consumers' choices:
        // consumers come first in this walk.
        std::map<std::string, double> evaluations;
        for (auto it = graph.order().rbegin(); it != graph.order().rend(); ++it) {
            const std::string &name = *it;
            const FuncNode &n = graph.node(name);
            Plan &plan = plans[name];
            if (n.is_output) {
                plan.why = "output";
                continue;
            }
            double uses = 0;
            for (const std::string &c : n.consumers) {
                const FuncNode &cn = graph.node(c);
                for (int k = 0; k < (int)cn.stages.size(); k++) {
                    int calls = 0;
                    for (const CallSite &call : cn.stages[k].calls)
                        calls += call.callee == name;
                    if (calls == 0) continue;
                    const double per = plans.at(c).placement == Placement::Inline
                                           ? evaluations.at(c)
                                           : (double)graph.iterations(c, k, cn.region);
                    uses += calls * per;
                }
            }
            evaluations[name] = uses;
            if (n.func->stages() > 1 || !n.func->init.specializations.empty()) {
                plan.why = n.func->stages() > 1 ? "has updates: not inlined"
                                                : "is specialized: not inlined";
                continue;
            }
            const double points = (double)points_in(n.region);
            const Weighing w = weigh_inlining(iteration_cycles(n.stages[0]), points, uses, n.bytes);
            if (w.inline_wins) {
                plan.placement = Placement::Inline;
                plan.why = "inlined (" + fmt(uses / std::max(1.0, points)) +
                           " evaluations a point; " + fmt(w.inline_cost) + " cycles against " +
                           fmt(w.materialize_cost) + " stored)";
            } else {
                plan.why = "stored: inlined it would cost " + fmt(w.inline_cost) + " cycles (" +
                           fmt(uses / std::max(1.0, points)) + " evaluations a point) against " +
                           fmt(w.materialize_cost);
            }
        }
        recheck_inlining(evaluations);
    }

    // --- Groups ------------------------------------------------------------------------------

    Group make_group(const std::string &root) {
        const FuncNode &n = graph.node(root);
        Group g;
        const int dims = (int)n.region.size();
        const int cores = std::max(1, machine.cores);
        if (dims == 1) {
            // One dimension: strips of many vectors, a few per core.
            const int64_t extent = n.region[0].extent();
            const int64_t strip =
                std::max<int64_t>(lanes_of(n) * 16, floor_pow2(extent / (4 * cores)));
            if (extent > strip) {
                g.strip_dim = 0;
                g.strip = strip;
            }
        } else if (dims > 1) {
            // The largest outer dimension: rows of an image, not its three channels.
            int best = 1;
            for (int d = 2; d < dims; d++) {
                if (n.region[d].extent() >= n.region[best].extent()) best = d;
            }
            const int64_t extent = n.region[best].extent();
            if (extent >= 2) {
                g.strip_dim = best;
                g.strip = std::clamp<int64_t>(floor_pow2(extent / (2 * cores)), 1, 32);
            }
        }
        if (g.strip_dim >= 0) {
            const std::string var = n.func->args[g.strip_dim];
            std::set<std::string> taken(n.func->args.begin(), n.func->args.end());
            for (const StageInfo &s : n.stages)
                taken.insert(s.rvars.begin(), s.rvars.end());
            g.outer = var + "o";
            g.inner = var + "i";
            for (int i = 2; taken.count(g.outer) || taken.count(g.inner); i++) {
                g.outer = var + "_o" + std::to_string(i);
                g.inner = var + "_i" + std::to_string(i);
            }
            for (int k = 0; k < (int)n.stages.size(); k++) {
                g.stage_split.push_back(k == 0 || n.stages[k].independent(g.strip_dim));
            }
        }
        return g;
    }

    /** The region of each Func computed in one strip of `rows` rows of group `root`'s stage
     * `stage` (a strip in the middle, away from the edges): the root's, and those of its members,
     * the Funcs inlined into them and `candidate`, by bounds inference over constants. nullopt
     * where a read has no constant bounds. */
    std::optional<std::map<std::string, Region64>>
    strip_regions(const std::string &root, int stage, int64_t rows,
                  const std::string &candidate) const {
        const Group &g = groups.at(root);
        std::map<std::string, Region64> boxes;
        Region64 box = graph.node(root).region;
        Span &s = box[g.strip_dim];
        s.min += (g.strips_over(box) / 2) * g.strip;
        s.max = std::min(s.max, s.min + rows - 1);
        boxes[root] = box;
        auto in_strip = [&](const std::string &f) {
            if (f == candidate) return true;
            auto p = plans.find(f);
            return p != plans.end() && (p->second.placement == Placement::Inline ||
                                        (p->second.group == root && f != root &&
                                         p->second.placement != Placement::Root));
        };
        for (auto it = graph.order().rbegin(); it != graph.order().rend(); ++it) {
            auto b = boxes.find(*it);
            if (b == boxes.end()) continue;
            const FuncNode &n = graph.node(*it);
            for (int k = 0; k < (int)n.stages.size(); k++) {
                if (*it == root && k != stage) continue;
                for (const CallSite &call : n.stages[k].calls) {
                    if (!call.is_func || !in_strip(call.callee)) continue;
                    std::optional<Region64> r = graph.required(*it, k, b->second, call.callee);
                    if (!r) return std::nullopt;
                    boxes[call.callee] = region_union(boxes[call.callee], *r);
                }
            }
        }
        return boxes;
    }

    /** The group roots (and their stages) that compute the Funcs reading f, through the Funcs
     * inlined into them. */
    void sites_of(const std::string &f, std::set<std::pair<std::string, int>> &sites) const {
        for (const std::string &c : graph.node(f).consumers) {
            const Plan &p = plans.at(c);
            if (p.placement == Placement::Inline) {
                sites_of(c, sites);
            } else if (p.placement == Placement::Root) {
                for (int k = 0; k < (int)graph.node(c).stages.size(); k++) {
                    if (stage_reaches(c, k, f)) sites.insert({c, k});
                }
            } else {
                sites.insert({p.group, p.group_stage});
            }
        }
    }

    void decide_groups() {
        for (auto it = graph.order().rbegin(); it != graph.order().rend(); ++it) {
            const std::string &name = *it;
            Plan &plan = plans.at(name);
            if (plan.placement == Placement::Inline) continue;
            const FuncNode &n = graph.node(name);
            if (!n.is_output) place_in_a_group(name);
            if (plan.placement == Placement::Root) {
                plan.group = name;
                groups[name] = make_group(name);
            }
        }
    }

    /** The most Funcs one output's strips take (see place_in_a_group). */
    static constexpr int max_members = 3;

    void place_in_a_group(const std::string &name) {
        Plan &plan = plans.at(name);
        const FuncNode &n = graph.node(name);
        std::set<std::pair<std::string, int>> sites;
        sites_of(name, sites);
        const std::string stored = plan.why;
        plan.placement = Placement::Root;
        if (sites.size() != 1) {
            plan.why = stored + "; computed at root: read in " + std::to_string(sites.size()) +
                       " loop nests";
            return;
        }
        const auto [root, stage] = *sites.begin();
        const Group &g = groups.at(root);
        if (g.strip_dim < 0 || !g.stage_split[stage] || !n.bounded) {
            plan.why = stored + "; computed at root: " +
                       (!n.bounded ? "read at coordinates with no constant bounds"
                                   : root + " has no strip loop to compute it in");
            return;
        }
        // Only the outputs' strips take other Funcs. Funcs computed inside the strips of a Func
        // that is itself computed at root for others make Loom's lowering write the bounds of
        // every root Func as expressions of every such nest: in local Laplacian's pyramid
        // (eight levels, each root, each with Funcs in its rows) they grew until storage
        // flattening ran out of memory.
        if (!graph.node(root).is_output) {
            plan.why = stored + "; computed at root: " + root +
                       " is computed at root for its consumers, and only outputs' strips take "
                       "other Funcs";
            return;
        }
        // Loom's lowering writes each member's bounds in terms of the members that read it, and
        // their size grows with the members' count: with about 20 in camera_pipe's strips the
        // compile took 80 s (over 10 minutes under the sanitizers), with 4 26 s, with 3 3.8 s.
        // Past max_members, a Func is computed at root, until lowering let-binds those bounds.
        int members = 0;
        for (const auto &[other, p] : plans)
            members += p.group == root && other != root;
        if (members >= max_members) {
            plan.why = stored + "; computed at root: " + root + "'s strips have " +
                       std::to_string(members) + " Funcs already";
            return;
        }
        // The outermost placement among the consumers computed in the same strips bounds this
        // one: a Func must be computed at or outside every loop that reads it.
        bool consumers_per_row = true;
        for (const std::string &c : n.consumers) {
            const Plan &p = plans.at(c);
            if (p.placement == Placement::Strip) consumers_per_row = false;
        }
        auto strip = strip_regions(root, stage, g.strip, name);
        auto row = strip_regions(root, stage, 1, name);
        if (!strip || !row || !strip->count(name)) {
            plan.why = stored + "; computed at root: its region in a strip of " + root +
                       " has no constant bounds";
            return;
        }
        const Region64 &per_strip = strip->at(name);
        const int64_t strips = g.strips_over(graph.node(root).region);
        const double computed = (double)points_in(per_strip) * strips;
        const double points = (double)points_in(n.region);
        const double strip_bytes = (double)points_in(per_strip) * n.bytes;
        const double cost_strip = compute_cycles(name, per_strip) * strips +
                                  computed * n.bytes * 2 * machine.byte_cost(strip_bytes);
        const double cost_root = compute_cycles(name, n.region) +
                                 points * n.bytes * 2 * machine.byte_cost(points * n.bytes);
        if (cost_strip > cost_root) {
            plan.why = stored + "; computed at root: in strips of " + root + " it would cost " +
                       fmt(cost_strip) + " cycles (" + fmt(computed / std::max(1.0, points)) +
                       " computations a point) against " + fmt(cost_root);
            return;
        }
        plan.group = root;
        plan.group_stage = stage;
        plan.placement = Placement::Strip;
        plan.width = per_strip.empty() ? 1 : per_strip[0].extent();
        const double per_row = (double)points_in(row->at(name)) * g.strip;
        const double per_strip_points = (double)points_in(per_strip);
        if (g.strip > 1 && g.strip_dim > 0 && consumers_per_row) {
            if (per_row <= per_strip_points * 1.05) {
                plan.placement = Placement::Row;
            } else if (n.func->stages() == 1) {
                plan.placement = Placement::Sliding;
            }
        }
        const char *where = plan.placement == Placement::Row       ? "each row"
                            : plan.placement == Placement::Sliding ? "each row, sliding down"
                                                                   : "each strip";
        plan.why = stored + "; computed in " + where + " of " + root + "'s strips (" +
                   fmt(computed / std::max(1.0, points)) + " computations a point; " +
                   fmt(cost_strip) + " cycles against " + fmt(cost_root) + " at root)";
    }

    // --- The directives ------------------------------------------------------------------------

    /** Splits loop `var` (pure dimension 0 of stage k of f, or the row loop of its strips) into
     * a vector where the extent allows and the stage's reads let its points run at once.
     * Returns the vector loop's name, or "". */
    std::string vectorize_stage(Stage stage, const FuncNode &n, int k, const std::string &var,
                                int64_t extent) {
        if (n.func->dimensions() == 0 || !n.stages[k].independent(0)) return "";
        int lanes = lanes_of(n);
        while (lanes > extent && lanes > 1)
            lanes /= 2;
        if (lanes < 4) return "";
        const std::string vec = var + "v";
        stage.split(VarOrRVar(var), VarOrRVar(var), VarOrRVar(vec), lanes,
                    TailStrategy::GuardWithIf);
        stage.vectorize(VarOrRVar(vec));
        return vec;
    }

    /** The loops of an update, innermost first, with the vector (and a register tile's rows)
     * inside the RVars: every loop of the stage, as the directives above left them. */
    std::vector<VarOrRVar> update_loop_order(const FuncNode &n, int k, const Group *g,
                                             const std::string &vec, const std::string &rows) {
        const StageInfo &s = n.stages[k];
        std::vector<VarOrRVar> order;
        if (!vec.empty()) order.emplace_back(vec);
        if (!rows.empty()) order.emplace_back(rows);
        for (const std::string &r : s.rvars)
            order.emplace_back(r);
        for (int d = 0; d < (int)s.pure_vars.size(); d++) {
            if (s.pure_vars[d].empty()) continue;
            if (g && d == g->strip_dim) {
                order.emplace_back(g->inner);
                order.emplace_back(g->outer);
            } else {
                order.emplace_back(s.pure_vars[d]);
            }
        }
        return order;
    }

    void schedule_root(const std::string &name) {
        const FuncNode &n = graph.node(name);
        Func f(n.func);
        if (!n.is_output) f.compute_root();
        const Group &g = groups.at(name);
        for (int k = 0; k < (int)n.stages.size(); k++) {
            Stage stage = k == 0 ? f.stage() : f.update(k - 1);
            const StageInfo &s = n.stages[k];
            const bool split = g.strip_dim >= 0 && g.stage_split[k];
            if (split) {
                const std::string var = n.func->args[g.strip_dim];
                stage.split(VarOrRVar(var), VarOrRVar(g.outer), VarOrRVar(g.inner), (int)g.strip,
                            TailStrategy::GuardWithIf);
            }
            std::string vec;
            if (n.func->dimensions() > 0) {
                const bool rows_are_vectors = split && g.strip_dim == 0;
                vec = vectorize_stage(stage, n, k, rows_are_vectors ? g.inner : s.pure_vars[0],
                                      rows_are_vectors ? g.strip : n.region[0].extent());
            }
            std::string rows;
            // A reduction's register tile: its vector and four rows of the strip innermost, so
            // that the accumulators stay in registers across the RVars' loops.
            if (!vec.empty() && !s.rvars.empty() && split && g.strip_dim > 0 && g.strip >= 4) {
                rows = g.inner + "u";
                stage.split(VarOrRVar(g.inner), VarOrRVar(g.inner), VarOrRVar(rows), 4,
                            TailStrategy::GuardWithIf);
                stage.unroll(VarOrRVar(rows));
            }
            if (k > 0 && !vec.empty()) {
                stage.reorder(update_loop_order(n, k, split ? &g : nullptr, vec, rows));
            }
            if (split && g.strips_over(n.region) > 1) stage.parallel(VarOrRVar(g.outer));
        }
    }

    void schedule_member(const std::string &name) {
        const Plan &p = plans.at(name);
        const FuncNode &n = graph.node(name);
        const Group &g = groups.at(p.group);
        Func f(n.func);
        const std::string at = p.placement == Placement::Strip ? g.outer : g.inner;
        f.compute_at(LoopLevel(p.group, at, p.group_stage));
        if (p.placement == Placement::Sliding)
            f.store_at(LoopLevel(p.group, g.outer, p.group_stage));
        if (n.func->dimensions() == 0) return;
        for (int k = 0; k < (int)n.stages.size(); k++) {
            Stage stage = k == 0 ? f.stage() : f.update(k - 1);
            const std::string vec = vectorize_stage(stage, n, k, n.stages[k].pure_vars[0], p.width);
            if (k > 0 && !vec.empty()) stage.reorder(update_loop_order(n, k, nullptr, vec, ""));
        }
    }

    void apply() {
        for (const std::string &name : graph.order())
            reset_schedule(*graph.node(name).func);
        for (const std::string &name : graph.order()) {
            switch (plans.at(name).placement) {
            case Placement::Inline:
                break;
            case Placement::Root:
                schedule_root(name);
                break;
            default:
                schedule_member(name);
                break;
            }
        }
    }
};

} // namespace

std::string heuristic_schedule(const std::vector<FunctionPtr> &outputs, const Target &target,
                               const MachineParams &params,
                               const std::function<void(const std::string &)> &warn) {
    user_assert(!target.has_feature(Target::CUDA))
        << "auto_schedule(\"Heuristic\") schedules for the CPU; the target " << target.to_string()
        << " has CUDA. Auto-schedule with a CPU target, or schedule the GPU stages by hand "
           "(gpu_tile, gpu_blocks, gpu_threads).";
    PipelineGraph graph(outputs, warn);
    MachineModel machine =
        MachineModel::of(target.is_host_default() ? get_host_target() : target, params);
    return HeuristicScheduler(graph, machine).run();
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
