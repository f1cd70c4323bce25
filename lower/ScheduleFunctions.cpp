#include "lower/ScheduleFunctions.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <set>
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
#include "lower/PlaceComputation.h"
#include "lower/StageNest.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

bool is_inlined(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return false;
    }
    // A Func with updates is never substituted into its callers (see innermost_use), nor is
    // an extern stage, which has no Expr to substitute.
    return f->schedule.compute_level.is_inlined() && !f->has_updates() && !f->is_extern();
}

namespace {

bool is_output(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return true;
    }
    return false;
}

// Places a Func's storage and computation at its loop levels inside an existing loop nest.
class InjectRealization : public IRMutator {
public:
    /** `read_names`: the Funcs whose reads need the production (f and, for a compute_with
     * group, its other Funcs). An undefined `produce`: f's storage only, its production being
     * its group's. */
    InjectRealization(const FunctionPtr &f, Stmt produce, LoopLevel compute, LoopLevel store,
                      std::vector<std::string> read_names, const Environment &env)
        : f(f), produce(std::move(produce)), compute(std::move(compute)), store(std::move(store)),
          read_names(std::move(read_names)), env(env) {
        found_compute = !this->produce.defined();
    }
    using IRMutator::mutate;
    bool found_store = false, found_compute = false;
    /** More loops (by name) to compute f in, each with its own production: the loops of the
     * consumer's other stages that read f, where compute_at named a Var and no stage (Halide
     * 14 computes f in every stage of the consumer that reads it). Where f is stored at its
     * compute level, each is a storage of its own too. */
    std::set<std::string> more_compute_loops;
    bool more_are_stores = false;

    Stmt inject_root(const Stmt &s) {
        Stmt body = s;
        if (!produce.defined()) {
            body = mutate(body);
        } else if (compute.is_root()) {
            body = before_first_use(body);
            found_compute = true;
        } else {
            body = mutate(body);
        }
        if (store.is_root()) {
            body = stored_from_first_use(body);
            found_store = true;
        }
        return body;
    }

private:
    const FunctionPtr &f;
    Stmt produce;
    LoopLevel compute, store;
    std::vector<std::string> read_names;
    const Environment &env;

    // Whether the production `production` computes Func `func`: its own, or, for the first
    // Func of a compute_with group, the group's.
    bool holds(const std::string &production, const std::string &func) const {
        if (production == func) return true;
        auto it = env.fused_members.find(production);
        return it != env.fused_members.end() &&
               std::find(it->second.begin(), it->second.end(), func) != it->second.end();
    }

    bool reads(const Stmt &s) const {
        for (const std::string &n : read_names) {
            if (is_called(n, s)) return true;
        }
        return false;
    }
    bool reads(const Expr &e) const {
        for (const std::string &n : read_names) {
            if (expr_calls_func(e, n)) return true;
        }
        return false;
    }

    /** s with f's storage at root around the first statement of s's top-level sequence that
     * computes or reads f and the rest after it, as Halide 14 places it: the storage lives from
     * its first use to the end. */
    Stmt stored_from_first_use(const Stmt &s) {
        if (const Block *b = s.as<Block>(); b && !mentions_f(b->first)) {
            return Block::make(b->first, stored_from_first_use(b->rest));
        } else if (const ProducerConsumer *pc = s.as<ProducerConsumer>();
                   pc && !pc->is_producer) {
            return ProducerConsumer::make(pc->name, false, stored_from_first_use(pc->body));
        } else if (const Realize *r = s.as<Realize>()) {
            return Realize::make(r->name, r->types, r->bounds, stored_from_first_use(r->body));
        }
        return realize(s);
    }

    // Whether s computes or reads f.
    bool mentions_f(const Stmt &s) const {
        class Mentions : public IRVisitor {
        public:
            explicit Mentions(const std::string &name) : name(name) {}
            bool found = false;

        private:
            const std::string &name;
            void visit(const Provide *op) override {
                found = found || op->name == name;
                IRVisitor::visit(op);
            }
            void visit(const Call *op) override {
                found = found || (op->call_type == Call::Halide && op->name == name);
                IRVisitor::visit(op);
            }
        } mentions(f->name);
        s.accept(&mentions);
        return mentions.found;
    }

