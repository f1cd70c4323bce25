#include "lower/StageNest.h"
#include "lower/ExternStages.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "dsl/Error.h"
#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/RDom.h"
#include "lower/Bounds.h"
#include "lower/GuardedSplitTails.h"
#include "lower/ScatterGather.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// How many values loop `var` of a stage takes as the loops split from it iterate: its extent,
// or more where a split of it rounds up (the outer loop's iterations times the factor, the
// last of them whole). Its values are 0 .. this - 1 above the loop's min.
Expr iterated_extent(const std::vector<Split> &splits, const std::string &prefix,
                     const std::string &var_name) {
    for (const Split &s : splits) {
        // (A fuse names the loop it makes old_var: that is where var_name comes from.)
        if (s.old_var != var_name || s.kind == Split::FuseVars) continue;
        if (s.kind == Split::RenameVar) return iterated_extent(splits, prefix, s.outer);
        if (s.kind != Split::SplitVar || s.tail != TailStrategy::RoundUp) break;
        return (iterated_extent(splits, prefix, s.outer) - 1) * s.factor +
               iterated_extent(splits, prefix, s.inner);
    }
    return int_var(prefix + var_name + ".loop_extent");
}

// At most how many values past its extent loop `var` takes (iterated_extent less the extent),
// from the factors alone: a RoundUp split by F adds less than a block, F - 1, plus what
// rounding its outer loop adds in blocks and its inner loop adds once. A constant where the
// factors are, so that interval arithmetic over enclosing loops can cap a bound by it.
Expr most_values_past_extent(const std::vector<Split> &splits, const std::string &var_name) {
    for (const Split &s : splits) {
        if (s.old_var != var_name || s.kind == Split::FuseVars) continue;
        if (s.kind == Split::RenameVar) return most_values_past_extent(splits, s.outer);
        if (s.kind != Split::SplitVar || s.tail != TailStrategy::RoundUp) break;
        return simplify(s.factor - 1 + most_values_past_extent(splits, s.outer) * s.factor +
                        most_values_past_extent(splits, s.inner));
    }
    return Expr(0);
}

// The prefetches whose `at` is loop d, as placeholders at the top of its body:
// prefetch_placeholder(from loop variable, offset, strategy) calls naming the image in `param`
// or the Func in `func`.
// lower/InjectPrefetches gives them their region once the image checks are in (which must not
// count a prefetch as a read).
Stmt with_prefetch_placeholders(const FunctionPtr &f, int k, const StageSchedule &sched,
                                const Dim &d, const InlineCalls &inliner, Stmt body) {
    const std::string stage = f->name + ".s" + std::to_string(k), prefix = stage + ".";
    for (const PrefetchDirective &p : sched.prefetches) {
        if (!loop_name_matches(d.var, p.at)) continue;
        const std::string &what = prefetched_name(p);
        user_assert(!p.func || !inliner.inlines(p.func))
            << "In prefetch of " << what << " in " << stage << ": " << what
            << " is computed inline, so it has no buffer to prefetch. Compute it into one "
               "(compute_root(), or compute_at a loop outside "
            << d.var << ").";
        user_assert(d.for_type != ForType::Vectorized)
            << "In prefetch of " << what << " in " << stage << ": loop " << d.var
            << " is vectorized, and a prefetch sits at the top of a loop's "
            << "iterations. Prefetch at the loop outside it.";
        std::string from;
        bool from_inside = false; // 'from' found among the loops d encloses
        bool outside = false;     // sched.dims is innermost first: the loops after d enclose it
        for (const Dim &outer : sched.dims) {
            if (loop_name_matches(outer.var, p.from)) {
                from = outer.var;
                from_inside = &outer != &d && !outside;
            }
            // A prefetch inside a vector loop would make its lanes scalar code.
            user_assert(!outside || outer.for_type != ForType::Vectorized)
                << "In prefetch of " << what << " in " << stage << ": loop " << d.var
                << " is inside the vectorized loop " << outer.var
                << ". Prefetch at a loop outside every vectorized one (reorder them, or pick an "
                   "outer loop).";
            outside = outside || &outer == &d;
        }
        user_assert(!from.empty()) << "In prefetch of " << what << " in " << stage << ": " << p.from
                                   << " is no longer a loop of this stage (a later split renamed "
                                      "it). Name one of its loops.";
        // Stage::prefetch checked the order when it was called; a later reorder may have
        // changed it. The region of a later iteration of a loop inside 'at' is not defined.
        user_assert(!from_inside)
            << "In prefetch of " << what << " in " << stage << ": loop " << from
            << " is inside loop " << d.var
            << " (a reorder after the prefetch put it there); the loop whose later iteration "
               "is prefetched ('from') must be 'at' or a loop outside it. Reorder them back, "
               "or prefetch at a loop inside 'from'.";
        Expr placeholder = Call::make(Int(32), "prefetch_placeholder",
                                      {int_var(prefix + from), p.offset, (int)p.strategy},
                                      Call::Intrinsic, p.func, 0, nullptr, p.image);
        body = Block::make(Evaluate::make(placeholder), body);
    }
    return body;
}

