#include "lower/Simplify.h"

#include <cmath>
#include <map>
#include <optional>
#include <type_traits>
#include <utility>

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Parameter.h"
#include "dsl/Scope.h"
#include "dsl/Substitute.h"
#include "lower/CancelMinMaxTerms.h"
#include "lower/ConstantBounds.h"
#include "lower/ConstantFold.h"
#include "lower/KnownLetValues.h"
#include "lower/LinearForm.h"

namespace loom {
namespace Internal {

Stmt make_no_op() { return Evaluate::make(0); }

bool is_no_op(const Stmt &s) {
    if (!s.defined()) return true;
    const Evaluate *e = s.as<Evaluate>();
    return e && is_const(e->value);
}

namespace {

// Whether e holds a Load or a Call of one of the kinds `kinds` accepts (one walk, stopping at
// the first).
template <typename CallKinds> bool contains(const Expr &e, bool loads, CallKinds kinds) {
    class Finder : public IRVisitor {
    public:
        Finder(bool loads, CallKinds kinds) : loads(loads), kinds(kinds) {}
        bool found = false;

    private:
        bool loads;
        CallKinds kinds;
        void visit(const Load *op) override {
            found = found || loads;
            if (!found) IRVisitor::visit(op);
        }
        void visit(const Call *op) override {
            if (kinds(op->call_type)) {
                found = true;
                return;
            }
            IRVisitor::visit(op);
        }
    } finder(loads, kinds);
    e.accept(&finder);
    return finder.found;
}

// Whether e's value depends on memory (a load, a read of a Func or an image, a call with
// effects): two occurrences of it at different points may differ.
bool reads_memory(const Expr &e) {
    return contains(e, true, [](Call::CallType t) {
        return t != Call::PureExtern && t != Call::PureIntrinsic;
    });
}

// Whether evaluating e has an effect (a trace event, a print, a runtime call): each occurrence
// must run, once, in the order written.
bool has_effect(const Expr &e) {
    return contains(e, false,
                    [](Call::CallType t) { return t == Call::Extern || t == Call::Intrinsic; });
}

class Simplify : public IRMutator {
public:
    explicit Simplify(bool cancel_min_max = false) : cancel_min_max_terms(cancel_min_max) {}

private:
    // Whether linear forms rewrite c * min(p, q) + r as c * min(0, q - p) + (r + c * p) where
    // r cancels p (see cancel_into_min_max): for bounds only, since it changes the form of code.
    const bool cancel_min_max_terms;

public:
    using IRMutator::mutate;

private:
    // Let-bound names whose values are substituted (constants and plain variables).
    Scope<Expr> replacements;

    // The values of the let-bound names in scope, which later values reuse.
    KnownLetValues known_values;

    // Registers a let's value (undefined for a loop variable) for its body.
    KnownLetValues::Binding know(const std::string &name, const Expr &value) {
        const bool qualifies = value.defined() && !reads_memory(value);
        return KnownLetValues::Binding(known_values, name, qualifies ? value : Expr(),
                                       replacements.contains(name));
    }

    Expr visit(const Variable *op) override {
        if (const Expr *r = replacements.find(op->name)) {
            if (r->defined()) return *r;
        }
        return op;
    }

    Expr visit(const Cast *op) override {
        Expr v = mutate(op->value);
        Type t = op->type;
        if (v.type() == t) return v;
        if (Expr f = fold_cast(t, v); f.defined()) return f;
        // A 32-bit ramp widened to 64 bits is the widened ramp where no lane overflows, as
        // Loom assumes of signed 32-bit arithmetic: 64-bit indices (LargeBuffers) of a
        // vectorized loop then stay dense ramps.
        if (const Ramp *r = v.as<Ramp>();
            r && t.element_of() == Int(64) && v.type().element_of() == Int(32)) {
            return mutate(Ramp::make(Cast::make(Int(64, r->base.type().lanes()), r->base),
                                     Cast::make(Int(64, r->stride.type().lanes()), r->stride),
                                     r->lanes));
        }
        return v.same_as(op->value) ? Expr(op) : Cast::make(t, v);
    }

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        if (const Call *c = e.as<Call>()) {
            if (Expr f = fold_intrinsic(c); f.defined()) return f;
        }
        return e;
    }

