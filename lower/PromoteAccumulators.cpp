#include "lower/PromoteAccumulators.h"

#include <algorithm>
#include <map>
#include <set>

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "dsl/Undef.h"
#include "lower/LetTrackingMutator.h"
#include "lower/LinearForm.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

struct InnerLoop {
    std::string name;
    Expr min;
    int64_t extent;
    bool vectorized;
};

/** The calls to Func `f` in an expression. */
class CallsTo : public IRVisitor {
public:
    explicit CallsTo(const std::string &f) : f(f) {}
    std::vector<const Call *> calls;

private:
    const std::string &f;
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide && op->name == f) calls.push_back(op);
        IRVisitor::visit(op);
    }
};

/** The body of a serial loop, checked against promote_accumulators' conditions: the one
 * Provide, the inner loops and lets around it, and the lets whose values change with the
 * loop. */
class TileBody {
public:
    TileBody(const For *loop, const std::map<std::string, Expr> &outer_lets)
        : outer_lets(outer_lets) {
        variant.insert(loop->name);
        walk(loop->body);
        ok = ok && provide;
        if (ok) check_provide();
    }

    bool ok = true;
    const Provide *provide = nullptr;
    std::vector<InnerLoop> loops; // around the Provide, outermost first
    /** The lets of the body whose values change with the loop (and the loop's variable). */
    std::set<std::string> variant;
    /** The inner loops of more than one iteration that the coordinates use. */
    std::set<std::string> indexed;

private:
    const std::map<std::string, Expr> &outer_lets;
    std::vector<std::pair<std::string, Expr>> path_lets; // around the node being walked
    std::vector<InnerLoop> path_loops;
    std::vector<std::pair<std::string, Expr>> provide_lets;

    static bool calls_a_func(const Expr &e) {
        class Finder : public IRVisitor {
        public:
            bool found = false;

        private:
            using IRVisitor::visit;
            void visit(const Call *op) override {
                found = found || op->call_type == Call::Halide;
                IRVisitor::visit(op);
            }
        } finder;
        e.accept(&finder);
        return finder.found;
    }

    bool varies(const Expr &e) const {
        for (const std::string &v : variant) {
            if (expr_uses_var(e, v)) return true;
        }
        return false;
    }

    /** e with the lets around the Provide substituted, innermost first. */
    Expr expanded(Expr e) const {
        for (auto it = provide_lets.rbegin(); it != provide_lets.rend(); ++it)
            e = substitute(it->first, it->second, e);
        return e;
    }

    void walk(const Stmt &s) {
        if (!ok || !s.defined()) return;
        if (const Block *b = s.as<Block>()) {
            walk(b->first);
            walk(b->rest);
        } else if (const LetStmt *l = s.as<LetStmt>()) {
            if (varies(l->value)) variant.insert(l->name);
            path_lets.emplace_back(l->name, l->value);
            walk(l->body);
            path_lets.pop_back();
        } else if (const For *f = s.as<For>()) {
            if ((f->for_type != ForType::Unrolled && f->for_type != ForType::Vectorized) ||
                varies(f->min) || varies(f->extent)) {
                ok = false;
                return;
            }
            std::map<std::string, Expr> lets = outer_lets;
            for (const auto &[name, value] : path_lets)
                lets[name] = value;
            const Expr extent = simplify_to_constant(f->extent, lets);
            const int64_t *c = as_const_int(extent);
            if (!c) {
                ok = false;
                return;
            }
            // A loop that runs no iteration (the tail a split of a constant extent by a factor
            // that divides it leaves, before simplification removes it) updates nothing.
            if (*c <= 0) return;
            path_loops.push_back({f->name, f->min, *c, f->for_type == ForType::Vectorized});
            walk(f->body);
            path_loops.pop_back();
        } else if (const IfThenElse *i = s.as<IfThenElse>()) {
            // A condition that reads a Func might read the tile, which stays behind in the
            // local buffer while the loop runs.
            ok = !i->else_case.defined() && !varies(i->condition) && !calls_a_func(i->condition);
            walk(i->then_case);
        } else if (const Provide *p = s.as<Provide>()) {
            // An atomic update's element may be updated by other threads meanwhile; a value
            // that depends on undef stores nothing at some points (storage flattening).
            const Call *atomic = p->values.empty() ? nullptr : p->values[0].as<Call>();
            ok = !provide && p->values.size() == 1 &&
                 !(atomic && atomic->is_intrinsic(Call::atomic_update)) &&
                 !contains_undef(p->values[0]);
            provide = p;
            loops = path_loops;
            provide_lets = path_lets;
        } else if (const Evaluate *e = s.as<Evaluate>()) {
            ok = is_const(e->value);
        } else {
            ok = false;
        }
    }