// Whether an update's where() conditions are false at every point of its RDom, whatever the
// pure variables (r.where(r.x % 2 != 1) over the single point -1): checked point by point over
// a domain of constant bounds of at most kMaxCheckedRDomPoints points. Such an update never
// runs; building no loops for it leaves its reads out of the placement of the Funcs they read
// (fuzz seed 2026 pair 484: a producer computed around a dead reduction's reads as well as
// the live one's, 10x Halide's time, which drops it).
constexpr int64_t kMaxCheckedRDomPoints = 256;

bool update_never_runs(const Definition &def) {
    if (!def.predicate.defined() || !def.rdom) return false;
    std::vector<int64_t> mins, extents;
    int64_t points = 1;
    for (const ReductionVariable &rv : def.rdom->domain) {
        const Expr min = simplify(rv.min), extent = simplify(rv.extent);
        const int64_t *mn = as_const_int(min), *ext = as_const_int(extent);
        if (!mn || !ext) return false;
        mins.push_back(*mn);
        extents.push_back(std::max<int64_t>(*ext, 0));
        points *= extents.back();
        if (points > kMaxCheckedRDomPoints) return false;
    }
    for (int64_t p = 0; p < points; p++) {
        std::map<std::string, Expr> point;
        int64_t rest = p;
        for (size_t i = 0; i < mins.size(); i++) {
            point[def.rdom->domain[i].var] = make_const(Int(32), mins[i] + rest % extents[i]);
            rest /= extents[i];
        }
        if (!is_const_zero(simplify(substitute(point, def.predicate)))) return false;
    }
    return true;
}

// Whether loop `var` of a stage is serial or parallel and the loops inside it are unrolled (so
// that it is the innermost loop once lowered, its body straight-line scalar code).
bool innermost_around_unrolled_loops(const std::vector<Dim> &dims, const std::string &var) {
    for (const Dim &d : dims) { // innermost first
        if (d.var == var) return d.for_type == ForType::Serial || d.for_type == ForType::Parallel;
        if (d.for_type != ForType::Unrolled) return false;
    }
    return false;
}

// The loop nest of stage k of a Func (0: the pure definition, k > 0: update k - 1). Loops
// run over [<loop>.loop_min, <loop>.loop_min + <loop>.loop_extent); those lets are defined
// before the outermost loop from the region bounds inference chose for the stage
// (<prefix><var>.min / .max), the RDom's bounds, and the splits. Inside the innermost loop,
// lets recover each split or fused variable from the loops, and GuardWithIf splits and the
// RDom's where() conditions guard the Provide.
// How a stage's loops meet the other stages of its compute_with group.
struct StageFusion {
    // The values of the loops the stage shares with the stage it is computed with (its
    // parent), outermost first: the parent's loop variables, shifted as the alignment asks.
    // These loops are lets inside the parent's loops, not loops of their own.
    std::vector<Expr> from_parent;
    // The nests of the stages computed with this one, in the order they run, each with how many
    // of this stage's loops (outermost first) it shares: it runs in the innermost of them,
    // after this stage's body there (0: after all of this stage's loops).
    std::vector<std::pair<int, Stmt>> children;
    // By position (outermost first): for the loops this stage runs that its children share,
    // the union of its bounds and theirs, in this stage's coordinates.
    std::vector<Interval> union_bounds;
    // Where the stage's loop-bound lets go: the top of the group's nest, outside every shared
    // loop, whose bounds name them.
    std::vector<std::pair<std::string, Expr>> *lets = nullptr;