    Expr linear_or(const Expr &e) {
        if (!is_linear_type(e.type())) return e;
        Linear l;
        l.type = e.type();
        l.add(e, 1);
        // Terms with effects keep their order and count: the linear form sorts its terms and
        // merges equal ones (trace(f(x)) + trace(f(x)) would run one event).
        size_t effectful = 0;
        for (const auto &t : l.terms) {
            if (has_effect(t.first)) effectful += t.second == 1 ? 1 : 2;
        }
        if (effectful > 1) return e;
        if (cancel_min_max_terms && no_overflow_int(l.type) && l.type.is_scalar()) {
            cancel_into_min_max(l, [this](const Expr &e) { return mutate(e); });
        }
        Expr r = l.rebuild();
        return r;
    }

    // Ramps and broadcasts combine lane-wise into ramps and broadcasts (exact for integers,
    // whose arithmetic wraps; floats are left alone).
    Expr vector_rule(char op, const Expr &a, const Expr &b) {
        if (!a.type().is_vector() || !a.type().is_int_or_uint()) return Expr();
        const Ramp *ra = a.as<Ramp>(), *rb = b.as<Ramp>();
        const Broadcast *ba = a.as<Broadcast>(), *bb = b.as<Broadcast>();
        int lanes = a.type().lanes();
        switch (op) {
        case '+':
            if (ra && bb) return mutate(Ramp::make(ra->base + bb->value, ra->stride, lanes));
            if (ba && rb) return mutate(Ramp::make(ba->value + rb->base, rb->stride, lanes));
            if (ra && rb)
                return mutate(Ramp::make(ra->base + rb->base, ra->stride + rb->stride, lanes));
            if (ba && bb) return mutate(Broadcast::make(ba->value + bb->value, lanes));
            break;
        case '-':
            if (ra && bb) return mutate(Ramp::make(ra->base - bb->value, ra->stride, lanes));
            if (ba && rb)
                return mutate(Ramp::make(ba->value - rb->base,
                                         make_zero(rb->stride.type()) - rb->stride, lanes));
            if (ra && rb)
                return mutate(Ramp::make(ra->base - rb->base, ra->stride - rb->stride, lanes));
            if (ba && bb) return mutate(Broadcast::make(ba->value - bb->value, lanes));
            break;
        case '*':
            if (ra && bb)
                return mutate(Ramp::make(ra->base * bb->value, ra->stride * bb->value, lanes));
            if (ba && rb)
                return mutate(Ramp::make(ba->value * rb->base, ba->value * rb->stride, lanes));
            if (ba && bb) return mutate(Broadcast::make(ba->value * bb->value, lanes));
            break;
        }
        return Expr();
    }

    Expr visit(const Ramp *op) override {
        Expr base = mutate(op->base), stride = mutate(op->stride);
        if (is_const_zero(stride)) return Broadcast::make(base, op->lanes);
        if (base.same_as(op->base) && stride.same_as(op->stride)) return op;
        return Ramp::make(base, stride, op->lanes);
    }

    // Set by a scalar integer sum or difference just before it mutates an operand that is a
    // sum or difference too, and taken at once by that operand's visit, which then leaves its
    // own result as it is: the caller flattens the whole chain into one linear form, which
    // gives the same terms as flattening each level's normalized form again. Normalizing every
    // level made a chain of n terms cost O(n^2) insertions of structurally compared terms
    // (most of harris's lowering time was in Linear).
    bool caller_normalizes = false;

    Expr mutate_operand(const Expr &e, Type sum_type) {
        caller_normalizes = is_linear_type(sum_type) && (e.as<Add>() || e.as<Sub>());
        return mutate(e);
    }

