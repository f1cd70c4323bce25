#include "lower/SlidingWindow.h"

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/LinearForm.h"
#include "lower/Monotonic.h"
#include "lower/RewindLoop.h"
#include "lower/Simplify.h"
#include "lower/StageNest.h"

namespace loom {
namespace Internal {
namespace {

struct Loop {
    std::string name;
    Expr min, extent;
    ForType for_type;
    size_t conditions; // IfThenElse branches around the loop's body when it was entered
};

// A split of a stage's loop over a slid dimension.
struct RowSplit {
    TailStrategy tail; // never Auto: Stage::split resolves it when the split is made
    int64_t factor;
};

std::string region_let(const FunctionContents &f, int k, const std::string &var, const char *end) {
    return f.name + ".s" + std::to_string(k) + "." + var + "." + end;
}

// Whether an update definition keeps to one coordinate along dimension d of f: it writes f at
// its own pure Var there, where it also reads f (an update reading its own Func at another
// point of a pure Var is refused when defined, as Halide 14 refuses it). Then a row (a slice
// along d) of f after every stage depends only on the same row after the pure stage, so the
// rows earlier iterations of a slid loop computed are final and an iteration may run all
// stages over its new rows alone. An update that scatters along d (an RDom or an expression in
// argument d) needs rows of other iterations, and blocks the slide. (Specializations share the
// definition's arguments.)
bool update_stays_in_place(const FunctionContents &f, int k, size_t d) {
    return !f.stage_pure_var(k, d).empty();
}

// Wraps the production of one Func in a condition: its region is computed only where the
// condition holds (the first iteration of the loops its region does not move with).
class GuardProduction : public IRMutator {
public:
    GuardProduction(const std::string &func, Expr condition)
        : func(func), condition(std::move(condition)) {}

private:
    const std::string &func;
    Expr condition;
    using IRMutator::visit;
    Stmt visit(const ProducerConsumer *op) override {
        if (op->is_producer && op->name == func) return IfThenElse::make(condition, op, Stmt());
        return IRMutator::visit(op);
    }
};

class SlidingWindow : public IRMutator {
public:
    explicit SlidingWindow(const Environment &env) : env(env) {
        for (const auto &entry : env.functions) {
            const FunctionPtr &f = entry.second;
            for (int k = 0; k < f->stages(); k++) {
                for (size_t d = 0; d < f->args.size(); d++) {
                    std::string var = f->stage_pure_var(k, d);
                    if (var.empty()) continue;
                    region_lets[region_let(*f, k, var, "min")] = f;
                    region_lets[region_let(*f, k, var, "max")] = f;
                }
            }
        }
    }
    using IRMutator::mutate;

private:
    const Environment &env;
    // The Funcs slid over each loop (by name) and how many iterations each needs the loop to
    // start early so that its every iteration computes only new rows (0: it cannot warm up
    // so; see rewind_iterations). Each slid min holds both forms, chosen by how many the loop
    // starts early (see early_iterations), which visit(For) sets once every Func is slid.
    std::map<std::string, std::vector<std::pair<std::string, int64_t>>> rewinds;
    // The region lets bounds inference makes (every stage's, for each of its pure Vars) and
    // the Func each belongs to.
    std::map<std::string, FunctionPtr> region_lets;
    std::vector<Loop> loops;                   // enclosing loops, outermost first
    std::map<std::string, size_t> realized_at; // Func -> loops.size() at its Realize
    // Func -> for each dimension, the rows past its storage's end a slid RoundUp block may
    // write (see widen_for_split_loops); the Realize grows by them.
    std::map<std::string, std::map<size_t, int64_t>> storage_growth;
    // Names bound inside the loops, in order, with the values lets had before any slide
    // (undefined for a loop variable).
    std::vector<std::pair<std::string, Expr>> defined;
    std::set<std::string> slid; // the region lets a slide has changed
    size_t conditions = 0;      // IfThenElse branches around the statement being visited
    std::vector<Expr> branch_conditions; // their conditions (negated in an else), outermost first

    Stmt visit(const Realize *op) override {
        auto saved =
            realized_at.find(op->name) == realized_at.end() ? -1 : (long)realized_at[op->name];
        realized_at[op->name] = loops.size();
        Stmt body = mutate(op->body);
        if (saved < 0) {
            realized_at.erase(op->name);
        } else {
            realized_at[op->name] = (size_t)saved;
        }
        Region bounds = op->bounds;
        auto growth = storage_growth.find(op->name);
        const bool grows = growth != storage_growth.end();
        if (grows) {
            for (const auto &[d, rows] : growth->second)
                bounds[d] = Range(bounds[d].min, simplify(bounds[d].extent + (int)rows));
            storage_growth.erase(growth);
        }
        if (body.same_as(op->body) && !grows) return op;
        return Realize::make(op->name, op->types, bounds, body);
    }