    /** The Provide updates the same points in every iteration of the loop, one point per
     * iteration of the inner loops, and reads its Func only at the point it updates. */
    void check_provide() {
        const std::string &f = provide->name;
        std::vector<Expr> args;
        for (const Expr &a : provide->args) {
            args.push_back(expanded(a));
            if (varies(args.back()) || expr_calls_func(args.back(), f)) {
                ok = false;
                return;
            }
        }
        for (const auto &[name, value] : provide_lets) {
            if (expr_calls_func(value, f)) {
                ok = false;
                return;
            }
        }
        CallsTo reads(f);
        provide->values[0].accept(&reads);
        for (const Call *c : reads.calls) {
            if (c->value_index != 0 || c->args.size() != args.size()) {
                ok = false;
                return;
            }
            for (size_t d = 0; d < args.size(); d++) {
                if (!deep_equal(expanded(c->args[d]), args[d])) {
                    ok = false;
                    return;
                }
            }
        }
        ok = one_point_per_iteration(args);
    }

    /** Each coordinate a sum of inner loop variables times constants (and terms without
     * them); each variable of more than one iteration in at most one coordinate (in none: an
     * unrolled loop only); in a coordinate, each variable's coefficient at least the span of
     * those below it (digits of a mixed radix): then distinct iterations of the loops the
     * coordinates use give distinct points. */
    bool one_point_per_iteration(const std::vector<Expr> &args) {
        std::map<std::string, int64_t> extent_of;
        for (const InnerLoop &l : loops)
            extent_of[l.name] = l.extent;
        std::map<std::string, int> uses;
        for (const Expr &a : args) {
            if (!is_linear_type(a.type())) {
                for (const InnerLoop &l : loops) {
                    if (expr_uses_var(a, l.name)) return false;
                }
                continue;
            }
            Linear form;
            form.type = a.type();
            form.add(a, 1);
            std::vector<std::pair<int64_t, int64_t>> digits; // |coefficient|, extent
            for (const auto &[term, coefficient] : form.terms) {
                const Variable *v = term.as<Variable>();
                const int64_t c = form.wrapped(coefficient);
                if (v && extent_of.count(v->name)) {
                    if (c == 0 || c == INT64_MIN) return false;
                    uses[v->name]++;
                    digits.push_back({std::abs(c), extent_of.at(v->name)});
                    continue;
                }
                for (const InnerLoop &l : loops) {
                    if (expr_uses_var(term, l.name)) return false; // not affine in it
                }
            }
            std::sort(digits.begin(), digits.end());
            int64_t span = 1;
            for (const auto &[c, e] : digits) {
                if (c < span) return false;
                span = c * e;
            }
        }
        // An unrolled loop no coordinate uses updates the same points again in each of its
        // iterations, one after the other: the local buffer does the same. The local buffer
        // is indexed by the other loops.
        for (const InnerLoop &l : loops) {
            if (l.extent == 1) continue;
            if (uses[l.name] > 1 || (uses[l.name] == 0 && l.vectorized)) return false;
            if (uses[l.name] == 1) indexed.insert(l.name);
        }
        return true;
    }
};

/** The loop body rebuilt with its Provide replaced; for the copies in and out (`copy`), without
 * the lets that change with the loop (nothing there reads them). */