    Expr visit(const Add *op) override {
        const bool leave_to_caller = std::exchange(caller_normalizes, false);
        Expr a = mutate_operand(op->a, op->type), b = mutate_operand(op->b, op->type);
        if (Expr v = vector_rule('+', a, b); v.defined()) return v;
        if (Expr f = fold_arith(Arith::Add, a, b); f.defined()) return f;
        if (is_linear_type(op->type) && !leave_to_caller) return linear_or(Add::make(a, b));
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Add::make(a, b);
    }

    Expr visit(const Sub *op) override {
        const bool leave_to_caller = std::exchange(caller_normalizes, false);
        Expr a = mutate_operand(op->a, op->type), b = mutate_operand(op->b, op->type);
        if (Expr v = vector_rule('-', a, b); v.defined()) return v;
        if (Expr f = fold_arith(Arith::Sub, a, b); f.defined()) return f;
        if (is_linear_type(op->type) && !leave_to_caller) return linear_or(Sub::make(a, b));
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Sub::make(a, b);
    }

    Expr visit(const Mul *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr v = vector_rule('*', a, b); v.defined()) return v;
        if (Expr f = fold_arith(Arith::Mul, a, b); f.defined()) return f;
        if (op->type.is_int_or_uint()) {
            if (is_const(a) && !is_const(b)) std::swap(a, b);
            if (is_const_one(b)) return a;
            if (is_const_zero(b)) return b;
            if (is_linear_type(op->type) && is_const(b) &&
                (a.as<Add>() || a.as<Sub>() || a.as<Mul>())) {
                return linear_or(Mul::make(a, b));
            }
        } else if (op->type.is_float()) {
            // x * 1.0 is exactly x for every x; nothing else is safe to drop.
            if (is_const_one(b)) return a;
        }
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Mul::make(a, b);
    }

    Expr visit(const Div *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr f = fold_arith(Arith::Div, a, b); f.defined()) return f;
        if (op->type.is_int_or_uint() && is_const_one(b)) return a;
        if (Expr q = divide_out_multiples(a, b); q.defined()) return q;
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Div::make(a, b);
    }

    // (r + k * m) / k -> r / k + m for a constant k > 0, in types that do not overflow: the
    // terms of a's linear form whose coefficients are multiples of k, and the multiple of k in
    // its constant, leave the division (exact for Euclidean division). So a row index
    // (base + 2 * y + 2) / 2 steps by one per y, which sliding windows need to see.
    Expr divide_out_multiples(const Expr &a, const Expr &b) {
        int64_t k;
        if (!no_overflow_int(a.type()) || !a.type().is_scalar() || !const_int_value(b, &k) ||
            k <= 1) {
            return Expr();
        }
        Linear all;
        all.type = a.type();
        all.add(a, 1);
        Linear rest, quotient;
        rest.type = quotient.type = a.type();
        bool moved = false;
        for (const auto &t : all.terms) {
            int64_t c = all.wrapped(t.second);
            if (c == 0) continue;
            if (c % k == 0) {
                quotient.add_term(t.first, (uint64_t)(c / k));
                moved = true;
            } else {
                rest.add_term(t.first, (uint64_t)c);
            }
        }
        int64_t c = all.wrapped(all.constant);
        int64_t r = ((c % k) + k) % k;
        if (c - r != 0) {
            quotient.constant = (uint64_t)((c - r) / k);
            moved = true;
        }
        if (!moved) return Expr();
        rest.constant = (uint64_t)r;
        Expr remainder = rest.rebuild();
        Expr q = quotient.rebuild();
        if (is_const_zero(remainder)) return q;
        return linear_or(Add::make(mutate(Div::make(remainder, b)), q));
    }

