#include "lower/Bounds.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_set>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "lower/Simplify.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

namespace {

void flatten(const Expr &e, bool is_min, std::vector<Expr> &terms) {
    if (const Min *m = e.as<Min>(); m && is_min) {
        flatten(m->a, is_min, terms);
        flatten(m->b, is_min, terms);
    } else if (const Max *m = e.as<Max>(); m && !is_min) {
        flatten(m->a, is_min, terms);
        flatten(m->b, is_min, terms);
    } else {
        terms.push_back(e);
    }
}

// min(a, b) (or max): when b differs from a term of a by a constant, it either changes nothing
// or replaces that term. The union of many reads of one Func at constant offsets (f(x - 1),
// f(x), f(x + 1) in each of several consumers) then keeps one term per distinct base instead
// of a chain with one term per read. Index types only (Int(32) and wider), whose arithmetic is
// assumed not to overflow, as the simplifier's rules assume.
Expr merge_bound(const Expr &a, const Expr &b, bool is_min) {
    Type t = a.type();
    if (t.is_int() && t.bits() >= 32 && t.is_scalar() && b.type() == t) {
        std::vector<Expr> terms;
        flatten(a, is_min, terms);
        for (Expr &term : terms) {
            // The cheap test first: most merges are of reads at constant offsets as written.
            int64_t diff;
            if (!difference_is_constant(b, term, &diff)) {
                std::optional<int64_t> c = const_int_value(simplify(b - term));
                if (!c) continue;
                diff = *c;
            }
            if (is_min ? diff >= 0 : diff <= 0) return a;
            term = b;
            Expr r = terms[0];
            for (size_t i = 1; i < terms.size(); i++) {
                r = is_min ? Min::make(r, terms[i]) : Max::make(r, terms[i]);
            }
            return r;
        }
    }
    return simplify(is_min ? Min::make(a, b) : Max::make(a, b));
}

}  // namespace

Interval interval_union(const Interval &a, const Interval &b) {
    Interval r;
    if (a.min.defined() && b.min.defined()) r.min = merge_bound(a.min, b.min, true);
    if (a.max.defined() && b.max.defined()) r.max = merge_bound(a.max, b.max, false);
    return r;
}

Box box_union(const Box &a, const Box &b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    internal_assert(a.size() == b.size()) << "box_union of boxes of different dimensions";
    Box r(a.size());
    for (size_t i = 0; i < a.size(); i++) r[i] = interval_union(a[i], b[i]);
    return r;
}

namespace {

// Types whose arithmetic is assumed not to overflow (index arithmetic), so bounds of a sum are
// the sum of bounds. Narrower types may wrap, so their sums are bounded only by the type.
bool no_overflow(Type t) { return t.is_float() || (t.is_int() && t.bits() >= 32); }

Interval type_bounds(Type t) {
    if (t.is_int_or_uint() && t.bits() < 32) return Interval(type_min(t.element_of()), type_max(t.element_of()));
    if (t.is_uint() && t.bits() == 32) return Interval(make_zero(t.element_of()), type_max(t.element_of()));
    return Interval::everything();
}

// The exact value of a constant bound (an integer, or a float constant cast to an integer
// type, which truncates as the cast does), if it is one.
std::optional<int64_t> constant_bound(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    if (const int64_t *i = as_const_int(e)) return *i;
    const Cast *c = e.as<Cast>();
    const double *f = c && c->type.is_int() ? as_const_float(c->value) : nullptr;
    if (f && *f > -9.2e18 && *f < 9.2e18) return (int64_t)*f;
    return std::nullopt;
}

// Whether a sum, difference or product of 32-bit signed constant bounds, computed exactly,
// leaves the type's range. Loom's integers wrap, so such an expression may then take any
// value of its type; folding the bounds would wrap them too, and could reverse the interval
// (int32(2e9) - int32(-2e9) as [294967296, -294967296]), which then shrinks every region
// computed from it (a clamp of it to [4, 5] bounded as [5, 4]).
bool leaves_int32(const Interval &a, const Interval &b, char op, Type t) {
    if (!t.is_int() || t.bits() != 32 || !t.is_scalar()) return false;
    auto la = constant_bound(a.min), ha = constant_bound(a.max);
    auto lb = constant_bound(b.min), hb = constant_bound(b.max);
    if (!la || !ha || !lb || !hb) return false;
    std::vector<int64_t> ends;
    if (op == '+') ends = {*la + *lb, *ha + *hb};
    if (op == '-') ends = {*la - *hb, *ha - *lb};
    if (op == '*') ends = {*la * *lb, *la * *hb, *ha * *lb, *ha * *hb};
    for (int64_t v : ends) {
        if (v < INT32_MIN || v > INT32_MAX) return true;
    }
    return false;
}

class BoundsOf : public IRVisitor {
public:
    explicit BoundsOf(const Scope<Interval> &outer) : outer(outer) {}
    Interval result;