    int shared_loops() const {
        int shared = (int)from_parent.size();
        for (const auto &c : children)
            shared = std::max(shared, c.first);
        return shared;
    }
};

// The stage's own body inside its shared loops, run only at its own points: the shared loops
// cover the union of the group's bounds.
Stmt guarded_by_own_bounds(Stmt body, const std::string &prefix, const std::vector<Dim> &dims,
                           int shared) {
    for (int position = shared; position-- > 0;) {
        const std::string loop = prefix + dims[dims.size() - 1 - position].var;
        Expr v = int_var(loop), mn = int_var(loop + ".loop_min"), mx = int_var(loop + ".loop_max");
        // One if each, the upper bound inside, so that loop partitioning can drop each where it
        // always holds.
        body = IfThenElse::make(likely(v >= mn), IfThenElse::make(likely(v <= mx), body));
    }
    return body;
}

// body, then the nests of the children that share `shared` loops.
Stmt with_children(Stmt body, const StageFusion &fusion, int shared) {
    for (const auto &[depth, nest] : fusion.children) {
        if (depth == shared) body = Block::make(body, nest);
    }
    return body;
}

Stmt build_stage_definition(const FunctionPtr &f, int k, const Definition &def,
                            InlineCalls &inliner, const std::map<std::string, Expr> &known,
                            const StageFusion *fusion = nullptr) {
    // (A stage others are computed with keeps its loops: theirs are inside them.)
    if (k > 0 && !fusion && update_never_runs(def)) return make_no_op();
    const std::string prefix = f->name + ".s" + std::to_string(k) + ".";
    const StageSchedule &sched = def.schedule;
    auto var = [&](const std::string &n) { return int_var(prefix + n); };

    std::vector<std::string> pure_vars;
    if (k == 0) {
        pure_vars = f->args;
    } else {
        for (const Expr &a : def.args) {
            if (const Variable *v = a.as<Variable>(); v && !v->param && !v->rdom)
                pure_vars.push_back(v->name);
        }
    }
    std::map<std::string, Expr> rename;
    for (const std::string &a : pure_vars)
        rename[a] = var(a);
    if (def.rdom) {
        for (const ReductionVariable &rv : def.rdom->domain)
            rename[rv.var] = var(rv.var);
    }
    std::vector<Expr> values, args;
    for (const Expr &v : def.values)
        values.push_back(substitute(rename, substitute(known, inliner.mutate(v))));
    for (const Expr &a : def.args)
        args.push_back(substitute(rename, inliner.mutate(a)));
    // An atomic stage's value is stored by a compare-and-swap loop (codegen, Store).
    if (sched.atomic) {
        std::vector<Expr> stored = values;
        stored.insert(stored.end(), args.begin(), args.end());
        for (const Expr &e : stored) {
            user_assert(!has_bundle(e))
                << "Func " << f->name << " is atomic in definition " << k
                << ", which stores with scatter/gather: each store of the bundle would need "
                   "its own compare-and-swap of values read before any. Drop atomic() there.";
        }
        for (Expr &v : values)
            v = Call::make_intrinsic(v.type(), Call::atomic_update, {v}, Call::Intrinsic);
    }
    Stmt body = provide_scattered(f->name, values, args, prefix + "scattered.");
    if (def.predicate.defined()) {
        body = IfThenElse::make(likely(substitute(rename, inliner.mutate(def.predicate))), body);
    }

    // Recover split variables from the loop variables, innermost let first.
    std::vector<std::pair<const Split *, Expr>> guards; // GuardWithIf splits and their guards
    for (const Split &s : sched.splits) {
        switch (s.kind) {
        case Split::SplitVar: {
            Expr base = var(s.outer) * s.factor;
            Expr old_min = var(s.old_var + ".loop_min");
            // (Stage::split resolves Auto as Halide does when the split is made.)
            const TailStrategy tail = s.tail;
            internal_assert(tail != TailStrategy::Auto) << "split of " << s.old_var;
            if (tail == TailStrategy::ShiftInwards) {
                // The last iteration shifts back so that it ends at the last point. Where the
                // outer loop is the innermost loop left once the unrolled loops inside it are
                // copies, the base is likely the unshifted one, so that loop partitioning
                // gives the loop a steady state whose points advance by a fixed step, which
                // LLVM vectorizes across iterations (as Halide's likely_if_innermost; fuzz
                // seed 2026 pair 307, unroll(x, 4): 2.6x Halide's time with the shifted base
                // in every iteration). Not around vectorized loops: their iterations are
                // vector code already, and a partition would double it.
                if (innermost_around_unrolled_loops(sched.dims, s.outer)) base = likely(base);
                base = min(base, var(s.old_var + ".loop_extent") - s.factor);
            } else if (tail == TailStrategy::GuardWithIf) {
                guards.push_back({&s, likely(var(s.old_var) <= var(s.old_var + ".loop_max"))});
            }
            Expr value = base + var(s.inner) + old_min;
            if (tail == TailStrategy::RoundUp) {
                // The last block runs past loop_max, at points nothing needs: Halide 14
                // computes a producer outside the outer loop over the points up to loop_max
                // only (the rest read whatever its storage holds), and storage covers them all.
                // Bounds inference reads the mark (lower/BoundsInference.cpp).
                value = Call::make_intrinsic(Int(32), Call::rounded_up,
                                             {value, var(s.old_var + ".loop_max"),
                                              Expr(prefix + s.outer)});
            }
            body = LetStmt::make(prefix + s.old_var, value, body);
            break;
        }
        case Split::FuseVars: {
            Expr inner_extent = var(s.inner + ".loop_extent");
            body = LetStmt::make(prefix + s.inner,
                                 var(s.old_var) % inner_extent + var(s.inner + ".loop_min"), body);
            // The clamp changes no value (the quotient is always in the range the fused loop
            // reaches, past loop_max where a split of it rounds up) but gives bounds inference
            // the range, which it can't derive from a division by a variable.
            // (Where nothing rounds the fused loop up, that is loop_max itself: the form bounds
            // inference keeps tightest.)
            Expr reached = iterated_extent(sched.splits, prefix, s.old_var);
            Expr extent = var(s.old_var + ".loop_extent");
            Expr last = var(s.outer + ".loop_max");
            if (!deep_equal(reached, extent)) {
                // Past the extent the quotient moves by a row per inner_extent values, so at
                // most by as many rows as values past it: that cap (a constant where the
                // factors are) keeps the bound tight over loops around the stage, where the
                // exact quotient divides by a varying extent and interval arithmetic loses it
                // (fuzz seed 8402 pair 1420: an input asked for 62 rows past what is read).
                last = last + min((reached - extent + inner_extent - 1) / inner_extent,
                                  most_values_past_extent(sched.splits, s.old_var));
            }
            body = LetStmt::make(prefix + s.outer,
                                 clamp(var(s.old_var) / inner_extent + var(s.outer + ".loop_min"),
                                       var(s.outer + ".loop_min"), last),
                                 body);
            break;
        }
        case Split::RenameVar:
            body = LetStmt::make(prefix + s.old_var, var(s.outer), body);
            break;
        }
    }
    // Guards go innermost, inside the lets that define the variables they test, one if each
    // so that loop partitioning below can drop one where it always holds.
    if (!guards.empty()) {
        std::vector<const LetStmt *> lets;
        Stmt s = body;
        while (const LetStmt *l = s.as<LetStmt>()) {
            lets.push_back(l);
            s = l->body;
        }
        for (auto it = guards.rbegin(); it != guards.rend(); ++it)
            s = IfThenElse::make(it->second, s);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            s = LetStmt::make((*it)->name, (*it)->value, s);
        body = s;
    }

    // Loops, innermost first. The outer loop of a GuardWithIf split is partitioned: its first
    // extent / factor iterations never reach the tail, so their body runs without the guard
    // (and a vectorized inner loop there stays vector code); the last iteration keeps it.
    // A stage of a compute_with group: its loops shared with its parent are lets of the
    // parent's, those it shares with its children run over the union of their bounds, and
    // neither is partitioned.
    std::vector<Expr> specialized; // the conditions of the tails specialized_tail made
    const int shared = fusion ? fusion->shared_loops() : 0;
    const int from_parent = fusion ? (int)fusion->from_parent.size() : 0;
    // The guards to the stage's own points go just inside the shared loops, except where a GPU
    // loop of the stage's own is inside them: nothing may come between a kernel's block and
    // thread loops, so there they go inside all the loops.
    bool guards_innermost = false;
    for (size_t i = 0; i + shared < sched.dims.size(); i++) {
        const ForType t = sched.dims[i].for_type;
        guards_innermost = guards_innermost || t == ForType::GPUBlock || t == ForType::GPUThread;
    }
    if (shared > 0 && guards_innermost) body = guarded_by_own_bounds(body, prefix, sched.dims, shared);
    int position = (int)sched.dims.size(); // of the loop below, outermost first
    for (const Dim &d : sched.dims) {
        position--;
        std::string name = prefix + d.var;
        Expr mn = var(d.var + ".loop_min"), extent = var(d.var + ".loop_extent");
        if (fusion) {
            if (position == shared - 1 && !guards_innermost)
                body = guarded_by_own_bounds(body, prefix, sched.dims, shared);
            body = with_children(body, *fusion, position + 1);
        }
        body = with_prefetch_placeholders(f, k, sched, d, inliner, body);
        if (position < from_parent) {
            body = LetStmt::make(name, fusion->from_parent[position], body);
            continue;
        }
        if (position < shared) {
            const Interval &u = fusion->union_bounds[position];
            body = For::make(name, u.min, u.max - u.min + 1, d.for_type, d.device_api, body);
            continue;
        }
        const std::pair<const Split *, Expr> *guard = nullptr;
        for (const auto &g : guards) {
            if (g.first->outer == d.var) guard = &g;
        }
        // A GPU loop is not partitioned: its iterations are a kernel's blocks or threads, all
        // launched at once, so each keeps the guard.
        const bool gpu = d.for_type == ForType::GPUBlock || d.for_type == ForType::GPUThread;
        if (!guard || gpu) {
            body = For::make(name, mn, extent, d.for_type, d.device_api, body);
            continue;
        }
        const Split &split = *guard->first;
        // The promise holds only where the inner variable stays in [0, factor): a later split
        // of it (rounded up, or guarded further in) may take it past, with the points past
        // guarded or part of the region.
        const bool inner_loop = inner_is_a_loop(split, sched.splits);
        const SplitGuard split_guard{guard->second, inner_loop ? prefix + split.old_var : "",
                                     var(split.old_var + ".loop_max")};
        Expr old_extent = var(split.old_var + ".loop_extent");
        Expr steady = old_extent / split.factor;
        Stmt unguarded = remove_guard(split_guard, body);
        Stmt tail = serial_tails(specialized, body);
        if (inner_loop) {
            const Expr remaining = old_extent - int_var(name) * split.factor;
            if (specializes_tail(split, sched.dims)) {
                tail = specialized_tail(tail, prefix + split.inner, remaining, split_guard,
                                        (int)*as_const_int(split.factor));
                specialized.push_back(tail.as<IfThenElse>()->condition);
            } else {
                tail = shrink_tail_loop(tail, prefix + split.inner, remaining, split_guard);
            }
        }
        // The outer loop's extent is the old extent over the factor, rounded up: the tail is one
        // iteration or none, which the min tells code generation (a loop that looks hot would
        // be favoured over the steady state in register allocation). An empty region (old
        // extent below 0, as for a producer of a guarded consumer's points past the end) has no
        // iterations: the tail starts at the loop's min or later, never at a negative quotient
        // (which would run an iteration before the region and read inputs there).
        Expr tail_start = max(steady, 0);
        body = Block::make(For::make(name, mn, steady, d.for_type, d.device_api, unguarded),
                           For::make(name, mn + tail_start, min(extent - tail_start, 1), d.for_type,
                                     d.device_api, tail));
    }

    // Loop bounds, defined outermost-first: pure variables and RVars, then each split in order.
    std::vector<std::pair<std::string, Expr>> bounds;
    auto define = [&](const std::string &n, const Expr &mn, const Expr &extent) {
        bounds.push_back({prefix + n + ".loop_min", mn});
        bounds.push_back({prefix + n + ".loop_extent", extent});
        bounds.push_back(
            {prefix + n + ".loop_max", var(n + ".loop_min") + var(n + ".loop_extent") - 1});
    };
    for (const std::string &a : pure_vars)
        define(a, var(a + ".min"), var(a + ".max") - var(a + ".min") + 1);
    if (def.rdom) {
        for (const ReductionVariable &rv : def.rdom->domain)
            define(rv.var, rv.min, rv.extent);
    }
    for (const Split &s : sched.splits) {
        switch (s.kind) {
        case Split::SplitVar:
            define(s.inner, 0, s.factor);
            define(s.outer, 0, (var(s.old_var + ".loop_extent") + s.factor - 1) / s.factor);
            break;
        case Split::FuseVars:
            define(s.old_var, 0, var(s.inner + ".loop_extent") * var(s.outer + ".loop_extent"));
            break;
        case Split::RenameVar:
            define(s.outer, var(s.old_var + ".loop_min"), var(s.old_var + ".loop_extent"));
            break;
        }
    }
    if (fusion) {
        body = with_children(body, *fusion, 0);
        fusion->lets->insert(fusion->lets->end(), bounds.begin(), bounds.end());
        return body;
    }
    for (auto it = bounds.rbegin(); it != bounds.rend(); ++it)
        body = LetStmt::make(it->first, it->second, body);
    return body;
}