    Stmt visit(const For *op) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        loops.push_back(Loop{op->name, mn, ext, op->for_type, conditions});
        size_t mark = defined.size();
        defined.push_back({op->name, Expr()});
        Stmt body = mutate(op->body);
        defined.resize(mark);
        loops.pop_back();
        // The loop starts early where every Func slid over it can warm up in the early
        // iterations, as many as the one that needs most.
        auto slid_here = rewinds.find(op->name);
        int64_t early = 0;
        std::set<std::string> warmed;
        if (slid_here != rewinds.end()) {
            bool every_one = true;
            for (const auto &[func, iterations] : slid_here->second) {
                warmed.insert(func);
                every_one = every_one && iterations > 0;
                early = std::max(early, iterations);
            }
            if (!every_one || !can_rewind(body, warmed, env)) early = 0;
            body = substitute(early_iterations_name(op->name), Expr((int)early), body);
            rewinds.erase(slid_here);
        }
        if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return op;
        Stmt loop = For::make(op->name, mn, ext, op->for_type, op->device_api, body);
        return early > 0 ? rewind_loop(loop.as<For>(), early, warmed) : loop;
    }

    // How many iterations the loop `loop` starts early (0: it does not; see rewinds): a
    // placeholder in the slid mins, replaced by the number once every Func has slid.
    static std::string early_iterations_name(const std::string &loop) { return loop + ".$early"; }
    static Expr early_iterations(const std::string &loop) {
        return Variable::make(Int(32), early_iterations_name(loop));
    }

    // How many iterations `loop` must start early so that, from then on, each iteration's
    // rows past the previous one's are all the rows the region [r.min, r.max] needs that
    // earlier iterations did not compute, the first included: where the region moves by a
    // constant a > 0 rows per iteration and is a constant c + 1 rows long (c >= a: iterations
    // overlap), ceil((c + 1) / a) - 1 iterations (Halide 14 solves the same constraints).
    // 0 where the region moves otherwise.
    static int64_t rewind_iterations(const Loop &loop, const Expr &rmin, const Expr &rmax) {
        const Expr next = Variable::make(Int(32), loop.name) + 1;
        int64_t step = 0, max_step = 0, length = 0;
        if (!constant_difference(substitute(loop.name, next, rmin), rmin, &step) ||
            !constant_difference(substitute(loop.name, next, rmax), rmax, &max_step) ||
            !constant_difference(rmax, rmin, &length) || step != max_step || step < 1 ||
            length < step)
            return 0;
        return (length + step) / step - 1;
    }

    Stmt visit(const IfThenElse *op) override {
        Expr condition = mutate(op->condition);
        conditions++;
        branch_conditions.push_back(op->condition);
        Stmt then_case = mutate(op->then_case);
        branch_conditions.back() = !op->condition;
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        branch_conditions.pop_back();
        conditions--;
        if (condition.same_as(op->condition) && then_case.same_as(op->then_case) &&
            else_case.same_as(op->else_case))
            return op;
        return IfThenElse::make(condition, then_case, else_case);
    }

    // Whether the branches entered inside `loop` (around the production) run in a first run of
    // its iterations and in none after: sliding computes in each iteration only the rows past
    // the previous one's, so an iteration the branch skips before one it runs would leave its
    // rows to no one (an RDom's where() around a producer computed in the reduction's loop:
    // fuzz seed 8501 pair 314). A branch that does not move with the loop runs in all or in
    // none; a split's guard, v <= loop_max with v never decreasing, holds up to its last.
    bool branches_run_a_first_run(const Loop &loop) {
        for (size_t i = loop.conditions; i < branch_conditions.size(); i++) {
            Expr c = branch_conditions[i];
            if (const Call *l = c.as<Call>(); l && l->is_intrinsic(Call::likely)) c = l->args[0];
            Expr expanded = expand_in_iteration(c, loop.name, nullptr);
            if (!expanded.defined()) return false;
            if (!expr_uses_var(expanded, loop.name)) continue;
            const LE *le = expanded.as<LE>();
            const LT *lt = expanded.as<LT>();
            const Expr lhs = le ? le->a : lt ? lt->a : Expr(), rhs = le ? le->b : lt ? lt->b : Expr();
            if (!lhs.defined() || expr_uses_var(rhs, loop.name) || !never_decreases(lhs, loop.name))
                return false;
        }
        return true;
    }