class BodyRewriter : public IRMutator {
public:
    BodyRewriter(const TileBody &tile, Stmt replacement, bool copy)
        : tile(tile), replacement(std::move(replacement)), copy(copy) {}

private:
    const TileBody &tile;
    Stmt replacement;
    bool copy;
    using IRMutator::visit;
    Stmt visit(const Provide *op) override {
        return op == tile.provide ? replacement : IRMutator::visit(op);
    }
    Stmt visit(const LetStmt *op) override {
        if (copy && tile.variant.count(op->name)) return mutate(op->body);
        return IRMutator::visit(op);
    }
};

/** Reads of Func f become loads of the local buffer at `index`. */
class ReadsFromBuffer : public IRMutator {
public:
    ReadsFromBuffer(const std::string &f, const std::string &buffer, const Expr &index)
        : f(f), buffer(buffer), index(index) {}

private:
    const std::string &f, &buffer;
    const Expr &index;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type == Call::Halide && op->name == f)
            return Load::make(op->type, buffer, index);
        return IRMutator::visit(op);
    }
};

class PromoteAccumulators : public LetTrackingMutator {
    int gpu_depth = 0;
    int promoted = 0;

    using LetTrackingMutator::visit;

    Stmt visit(const For *op) override {
        const bool gpu = op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread ||
                         op->device_api != DeviceAPI::Host;
        gpu_depth += gpu;
        Stmt s = LetTrackingMutator::visit(op);
        gpu_depth -= gpu;
        const For *loop = s.as<For>();
        if (!loop || loop->for_type != ForType::Serial || gpu_depth > 0) return s;
        return promote(loop, s);
    }

    Stmt promote(const For *loop, const Stmt &original) {
        TileBody tile(loop, lets);
        if (!tile.ok) return original;
        const Provide *p = tile.provide;
        const Type type = p->values[0].type();
        // The local buffer in iteration order, vectorized loops innermost (their lanes
        // contiguous), then the others from the innermost out.
        std::vector<const InnerLoop *> layout;
        for (const InnerLoop &l : tile.loops) {
            if (l.vectorized && tile.indexed.count(l.name)) layout.insert(layout.begin(), &l);
        }
        for (auto it = tile.loops.rbegin(); it != tile.loops.rend(); ++it) {
            if (!it->vectorized && tile.indexed.count(it->name)) layout.push_back(&*it);
        }
        Expr index = make_zero(Int(32));
        int64_t points = 1;
        for (const InnerLoop *l : layout) {
            index = index + (Variable::make(Int(32), l->name) - l->min) * (int)points;
            points *= l->extent;
        }
        if (points * type.bytes() > kMaxAccumulatorBytes || points < 2) return original;
        const std::string buffer = p->name + ".accumulators." + std::to_string(promoted++);

        CallsTo reads(p->name);
        p->values[0].accept(&reads);
        Stmt main =
            BodyRewriter(tile,
                         Store::make(buffer,
                                     ReadsFromBuffer(p->name, buffer, index).mutate(p->values[0]),
                                     index),
                         false)
                .mutate(loop->body);
        Stmt copy_out =
            BodyRewriter(tile, Provide::make(p->name, {Load::make(type, buffer, index)}, p->args),
                         true)
                .mutate(loop->body);
        std::vector<Stmt> steps;
        if (!reads.calls.empty()) {
            // The update reads the points before it writes them: they come in first.
            Expr point = Call::with_args(reads.calls[0], p->args);
            steps.push_back(
                BodyRewriter(tile, Store::make(buffer, point, index), true).mutate(loop->body));
        }
        steps.push_back(
            For::make(loop->name, loop->min, loop->extent, loop->for_type, loop->device_api, main));
        steps.push_back(copy_out);
        steps.push_back(Free::make(buffer));
        return Allocate::make(buffer, type, {Expr((int)points)}, Block::make(steps));
    }
};

} // namespace

Stmt promote_accumulators(const Stmt &s) { return PromoteAccumulators().mutate(s); }

} // namespace Internal
} // namespace loom