    Expr visit(const Mod *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr f = fold_arith(Arith::Mod, a, b); f.defined()) return f;
        if (op->type.is_int_or_uint() && is_const_one(b)) return make_zero(op->type);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Mod::make(a, b);
    }

    // The constant range of the scalar integer variables bound around the current node where
    // one is known: loop variables of constant min and extent, lets whose values have one
    // (nullopt where unknown, so that an inner binding hides an outer one).
    Scope<std::optional<ConstantRange>> ranges;

    // The constant range of a scalar int32 expression over `ranges` (lower/ConstantBounds).
    std::optional<ConstantRange> range_of(const Expr &e) const {
        return constant_range_over(e, [&](const std::string &name) -> std::optional<ConstantRange> {
            const std::optional<ConstantRange> *range = ranges.find(name);
            return range ? *range : std::nullopt;
        });
    }

    template <typename T> Expr visit_min_max(const T *op, bool is_min) {
        return min_max<T>(mutate(op->a), mutate(op->b), is_min, op);
    }

    // The min (or max) of simplified operands a and b; op, where given, is the node they came
    // from, returned when nothing changed.
    template <typename T> Expr min_max(Expr a, Expr b, bool is_min, const T *op) {
        const Type type = a.type();
        if (Expr f = fold_arith(is_min ? Arith::Min : Arith::Max, a, b); f.defined()) return f;
        if (type.is_int_or_uint() && deep_equal(a, b)) return a;
        // max(e, 0) is e where e cannot be negative (a partitioned loop's steady iterations
        // over an input's extent), and min(e, 0) is 0.
        if (no_overflow_int(type) && type.is_scalar()) {
            if (is_const_zero(b) && provably_non_negative(a)) return is_min ? b : a;
            if (is_const_zero(a) && provably_non_negative(b)) return is_min ? a : b;
        }
        // A min or max that the ranges of the loop variables (and lets) around it decide: the
        // clamp of a fused loop's recovered variable (lower/ScheduleFunctions) inside a loop of
        // constant extent. Left in, LLVM vectorized a loop of 16 taps over it into gathers
        // (fuzz seed 2026 pair 125).
        // Else the range of a - b may decide it: min(x - 1, x + r) where r >= -1 (a sum's
        // window over a reduction: its allocation's extent, max - min + 1, is then a function
        // of r alone, whose largest value sizes it; fuzz seed 2026 pair 94).
        if (!ranges.empty() && type == Int(32)) {
            std::optional<ConstantRange> ra = range_of(a), rb = range_of(b);
            if (ra && rb) {
                if (is_min ? ra->max <= rb->min : ra->min >= rb->max) return a;
                if (is_min ? rb->max <= ra->min : rb->min >= ra->max) return b;
            } else {
                Linear difference;
                difference.type = type;
                difference.add(a, 1);
                difference.add(b, (uint64_t)-1);
                if (std::optional<ConstantRange> d = range_of(difference.rebuild())) {
                    if (is_min ? d->max <= 0 : d->min >= 0) return a;
                    if (is_min ? d->min >= 0 : d->max <= 0) return b;
                }
            }
        }
        // min(max(p, c), max(q, c)) -> max(min(p, q), c), and so for every pairing of min and
        // max: both operands bounded by the same c, and min and max commute with monotonic
        // functions. The union of a boundary condition's clamped reads collapses to one clamp.
        if (type.is_int_or_uint()) {
            if (const Min *ma = a.as<Min>(), *mb = b.as<Min>();
                ma && mb && deep_equal(ma->b, mb->b)) {
                return min_max<Min>(min_max<T>(ma->a, mb->a, is_min, nullptr), ma->b, true,
                                    nullptr);
            }
            if (const Max *ma = a.as<Max>(), *mb = b.as<Max>();
                ma && mb && deep_equal(ma->b, mb->b)) {
                return min_max<Max>(min_max<T>(ma->a, mb->a, is_min, nullptr), ma->b, false,
                                    nullptr);
            }
        }
        // a - b a constant, or a sum of non-negative terms of one sign: min(e, e + max(n, 0) *
        // 16) is e, the union of a GuardWithIf split's vectors and its tail. Left in, every
        // Func's bounds held each consumer's twice, nested as deep as the pipeline (camera_pipe's
        // automatic schedule: LLVM spent half its compile time expanding them in loop passes).
        if (int sign = nonnegative_difference_sign(a, b); sign != 0) {
            return (is_min ? sign < 0 : sign > 0) ? a : b;
        }
        // min(e, n) where a let in scope binds n to e plus a constant: the union of a region
        // with itself, which bounds inference writes as `let n = e in min(e, n)` (an argmin
        // computed per point: its allocation's extent then folds to 1, a stack tile instead
        // of a heap block per point; fuzz seed 2026 pair 122).
        if (no_overflow_int(type) && type.is_scalar() && !known_values.empty()) {
            if (std::optional<int64_t> d = known_values.difference(a, b)) {
                return (is_min ? *d <= 0 : *d >= 0) ? a : b;
            }
            if (std::optional<int64_t> d = known_values.difference(b, a)) {
                return (is_min ? *d <= 0 : *d >= 0) ? b : a;
            }
        }
        // min(e + x / k, e + (x + d) / k + c) and the like (see quotient_difference_sign): a
        // pyramid's upsampling reads the coarser level at x / 2 and (x + 1) / 2; kept as a min,
        // each level's bounds would hold the finer level's twice, growing exponentially with the
        // pyramid's depth.
        if (no_overflow_int(type) && type.is_scalar()) {
            if (int sign = quotient_difference_sign(a, b); sign != 0) {
                return (is_min ? sign > 0 : sign < 0) ? a : b;
            }
        }
        // A clamp to an empty or single-point range is its bound: max(min(x, c1), c2) is c2
        // where c1 <= c2, min(max(x, c1), c2) is c2 where c1 >= c2 (repeat_edge of a dimension
        // of extent 1: left in, loop partitioning split the loop around the one point, and each
        // of its edge loops computed the clamp per point; fuzz seed 2026 pair 397).
        if (type.is_int_or_uint() && type.is_scalar() && is_const(b)) {
            int64_t outer_bound, inner_bound;
            const Expr inner_b = is_min ? (a.as<Max>() ? a.as<Max>()->b : Expr())
                                        : (a.as<Min>() ? a.as<Min>()->b : Expr());
            if (inner_b.defined() && const_int_value(inner_b, &inner_bound) &&
                const_int_value(b, &outer_bound) &&
                (is_min ? inner_bound >= outer_bound : inner_bound <= outer_bound)) {
                return b;
            }
        }
        // min(min(x, y), x) -> min(x, y), in either order: taking the same operand twice.
        if (type.is_int_or_uint()) {
            if (const T *inner = a.as<T>();
                inner && (deep_equal(inner->a, b) || deep_equal(inner->b, b))) {
                return a;
            }
            if (const T *inner = b.as<T>();
                inner && (deep_equal(inner->a, a) || deep_equal(inner->b, a))) {
                return b;
            }
        }
        // min(min(x, c1), c2) -> min(x, min(c1, c2)); broadcast constants fold by their
        // values (fold takes scalars: the Max of nothing it gave for two broadcasts threw, fuzz
        // seed 313, pipeline 317).
        if (const T *inner = a.as<T>()) {
            if (is_const(inner->b) && is_const(b) && type.is_int_or_uint()) {
                const Arith which = is_min ? Arith::Min : Arith::Max;
                Expr c = fold_arith(which, inner->b, b);
                const Broadcast *c1 = inner->b.template as<Broadcast>(), *c2 = b.as<Broadcast>();
                if (!c.defined() && c1 && c2) {
                    if (Expr value = fold_arith(which, c1->value, c2->value); value.defined())
                        c = Broadcast::make(value, c1->lanes);
                }
                if (c.defined()) return T::make(inner->a, c);
            }
        }
        if (is_const(a) && !is_const(b)) std::swap(a, b);
        if (op && a.same_as(op->a) && b.same_as(op->b)) return op;
        return T::make(a, b);
    }
    Expr visit(const Min *op) override { return visit_min_max(op, true); }
    Expr visit(const Max *op) override { return visit_min_max(op, false); }

    template <typename T> Expr visit_compare(const T *op, Compare c) {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (Expr f = fold_compare(c, a, b); f.defined()) return f;
        int64_t diff;
        if (no_overflow_int(a.type()) && a.type().is_scalar() && constant_difference(a, b, &diff)) {
            return fold_compare(c, make_const(Int(64), diff), make_const(Int(64), 0));
        }
        if (a.type().is_int_or_uint() && deep_equal(a, b)) {
            return make_bool(c == Compare::EQ || c == Compare::LE || c == Compare::GE,
                             op->type.lanes());
        }
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return T::make(a, b);
    }
    Expr visit(const EQ *op) override { return visit_compare(op, Compare::EQ); }
    Expr visit(const NE *op) override { return visit_compare(op, Compare::NE); }
    Expr visit(const LT *op) override { return visit_compare(op, Compare::LT); }
    Expr visit(const LE *op) override { return visit_compare(op, Compare::LE); }
    Expr visit(const GT *op) override { return visit_compare(op, Compare::GT); }
    Expr visit(const GE *op) override { return visit_compare(op, Compare::GE); }

    Expr visit(const And *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (is_const(a)) return is_const_zero(a) ? a : b;
        if (is_const(b)) return is_const_zero(b) ? b : a;
        if (deep_equal(a, b)) return a;
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return And::make(a, b);
    }

    Expr visit(const Or *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (is_const(a)) return is_const_zero(a) ? b : a;
        if (is_const(b)) return is_const_zero(b) ? a : b;
        if (deep_equal(a, b)) return a;
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Or::make(a, b);
    }

    Expr visit(const Not *op) override {
        Expr a = mutate(op->a);
        if (is_const(a)) return make_bool(is_const_zero(a), op->type.lanes());
        if (const Not *n = a.as<Not>()) return n->a;
        return a.same_as(op->a) ? Expr(op) : Not::make(a);
    }

    Expr visit(const Select *op) override {
        Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
        if (is_const(c)) return is_const_zero(c) ? f : t;
        if (deep_equal(t, f)) return t;
        if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
            return op;
        }
        return Select::make(c, t, f);
    }

    Expr visit(const Broadcast *op) override {
        Expr v = mutate(op->value);
        return v.same_as(op->value) ? Expr(op) : Broadcast::make(v, op->lanes);
    }

    // Small linear expressions (x + 1, a + b - 1) are substituted so that sums across lets
    // cancel (an extent of max - min + 1 becomes a constant or a single variable); LLVM
    // hoists what is loop-invariant, so nothing is recomputed at run time.
    static int linear_size(const Expr &e) {
        if (is_const(e) || e.as<Variable>()) return 1;
        if (!e.type().is_int() || !e.type().is_scalar()) return 1000;
        if (const Add *a = e.as<Add>()) return 1 + linear_size(a->a) + linear_size(a->b);
        if (const Sub *s = e.as<Sub>()) return 1 + linear_size(s->a) + linear_size(s->b);
        if (const Mul *m = e.as<Mul>()) return is_const(m->b) ? 1 + linear_size(m->a) : 1000;
        return 1000;
    }

    static bool substitutable(const Expr &value) {
        return value.as<StringImm>() || linear_size(value) <= 7;
    }

    // Let and LetStmt alike: the value simplified and, where it repeats a value already bound
    // in scope, rewritten in terms of that name; then either substituted into the body or kept
    // as a binding whose value later lets can reuse.
    template <typename LetT, typename Body> Body visit_let(const LetT *op) {
        Expr value = mutate(op->value);
        if (!known_values.empty()) {
            Expr reused = known_values.reuse(value);
            if (!reused.same_as(value)) value = mutate(reused);
        }
        if (substitutable(value)) {
            ScopedBinding<Expr> bind(replacements, op->name, value);
            return mutate(op->body);
        }
        Body body;
        {
            ScopedBinding<std::optional<ConstantRange>> in_range(
                ranges, op->name, value.type() == Int(32) ? range_of(value) : std::nullopt);
            KnownLetValues::Binding known = know(op->name, value);
            ScopedBinding<Expr> bind(replacements, op->name, Expr());
            body = mutate(op->body);
        }
        if (!uses_var(body, op->name)) return body;
        if constexpr (std::is_same_v<Body, Expr>) {
            // let n = e in n is e.
            if (const Variable *v = body.template as<Variable>(); v && v->name == op->name)
                return value;
        }
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetT::make(op->name, value, body);
    }
    static bool uses_var(const Expr &e, const std::string &name) { return expr_uses_var(e, name); }
    static bool uses_var(const Stmt &s, const std::string &name) { return stmt_uses_var(s, name); }

    Expr visit(const Let *op) override { return visit_let<Let, Expr>(op); }
    Stmt visit(const LetStmt *op) override { return visit_let<LetStmt, Stmt>(op); }

    Stmt visit(const AssertStmt *op) override {
        Expr c = mutate(op->condition);
        if (is_const(c) && !is_const_zero(c)) return make_no_op();
        Expr m = mutate(op->message);
        if (c.same_as(op->condition) && m.same_as(op->message)) return op;
        return AssertStmt::make(c, m);
    }

    Stmt visit(const ProducerConsumer *op) override {
        Stmt body = mutate(op->body);
        if (is_no_op(body)) return body;
        return body.same_as(op->body) ? Stmt(op)
                                      : ProducerConsumer::make(op->name, op->is_producer, body);
    }

    Stmt visit(const For *op) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        if (const int64_t *e = as_const_int(ext)) {
            if (*e <= 0) return make_no_op();
        }
        Stmt body;
        {
            KnownLetValues::Binding known = know(op->name, Expr());
            ScopedBinding<Expr> bind(replacements, op->name, Expr());
            std::optional<ConstantRange> range;
            const int64_t *lo = as_const_int(mn), *n = as_const_int(ext);
            if (lo && n && *n > 0 && op->for_type != ForType::Vectorized)
                range = ConstantRange{*lo, *lo + *n - 1};
            ScopedBinding<std::optional<ConstantRange>> in_range(ranges, op->name, range);
            body = mutate(op->body);
        }
        if (is_no_op(body)) return body;
        // A parallel loop of one iteration is that iteration, without a task handed to the
        // thread pool (a parallel loop of a Func computed per point of its consumer: fuzz
        // seed 2026 pair 159, 66x Halide's time).
        if (is_const_one(ext) &&
            (op->for_type == ForType::Serial || op->for_type == ForType::Parallel)) {
            return mutate(LetStmt::make(op->name, mn, body));
        }
        if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return op;
        return For::make(op->name, mn, ext, op->for_type, op->device_api, body);
    }

    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        if (is_no_op(first)) return rest;
        if (is_no_op(rest)) return first;
        if (Stmt merged = merge_adjacent_ifs(first, rest); merged.defined()) return merged;
        if (first.same_as(op->first) && rest.same_as(op->rest)) return op;
        return Block::make(first, rest);
    }

    // `if (c) a else b; if (c) d else e` becomes `if (c) {a; d} else {b; e}`, as an unrolled
    // loop's guarded tail leaves one if per statement with the same condition: one branch
    // instead of many, and much less code for LLVM to compile. Sound only where the first if
    // cannot change the condition's value, so the condition must read no memory and call
    // nothing impure (lets and loop variables are immutable). Undefined where nothing merges.
    // `rest` is already simplified, so its own leading ifs have merged: one step suffices.
    static Stmt merge_adjacent_ifs(const Stmt &first, const Stmt &rest) {
        const IfThenElse *a = first.as<IfThenElse>();
        if (!a) return Stmt();
        const Block *rest_block = rest.as<Block>();
        const IfThenElse *b = (rest_block ? rest_block->first : rest).as<IfThenElse>();
        if (!b || !deep_equal(a->condition, b->condition) || reads_memory(a->condition)) {
            return Stmt();
        }
        Stmt then_case = Block::make(a->then_case, b->then_case);
        Stmt else_case;
        if (a->else_case.defined() || b->else_case.defined()) {
            else_case = Block::make({a->else_case, b->else_case});
        }
        Stmt merged = IfThenElse::make(a->condition, then_case, else_case);
        return rest_block ? Block::make(merged, rest_block->rest) : merged;
    }

    Stmt visit(const IfThenElse *op) override {
        Expr c = mutate(op->condition);
        // A hint on a constant (an RDom's where() that always holds) hints at nothing.
        if (const Call *hint = c.as<Call>();
            hint && hint->is_intrinsic(Call::likely) && is_const(hint->args[0])) {
            c = hint->args[0];
        }
        if (is_const(c)) {
            if (!is_const_zero(c)) return mutate(op->then_case);
            return op->else_case.defined() ? mutate(op->else_case) : make_no_op();
        }
        // Inside `if (v == k && ...)`, v is k: the branch sees the constant (a specialization
        // on an output's extent == 3 makes the loop over that dimension unrollable, as in
        // Halide).
        const std::map<std::string, Expr> known = equalities_in(c);
        Stmt t = mutate(known.empty() ? op->then_case : substitute(known, op->then_case));
        Stmt e = mutate(op->else_case);
        if (e.defined() && is_no_op(e)) e = Stmt();
        if (is_no_op(t) && !e.defined()) return make_no_op();
        if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
            return op;
        }
        if (is_no_op(t)) return IfThenElse::make(Not::make(c), e);
        return IfThenElse::make(c, t, e);
    }

    // An extent the constant ranges of the loops around bound is allocated at its largest
    // value: a constant size, on the stack, instead of a size computed (and memory taken from
    // the heap) in every iteration. The index of each element is computed apart from the
    // allocation's extents, so a larger allocation changes no access.
    Stmt visit(const Allocate *op) override {
        std::vector<Expr> extents;
        bool changed = false;
        for (const Expr &e : op->extents) {
            Expr extent = mutate(e);
            if (!ranges.empty() && !is_const(extent) && extent.type() == Int(32)) {
                if (std::optional<ConstantRange> r = range_of(extent); r && r->max >= 1)
                    extent = make_const(Int(32), r->max);
            }
            changed = changed || !extent.same_as(e);
            extents.push_back(extent);
        }
        Stmt body = mutate(op->body);
        if (!changed && body.same_as(op->body)) return op;
        return Allocate::make(op->name, op->type, extents, body, op->memory_type);
    }
};

} // namespace

