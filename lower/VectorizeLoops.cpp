#include "lower/VectorizeLoops.h"

#include <algorithm>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
#include "dsl/Substitute.h"
#include "lower/BufferAccessVisitor.h"
#include "lower/GuardUnderLets.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

Expr widen(const Expr &e, int lanes) {
    if (e.type().lanes() == lanes) return e;
    internal_assert(e.type().is_scalar()) << "Can't widen " << e << " to " << lanes << " lanes";
    return Broadcast::make(e, lanes);
}

// The largest lane of a vector of ints, where it is known without evaluating the lanes one by
// one (a ramp's is at one of its ends); undefined otherwise.
Expr max_over_lanes(const Expr &e) {
    if (e.type().is_scalar()) return e;
    if (const Broadcast *b = e.as<Broadcast>()) return b->value;
    if (const Ramp *r = e.as<Ramp>()) {
        return simplify(max(r->base, r->base + r->stride * (r->lanes - 1)));
    }
    return Expr();
}

// Rewrites the body of one vectorized loop. Variables in `vector_vars` hold vectors.
//
// The body runs once for all lanes, statement after statement, where the scalar loop ran each
// lane's whole iteration before the next one's. That is the same computation because the lanes
// are independent: what one lane writes, no other lane reads or writes (Funcs computed inside
// the loop write pure values of their coordinates; the storage of one lane's intermediates is
// its own, see visit(Allocate)).
class Vectorize : public IRMutator {
public:
    Vectorize(const std::string &var, Expr ramp, int lanes) : lanes(lanes) {
        vector_vars.push(var, ramp);
    }
    using IRMutator::mutate;
    bool needs_scalar_fallback = false;

private:
    int lanes;
    Scope<Expr> vector_vars; // name -> replacement (a Ramp, or a Variable of vector type)
    // Allocations made inside the vectorized loop, now one slot per lane (see visit(Allocate)).
    Scope<int> widened;
    // How many loops enclose the current node whose lanes start at different places (see
    // visit(For)).
    int rebased_loops = 0;

    // Element `index` of a widened allocation, for every lane: lane l's copy of element i is
    // at i * lanes + l.
    Expr lane_slots(const Expr &index) const {
        if (index.type().is_scalar()) return Ramp::make(index * lanes, 1, lanes);
        if (const Ramp *r = index.as<Ramp>()) {
            return Ramp::make(r->base * lanes, simplify(r->stride * lanes + 1), lanes);
        }
        return index * Broadcast::make(make_const(Int(32), lanes), lanes) + Ramp::make(0, 1, lanes);
    }

    Expr visit(const Variable *op) override {
        if (const Expr *r = vector_vars.find(op->name)) return *r;
        return op;
    }