// What a specialization's condition tells about Params: p == c gives p = c, a bool p gives
// p = true; conjunctions give both.
void implications(const Expr &c, std::map<std::string, Expr> &known) {
    if (const And *a = c.as<And>()) {
        implications(a->a, known);
        implications(a->b, known);
    } else if (const EQ *eq = c.as<EQ>()) {
        const Variable *v = eq->a.as<Variable>();
        if (v && v->param && is_const(eq->b)) known[v->name] = eq->b;
    } else if (const Variable *v = c.as<Variable>()) {
        if (v->param && v->type.is_bool()) known[v->name] = const_true();
    }
}

// A stage, or, with specializations, the chain of versions chosen by their conditions at run
// time: if (c0) version 0 else if (c1) version 1 ... else the general case (or the failure).
// `version` builds the loop nest of one version of the stage from its definition and what
// its condition tells (build_stage_definition, by default).
using VersionBuilder =
    std::function<Stmt(const Definition &, const std::map<std::string, Expr> &)>;

Stmt build_stage(const FunctionPtr &f, int k, InlineCalls &inliner,
                 VersionBuilder version_nest = nullptr) {
    if (!version_nest) {
        version_nest = [&](const Definition &d, const std::map<std::string, Expr> &known) {
            return build_stage_definition(f, k, d, inliner, known);
        };
    }
    const Definition &def = f->stage(k);
    Stmt result;
    size_t n = def.specializations.size();
    if (n && def.specializations.back().failure) {
        result = AssertStmt::make(const_false(),
                                  Call::make(Int(32), "loom_error",
                                             {Expr(def.specializations.back().failure_message)},
                                             Call::Extern));
        n--;
    } else {
        result = version_nest(def, {});
    }
    for (size_t i = n; i-- > 0;) {
        const Specialization &s = def.specializations[i];
        std::map<std::string, Expr> known;
        implications(s.condition, known);
        Stmt version = version_nest(*s.definition, known);
        result = IfThenElse::make(s.condition, version, result);
    }
    return result;
}