    Interval bounds(const Expr &e) {
        e.accept(this);
        return result;
    }

private:
    const Scope<Interval> &outer;
    Scope<Interval> inner;  // Lets inside the expression

    void visit(const IntImm *op) override { result = Interval::single_point(op); }
    void visit(const UIntImm *op) override { result = Interval::single_point(op); }
    void visit(const FloatImm *op) override { result = Interval::single_point(op); }
    void visit(const StringImm *op) override { result = Interval::single_point(op); }

    void visit(const Variable *op) override {
        if (const Interval *i = inner.find(op->name)) {
            result = *i;
        } else if (const Interval *o = outer.find(op->name)) {
            result = *o;
        } else {
            result = Interval::single_point(op);
        }
    }

    void visit(const Cast *op) override {
        Interval a = bounds(op->value);
        Type from = op->value.type(), to = op->type;
        bool monotonic_exact = to.can_represent(from) ||
                               (from.is_float() && to.is_int_or_uint() && no_overflow(to)) ||
                               (from.is_int_or_uint() && to.is_float());
        if (monotonic_exact && a.is_bounded()) {
            result = Interval(Cast::make(to, a.min), Cast::make(to, a.max));
        } else if (monotonic_exact) {
            result = Interval(a.min.defined() ? Cast::make(to, a.min) : Expr(),
                              a.max.defined() ? Cast::make(to, a.max) : Expr());
        } else {
            result = type_bounds(to);
        }
    }

    void visit(const Reinterpret *op) override { result = type_bounds(op->type); }

    void visit(const Add *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (!no_overflow(op->type) || leaves_int32(a, b, '+', op->type)) {
            result = type_bounds(op->type);
            return;
        }
        result = Interval(a.min.defined() && b.min.defined() ? Add::make(a.min, b.min) : Expr(),
                          a.max.defined() && b.max.defined() ? Add::make(a.max, b.max) : Expr());
    }

    // (r + q / k) - p / k for a constant k > 0 and a constant d = q - p: the two quotients
    // move together, q / k - p / k lying in [floor(d / k), floor((d + k - 1) / k)] whatever p
    // is (the rows y / 2 .. (y + 1) / 2 of a downsampled producer at each row y). Bounding
    // them apart adds the whole range of p / k to the result's width.
    bool quotient_difference(const Sub *op) {
        const Div *minus = op->b.as<Div>();
        const int64_t *k = minus ? as_const_int(minus->b) : nullptr;
        if (!k || *k <= 0 || !op->type.is_int() || !no_overflow(op->type)) return false;
        // The terms of op->a, left to right.
        std::vector<Expr> addends, pending{op->a};
        while (!pending.empty()) {
            const Expr e = pending.back();
            pending.pop_back();
            if (const Add *add = e.as<Add>()) {
                pending.push_back(add->b);
                pending.push_back(add->a);
            } else {
                addends.push_back(e);
            }
        }
        for (size_t i = 0; i < addends.size(); i++) {
            const Div *plus = addends[i].as<Div>();
            const int64_t *plus_k = plus ? as_const_int(plus->b) : nullptr;
            if (!plus_k || *plus_k != *k) continue;
            const Expr difference = simplify(Sub::make(plus->a, minus->a));
            const int64_t *d = as_const_int(difference);
            if (!d) continue;
            Expr rest;
            for (size_t j = 0; j < addends.size(); j++) {
                if (j != i) rest = rest.defined() ? Add::make(rest, addends[j]) : addends[j];
            }
            Interval r = rest.defined() ? bounds(rest) : Interval(make_zero(op->type), make_zero(op->type));
            Expr lo = make_const(op->type, floor_div(*d, *k));
            Expr hi = make_const(op->type, floor_div(*d + *k - 1, *k));
            result = Interval(r.min.defined() ? Add::make(r.min, lo) : Expr(),
                              r.max.defined() ? Add::make(r.max, hi) : Expr());
            return true;
        }
        return false;
    }

    void visit(const Sub *op) override {
        if (quotient_difference(op)) return;
        Interval a = bounds(op->a), b = bounds(op->b);
        if (!no_overflow(op->type) || leaves_int32(a, b, '-', op->type)) {
            result = type_bounds(op->type);
            return;
        }
        result = Interval(a.min.defined() && b.max.defined() ? Sub::make(a.min, b.max) : Expr(),
                          a.max.defined() && b.min.defined() ? Sub::make(a.max, b.min) : Expr());
    }