    // The lets bounds inference put around a production: <f>.s<k>.<var>.min / .max for each
    // stage k and each of its pure Vars, the updates' first (the pure stage's are written in
    // their names).
    Stmt visit(const LetStmt *op) override {
        auto owner = region_lets.find(op->name);
        if (owner == region_lets.end()) {
            Expr value = mutate(op->value);
            defined.push_back({op->name, op->value});
            Stmt body = mutate(op->body);
            defined.pop_back();
            if (value.same_as(op->value) && body.same_as(op->body)) return op;
            return LetStmt::make(op->name, value, body);
        }
        return slide(owner->second, op);
    }

    // Bounds inference puts a Func's region lets at the top of its loop level, outside its
    // Realize when that is at the same level (at the root, where there is no loop to slide
    // over, they are still found so that its fold_storage is checked).
    Stmt slide(const FunctionPtr &f, const LetStmt *first) {
        // Collect the chain of this Func's region lets. The producers computed in the same
        // iteration expand them as they were before any slide, and so do the searches below
        // (the pure stage's region is written in the names of the updates').
        std::vector<std::pair<std::string, Expr>> lets;
        Stmt s = first;
        while (const LetStmt *l = s.as<LetStmt>()) {
            auto owner = region_lets.find(l->name);
            if (owner == region_lets.end() || owner->second != f) break;
            lets.push_back({l->name, l->value});
            s = l->body;
        }
        size_t mark = defined.size();
        for (auto &l : lets)
            defined.push_back(l);
        size_t dims = f->args.size();
        std::vector<Expr> mins(dims), maxs(dims);
        for (auto &l : lets) {
            for (size_t d = 0; d < dims; d++) {
                if (l.first == region_let(*f, 0, f->args[d], "min")) mins[d] = l.second;
                if (l.first == region_let(*f, 0, f->args[d], "max")) maxs[d] = l.second;
            }
        }
        // How each dimension's stages split their loops over it (see row_splits).
        std::vector<std::optional<std::vector<RowSplit>>> splits_by_dim(dims);
        for (size_t d = 0; d < dims; d++)
            splits_by_dim[d] = row_splits(*f, d);
        // One production's window in a folded dimension must fit in the fold.
        std::vector<Stmt> checks;
        for (const StorageFold &fold : f->schedule.folds) {
            for (size_t d = 0; d < dims; d++) {
                if (f->args[d] != fold.var || !mins[d].defined()) continue;
                Expr hi = expand_in_innermost_iteration(maxs[d], nullptr);
                Expr lo = expand_in_innermost_iteration(mins[d], nullptr);
                Expr window =
                    simplify((hi.defined() ? hi : maxs[d]) - (lo.defined() ? lo : mins[d]) + 1);
                checks.push_back(AssertStmt::make(
                    simplify(window <= fold.extent),
                    Call::make(Int(32), "loom_error_fold_too_small",
                               {Expr(f->name), Expr(fold.var), fold.extent, window},
                               Call::Extern)));
            }
        }
        // The loop to slide over: the innermost one between the storage and the production
        // along which some dimension's region moves forward while the others stay put. Where
        // it is not the innermost, the region may also move with the loops inside it (blur_x
        // computed per vector of blur_y's row, slid down the rows): each of their iterations
        // then finds the rows of earlier iterations of the slid loop where its own iteration
        // of them left them.
        // Every stage slides: each update keeps to its own row (see update_stays_in_place),
        // so its region along the slid dimension is the consumers' (bounds inference gives the
        // pure stage that region joined with what the updates touch, the same rows), and
        // its min moves as the pure stage's.
        std::map<std::string, Expr> slid_values;
        int slide_dim = -1;
        auto realized = realized_at.find(f->name);
        size_t outermost = realized == realized_at.end() ? loops.size() : realized->second;
        // A region no loop between the storage and the production moves (a row of an
        // input computed per tile of a consumer that walks along the other dimension): the
        // first iteration of those loops computes it, the others find it in storage.
        Expr first_iteration;
        for (size_t at = loops.size(); at-- > outermost;) {
            const Loop &loop = loops[at];
            if (loop.for_type != ForType::Serial && loop.for_type != ForType::Unrolled) break;
            if (loop.conditions != conditions) break;
            if (at + 1 < loops.size() && !inner_iterations_fixed(at)) break;
            if (!region_invariant_in(lets, loop)) break;
            Expr at_first = int_var(loop.name) == loop.min;
            first_iteration = first_iteration.defined() ? (at_first && first_iteration) : at_first;
        }
        // The loop to slide over: where consecutive iterations provably share part of their
        // regions, the innermost such loop; otherwise the innermost one whose regions may
        // share some (a consumer's ShiftInwards block at the end of a row: sliding there
        // saves little, and would take the place of a slide down the rows around it).
        // f's region along dimension d in an iteration of `loop`, as the loop variable's
        // expression ([min, max]), and the previous iteration's max; undefined where the
        // region depends on something else the iteration defines.
        struct IterationRegion {
            Expr min, max, previous_max;
        };
        auto region_in_iteration = [&](const Loop &loop, int d) {
            IterationRegion r{expand_in_iteration(mins[d], loop.name, nullptr),
                              expand_in_iteration(maxs[d], loop.name, nullptr), Expr()};
            if (r.min.defined() && r.max.defined())
                r.previous_max = substitute(loop.name, int_var(loop.name) - 1, r.max);
            return r;
        };
        auto slide_over = [&](bool overlap_proven) -> std::pair<size_t, int> {
            for (size_t at = loops.size(); at-- > outermost;) {
                const Loop &loop = loops[at];
                if (loop.for_type != ForType::Serial) continue;
                if (at + 1 < loops.size() && !inner_iterations_fixed(at)) break;
                if (!branches_run_a_first_run(loop)) continue;
                const int d =
                    slidable_dimension(*f, loop, at + 1 < loops.size(), mins, maxs, splits_by_dim);
                if (d < 0) continue;
                const IterationRegion r = region_in_iteration(loop, d);
                if (!r.previous_max.defined()) continue;
                // Where consecutive iterations' regions never overlap, there is nothing to
                // reuse.
                if (can_prove(r.min > r.previous_max)) continue;
                if (overlap_proven && !can_prove(r.min <= r.previous_max)) continue;
                if (pruned_guarded_tail(*splits_by_dim[d], r.min, r.max)) continue;
                return {at, d};
            }
            return {0, -1};
        };
        // Slides f's region along dimension d over loops[at]: each iteration after the first
        // computes only the rows past the previous one's.
        auto apply_slide = [&](size_t at, int d) {
            const Loop &loop = loops[at];
            Expr v = int_var(loop.name);
            const IterationRegion r = region_in_iteration(loop, d);
            const Expr &emin = r.min, &emax = r.max;
            // The rows past the previous iteration's, but none before this iteration's own
            // region: where consecutive regions leave a gap (a consumer reading row 2 y), the
            // rows in it are read by no iteration, and computing them would overrun a storage
            // fold, which storage folding sized by the regions before the slide (an update
            // would then read a slot a later row of the gap has overwritten).
            const std::vector<RowSplit> &splits = *splits_by_dim[d];
            Expr new_min = max(r.previous_max + 1, emin);
            if (!splits.empty()) {
                // A RoundUp block starts at the slid min and may end past the storage, which
                // grows (see widen_for_split_loops; storage folding made room in a fold).
                for (const RowSplit &split : splits) {
                    if (split.tail != TailStrategy::RoundUp) continue;
                    int64_t &rows = storage_growth[f->name][d];
                    rows = std::max(rows, split.factor - 1);
                }
                // Between emin and the unwidened min, which interval arithmetic over the loop
                // cannot see in the widened form (its terms vary together).
                new_min = Call::make_intrinsic(
                    Int(32), Call::promise_clamped,
                    {widen_for_split_loops(new_min, emin, emax, splits), emin, new_min});
            }
            // Started early (see rewind_iterations), every iteration computes the rows past
            // the previous one's, but none before the region of the original first
            // iteration. The bound is needed where the loop starts earlier than this Func
            // needs (another slid over it needs more), or the region moves by more than one
            // row an iteration; the loop's start is known once every Func has slid, and
            // stands in the slid min as the placeholder early_iterations(loop).
            const int64_t early = splits.empty() ? rewind_iterations(loop, emin, emax) : 0;
            rewinds[loop.name].push_back({f->name, early});
            const Expr started_early = early_iterations(loop.name);
            const Expr first_min = substitute(loop.name, loop.min, emin);
            Expr warm_min = max(r.previous_max + 1, first_min);
            if (early > 0 && can_prove(substitute(loop.name, loop.min - (int)early,
                                                  r.previous_max + 1) == first_min))
                warm_min = select(started_early == (int)early, r.previous_max + 1, warm_min);
            // Otherwise, in the first iteration every slid min has its value before the slide
            // (all slide over this loop), so each stage's min may stay as written there.
            for (int k = 0; k < f->stages(); k++) {
                std::string name = region_let(*f, k, f->stage_pure_var(k, d), "min");
                for (auto &l : lets) {
                    if (l.first != name) continue;
                    Expr value = select(v > loop.min, new_min, l.second);
                    if (early > 0) value = select(started_early > 0, warm_min, value);
                    slid_values[name] = simplify(value);
                    slid.insert(name);
                }
            }
        };
        std::pair<size_t, int> chosen = slide_over(true);
        if (chosen.second < 0) chosen = slide_over(false);
        slide_dim = chosen.second;
        if (slide_dim >= 0) {
            apply_slide(chosen.first, slide_dim);
            // A second dimension slides over a loop further out, as Halide 14 slides over
            // every loop between the storage and the production it can
            // (store_root().compute_at(consumer, x) of a stencil: each point computed once,
            // not once per consumer row that reads it). It is correct where every loop
            // inside that outer loop runs the same iterations in each of its iterations
            // (inner_iterations_fixed) and the first slide's region does not move with it
            // (slidable_dimension finds one dimension only, the other): in an iteration of
            // the outer loop the rows an earlier iteration computed were computed over
            // every position of the first slide's dimension these iterations read. Only an
            // unsplit dimension and an unfolded Func: a fold of the first dimension would
            // have overwritten the columns the next row reuses.
            for (size_t at = chosen.first; f->schedule.folds.empty() && at-- > outermost;) {
                const Loop &loop = loops[at];
                if (!inner_iterations_fixed(at)) break;
                if (loop.for_type != ForType::Serial || !branches_run_a_first_run(loop)) continue;
                const int d = slidable_dimension(*f, loop, true, mins, maxs, splits_by_dim);
                if (d < 0 || d == slide_dim || !splits_by_dim[d]->empty()) continue;
                const IterationRegion r = region_in_iteration(loop, d);
                if (!r.previous_max.defined() || !can_prove(r.min <= r.previous_max)) continue;
                apply_slide(at, d);
                break;
            }
        }
        Stmt inner = mutate(s);
        if (first_iteration.defined()) {
            inner = GuardProduction(f->name, first_iteration).mutate(inner);
        }
        defined.resize(mark);
        checks.push_back(inner);
        Stmt result = Block::make(checks);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
            auto slid_value = slid_values.find(it->first);
            result = LetStmt::make(
                it->first, slid_value == slid_values.end() ? it->second : slid_value->second,
                result);
        }
        return result;
    }