// How far the child's loop at `position` is from its parent's: child = parent + shift. Its
// first (AlignStart) or last (AlignEnd) iteration meets the parent's; otherwise they are equal.
Expr alignment_shift(const StageRef &child, const Definition &child_def, const StageRef &parent,
                     const Definition &parent_def, int position) {
    const FuseLevel &fuse = child_def.schedule.fuse_level;
    const std::vector<Dim> &dims = child_def.schedule.dims;
    const std::string &var = dims[dims.size() - 1 - position].var;
    LoopAlignStrategy strategy = fuse.default_align;
    for (const auto &[name, s] : fuse.align) {
        if (loop_name_matches(var, name)) strategy = s;
    }
    const std::string c = stage_loop_name(child, child_def, position),
                      p = stage_loop_name(parent, parent_def, position);
    switch (strategy) {
    case LoopAlignStrategy::AlignStart:
        return int_var(c + ".loop_min") - int_var(p + ".loop_min");
    case LoopAlignStrategy::AlignEnd:
        return int_var(c + ".loop_max") - int_var(p + ".loop_max");
    default:
        return make_zero(Int(32));
    }
}

struct GroupNest {
    const FusedGroup &group;
    const Environment &env;
    InlineCalls &inliner;

    const Definition &definition(const StageRef &s) const {
        return env.functions.at(s.first)->stage(s.second);
    }

