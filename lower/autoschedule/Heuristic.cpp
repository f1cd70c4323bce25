#include "lower/autoschedule/Heuristic.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/RDom.h"
#include "dsl/Substitute.h"
#include "lower/Lower.h"
#include "lower/Simplify.h"
#include "lower/autoschedule/GpuMapping.h"
#include "lower/autoschedule/GpuPlacement.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"
#include "lower/autoschedule/Plan.h"
#include "lower/autoschedule/RegisterTile.h"
#include "lower/autoschedule/UnrolledChannels.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

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

/** Restores the schedule a Func has when defined: inlined, its stages' loops in definition
 * order, no splits. Bounds and estimates are part of what the user stated about sizes, kept. */
void reset_schedule(FunctionContents &f) {
    f.schedule.compute_level = LoopLevel::inlined();
    f.schedule.store_level = LoopLevel::inlined();
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
    HeuristicScheduler(const PipelineGraph &graph, const MachineModel &machine,
                       const MachineParams &params, const Choices &asked, bool gpu, bool staging)
        : graph(graph), machine(machine), costs(gpu ? MachineModel::cuda(params) : machine),
          asked(asked), gpu(gpu), staging(staging) {}

    bool stages_in_shared_memory() const { return devices && devices->stages_in_shared_memory(); }

    /** Every knob's value as applied, once run() has. */
    Choices made;

    std::string run() {
        decide_inlining();
        if (gpu) {
            devices = std::make_unique<GpuPlacement>(graph, costs, asked, plans, made);
            for (const std::string &name : devices->decide_devices())
                groups[name] = make_group(name);
            if (staging) devices->decide_staging();
        } else {
            decide_groups();
        }
        apply();
        for (const auto &[name, plan] : plans) {
            if (!graph.node(name).is_output) made.placement[name] = placement_name(plan.placement);
        }
        for (const auto &[name, g] : groups) {
            if (g.strip_dim >= 0) made.strip[name] = g.strip;
        }
        std::ostringstream summary;
        summary << "Heuristic auto-schedule for " << machine.to_string();
        if (gpu) summary << ", with a CUDA GPU (costs as " << costs.to_string() << ")";
        summary << ":\n";
        for (const std::string &name : graph.order()) {
            summary << "  " << name << ": " << plans.at(name).why << "\n";
        }
        return summary.str();
    }

private:
    const PipelineGraph &graph;
    /** The CPU: its vectors, cores and caches shape the CPU's loops. */
    const MachineModel &machine;
    /** What the costs that choose between inlining, storing and staging are weighed in: the
     * CPU's model, or for a CUDA target the GPU's (whatever the host). */
    const MachineModel costs;
    const Choices &asked;
    /** A CUDA target: every Func stored is computed at root, as GPU kernels where it can be. */
    const bool gpu;
    /** Whether Funcs may be staged in a kernel's shared memory. */
    const bool staging;
    Plans plans;
    std::map<std::string, Group> groups;
    /** A CUDA target's kernels and shared memory. */
    std::unique_ptr<GpuPlacement> devices;

    double iteration_cycles(const StageInfo &s) const {
        return autoschedule::iteration_cycles(s, costs);
    }
    double near_byte_cost() const { return autoschedule::near_byte_cost(costs); }

    /** Cycles a byte of a stored Func costs to write and read back: from a cache near the core
     * on the CPU (computed in strips beside its consumers); on the GPU, where a stored Func is a
     * buffer in device memory between two kernels, from memory whatever its size (a GPU's
     * caches are small for the threads they serve; on an H200, blur with its first stage in a
     * kernel of its own took 3.4x the time of blur inlined, BENCHMARKS.md). */
    double stored_byte_cost() const {
        return gpu ? device_memory_byte_cost(costs) : near_byte_cost();
    }

    double compute_cycles(const std::string &f, const Region64 &box) const {
        return autoschedule::compute_cycles(graph, costs, f, box);
    }

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
        w.materialize_cost = cycles_per_use * points + (points + uses) * bytes * stored_byte_cost();
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
            // Asked to inline: the cost model yields, the size limit does not.
            const bool wins = w.inline_wins || asked_placement(asked, name) == "inline";
            if (cost.nodes <= max_inlined_nodes && wins) continue;
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
            // An extern stage is called on buffers: it and the Funcs it reads are stored.
            if (n.func->is_extern()) {
                plan.why = "extern stage: not inlined";
                continue;
            }
            const bool read_by_extern =
                std::any_of(n.consumers.begin(), n.consumers.end(),
                            [&](const std::string &c) { return graph.node(c).func->is_extern(); });
            if (read_by_extern) {
                plan.why = "read by an extern stage (as a buffer): not inlined";
                continue;
            }
            if (n.func->stages() > 1 || !n.func->init.specializations.empty()) {
                plan.why = n.func->stages() > 1 ? "has updates: not inlined"
                                                : "is specialized: not inlined";
                continue;
            }
            const std::string wanted = asked_placement(asked, name);
            if (!wanted.empty()) {
                plan.placement = wanted == "inline" ? Placement::Inline : Placement::Root;
                plan.why = wanted == "inline" ? "inlined (as asked)" : "stored (as asked)";
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
        // An extern stage has no loops to cut into strips (nor to compute others in).
        if (n.func->is_extern()) return g;
        const int dims = (int)n.region.size();
        const int cores = std::max(1, machine.cores);
        if (dims == 1) {
            // One dimension: strips of many vectors, a few per core.
            const int64_t extent = n.region[0].extent();
            const int64_t strip =
                std::max<int64_t>(vector_lanes(n, machine) * 16, floor_pow2(extent / (4 * cores)));
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
        if (auto it = asked.strip.find(root); it != asked.strip.end() && g.strip_dim >= 0) {
            g.strip = std::clamp<int64_t>(it->second, 1, n.region[g.strip_dim].extent());
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
        Region64 box = graph.node(root).region;
        Span &s = box[g.strip_dim];
        s.min += (g.strips_over(box) / 2) * g.strip;
        s.max = std::min(s.max, s.min + rows - 1);
        auto in_strip = [&](const std::string &f) {
            if (f == candidate) return true;
            auto p = plans.find(f);
            return p != plans.end() && (p->second.placement == Placement::Inline ||
                                        (p->second.group == root && f != root &&
                                         p->second.placement != Placement::Root));
        };
        return graph.regions_within(root, stage, box, in_strip);
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

    /** Whether a Func computed once a strip reads f, directly or through Funcs inlined. */
    bool read_once_a_strip(const std::string &f) const {
        for (const std::string &c : graph.node(f).consumers) {
            const Plan &p = plans.at(c);
            if (p.placement == Placement::Strip ||
                (p.placement == Placement::Inline && read_once_a_strip(c))) {
                return true;
            }
        }
        return false;
    }

    void place_in_a_group(const std::string &name) {
        Plan &plan = plans.at(name);
        const FuncNode &n = graph.node(name);
        std::set<std::pair<std::string, int>> sites;
        sites_of(graph, plans, name, sites);
        const std::string stored = plan.why;
        plan.placement = Placement::Root;
        const std::string wanted = asked_placement(asked, name);
        if (wanted == "root") {
            plan.why = stored + "; computed at root (as asked)";
            return;
        }
        // Asked for a place in the strips: the legality checks hold, the cost model's don't.
        const bool in_strips = wanted == "strip" || wanted == "row" || wanted == "sliding";
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
        // Only the outputs' strips take other Funcs: with the strips of intermediate roots
        // taking them too, bilateral_grid ran 5x slower (its grid's blurs went into the strips
        // of the grid's root, recomputed per strip) and no app ran faster (measured
        // 2026-11-29), until the cost model weighs a root's strips against its consumers'.
        if (!graph.node(root).is_output && !in_strips) {
            plan.why = stored + "; computed at root: " + root +
                       " is computed at root for its consumers, and only outputs' strips take "
                       "other Funcs";
            return;
        }
        // The outermost placement among the consumers computed in the same strips bounds this
        // one: a Func must be computed at or outside every loop that reads it (a consumer
        // inlined reads it where its own consumers are computed).
        const bool consumers_per_row = !read_once_a_strip(name);
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
        if (cost_strip > cost_root && !in_strips) {
            plan.why = stored + "; computed at root: in strips of " + root + " it would cost " +
                       fmt(cost_strip) + " cycles (" + fmt(computed / std::max(1.0, points)) +
                       " computations a point) against " + fmt(cost_root);
            return;
        }
        plan.group = root;
        plan.group_stage = stage;
        plan.placement = Placement::Strip;
        plan.box = per_strip;
        const double per_row = (double)points_in(row->at(name)) * g.strip;
        const double per_strip_points = (double)points_in(per_strip);
        // A reduction whose register tile takes rows of the strip is computed per strip.
        bool tile_takes_rows = false;
        for (int k = 1; k < (int)n.stages.size(); k++) {
            const RegisterTile t = choose_register_tile(n, k, per_strip, machine, asked);
            tile_takes_rows = tile_takes_rows || (t.rows > 1 && t.row_dim == g.strip_dim);
        }
        const bool rows_allowed =
            g.strip > 1 && g.strip_dim > 0 && consumers_per_row && !tile_takes_rows;
        if (rows_allowed && in_strips) {
            if (wanted == "row" || (wanted == "sliding" && n.func->stages() == 1)) {
                plan.placement = wanted == "row" ? Placement::Row : Placement::Sliding;
                plan.box = row->at(name);
            }
        } else if (rows_allowed) {
            if (per_row <= per_strip_points * 1.05) {
                plan.placement = Placement::Row;
                plan.box = row->at(name);
            } else if (n.func->stages() == 1) {
                plan.placement = Placement::Sliding;
                plan.box = row->at(name);
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
     * a vector where the extent allows and the stage's reads let its points run at once, and
     * where `cols` > 1, that many vectors side by side (unrolled); each vector is `widen`
     * native vectors wide. Returns the loops made, innermost first (the vector, then the
     * vectors' loop), or none. */
    std::vector<std::string> vectorize_stage(Stage stage, const FuncNode &n, int k,
                                             const std::string &var, int64_t extent, int cols = 1,
                                             int widen = 1) {
        if (n.func->dimensions() == 0 || !n.stages[k].independent(0)) return {};
        int lanes = vector_lanes(n, machine) * widen;
        while (lanes > extent && lanes > 1)
            lanes /= 2;
        if (lanes < 4) return {};
        const std::string vec = var + "v";
        if (cols == 1) {
            stage.split(VarOrRVar(var), VarOrRVar(var), VarOrRVar(vec), lanes,
                        TailStrategy::GuardWithIf);
            stage.vectorize(VarOrRVar(vec));
            return {vec};
        }
        const std::string tile = var + "t", col = var + "c";
        stage.split(VarOrRVar(var), VarOrRVar(var), VarOrRVar(tile), lanes * cols,
                    TailStrategy::GuardWithIf);
        stage.split(VarOrRVar(tile), VarOrRVar(col), VarOrRVar(vec), lanes);
        stage.vectorize(VarOrRVar(vec));
        stage.unroll(VarOrRVar(col));
        return {vec, col};
    }

    /** The loops of an update, innermost first: the vector (or register tile: its vector,
     * its vectors, its rows) inside the RVars, then the pure loops. Where they all run in any
     * order (`reorder_pure`), dimension 0's goes outside the others (a tile's column of reads
     * along the RVars is reused by the strip's rows before the next) and the strip loop
     * outermost; else they stay in order. Every loop of the stage, as the directives above
     * left them. */
    std::vector<VarOrRVar> update_loop_order(const FuncNode &n, int k, const Group *g,
                                             const std::vector<std::string> &tile,
                                             bool reorder_pure, const ReductionBlock &block) {
        const StageInfo &s = n.stages[k];
        std::vector<VarOrRVar> order;
        for (const std::string &t : tile)
            order.emplace_back(t);
        for (const std::string &r : s.rvars)
            order.emplace_back(VarOrRVar(r == block.rvar ? block.inner : r));
        for (int d = reorder_pure ? 1 : 0; d < (int)s.pure_vars.size(); d++) {
            if (s.pure_vars[d].empty()) continue;
            order.emplace_back(g && d == g->strip_dim ? g->inner : s.pure_vars[d]);
            if (g && d == g->strip_dim && !reorder_pure) order.emplace_back(g->outer);
        }
        if (reorder_pure) {
            if (!s.pure_vars[0].empty()) order.emplace_back(s.pure_vars[0]);
            if (!block.rvar.empty()) order.emplace_back(VarOrRVar(block.outer));
            if (g) order.emplace_back(g->outer);
        }
        return order;
    }

    /** Native vectors side by side in one vector of a root Func's pure definition where
     * wide_vectors_pay: LLVM splits it into that many registers, operation by operation, so
     * the constants an expansion (exp's polynomial) loads and the loop's own work serve them
     * all. A chain of pointwise operations ending in a sigmoid over 4096 x 4096 floats (AVX2)
     * ran 8.5 ms in vectors of 8, 8.0 in 16, 6.3 in 32, 7.0 in 64; unrolled vectors of 8
     * gained nothing; a memory-bound chain (a multiply-add and a max) ran the same in 8 and
     * 32. */
    static constexpr int root_vector_width = 4;
    /** The arithmetic a point must take, in native vectors' operations, for wide vectors to
     * pay: the sigmoid chain's 5. */
    static constexpr double wide_vector_min_ops = 4;

    /** Whether stage 0 of `name`, with the Funcs inlined into it, reads every Func and image
     * densely along dimension 0 (at x + c, x in no other coordinate): its wide vectors are
     * plain loads. Wide vectors of gathers, strided or interleaved reads and their shuffles
     * ran slower (bilateral_grid's slice 1.5x, interpolate's levels 1.2x). Its operations
     * (op_bytes, the inlined Funcs' included) are added to *op_bytes. */
    bool dense_along_x(const std::string &name, double *op_bytes) const {
        const FuncNode &n = graph.node(name);
        const StageInfo &s = n.stages[0];
        if (s.pure_vars.empty() || s.pure_vars[0].empty()) return false;
        const std::string &x = s.pure_vars[0];
        *op_bytes += s.op_bytes;
        for (const CallSite &call : s.calls) {
            if (call.args.empty()) return false;
            const Expr offset = simplify(call.args[0] - Variable::make(Int(32), x));
            if (!is_const(offset)) return false;
            for (size_t d = 1; d < call.args.size(); d++) {
                if (expr_uses_var(call.args[d], x)) return false;
            }
            if (call.is_func && plans.at(call.callee).placement == Placement::Inline &&
                !dense_along_x(call.callee, op_bytes)) {
                return false;
            }
        }
        return true;
    }

    /** Whether a root Func's pure definition gets root_vector_width vectors: it reads densely
     * along x and does at least wide_vector_min_ops vector operations a point. */
    bool wide_vectors_pay(const FuncNode &n) const {
        double op_bytes = 0;
        if (!dense_along_x(n.func->name, &op_bytes)) return false;
        return op_bytes / machine.vector_bytes >= wide_vector_min_ops;
    }

    /** Vectorizes stage k (over `region`, the points computed at once) and, for an update,
     * puts its vector inside the RVars, with a register tile (choose_register_tile) where every
     * pure loop runs in any order. `g`: the strips the stage runs in, if it is a root's; `root`:
     * whether the Func is a root's (its pure definition then vectorized root_vector_width
     * vectors wide where wide_vectors_pay). */
    std::vector<std::string> vectorize_and_tile(Stage stage, const FuncNode &n, int k,
                                                const Region64 &region, const Group *g, bool root) {
        const StageInfo &s = n.stages[k];
        if (n.func->dimensions() == 0) return {};
        const int widen = root && k == 0 && wide_vectors_pay(n) ? root_vector_width : 1;
        if (g && g->strip_dim == 0) {
            // One dimension in strips: the strip's points are the vectors.
            return vectorize_stage(stage, n, k, g->inner, g->strip, 1, widen);
        }
        const bool independent = k > 0 && pure_loops_independent(n, k);
        const RegisterTile t = choose_register_tile(n, k, region, machine, asked);
        std::vector<std::string> loops =
            vectorize_stage(stage, n, k, s.pure_vars[0], region[0].extent(), t.cols, widen);
        const bool strips_of_rows = g && g->strip_dim > 0;
        std::vector<int> channels;
        if (k == 0) {
            for (int d : unrolled_channels(graph, plans, n.func->name)) {
                if (!g || d != g->strip_dim) channels.push_back(d);
            }
        }
        if (k == 0 && (strips_of_rows || !channels.empty())) {
            // The strip's rows outside every other pure loop: the Funcs computed per row then
            // serve the whole row (an image's channels, outermost by default, would otherwise
            // each recompute them: unsharp ran 3x its hand schedule's time so). Unrolled
            // channels just outside the vector: camera_pipe's demosaic and color correction,
            // selects on the channel, ran 9.0 -> 8.1 ms so (channels outermost: 3 branches
            // evaluated per point, 2 of them discarded).
            std::vector<VarOrRVar> order(loops.begin(), loops.end());
            for (int d : channels)
                order.emplace_back(n.func->args[d]);
            for (int d = 0; d < (int)n.func->args.size(); d++) {
                const bool unrolled =
                    std::find(channels.begin(), channels.end(), d) != channels.end();
                if (!unrolled && (!strips_of_rows || d != g->strip_dim))
                    order.emplace_back(n.func->args[d]);
            }
            if (strips_of_rows) {
                order.emplace_back(g->inner);
                order.emplace_back(g->outer);
            }
            stage.reorder(order);
            for (int d : channels)
                stage.unroll(VarOrRVar(n.func->args[d]));
        }
        if (loops.empty() || k == 0) return loops;
        if (independent && !s.rvars.empty())
            made.tile[stage_key(n.func->name, k)] = {t.rows, t.cols};
        if (t.rows > 1) {
            const std::string row =
                g && t.row_dim == g->strip_dim ? g->inner : s.pure_vars[t.row_dim];
            const std::string unrolled = row + "u";
            stage.split(VarOrRVar(row), VarOrRVar(row), VarOrRVar(unrolled), t.rows,
                        TailStrategy::GuardWithIf);
            stage.unroll(VarOrRVar(unrolled));
            loops.push_back(unrolled);
        }
        const ReductionBlock block =
            independent ? block_reduction(stage, n, k, t, machine) : ReductionBlock();
        stage.reorder(update_loop_order(n, k, g, loops, independent, block));
        return loops;
    }

    void schedule_root(const std::string &name) {
        const FuncNode &n = graph.node(name);
        Func f(n.func);
        if (!n.is_output) f.compute_root();
        if (n.func->is_extern()) return; // no loops of its own
        const Group &g = groups.at(name);
        for (int k = 0; k < (int)n.stages.size(); k++) {
            Stage stage = k == 0 ? f.stage() : f.update(k - 1);
            const bool split = g.strip_dim >= 0 && g.stage_split[k];
            if (split) {
                const std::string var = n.func->args[g.strip_dim];
                stage.split(VarOrRVar(var), VarOrRVar(g.outer), VarOrRVar(g.inner), (int)g.strip,
                            TailStrategy::GuardWithIf);
            }
            // The points one strip computes at once.
            Region64 box = n.region;
            if (split) box[g.strip_dim] = Span{0, g.strip - 1};
            vectorize_and_tile(stage, n, k, box, split ? &g : nullptr, true);
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
        if (n.func->dimensions() == 0 || n.func->is_extern()) return;
        for (int k = 0; k < (int)n.stages.size(); k++) {
            Stage stage = k == 0 ? f.stage() : f.update(k - 1);
            vectorize_and_tile(stage, n, k, p.box, nullptr, false);
        }
    }

    void apply() {
        for (const std::string &name : graph.order())
            reset_schedule(*graph.node(name).func);
        for (const std::string &name : graph.order()) {
            switch (plans.at(name).placement) {
            case Placement::Inline:
                break;
            case Placement::Shared:
                break; // once its kernel is scheduled, below
            case Placement::Root:
                if (devices && devices->runs_on_gpu(name) && !graph.node(name).func->is_extern()) {
                    devices->schedule_root(name);
                } else {
                    schedule_root(name);
                }
                break;
            default:
                schedule_member(name);
                break;
            }
        }
        for (const std::string &name : graph.order()) {
            if (plans.at(name).placement == Placement::Shared) devices->schedule_staged(name);
        }
    }
};

} // namespace

std::string heuristic_schedule(const std::vector<FunctionPtr> &outputs, const Target &target,
                               const MachineParams &params,
                               const std::function<void(const std::string &)> &warn,
                               const Choices &asked, Choices *made) {
    PipelineGraph graph(outputs, warn);
    MachineModel machine =
        MachineModel::of(target.is_host_default() ? get_host_target() : target, params);
    const bool gpu = target.has_feature(Target::CUDA);
    HeuristicScheduler scheduler(graph, machine, params, asked, gpu, true);
    std::string summary = scheduler.run();
    if (scheduler.stages_in_shared_memory()) {
        // The staging decisions come from regions over the estimates; the kernels need their
        // shared storage and threads bounded for every size. Lowered once to check (the
        // heuristic never gives an illegal schedule), else everything stays in device memory.
        try {
            std::ostringstream log;
            lower(outputs, "heuristic_check", target, CompileOptions(), {}, log);
        } catch (const CompileError &e) {
            HeuristicScheduler plain(graph, machine, params, asked, gpu, false);
            summary = plain.run() +
                      "  (nothing staged in shared memory: with it, lowering said: " + e.what() +
                      ")\n";
            if (made) *made = plain.made;
            return summary;
        }
    }
    if (made) *made = scheduler.made;
    return summary;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