    /** s with f's production at root, just before the first statement of s's top-level sequence
     * that reads f: after the productions that come before it, which may include outputs (or
     * Funcs computed from outputs) that f reads. */
    Stmt before_first_use(const Stmt &s) const {
        if (const Block *b = s.as<Block>()) {
            if (!reads(b->first)) {
                return Block::make(b->first, before_first_use(b->rest));
            }
        } else if (const ProducerConsumer *pc = s.as<ProducerConsumer>();
                   pc && !pc->is_producer) {
            // The consumer side of a Func computed at root before this one: its production,
            // the sibling before it, does not read f.
            return ProducerConsumer::make(pc->name, false, before_first_use(pc->body));
        }
        // (A Realize here is the storage of a Func stored at root from its first use on
        // (stored_from_first_use), which f, computed before its consumers, does not touch: f's
        // production goes outside it, as Halide 14 places it.)
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
                compute.var() == Var::outermost().name() && holds(op->name, compute.func());
            bool is_store = store.var() == Var::outermost().name() && holds(op->name, store.func());
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
        if (const LetStmt *l = body.as<LetStmt>(); l && !reads(l->value)) {
            Stmt inner = produced_inside_predicate(l->body);
            return inner.defined() ? LetStmt::make(l->name, l->value, inner) : Stmt();
        }
        const IfThenElse *i = body.as<IfThenElse>();
        if (!i || i->else_case.defined() || is_split_guard(i->condition) ||
            reads(i->condition))
            return Stmt();
        Stmt inner = produced_inside_predicate(i->then_case);
        return IfThenElse::make(i->condition,
                                inner.defined() ? inner : produced_before(i->then_case));
    }