Expr simplify(const Expr &e) { return Simplify().mutate(e); }
Expr simplify_for_bounds(const Expr &e) { return Simplify(true).mutate(e); }
Stmt simplify(const Stmt &s) { return Simplify().mutate(s); }

std::map<std::string, Expr> equalities_in(const Expr &condition) {
    std::map<std::string, Expr> known;
    std::vector<Expr> pending{condition};
    while (!pending.empty()) {
        Expr c = pending.back();
        pending.pop_back();
        if (const And *a = c.as<And>()) {
            pending.push_back(a->a);
            pending.push_back(a->b);
        } else if (const EQ *eq = c.as<EQ>()) {
            const Variable *v = eq->a.as<Variable>();
            Expr k = eq->b;
            if (!v) {
                v = eq->b.as<Variable>();
                k = eq->a;
            }
            if (v && is_const(k) && v->type.is_scalar()) known[v->name] = k;
        }
    }
    return known;
}

Expr simplify_to_constant(const Expr &e, const std::map<std::string, Expr> &lets,
                          size_t max_nodes) {
    Expr result = simplify(e);
    // Each round substitutes one level of lets; the depth bounds a chain of lets.
    for (int depth = 0; depth < 64 && !is_const(result); depth++) {
        Expr next = substitute(lets, result);
        if (next.same_as(result) || expr_larger_than(next, max_nodes)) break;
        result = simplify(next);
    }
    return result;
}

bool can_prove(const Expr &e) {
    Expr s = simplify(e);
    return is_const(s) && !is_const_zero(s);
}

bool difference_is_constant(const Expr &a, const Expr &b, int64_t *diff) {
    return constant_difference(a, b, diff);
}

} // namespace Internal
} // namespace loom