    // The dimension of f's region (given by its lets' mins and maxs) that can slide over
    // `loop`, or -1: the only one whose bounds move with the loop, forward, in names bound
    // outside it, over loops of f's own that a slid region can run (see row_splits), along
    // which every update keeps to its own row (see update_stays_in_place), and whose max
    // does not read a min slid before (its value differs from the one expanded). Where loops
    // lie inside `loop` (`inner_loops`), a later iteration of them may compute again, in
    // storage, points an earlier one computed, and the next iteration of `loop` reads what the
    // last one left: every update must then keep to its own point in every dimension, so that
    // each production leaves final values at every point it writes (an update that scatters
    // along another dimension covers less than the pure stage, whose region includes what the
    // update reads, and leaves the rest with the pure stage's values). The
    // lets are written in the names of the regions of the other Funcs computed in the same
    // iteration, which are expanded with their values before any slide (a slid min is not
    // what this Func's consumers read of it in the first iteration).
    int slidable_dimension(const FunctionContents &f, const Loop &loop, bool inner_loops,
                           const std::vector<Expr> &mins, const std::vector<Expr> &maxs,
                           const std::vector<std::optional<std::vector<RowSplit>>> &splits_by_dim) {
        size_t dims = f.args.size();
        int found = -1;
        for (size_t d = 0; d < dims; d++) {
            if (!mins[d].defined() || !maxs[d].defined()) return -1;
            // Only the dimension that moves is expanded: the others' regions may be large
            // (see expand_in_iteration).
            if (!moves_with(mins[d], loop.name, false) && !moves_with(maxs[d], loop.name, false))
                continue;
            if (found >= 0) return -1; // a second dimension moves with the loop
            bool ignored = false, max_uses_slid = false;
            Expr emin = expand_in_iteration(mins[d], loop.name, &ignored);
            Expr emax = expand_in_iteration(maxs[d], loop.name, &max_uses_slid);
            if (!emin.defined() || !emax.defined()) return -1;
            if (!only_outer_names(emin, loop) || !only_outer_names(emax, loop)) return -1;
            if (!never_decreases(emin, loop.name) || !never_decreases(emax, loop.name)) return -1;
            if (!splits_by_dim[d] || max_uses_slid) return -1;
            for (int k = 1; k < f.stages(); k++) {
                for (size_t other = 0; other < dims; other++) {
                    if ((other == d || inner_loops) && !update_stays_in_place(f, k, other))
                        return -1;
                }
            }
            if (inner_loops && f.stages() > 1) {
                for (size_t other = 0; other < dims; other++) {
                    if (other != d && !pure_stage_stays_in_region(f, other, mins, maxs)) return -1;
                }
            }
            found = (int)d;
        }
        return found;
    }

