#include "lower/ScheduleFunctions.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <utility>

#include "dsl/Error.h"
#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"
#include "dsl/Substitute.h"
#include "dsl/Var.h"
#include "lower/GuardedSplitTails.h"
#include "lower/PlaceComputation.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

bool is_inlined(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return false;
    }
    // A Func with updates is never substituted into its callers (see innermost_use).
    return f->schedule.compute_level.is_inlined() && !f->has_updates();
}

namespace {

// Replaces calls to inlined Funcs by their (already inlined) definitions.
class InlineCalls : public IRMutator {
public:
    InlineCalls(const std::vector<FunctionPtr> &outputs,
                std::map<std::string, std::vector<Expr>> &inlined_values)
        : outputs(outputs), inlined_values(inlined_values) {}
    using IRMutator::mutate;

    bool inlines(const FunctionPtr &f) const { return is_inlined(f, outputs); }

    const std::vector<Expr> &values_of(const FunctionPtr &f) {
        auto it = inlined_values.find(f->name);
        if (it != inlined_values.end()) return it->second;
        std::vector<Expr> values;
        for (const Expr &v : f->init.values)
            values.push_back(mutate(v));
        return inlined_values[f->name] = values;
    }

private:
    const std::vector<FunctionPtr> &outputs;
    std::map<std::string, std::vector<Expr>> &inlined_values;

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (c->call_type != Call::Halide || !is_inlined(c->func, outputs)) return e;
        const std::vector<Expr> &values = values_of(c->func);
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < c->args.size(); i++)
            args[c->func->args[i]] = c->args[i];
        return substitute(args, values[c->value_index]);
    }
};