    Stmt wrap(Stmt body, bool is_compute, bool is_store) {
        if (is_compute && produce.defined()) {
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

    // A stage's loop it shares with the stage it is computed with (compute_with) is a let of
    // that stage's loop: a Func computed at it is computed there, per iteration of the shared
    // loop, beside the stage's own body.
    // (Not a let inside a loop of its name: a split whose outer loop keeps the old name
    // recovers the old variable in a let of that name, inside that loop.)
    Stmt visit(const LetStmt *op) override {
        const bool shadows_loop = enclosing_loops.count(op->name) > 0;
        bool is_store = !store.is_root() && !shadows_loop && op->name == level_loop(store);
        bool is_compute = !compute.is_root() && !shadows_loop && op->name == level_loop(compute);
        if (!is_store && !is_compute) return IRMutator::visit(op);
        Stmt body = wrap(mutate(op->body), is_compute, is_store);
        return LetStmt::make(op->name, op->value, body);
    }

    std::multiset<std::string> enclosing_loops;

    Stmt visit(const For *op) override {
        const bool more = more_compute_loops.count(op->name) > 0;
        bool is_store =
            (!store.is_root() && op->name == level_loop(store)) || (more && more_are_stores);
        bool is_compute = (!compute.is_root() && op->name == level_loop(compute)) || more;
        auto inside = enclosing_loops.insert(op->name);
        Stmt body = mutate(op->body);
        enclosing_loops.erase(inside);
        body = wrap(body, is_compute, is_store);
        if (body.same_as(op->body)) return op;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
};

// Whether the storage of `name` encloses the production `production`.
class StorageEnclosesProduction : public IRVisitor {
public:
    StorageEnclosesProduction(const std::string &name, const std::string &production)
        : name(name), production(production) {}
    bool encloses = false;

private:
    const std::string &name, &production;
    int inside = 0;
    void visit(const Realize *op) override {
        inside += op->name == name;
        IRVisitor::visit(op);
        inside -= op->name == name;
    }
    void visit(const ProducerConsumer *op) override {
        if (op->is_producer && op->name == production && inside) encloses = true;
        IRVisitor::visit(op);
    }
};

// Halide 14's rule for compute_at(g, var) without a stage: f is computed in every stage of g
// that reads it, at that stage's loop over var. `compute` is the level resolved for the first
// such stage; the result is the loops of the later ones that have a loop over var.
std::set<std::string>
other_reading_stage_loops(const FunctionPtr &f, const LoopLevel &compute, const Environment &env,
                          const std::function<bool(const FunctionPtr &, int)> &stage_reads) {
    std::set<std::string> loops;
    const LoopLevel &asked = f->schedule.compute_level;
    if (asked.stage_index() >= 0 || compute.is_root() || compute.is_inlined() ||
        compute.var() == Var::outermost().name())
        return loops;
    const FunctionPtr &g = env.functions.at(compute.func());
    for (int k = compute.stage_index() + 1; k < g->stages(); k++) {
        if (!stage_reads(g, k)) continue;
        for (const Dim &d : g->stage(k).schedule.dims) {
            if (loop_name_matches(d.var, asked.var())) {
                loops.insert(g->name + ".s" + std::to_string(k) + "." + d.var);
                break;
            }
        }
    }
    return loops;
}

// The compute_with group a Func belongs to, or null.
const FusedGroup *group_of(const std::string &name, const std::vector<FusedGroup> &groups) {
    for (const FusedGroup &g : groups) {
        if (std::find(g.funcs.begin(), g.funcs.end(), name) != g.funcs.end()) return &g;
    }
    return nullptr;
}

// A loop of a stage computed with another (compute_with) is, from the fuse level outward, a
// loop of its parent: the nest has the parent's loop there, so a level naming it names the
// parent's (compute_at(f2, y) where f2 is computed with f0 at x: f0's y). Left as f2's, it
// was found at f2's body inside the innermost shared loop, after the stages computed there
// that read the Func (fuzz seed 8501 pair 889: an inline reduction of f2 read it outside).
LoopLevel owner_of_shared_loop(LoopLevel level, const Environment &env,
                               const std::vector<FusedGroup> &groups) {
    while (!level.is_root() && !level.is_inlined() && level.stage_index() >= 0) {
        const FunctionPtr &g = env.functions.at(level.func());
        const StageRef stage{g->name, level.stage_index()};
        const Definition &def = g->stage(stage.second);
        const StageRef parent = fuse_parent(def);
        const FusedGroup *group = group_of(g->name, groups);
        if (parent.second < 0 || !group) break;
        auto shared = group->shared_loops.find(stage);
        if (shared == group->shared_loops.end()) break;
        const std::vector<Dim> &dims = def.schedule.dims;
        int position = -1; // outermost first
        for (size_t i = 0; i < dims.size(); i++) {
            if (dims[i].var == level.var()) position = (int)(dims.size() - 1 - i);
        }
        if (position < 0 || position >= shared->second) break;
        const Definition &parent_def = env.functions.at(parent.first)->stage(parent.second);
        const std::vector<Dim> &parent_dims = parent_def.schedule.dims;
        level = LoopLevel(parent.first, parent_dims[parent_dims.size() - 1 - position].var,
                          parent.second);
    }
    return level;
}

} // namespace

Stmt schedule_functions(const std::vector<FunctionPtr> &outputs, const Environment &env,
                        const std::vector<FusedGroup> &groups) {
    std::map<std::string, std::vector<Expr>> inlined_values;
    InlineCalls inliner(outputs, inlined_values);

    // A Func's production, or, for the first Func of a compute_with group, the group's (its
    // other Funcs have none of their own).
    auto production = [&](const FunctionPtr &f) {
        const FusedGroup *g = group_of(f->name, groups);
        return g ? build_group_produce(*g, env, inliner) : build_produce(f, inliner);
    };
    auto in_group_not_first = [&](const std::string &name) {
        const FusedGroup *g = group_of(name, groups);
        return g && g->funcs[0] != name;
    };

    auto holds_output = [&](const FusedGroup *g) {
        for (const std::string &n : g->funcs) {
            if (is_output(env.functions.at(n), outputs)) return true;
        }
        return false;
    };

    // The outputs in dependency order (env.order lists producers first): an output may read
    // another. A compute_with group holding an output (all its Funcs computed at the root) is
    // produced at once, where its first Func in env.order is; where it also holds Funcs that
    // are not outputs, the statements after it are its consumption, from which bounds
    // inference gives those their regions.
    std::vector<Stmt> productions;
    std::vector<std::string> consumed_after; // per production: the group it consumes, or ""
    std::set<const FusedGroup *> produced;
    for (const std::string &name : env.order) {
        const FunctionPtr &f = env.functions.at(name);
        const FusedGroup *g = group_of(name, groups);
        if (g && holds_output(g)) {
            if (!produced.insert(g).second) continue;
            bool all_outputs = true;
            for (const std::string &n : g->funcs)
                all_outputs = all_outputs && is_output(env.functions.at(n), outputs);
            const FunctionPtr &first = env.functions.at(g->funcs[0]);
            productions.push_back(ProducerConsumer::make(first->name, true, production(first)));
            consumed_after.push_back(all_outputs ? "" : g->funcs[0]);
        } else if (is_output(f, outputs)) {
            productions.push_back(ProducerConsumer::make(name, true, production(f)));
            consumed_after.push_back("");
        }
    }
    Stmt s;
    for (size_t i = productions.size(); i-- > 0;) {
        Stmt rest = s;
        if (!consumed_after[i].empty()) {
            rest = ProducerConsumer::make(consumed_after[i], false,
                                          rest.defined() ? rest : make_no_op());
        }
        s = rest.defined() ? Block::make(productions[i], rest) : productions[i];
    }

    // Consumers come after producers in env.order, so walking it backwards injects every
    // consumer's loops before the producers that may be computed inside them. A group's Funcs
    // are adjacent there: the group is injected at its first Func (the last met), the storage
    // of the others there too.
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const FunctionPtr &f = env.functions.at(*it);
        const FusedGroup *group = group_of(f->name, groups);
        if (group && holds_output(group)) {
            // Produced with the outputs: a Func of it that is not an output needs storage, at
            // the root, from the group's production on.
            if (is_output(f, outputs)) continue;
            InjectRealization storage(f, Stmt(), LoopLevel::root(), LoopLevel::root(), group->funcs,
                                      env);
            s = storage.inject_root(s);
            continue;
        }
        if (is_output(f, outputs) || in_group_not_first(f->name)) continue;
        const std::vector<std::string> names =
            group ? group->funcs : std::vector<std::string>{f->name};
        // A Func nothing reads once the others are inlined (say, a Tuple element never used)
        // is not computed at all; nor is a group none of whose Funcs is read.
        bool called = false;
        for (const std::string &n : names)
            called = called || is_called(n, s);
        if (!called) continue;
        // Whether stage k of g reads f (or a Func of its group) once the inlined Funcs are
        // substituted.
        auto stage_reads = [&](const FunctionPtr &g, int k) {
            bool reads = false;
            for (const std::string &n : names) {
                for (const Expr &v : g->stage(k).values)
                    reads |= expr_calls_func(inliner.mutate(v), n);
                for (const Expr &a : g->stage(k).args)
                    reads |= expr_calls_func(inliner.mutate(a), n);
                const Expr &where = g->stage(k).predicate;
                reads |= where.defined() && expr_calls_func(inliner.mutate(where), n);
            }
            return reads;
        };
        LoopLevel compute = owner_of_shared_loop(
            resolve_level(f->schedule.compute_level, f, env, stage_reads, "compute_at", s), env,
            groups);
        LoopLevel store = f->schedule.store_level.is_inlined()
                              ? compute
                              : owner_of_shared_loop(resolve_level(f->schedule.store_level, f, env,
                                                                   stage_reads, "store_at", s),
                                                     env, groups);
        const Stmt nest_before = s;
        if (is_inlined(f, outputs)) continue;
        if (compute.is_inlined()) {
            // A Func with updates can't be substituted into its callers; like Halide, compute
            // it at the innermost loop of its one caller. (A group's Funcs share one level, so
            // none of a group is inlined: lower/FusedGroups.)
            compute = store = innermost_use(f, s, env);
        }
        InjectRealization inject(f, production(f), compute, store, names, env);
        inject.more_compute_loops = other_reading_stage_loops(f, compute, env, stage_reads);
        inject.more_are_stores = f->schedule.store_level.is_inlined() ||
                                 f->schedule.store_level == f->schedule.compute_level;
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
        // The storage of the group's other Funcs, around the group's production.
        for (size_t m = 1; m < names.size(); m++) {
            const FunctionPtr &member = env.functions.at(names[m]);
            LoopLevel member_store =
                member->schedule.store_level.is_inlined()
                    ? compute
                    : owner_of_shared_loop(resolve_level(member->schedule.store_level, member,
                                                         env, stage_reads, "store_at", s),
                                           env, groups);
            InjectRealization storage(member, Stmt(), compute, member_store, names, env);
            s = storage.inject_root(s);
            StorageEnclosesProduction encloses(member->name, f->name);
            s.accept(&encloses);
            user_assert(storage.found_store && encloses.encloses)
                << "Func " << member->name << " is stored at " << member_store.to_string()
                << ", which is not around its computation: it is computed with " << f->name
                << " at " << compute.to_string()
                << ". Store it at that level or outside it. Legal locations are: "
                << legal_levels(f, nest_before) << ".";
        }
    }
    return s;
}

} // namespace Internal
} // namespace loom