    // Whether f's pure stage (and each specialization of it) provably writes only its region
    // along dimension d, as the updates do: a ShiftInwards block longer than the region starts
    // below it, and the points there, reset by the pure stage only, would be left wrong for
    // the next iteration of a slid loop by a later production of the loops inside it (fuzz
    // seed 7002 pair 204: vectorize(x, 16) over 2 columns per production, slid down the rows).
    bool pure_stage_stays_in_region(const FunctionContents &f, size_t d,
                                    const std::vector<Expr> &mins, const std::vector<Expr> &maxs) {
        Expr lo = expand_in_innermost_iteration(mins[d], nullptr);
        Expr hi = expand_in_innermost_iteration(maxs[d], nullptr);
        if (!lo.defined() || !hi.defined()) return false;
        const Expr extent = with_enclosing_lets(hi - lo + 1);
        std::vector<const Definition *> defs = {&f.init};
        for (size_t i = 0; i < defs.size(); i++) {
            for (const Specialization &s : defs[i]->specializations) {
                if (s.definition) defs.push_back(s.definition.get());
            }
            std::optional<Expr> offset =
                lowest_written_offset(defs[i]->schedule.splits, f.args[d], extent);
            if (!offset || !can_prove(*offset >= 0)) return false;
        }
        return true;
    }