    // Binary nodes: widen both sides if either is a vector, keeping ramps where the
    // arithmetic allows (ramp + scalar, ramp * scalar), so that indices stay dense. A ramp's
    // stride is simplified as it is built (whether it is constant decides loads and stores);
    // its base is left as written for the simplification after this pass: simplifying it at
    // every level of an index re-simplified the growing base at each one (harris: 2.9 ms of
    // its 9 ms of lowering).
    template <typename T> Expr binary(const T *op) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        if (a.type().lanes() == b.type().lanes()) return T::make(a, b);
        return T::make(widen(a, lanes), widen(b, lanes));
    }

    Expr visit(const Add *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        const Ramp *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
        if (ra && b.type().is_scalar()) return Ramp::make(ra->base + b, ra->stride, ra->lanes);
        if (rb && a.type().is_scalar()) return Ramp::make(a + rb->base, rb->stride, rb->lanes);
        if (ra && rb)
            return Ramp::make(ra->base + rb->base, simplify(ra->stride + rb->stride), lanes);
        return Add::make(widen(a, lanes), widen(b, lanes));
    }
    Expr visit(const Sub *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        const Ramp *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
        if (ra && b.type().is_scalar()) return Ramp::make(ra->base - b, ra->stride, ra->lanes);
        if (rb && a.type().is_scalar())
            return Ramp::make(a - rb->base, simplify(0 - rb->stride), rb->lanes);
        if (ra && rb)
            return Ramp::make(ra->base - rb->base, simplify(ra->stride - rb->stride), lanes);
        return Sub::make(widen(a, lanes), widen(b, lanes));
    }
    Expr visit(const Mul *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        const Ramp *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
        if (ra && b.type().is_scalar())
            return Ramp::make(ra->base * b, simplify(ra->stride * b), ra->lanes);
        if (rb && a.type().is_scalar())
            return Ramp::make(a * rb->base, simplify(a * rb->stride), rb->lanes);
        return Mul::make(widen(a, lanes), widen(b, lanes));
    }
    Expr visit(const Div *op) override { return binary(op); }
    Expr visit(const Mod *op) override { return binary(op); }
    Expr visit(const Min *op) override { return binary(op); }
    Expr visit(const Max *op) override { return binary(op); }
    Expr visit(const EQ *op) override { return binary(op); }
    Expr visit(const NE *op) override { return binary(op); }
    Expr visit(const LT *op) override { return binary(op); }
    Expr visit(const LE *op) override { return binary(op); }
    Expr visit(const GT *op) override { return binary(op); }
    Expr visit(const GE *op) override { return binary(op); }
    Expr visit(const And *op) override { return binary(op); }
    Expr visit(const Or *op) override { return binary(op); }

    Expr visit(const Not *op) override {
        Expr a = mutate(op->a);
        return a.same_as(op->a) ? Expr(op) : Not::make(a);
    }

    Expr visit(const Cast *op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return op;
        return Cast::make(op->type.with_lanes(v.type().lanes()), v);
    }

    Expr visit(const Reinterpret *op) override {
        Expr v = mutate(op->value);
        if (v.same_as(op->value)) return op;
        return Reinterpret::make(op->type.with_lanes(v.type().lanes()), v);
    }

    Expr visit(const Select *op) override {
        Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
            return op;
        int n = std::max({c.type().lanes(), t.type().lanes(), f.type().lanes()});
        if (n == 1) return Select::make(c, t, f);
        // A scalar condition may pick between vectors.
        return Select::make(c.type().is_scalar() ? c : widen(c, n), widen(t, n), widen(f, n));
    }

    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        if (widened.contains(op->name)) {
            return Load::make(op->type.with_lanes(lanes), op->name, lane_slots(index));
        }
        if (index.same_as(op->index)) return op;
        return Load::make(op->type.with_lanes(index.type().lanes()), op->name, index);
    }

    Expr visit(const Call *op) override {
        std::vector<Expr> args;
        bool changed = false, vector = false;
        for (const Expr &a : op->args) {
            args.push_back(mutate(a));
            changed |= !args.back().same_as(a);
            vector |= args.back().type().is_vector();
        }
        if (!changed) return op;
        if (!vector) return Call::with_args(op, args);
        internal_assert(op->call_type != Call::Extern)
            << "Extern call " << op->name << " inside a vectorized loop";
        for (Expr &a : args) {
            if (a.type().is_scalar() && !a.type().is_handle()) a = widen(a, lanes);
        }
        Expr e = Call::make(op->type.with_lanes(lanes), op->name, args, op->call_type, op->func,
                            op->value_index, op->buffer, op->param);
        const_cast<Call *>(e.as<Call>())->op = op->op; // set before the node is shared
        return e;
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        if (value.type().is_vector()) {
            // Bind a vector: uses see a Variable of the vector type.
            Expr v = Variable::make(value.type(), op->name);
            ScopedBinding<Expr> bind(vector_vars, op->name, v);
            Expr body = mutate(op->body);
            return Let::make(op->name, value, body);
        }
        Expr body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        if (value.as<Ramp>() || value.as<Broadcast>()) {
            // Substitute ramps so that index arithmetic on them stays a ramp (a dense access).
            ScopedBinding<Expr> bind(vector_vars, op->name, value);
            return mutate(op->body);
        }
        if (value.type().is_vector()) {
            Expr v = Variable::make(value.type(), op->name);
            ScopedBinding<Expr> bind(vector_vars, op->name, v);
            Stmt body = mutate(op->body);
            return LetStmt::make(op->name, value, body);
        }
        Stmt body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        if (widened.contains(op->name)) {
            return Store::make(op->name, widen(value, lanes), lane_slots(index));
        }
        if (rebased_loops > 0) {
            // Lanes whose loops start at different places reach the same element in different
            // iterations: only a lane's own storage is sure not to be shared.
            needs_scalar_fallback = true;
            return op;
        }
        if (value.same_as(op->value) && index.same_as(op->index)) {
            // Every lane stores the same value to the same element: once is enough, unless
            // the value reads that buffer (an update, f = f + e, that an atomic() stage may
            // vectorize over an RVar it does not use): each lane then adds its own e.
            if (reads_buffer(op->value, op->name)) needs_scalar_fallback = true;
            return op;
        }
        int n = std::max(value.type().lanes(), index.type().lanes());
        if (n == 1) return Store::make(op->name, value, index);
        // A store of a value that does not vary to an address that does not vary: every lane
        // writes the same place; write once.
        if (index.type().is_scalar()) {
            needs_scalar_fallback = true;
            return op;
        }
        return Store::make(op->name, widen(value, n), index);
    }

    Stmt visit(const IfThenElse *op) override {
        Expr c = mutate(op->condition);
        if (c.type().is_vector()) {
            // Control flow that differs per lane: run this loop's lanes one at a time.
            needs_scalar_fallback = true;
            return op;
        }
        return IRMutator::visit(op);
    }

    // A serial loop inside the vectorized one stays a loop, each iteration running all lanes.
    // Its extent must be the same for every lane (lanes with fewer iterations would need a
    // mask); where only its min differs per lane, it runs from 0 and each lane adds its own
    // min to the loop variable.
    Stmt visit(const For *op) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        if (ext.type().is_vector()) {
            needs_scalar_fallback = true;
            return op;
        }
        if (mn.type().is_scalar()) {
            Stmt body = mutate(op->body);
            if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return op;
            return For::make(op->name, mn, ext, op->for_type, op->device_api, body);
        }
        Expr from_zero = Variable::make(Int(32), op->name);
        Expr value = mn.as<Ramp>()
                         ? Ramp::make(from_zero + mn.as<Ramp>()->base, mn.as<Ramp>()->stride, lanes)
                         : Add::make(Broadcast::make(from_zero, lanes), mn);
        ScopedBinding<Expr> bind(vector_vars, op->name, value);
        rebased_loops++;
        Stmt body = mutate(op->body);
        rebased_loops--;
        return For::make(op->name, make_zero(Int(32)), ext, op->for_type, op->device_api, body);
    }

    // Storage allocated inside the loop belongs to one iteration: each lane gets its own copy
    // of every element, side by side (element i of lane l at i * lanes + l), so that an
    // accumulator's loads and stores are dense vectors.
    Stmt visit(const Allocate *op) override {
        std::vector<Expr> extents{make_const(Int(32), lanes)};
        for (const Expr &e : op->extents) {
            // Lanes of different sizes get the largest: a lane never reaches past its own.
            Expr extent = max_over_lanes(mutate(e));
            if (!extent.defined()) {
                needs_scalar_fallback = true;
                return op;
            }
            extents.push_back(extent);
        }
        ScopedBinding<int> bind(widened, op->name, 0);
        Stmt body = mutate(op->body);
        return Allocate::make(op->name, op->type, extents, body, op->memory_type);
    }

    Stmt visit(const AssertStmt *op) override {
        needs_scalar_fallback = true;
        return op;
    }
};