bool is_output(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return true;
    }
    return false;
}

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
Stmt build_stage_definition(const FunctionPtr &f, int k, const Definition &def,
                            InlineCalls &inliner, const std::map<std::string, Expr> &known) {
    if (k > 0 && update_never_runs(def)) return make_no_op();
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
    Stmt body = Provide::make(f->name, values, args);
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
                last = last + (reached - extent + inner_extent - 1) / inner_extent;
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
    std::vector<Expr> specialized; // the conditions of the tails specialized_tail made
    for (const Dim &d : sched.dims) {
        std::string name = prefix + d.var;
        Expr mn = var(d.var + ".loop_min"), extent = var(d.var + ".loop_extent");
        body = with_prefetch_placeholders(f, k, sched, d, inliner, body);
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
Stmt build_stage(const FunctionPtr &f, int k, InlineCalls &inliner) {
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
        result = build_stage_definition(f, k, def, inliner, {});
    }
    for (size_t i = n; i-- > 0;) {
        const Specialization &s = def.specializations[i];
        std::map<std::string, Expr> known;
        implications(s.condition, known);
        Stmt version = build_stage_definition(f, k, *s.definition, inliner, known);
        result = IfThenElse::make(s.condition, version, result);
    }
    return result;
}

// All stages of a Func, in order.
Stmt build_produce(const FunctionPtr &f, InlineCalls &inliner) {
    std::vector<Stmt> stages;
    for (int k = 0; k < f->stages(); k++)
        stages.push_back(build_stage(f, k, inliner));
    return Block::make(stages);
}

// Places a Func's storage and computation at its loop levels inside an existing loop nest.
class InjectRealization : public IRMutator {
public:
    InjectRealization(const FunctionPtr &f, Stmt produce, LoopLevel compute, LoopLevel store)
        : f(f), produce(std::move(produce)), compute(std::move(compute)), store(std::move(store)) {}
    using IRMutator::mutate;
    bool found_store = false, found_compute = false;

    Stmt inject_root(const Stmt &s) {
        Stmt body = s;
        if (compute.is_root()) {
            body = before_first_use(body);
            found_compute = true;
        } else {
            body = mutate(body);
        }
        if (store.is_root()) {
            body = realize(body);
            found_store = true;
        }
        return body;
    }

private:
    const FunctionPtr &f;
    Stmt produce;
    LoopLevel compute, store;

    /** s with f's production at root, just before the first statement of s's top-level sequence
     * that reads f: after the productions that come before it, which may include outputs (or
     * Funcs computed from outputs) that f reads. */
    Stmt before_first_use(const Stmt &s) const {
        if (const Block *b = s.as<Block>()) {
            if (!is_called(f->name, b->first)) {
                return Block::make(b->first, before_first_use(b->rest));
            }
        } else if (const ProducerConsumer *pc = s.as<ProducerConsumer>();
                   pc && !pc->is_producer) {
            // The consumer side of a Func computed at root before this one: its production,
            // the sibling before it, does not read f.
            return ProducerConsumer::make(pc->name, false, before_first_use(pc->body));
        } else if (const Realize *r = s.as<Realize>()) {
            // The storage of a Func stored at root, around everything placed so far.
            return Realize::make(r->name, r->types, r->bounds, before_first_use(r->body));
        }
        return Block::make(ProducerConsumer::make(f->name, true, produce),
                           ProducerConsumer::make(f->name, false, s));
    }

    Stmt realize(const Stmt &body) {
        Region bounds;
        for (const std::string &a : f->args) {
            std::string p = f->name + ".s0." + a;
            Expr mn = int_var(p + ".min"), mx = int_var(p + ".max");
            bounds.emplace_back(mn, mx - mn + 1);
        }
        return Realize::make(f->name, f->output_types, bounds, body);
    }

    static std::string level_loop(const LoopLevel &l) {
        return l.func() + ".s" + std::to_string(l.stage_index() < 0 ? 0 : l.stage_index()) + "." +
               l.var();
    }

    // Var::outermost() levels: inside the consumer's production, outside its loops.
    Stmt visit(const ProducerConsumer *op) override {
        Stmt body = mutate(op->body);
        if (op->is_producer) {
            bool is_compute =
                compute.var() == Var::outermost().name() && compute.func() == op->name;
            bool is_store = store.var() == Var::outermost().name() && store.func() == op->name;
            body = wrap(body, is_compute, is_store);
        }
        if (body.same_as(op->body)) return op;
        return ProducerConsumer::make(op->name, op->is_producer, body);
    }

    // Whether `condition` is a GuardWithIf split's guard, likely(v <= v.loop_max).
    static bool is_split_guard(const Expr &condition) {
        const Call *l = condition.as<Call>();
        if (!l || !l->is_intrinsic(Call::likely)) return false;
        const LE *le = l->args[0].as<LE>();
        const Variable *v = le ? le->a.as<Variable>() : nullptr;
        const Variable *max = le ? le->b.as<Variable>() : nullptr;
        return v && max && max->name == v->name + ".loop_max";
    }

    // `body` as the consumption of f after its production.
    Stmt produced_before(const Stmt &body) const {
        return Block::make(ProducerConsumer::make(f->name, true, produce),
                           ProducerConsumer::make(f->name, false, body));
    }

    // Where `body` is the lets of a loop's variables around an update's where() predicate (an
    // if with no else), body with f produced and consumed inside the predicate, or an
    // undefined Stmt: the consumer reads f only where the predicate holds, so f is computed
    // only there (a histogram computed per iteration of an argmin's RDom whose where() skips a
    // third of them: fuzz seed 2026 pair 349, as Halide 14 places it). A split's guard is not
    // entered: loop partitioning removes it, and a production inside one would not slide.
    Stmt produced_inside_predicate(const Stmt &body) const {
        if (const LetStmt *l = body.as<LetStmt>(); l && !expr_calls_func(l->value, f->name)) {
            Stmt inner = produced_inside_predicate(l->body);
            return inner.defined() ? LetStmt::make(l->name, l->value, inner) : Stmt();
        }
        const IfThenElse *i = body.as<IfThenElse>();
        if (!i || i->else_case.defined() || is_split_guard(i->condition) ||
            expr_calls_func(i->condition, f->name))
            return Stmt();
        Stmt inner = produced_inside_predicate(i->then_case);
        return IfThenElse::make(i->condition,
                                inner.defined() ? inner : produced_before(i->then_case));
    }

    Stmt wrap(Stmt body, bool is_compute, bool is_store) {
        if (is_compute) {
            Stmt inside = produced_inside_predicate(body);
            body = inside.defined() ? inside : produced_before(body);
            found_compute = true;
        }
        if (is_store) {
            user_assert(found_compute)
                << "Func " << f->name << " is stored at " << store.to_string()
                << " but computed at " << compute.to_string()
                << ", which is not inside it. The store level must be at or outside the compute "
                   "level.";
            body = realize(body);
            found_store = true;
        }
        return body;
    }

    Stmt visit(const For *op) override {
        bool is_store = !store.is_root() && op->name == level_loop(store);
        bool is_compute = !compute.is_root() && op->name == level_loop(compute);
        Stmt body = wrap(mutate(op->body), is_compute, is_store);
        if (body.same_as(op->body)) return op;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
};

} // namespace

Stmt schedule_functions(const std::vector<FunctionPtr> &outputs, const Environment &env) {
    std::map<std::string, std::vector<Expr>> inlined_values;
    InlineCalls inliner(outputs, inlined_values);

    // The outputs in dependency order (env.order lists producers first): an output may read
    // another.
    std::vector<Stmt> produce_outputs;
    for (const std::string &name : env.order) {
        const FunctionPtr &out = env.functions.at(name);
        if (!is_output(out, outputs)) continue;
        produce_outputs.push_back(
            ProducerConsumer::make(out->name, true, build_produce(out, inliner)));
    }
    Stmt s = Block::make(produce_outputs);

    // Consumers come after producers in env.order, so walking it backwards injects every
    // consumer's loops before the producers that may be computed inside them.
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const FunctionPtr &f = env.functions.at(*it);
        if (is_output(f, outputs)) continue;
        // A Func nothing reads once the others are inlined (say, a Tuple element never used)
        // is not computed at all.
        if (!is_called(f->name, s)) continue;
        // Whether stage k of g reads f once the inlined Funcs are substituted.
        auto stage_reads = [&](const FunctionPtr &g, int k) {
            bool reads = false;
            for (const Expr &v : g->stage(k).values)
                reads |= expr_calls_func(inliner.mutate(v), f->name);
            for (const Expr &a : g->stage(k).args)
                reads |= expr_calls_func(inliner.mutate(a), f->name);
            return reads;
        };
        LoopLevel compute =
            resolve_level(f->schedule.compute_level, f, env, stage_reads, "compute_at", s);
        LoopLevel store =
            f->schedule.store_level.is_inlined()
                ? compute
                : resolve_level(f->schedule.store_level, f, env, stage_reads, "store_at", s);
        const Stmt nest_before = s;
        if (is_inlined(f, outputs)) continue;
        if (compute.is_inlined()) {
            // A Func with updates can't be substituted into its callers; like Halide, compute
            // it at the innermost loop of its one caller.
            compute = store = innermost_use(f, s);
        }
        InjectRealization inject(f, build_produce(f, inliner), compute, store);
        s = inject.inject_root(s);
        user_assert(inject.found_compute)
            << "Func " << f->name << " is computed at " << compute.to_string()
            << ", which is not a loop around any use of it. Legal locations are: "
            << legal_levels(f, nest_before) << ".";
        user_assert(inject.found_store)
            << "Func " << f->name << " is stored at " << store.to_string()
            << ", which is not a loop around its computation. Legal locations are: "
            << legal_levels(f, nest_before) << ".";
        check_placement(f, compute, store, s, nest_before);
    }
    return s;
}

} // namespace Internal
} // namespace loom