    void visit(const Mul *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (!no_overflow(op->type) || leaves_int32(a, b, '*', op->type)) {
            result = type_bounds(op->type);
            return;
        }
        if (is_const(b.min) && deep_equal(b.min, b.max)) {
            scale(a, b.min);
        } else if (is_const(a.min) && deep_equal(a.min, a.max)) {
            scale(b, a.min);
        } else if (a.is_bounded() && b.is_bounded()) {
            Expr p0 = Mul::make(a.min, b.min), p1 = Mul::make(a.min, b.max);
            Expr p2 = Mul::make(a.max, b.min), p3 = Mul::make(a.max, b.max);
            result = Interval(Min::make(Min::make(p0, p1), Min::make(p2, p3)),
                              Max::make(Max::make(p0, p1), Max::make(p2, p3)));
        } else {
            result = Interval::everything();
        }
    }

    // a * c for a constant c.
    void scale(const Interval &a, const Expr &c) {
        bool negative = (as_const_int(c) && *as_const_int(c) < 0) ||
                        (as_const_float(c) && *as_const_float(c) < 0);
        Expr lo = a.min.defined() ? Mul::make(a.min, c) : Expr();
        Expr hi = a.max.defined() ? Mul::make(a.max, c) : Expr();
        result = negative ? Interval(hi, lo) : Interval(lo, hi);
    }

    void visit(const Div *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        bool const_divisor = is_const(b.min) && deep_equal(b.min, b.max) && !is_const_zero(b.min);
        if (const_divisor && (no_overflow(op->type) || op->type.is_uint())) {
            // Division by a positive constant is monotonic; by a negative one it reverses.
            bool negative = (as_const_int(b.min) && *as_const_int(b.min) < 0) ||
                            (as_const_float(b.min) && *as_const_float(b.min) < 0);
            Expr lo = a.min.defined() ? Div::make(a.min, b.min) : Expr();
            Expr hi = a.max.defined() ? Div::make(a.max, b.min) : Expr();
            result = negative ? Interval(hi, lo) : Interval(lo, hi);
        } else if (op->type.is_int_or_uint() && a.is_bounded() && b.is_single_point() &&
                   (no_overflow(op->type) || op->type.is_uint())) {
            // Division by one fixed value is monotonic: non-decreasing for a positive divisor,
            // non-increasing for a negative one (Euclidean), constant 0 for zero.
            Expr lo = Div::make(a.min, b.min), hi = Div::make(a.max, b.min);
            result = Interval(Min::make(lo, hi), Max::make(lo, hi));
        } else if (op->type.is_int_or_uint() && a.is_bounded()) {
            // |a / b| <= |a| for integers, and x / 0 == 0.
            Expr zero = make_zero(op->type);
            if (op->type.is_uint()) {
                result = Interval(zero, a.max);
            } else {
                Expr m = Max::make(Max::make(a.max, Sub::make(zero, a.min)), zero);
                result = Interval(Sub::make(zero, m), m);
            }
        } else {
            result = op->type.is_float() ? Interval::everything() : type_bounds(op->type);
        }
    }

    void visit(const Mod *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        if (a.is_single_point() && b.is_single_point()) {
            // One value: itself. A fused loop's inner variable (fused % inner extent) inside
            // one iteration of the fused loop is one point, not the whole inner extent.
            result = Interval::single_point(Mod::make(a.min, b.min));
        } else if (op->type.is_int_or_uint() && b.is_bounded()) {
            // The result lies in [0, |b| - 1] (and is 0 when b is 0).
            Expr zero = make_zero(op->type);
            Expr one = make_one(op->type);
            Expr mag = op->type.is_uint() ? b.max
                                          : Max::make(b.max, Sub::make(zero, b.min));
            result = Interval(zero, Max::make(Sub::make(mag, one), zero));
        } else if (op->type.is_int_or_uint()) {
            Interval t = type_bounds(op->type);
            result = Interval(make_zero(op->type), t.max);
        } else {
            result = Interval::everything();
        }
    }

    // min / max of two bounds, folded where both are constants of the same kind, so that a
    // clamp's constant bounds stay constants (leaves_int32 reads them).
    static Expr fold_min_max(const Expr &a, const Expr &b, bool is_min) {
        if (const double *fa = as_const_float(a)) {
            if (const double *fb = as_const_float(b)) return (*fa < *fb) == is_min ? a : b;
        }
        if (const int64_t *ia = as_const_int(a)) {
            if (const int64_t *ib = as_const_int(b)) return (*ia < *ib) == is_min ? a : b;
        }
        return is_min ? Min::make(a, b) : Max::make(a, b);
    }