// Whether a statement already holds vector code (an inner loop that was vectorized), and the
// widest vector in it.
class HasVectors : public IRVisitor {
public:
    bool found = false;
    int widest = 0;

private:
    void note(Type t) {
        found |= t.is_vector();
        widest = std::max(widest, t.lanes());
    }
    void visit(const Ramp *op) override {
        note(op->type);
        IRVisitor::visit(op);
    }
    void visit(const Broadcast *op) override {
        note(op->type);
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override { note(op->type); }
};

// The vectorized loops inside a vectorized loop, made serial loops (see VectorizeLoops).
class MakeInnerVectorLoopsSerial : public IRMutator {
    using IRMutator::visit;
    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        if (op->for_type != ForType::Vectorized && body.same_as(op->body)) return op;
        ForType type = op->for_type == ForType::Vectorized ? ForType::Serial : op->for_type;
        return For::make(op->name, op->min, op->extent, type, op->device_api, body);
    }
};

// Whether e is affine in `var`: sums, differences and products by terms without it.
bool affine_in(const Expr &e, const std::string &var) {
    if (!expr_uses_var(e, var)) return true;
    if (e.as<Variable>()) return true;
    if (const Add *a = e.as<Add>()) return affine_in(a->a, var) && affine_in(a->b, var);
    if (const Sub *d = e.as<Sub>()) return affine_in(d->a, var) && affine_in(d->b, var);
    if (const Mul *m = e.as<Mul>()) {
        return (!expr_uses_var(m->a, var) && affine_in(m->b, var)) ||
               (!expr_uses_var(m->b, var) && affine_in(m->a, var));
    }
    return false;
}