    const std::vector<StageRef> &children(const StageRef &s) const {
        static const std::vector<StageRef> none;
        auto it = group.children.find(s);
        return it == group.children.end() ? none : it->second;
    }

    // The values the loop at `position` of stage s (version `def`) and of the stages computed
    // with it take, in s's coordinates.
    Interval fused_range(const StageRef &s, const Definition &def, int position) const {
        const std::string v = stage_loop_name(s, def, position);
        Interval r(int_var(v + ".loop_min"), int_var(v + ".loop_max"));
        for (const StageRef &c : children(s)) {
            if (group.shared_loops.at(c) <= position) continue;
            const Definition &cd = definition(c);
            Interval theirs = fused_range(c, cd, position);
            Expr shift = alignment_shift(c, cd, s, def, position);
            r = Interval(Min::make(r.min, theirs.min - shift), Max::make(r.max, theirs.max - shift));
        }
        return r;
    }

    // Stage s (version `def`) with the stages computed with it inside its loops; its loops
    // shared with its parent take the values `from_parent`. The loop-bound lets go to `lets`.
    Stmt build(const StageRef &s, const Definition &def, const std::map<std::string, Expr> &known,
               std::vector<Expr> from_parent, std::vector<std::pair<std::string, Expr>> &lets) {
        StageFusion fusion;
        fusion.from_parent = std::move(from_parent);
        fusion.lets = &lets;
        for (const StageRef &c : children(s)) {
            const Definition &cd = definition(c);
            const int depth = group.shared_loops.at(c);
            std::vector<Expr> values;
            for (int p = 0; p < depth; p++)
                values.push_back(int_var(stage_loop_name(s, def, p)) + alignment_shift(c, cd, s, def, p));
            fusion.children.push_back({depth, build(c, cd, {}, std::move(values), lets)});
        }
        fusion.union_bounds.resize(fusion.shared_loops());
        for (int p = (int)fusion.from_parent.size(); p < fusion.shared_loops(); p++)
            fusion.union_bounds[p] = fused_range(s, def, p);
        return build_stage_definition(env.functions.at(s.first), s.second, def, inliner, known,
                                      &fusion);
    }
};

}  // namespace