    void visit(const Min *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        result.min = a.min.defined() && b.min.defined() ? fold_min_max(a.min, b.min, true) : Expr();
        result.max = a.max.defined() && b.max.defined() ? fold_min_max(a.max, b.max, true)
                     : a.max.defined()                  ? a.max
                                                        : b.max;
    }

    void visit(const Max *op) override {
        Interval a = bounds(op->a), b = bounds(op->b);
        result.max = a.max.defined() && b.max.defined() ? fold_min_max(a.max, b.max, false) : Expr();
        result.min = a.min.defined() && b.min.defined() ? fold_min_max(a.min, b.min, false)
                     : a.min.defined()                  ? a.min
                                                        : b.min;
    }

    void bool_result() { result = Interval(make_bool(false), make_bool(true)); }
    void visit(const EQ *) override { bool_result(); }
    void visit(const NE *) override { bool_result(); }
    void visit(const LT *) override { bool_result(); }
    void visit(const LE *) override { bool_result(); }
    void visit(const GT *) override { bool_result(); }
    void visit(const GE *) override { bool_result(); }
    void visit(const And *) override { bool_result(); }
    void visit(const Or *) override { bool_result(); }
    void visit(const Not *) override { bool_result(); }

    void visit(const Select *op) override {
        Interval t = bounds(op->true_value), f = bounds(op->false_value);
        result = Interval(t.min.defined() && f.min.defined() ? Min::make(t.min, f.min) : Expr(),
                          t.max.defined() && f.max.defined() ? Max::make(t.max, f.max) : Expr());
    }

    void visit(const Load *op) override { result = type_bounds(op->type); }

    void visit(const Ramp *op) override {
        Interval base = bounds(op->base), stride = bounds(op->stride);
        Expr last = Mul::make(op->stride, make_const(op->stride.type(), op->lanes - 1));
        Interval span = bounds(last);
        Expr zero = make_zero(op->stride.type());
        result = Interval(base.min.defined() && span.min.defined()
                              ? Add::make(base.min, Min::make(span.min, zero)) : Expr(),
                          base.max.defined() && span.max.defined()
                              ? Add::make(base.max, Max::make(span.max, zero)) : Expr());
        (void)stride;
    }

    void visit(const Broadcast *op) override { result = bounds(op->value); }

    void visit(const Let *op) override {
        Interval v = bounds(op->value);
        ScopedBinding<Interval> bind(inner, op->name, v);
        result = bounds(op->body);
    }