// A vectorized loop's body whose lets are followed by a guard, `if (c) then`, with c an
// inequality affine in the loop variable (a GuardWithIf split's, where the loops around the
// vector were not partitioned at the split): c holds on every lane where it holds on the first
// and the last.
struct LaneGuard {
    Expr all_lanes; // c on the first lane and on the last; undefined: no such guard
    Stmt unguarded; // the body with the guard's then-case in place of the guard
};
LaneGuard lane_guard(const std::string &var, const Expr &min, int lanes, const Stmt &body) {
    const GuardUnderLets guarded = guard_under_lets(body);
    if (!guarded.guard) return {};
    const Expr &c = guarded.condition;
    Expr a, b;
    if (const LE *le = c.as<LE>()) {
        a = le->a, b = le->b;
    } else if (const LT *lt = c.as<LT>()) {
        a = lt->a, b = lt->b;
    } else {
        return {};
    }
    if (!expr_uses_var(c, var) || !affine_in(a, var) || !affine_in(b, var)) return {};
    LaneGuard g;
    g.all_lanes = substitute(var, min, c) && substitute(var, min + (lanes - 1), c);
    g.unguarded = guarded.unguarded();
    return g;
}

class VectorizeLoops : public LetTrackingMutator {
public:
    using IRMutator::mutate;

private:
    Stmt visit(const For *op) override {
        Stmt body; // inner vectorized loops first
        {
            Rebinding rebinding(*this, op->name);
            body = mutate(op->body);
        }
        if (op->for_type != ForType::Vectorized) {
            if (body.same_as(op->body)) return op;
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        }
        Expr extent = simplify_to_constant(op->extent, lets);
        const int64_t *n = as_const_int(extent);
        user_assert(n) << "Can't vectorize loop " << op->name << ": its extent " << extent
                       << " is not a constant. Split it by a constant factor and vectorize the "
                          "inner loop (vectorize(x, 8)).";
        if (*n <= 1)
            return For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
        user_assert(*n <= 256) << "Can't vectorize loop " << op->name << " of extent " << *n
                               << ": at most 256 lanes";
        int lanes = (int)*n;
        // The min is evaluated once, as a let, so the ramp's base is a plain variable.
        std::string base_name = op->name + ".base";
        Expr base = Variable::make(Int(32), base_name);
        // A vectorized loop inside another (a Func computed per lane of its consumer, and
        // vectorized itself): one of the two loops gets the vector lanes, the other runs its
        // iterations one after another. The outer one, where it has at least as many lanes
        // as the inner one had: then the code around the inner loop is vector code too, and
        // the inner loop's iterations run every outer lane at once, as many vector operations
        // as before (Halide widens the inner vectors by the outer lanes: the same operations
        // in longer vectors). Otherwise, or where the outer loop's lanes cannot run together,
        // the inner loop keeps its vectors.
        HasVectors inner_vectors;
        body.accept(&inner_vectors);
        if (inner_vectors.found) {
            HasVectors vectors_before;
            op->body.accept(&vectors_before);
            if (!vectors_before.found && inner_vectors.widest <= lanes) {
                Vectorize outer(op->name, Ramp::make(base, 1, lanes), lanes);
                Stmt vector_body = outer.mutate(MakeInnerVectorLoopsSerial().mutate(op->body));
                if (!outer.needs_scalar_fallback)
                    return LetStmt::make(base_name, op->min, vector_body);
            }
            return For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
        }
        Vectorize v(op->name, Ramp::make(base, 1, lanes), lanes);
        Stmt vector_body = v.mutate(body);
        if (v.needs_scalar_fallback) {
            Stmt scalar =
                For::make(op->name, op->min, op->extent, ForType::Serial, op->device_api, body);
            // A GuardWithIf vector where the loops around it were not cut at the split: all its
            // lanes at once where the guard holds on all of them, else lane by lane. In a GPU
            // thread (ScheduleFunctions cuts no loops there) every thread but the last of a
            // row takes the vector; on the CPU, a split of the vectors' loop again (unrolled
            // vectors, min(xo * 2, e - 2) * 8 + lane under ShiftInwards), whose steady state
            // partition_loops then finds, the test gone. Lane by lane throughout, such a
            // loop ran at half the speed of its vectors (an exp chain, 8-wide AVX2).
            const LaneGuard g = lane_guard(op->name, op->min, lanes, body);
            if (!g.all_lanes.defined()) return scalar;
            Vectorize unguarded(op->name, Ramp::make(base, 1, lanes), lanes);
            Stmt whole = unguarded.mutate(g.unguarded);
            if (unguarded.needs_scalar_fallback) return scalar;
            return IfThenElse::make(likely(g.all_lanes), LetStmt::make(base_name, op->min, whole),
                                    scalar);
        }
        return LetStmt::make(base_name, op->min, vector_body);
    }
};

} // namespace

Stmt vectorize_loops(const Stmt &s) { return VectorizeLoops().mutate(s); }

} // namespace Internal
} // namespace loom