Stmt build_group_produce(const FusedGroup &group, const Environment &env, InlineCalls &inliner) {
    GroupNest nest{group, env, inliner};
    std::vector<Stmt> stages;
    for (const StageRef &s : group.stage_order) {
        const FunctionPtr &f = env.functions.at(s.first);
        // A stage computed with another is built inside its parent's loops.
        if (fuse_parent(f->stage(s.second)).second >= 0) continue;
        if (nest.children(s).empty()) {
            stages.push_back(build_stage(f, s.second, inliner));
            continue;
        }
        stages.push_back(build_stage(
            f, s.second, inliner, [&](const Definition &d, const std::map<std::string, Expr> &known) {
                std::vector<std::pair<std::string, Expr>> lets;
                Stmt body = nest.build(s, d, known, {}, lets);
                for (auto it = lets.rbegin(); it != lets.rend(); ++it)
                    body = LetStmt::make(it->first, it->second, body);
                return body;
            }));
    }
    return Block::make(stages);
}

std::optional<Expr> lowest_written_offset(const std::vector<Split> &splits, const std::string &var,
                                          const Expr &extent) {
    // As build_stage_definition recovers each split variable: old = base + inner, where the
    // outer loop runs over ceil(extent / factor) blocks.
    for (const Split &s : splits) {
        if (s.kind == Split::FuseVars && (s.inner == var || s.outer == var)) return std::nullopt;
        if (s.old_var != var) continue;
        if (s.kind == Split::RenameVar) return lowest_written_offset(splits, s.outer, extent);
        if (s.kind != Split::SplitVar) return std::nullopt;
        std::optional<Expr> outer =
            lowest_written_offset(splits, s.outer, (extent + s.factor - 1) / s.factor);
        std::optional<Expr> inner = lowest_written_offset(splits, s.inner, s.factor);
        if (!outer || !inner) return std::nullopt;
        Expr base = *outer * s.factor;
        if (s.tail == TailStrategy::ShiftInwards) base = min(base, extent - s.factor);
        return base + *inner;
    }
    return Expr(0);
}

Stmt build_produce(const FunctionPtr &f, InlineCalls &inliner) {
    if (f->is_extern()) return build_extern_produce(f, inliner);
    std::vector<Stmt> stages;
    for (int k = 0; k < f->stages(); k++)
        stages.push_back(build_stage(f, k, inliner));
    return Block::make(stages);
}

}  // namespace Internal
}  // namespace loom