    // Whether every region let of a Func (each stage's min and max along each pure Var) is
    // the same in every iteration of `loop`: written, once the lets bound inside the loop are
    // expanded, in names bound outside it.
    bool region_invariant_in(const std::vector<std::pair<std::string, Expr>> &lets,
                             const Loop &loop) {
        for (const auto &l : lets) {
            if (moves_with(l.second, loop.name, true)) return false;
        }
        return true;
    }

    // Whether the loops inside loops[at] (around the production) run the same iterations in
    // every iteration of it, unconditionally: their bounds are in names bound outside it and do
    // not move with it, no branch lies between, and each runs all its iterations (serial,
    // unrolled or parallel).
    bool inner_iterations_fixed(size_t at) {
        const Loop &outer = loops[at];
        if (conditions != outer.conditions) return false;
        for (size_t k = at + 1; k < loops.size(); k++) {
            const Loop &inner = loops[k];
            if (inner.for_type != ForType::Serial && inner.for_type != ForType::Unrolled &&
                inner.for_type != ForType::Parallel)
                return false;
            for (const Expr &bound : {inner.min, inner.extent}) {
                if (moves_with(bound, outer.name, true)) return false;
            }
        }
        return true;
    }

    // Whether e, with the lets bound inside the loop expanded, uses the loop's variable (and,
    // with inner_loops_too, a variable of a loop inside it): what expanding it and looking
    // tells, without expanding (each let's value is read once, however many lets name it).
    bool moves_with(const Expr &e, const std::string &loop, bool inner_loops_too) {
        const std::map<std::string, Expr> values = bound_inside(loop);
        std::map<std::string, bool> moves; // memo: name -> whether it moves
        std::function<bool(const Expr &)> walk = [&](const Expr &x) {
            for (const std::string &name : variables_in(x)) {
                auto v = values.find(name);
                if (v == values.end()) continue; // bound outside the loop
                if (!v->second.defined()) {
                    if (name == loop || inner_loops_too) return true;
                    continue;
                }
                auto known = moves.find(name);
                if (known == moves.end()) known = moves.emplace(name, walk(v->second)).first;
                if (known->second) return true;
            }
            return false;
        };
        return walk(e);
    }