    // An argument of an extern stage's bounds query, one value for every point of the scope,
    // or undefined: a name or a scalar of one value, or a make_buffer whose region covers the
    // regions it has over the scope (min, extent and stride per dimension; the strides of one
    // value).
    // Set by over_every_region where a region's bounds are not one point: it moves over the
    // scope.
    bool region_varies = false;
    Expr over_every_region(const Expr &a) {
        if (a.as<StringImm>()) return a;
        const Call *buffer = a.as<Call>();
        if (!buffer || !buffer->is_intrinsic(Call::make_buffer)) {
            Interval b = bounds(a);
            return b.is_single_point() ? b.min : Expr();
        }
        std::vector<Expr> args(buffer->args.begin(), buffer->args.begin() + 4);
        for (size_t i = 1; i < 4; i++) {
            Interval b = bounds(args[i]);
            if (!b.is_single_point()) return Expr();
            args[i] = b.min;
        }
        for (size_t d = 4; d + 2 < buffer->args.size(); d += 3) {
            const Expr &mn = buffer->args[d], &extent = buffer->args[d + 1];
            Interval lo = bounds(mn), hi = bounds(simplify(mn + extent - 1));
            Interval stride = bounds(buffer->args[d + 2]);
            region_varies = region_varies || !lo.is_single_point() || !hi.is_single_point();
            if (!lo.min.defined() || !hi.max.defined() || !stride.is_single_point()) return Expr();
            args.push_back(lo.min);
            args.push_back(simplify(hi.max - lo.min + 1));
            args.push_back(stride.min);
        }
        return Call::with_args(buffer, args);
    }

    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::rounded_up) ||
            op->is_intrinsic(Call::memoize_tag)) {
            // A rounded-up point is computed, and read where it is: as it is (bounds inference
            // narrows it for the regions of producers, lower/BoundsInference.cpp).
            result = bounds(op->args[0]);
        } else if (op->is_intrinsic(Call::scatter_gather)) {
            // Any of the bundle's values: the union of their bounds.
            Interval u = bounds(op->args[0]);
            for (size_t i = 1; i < op->args.size(); i++)
                u = interval_union(u, bounds(op->args[i]));
            result = u;
        } else if (op->is_intrinsic(Call::promise_clamped)) {
            // The value's own bounds, narrowed by the promise: where they are taken over a
            // loop, the value's terms vary together (a tail's start and its count), which
            // interval arithmetic cannot see, and the promised range stays tight.
            // One value stays as it is: its min and max are then the same expression, which
            // a consumer's region per iteration needs to see (max - min simplifies to 0).
            Interval v = bounds(op->args[0]);
            if (!v.is_single_point()) {
                Interval lo = bounds(op->args[1]), hi = bounds(op->args[2]);
                if (lo.min.defined()) v.min = v.min.defined() ? Max::make(v.min, lo.min) : lo.min;
                if (hi.max.defined()) v.max = v.max.defined() ? Min::make(v.max, hi.max) : hi.max;
            }
            result = v;
        } else if (op->is_intrinsic(Call::abs) && op->type.is_int_or_uint()) {
            Interval a = bounds(op->args[0]);
            if (a.is_bounded() && no_overflow(op->args[0].type())) {
                Expr zero = make_zero(op->args[0].type());
                Expr m = Max::make(a.max, Sub::make(zero, a.min));
                result = Interval(make_zero(op->type), Cast::make(op->type, Max::make(m, zero)));
            } else {
                result = type_bounds(op->type);
            }
        } else if (op->is_intrinsic(Call::bitwise_and) && op->type.is_int_or_uint()) {
            // x & c with c >= 0 lies in [0, c].
            const int64_t *ci = as_const_int(op->args[1]);
            const uint64_t *cu = as_const_uint(op->args[1]);
            if ((ci && *ci >= 0) || cu) {
                result = Interval(make_zero(op->type), op->args[1]);
            } else {
                result = type_bounds(op->type);
            }
        } else if (op->call_type == Call::PureExtern && op->type.is_float() &&
                   (op->name.rfind("floor_", 0) == 0 || op->name.rfind("ceil_", 0) == 0 ||
                    op->name.rfind("round_", 0) == 0 || op->name.rfind("trunc_", 0) == 0)) {
            // Monotonic non-decreasing functions map bounds to bounds.
            Interval a = bounds(op->args[0]);
            result = Interval(a.min.defined() ? Call::with_args(op, {a.min}) : Expr(),
                              a.max.defined() ? Call::with_args(op, {a.max}) : Expr());
        } else if (op->is_intrinsic(Call::extern_bounds_query)) {
            // The region an extern stage reads of an input, queried with the region of its
            // Func, which may move over the loops in scope: the query over the union of those
            // regions gives one region, which covers what each asks for where, as Halide
            // assumes, a larger output region never reads less (lower/ExternStages.h). Each
            // iteration's min (or max) of it lies in that region, anywhere: not one point, or
            // a difference of the two (a region's extent) would be taken as fixed (fuzz seed
            // 8202 pair 543: storage of an input sized by one, written past its start).
            std::vector<Expr> args;
            const bool outer_varies = region_varies; // (a query inside another's region)
            region_varies = false;
            for (const Expr &a : op->args) {
                args.push_back(over_every_region(a));
                if (!args.back().defined()) break;
            }
            // Where no region varies over the scope, the query is its own value.
            const bool args_fixed = !region_varies;
            region_varies = outer_varies;
            if (args.size() == op->args.size() && args_fixed) {
                result = Interval::single_point(Call::with_args(op, args));
            } else if (args.size() == op->args.size()) {
                std::vector<Expr> lo = args, hi = args;
                lo[3] = Expr(0);
                hi[3] = Expr(1);
                result = Interval(Call::with_args(op, lo), Call::with_args(op, hi));
            } else {
                result = type_bounds(op->type);
            }
        } else {
            result = type_bounds(op->type);
        }
    }
};

}  // namespace

Interval bounds_of_expr_in_scope(const Expr &e, const Scope<Interval> &scope) {
    BoundsOf b(scope);
    Interval i = b.bounds(e);
    if (i.min.defined()) i.min = simplify_for_bounds(i.min);
    if (i.max.defined()) i.max = simplify_for_bounds(i.max);
    return i;
}

}  // namespace Internal
}  // namespace loom