    // The names bound inside `loop` (its variable included), each with its innermost binding:
    // a let's value before any slide, undefined for a loop variable.
    std::map<std::string, Expr> bound_inside(const std::string &loop) const {
        std::map<std::string, Expr> values;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            values.emplace(it->first, it->second);
            if (it->first == loop) break;
        }
        return values;
    }

    static std::set<std::string> variables_in(const Expr &e) {
        class Collect : public IRVisitor {
        public:
            std::set<std::string> names;

        private:
            using IRVisitor::visit;
            void visit(const Variable *op) override { names.insert(op->name); }
        } collect;
        e.accept(&collect);
        return collect.names;
    }

    // Whether e uses, besides the loop variable, only names bound outside the loop.
    bool only_outer_names(const Expr &e, const Loop &loop) {
        bool inside = false;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            if (it->first == loop.name) break;
            inside |= expr_uses_var(e, it->first);
        }
        return !inside;
    }

    Expr expand_in_innermost_iteration(const Expr &e, bool *uses_slid) {
        return loops.empty() ? e : expand_in_iteration(e, loops.back().name, uses_slid);
    }

    // e with the lets bound inside the loop named `loop`
    // substituted by their values before any slide, as long as it uses one (a chain of lets);
    // *uses_slid (where given) tells whether a slid let was. Undefined where the expansion
    // grows past kMaxExpandedNodes: the lets of a chain of Funcs computed in one loop, each
    // region written in terms of the next, expand to a tree exponential in the chain's length
    // (an auto-scheduled camera_pipe spent 150 s here), and a region that large is not slid.
    static constexpr size_t kMaxExpandedNodes = 2000;
    Expr expand_in_iteration(const Expr &e, const std::string &loop, bool *uses_slid) {
        std::map<std::string, Expr> values = bound_inside(loop);
        for (auto it = values.begin(); it != values.end();) {
            it = it->second.defined() ? std::next(it) : values.erase(it);
        }
        Expr result = e;
        for (int depth = 0; depth < 64; depth++) {
            for (const auto &v : values) {
                if (uses_slid && slid.count(v.first) && expr_uses_var(result, v.first))
                    *uses_slid = true;
            }
            Expr next = substitute(values, result);
            if (next.same_as(result)) break;
            if (expr_larger_than(next, kMaxExpandedNodes)) return Expr();
            result = next;
        }
        return result;
    }

    // The region's bound never moves back as the loop advances: then the rows a later
    // iteration needs are the ones past the previous iteration's max, or ones computed before.
    static bool never_decreases(const Expr &e, const std::string &v) {
        auto increases = [&](const Expr &x) {
            Monotonic m = is_monotonic(x, v);
            return m == Monotonic::Constant || m == Monotonic::Increasing;
        };
        // The region of a Func read through a rounded-up split of its consumer's loop comes
        // with the rounding's arithmetic (((max - min + 3) / 3) * 3): simplified, the loop's
        // variable cancels out of the quotient (fuzz seed 2026 pair 40, unroll(y, 3) of the
        // consumer: its producer recomputed the whole window per row).
        return increases(e) || increases(simplify(e));
    }

    // Each stage's split of its own loop over dimension d (or nullopt where a stage's loops
    // over d are not ones a slid region can run): at most one split of the dimension's Var
    // (neither of its parts split or fused again), its factor a constant, and loops over d
    // that run every iteration on the CPU; or, instead of the split, a fuse with the Var as
    // the outer part into a serial loop that is neither split nor fused again. A dimension the
    // schedule folds keeps to loops that are not split: the extra rows of a shifted or rounded
    // block would land in slots of the fold that rows of the window hold (storage folding's own
    // folds leave room for them).
    static std::optional<std::vector<RowSplit>> row_splits(const FunctionContents &f, size_t d) {
        std::vector<RowSplit> result;
        auto add_stage = [&](const StageSchedule &schedule, const std::string &arg) {
            std::string outer, inner;
            // The loop the dimension's Var is fused into as the outer part, if it is: rows of
            // the fused loop are the Var's rows, each a whole run of the inner part, so a slid
            // region shortens the fused loop (whose extent and Var are written in the region's
            // lets) to the new rows.
            std::string fused;
            for (const Split &split : schedule.splits) {
                if (!fused.empty() &&
                    (split.old_var == fused || split.outer == fused || split.inner == fused))
                    return false;
                if (split.kind == Split::FuseVars && split.outer == arg && outer.empty() &&
                    fused.empty()) {
                    fused = split.old_var;
                    continue;
                }
                const bool of_parts =
                    !outer.empty() && (split.old_var == outer || split.old_var == inner);
                if (of_parts || split.outer == arg || split.inner == arg) {
                    if (!(split.old_var == arg && outer.empty())) return false;
                }
                if (split.old_var != arg || !outer.empty()) continue;
                const int64_t *factor = as_const_int(split.factor);
                if (split.kind != Split::SplitVar || !factor || *factor < 1) return false;
                outer = split.outer;
                inner = split.inner;
                result.push_back(RowSplit{split.tail, *factor});
            }
            for (const Dim &dim : schedule.dims) {
                if (!fused.empty() && dim.var == fused && dim.for_type != ForType::Serial)
                    return false;
                const bool over_d = dim.var == arg || dim.var == outer || dim.var == inner;
                if (over_d && dim.for_type != ForType::Serial &&
                    dim.for_type != ForType::Parallel && dim.for_type != ForType::Vectorized &&
                    dim.for_type != ForType::Unrolled)
                    return false;
                if (dim.var == arg && outer.empty() && dim.for_type != ForType::Serial)
                    return false;
            }
            return true;
        };
        for (int k = 0; k < f.stages(); k++) {
            const Definition &def = f.stage(k);
            std::string arg = f.stage_pure_var(k, d);
            if (!add_stage(def.schedule, arg)) return std::nullopt;
            for (const Specialization &spec : def.specializations) {
                if (spec.definition && !add_stage(spec.definition->schedule, arg))
                    return std::nullopt;
            }
        }
        if (result.empty()) return result;
        for (const StorageFold &fold : f.schedule.folds) {
            if (fold.var == f.args[d]) return std::nullopt;
        }
        return result;
    }

    // e with every enclosing let's value, as bounds inference resolved it (a consumer's tile
    // width is a let outside the loops), simplified: a constant where those make it one.
    Expr with_enclosing_lets(const Expr &e) const {
        std::map<std::string, Expr> values;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            if (it->second.defined() && !values.count(it->first)) values[it->first] = it->second;
        }
        return simplify_to_constant(e, values, 200);
    }

    // Whether bounds inference may have dropped the tail of a GuardWithIf split of the region
    // [emin, emax] as empty (lower/PruneEmptyLoops): where the region's extent is a constant
    // multiple of the factor. A slid region is shorter, and would need the tail.
    bool pruned_guarded_tail(const std::vector<RowSplit> &splits, const Expr &emin,
                             const Expr &emax) const {
        const Expr extent = with_enclosing_lets(emax - emin + 1);
        const int64_t *c = as_const_int(extent);
        if (!c) return false;
        for (const RowSplit &split : splits) {
            if (split.tail == TailStrategy::GuardWithIf && split.factor > 1 &&
                *c % split.factor == 0)
                return true;
        }
        return false;
    }

    // The slid min `m` of an iteration whose region before the slide is [emin, emax], moved
    // back so that every stage's split loops compute whole blocks of rows this iteration's
    // loops computed before the slide, and the stages agree on them (the pure stage resets
    // each row the updates then update once). A ShiftInwards block shorter than its factor
    // would start below m (at emax - factor + 1): m moves there, so the region is long
    // enough, but never below emin, where the region was as short before the slide (the rows
    // it shifts over are below emin, which no later iteration reads: mins never decrease).
    // A RoundUp split's blocks start at m, as Halide 14's do: every row up to emax is reset by
    // the pure stage and then updated once; the rows of the last block past emax are the next
    // iteration's to compute again (its slid min is emax + 1 at most), and land in storage
    // grown by factor - 1 rows, or in a fold storage folding widened by as many (fuzz seed
    // 2026 pair 397: a block of 4 over a window of 3 rows, aligned to emin as before, slid
    // nothing). Rows computed twice are computed by every stage, in order.
    static Expr widen_for_split_loops(Expr m, const Expr &emin, const Expr &emax,
                                      const std::vector<RowSplit> &splits) {
        for (const RowSplit &split : splits) {
            if (split.tail == TailStrategy::ShiftInwards && split.factor > 1)
                m = min(m, emax - (int)(split.factor - 1));
        }
        return max(m, emin);
    }
};

} // namespace

Stmt sliding_window(const Stmt &s, const Environment &env) { return SlidingWindow(env).mutate(s); }

} // namespace Internal
} // namespace loom
