// Halide 14's helpers for values, built from the core operators: mux and tuple_select,
// saturating_cast, division and remainder rounding to zero, and the compiler hints
// likely_if_innermost and unsafe_promise_clamped, memoize_tag, scatter and gather.
#include <cmath>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

namespace loom {

namespace {

void check_defined(const Expr &e, const char *what) {
    user_assert(e.defined()) << "Argument of " << what << " is an undefined Expr";
}

// The first Var, RVar, Func call or image read in an expression: what a memoization key value
// may not read (it is computed once per production, outside the Func's loops).
class FirstNonParam : public Internal::IRVisitor {
public:
    std::string found;

private:
    using IRVisitor::visit;
    void visit(const Internal::Variable *op) override {
        if (found.empty() && !op->param) found = (op->rdom ? "the RVar " : "the Var ") + op->name;
    }
    void visit(const Internal::Call *op) override {
        if (found.empty() &&
            (op->call_type == Internal::Call::Halide || op->call_type == Internal::Call::Image))
            found =
                (op->call_type == Internal::Call::Image ? "the image " : "the Func ") + op->name;
        IRVisitor::visit(op);
    }
};

} // namespace

Expr mux(const Expr &id, const std::initializer_list<Expr> &values) {
    return mux(id, std::vector<Expr>(values));
}

Expr mux(const Expr &id, const Tuple &values) { return mux(id, values.as_vector()); }

Expr mux(const Expr &id, const std::vector<Expr> &values) {
    check_defined(id, "mux");
    user_assert(!values.empty()) << "mux(" << id << ", ...) has no values to choose from: give "
                                 << "it at least one.";
    user_assert(id.type().is_int_or_uint() && id.type().is_scalar())
        << "The index of mux must be an integer, but " << id << " has type " << id.type();
    for (size_t i = 0; i < values.size(); i++) {
        check_defined(values[i], "mux");
        user_assert(values[i].type() == values[0].type())
            << "mux's values must share one type: value " << i << " (" << values[i] << ") has type "
            << values[i].type() << ", value 0 (" << values[0] << ") has type " << values[0].type()
            << ". Cast them to one type.";
    }
    Expr result = values.back();
    for (int i = (int)values.size() - 2; i >= 0; i--) {
        result = select(id == Internal::make_const(id.type(), (int64_t)i), values[i], result);
    }
    return result;
}

namespace {

/** limit (an integer, t's min or max) as a constant of type `holder`, where that type holds it
 * exactly; nothing otherwise. */
std::optional<Expr> exact_limit(Type holder, Type t, bool upper) {
    if (holder.is_float()) {
        // long double holds every 64-bit integer exactly.
        const long double v =
            upper ? (t.is_uint() ? (long double)t.max_uint() : (long double)t.max_int())
                  : (t.is_uint() ? 0.0L : (long double)t.min_int());
        const long double held = holder.bits() == 32   ? (long double)(float)v
                                 : holder.bits() == 64 ? (long double)(double)v
                                                       : v + 1; // float16: not taken
        if (held != v) return std::nullopt;
        return Internal::make_const(holder, (double)v);
    }
    if (t.is_uint()) {
        if (!upper) return Internal::make_zero(holder);
        const uint64_t v = t.max_uint();
        const bool fits =
            holder.is_uint() ? holder.max_uint() >= v : (uint64_t)holder.max_int() >= v;
        if (!fits) return std::nullopt;
        return Internal::make_const(holder, v);
    }
    const int64_t v = upper ? t.max_int() : t.min_int();
    if (!holder.can_represent(v)) return std::nullopt;
    return Internal::make_const(holder, v);
}

} // namespace

Expr saturating_cast(Type t, Expr e) {
    check_defined(e, "saturating_cast");
    user_assert(!t.is_handle() && !e.type().is_handle())
        << "saturating_cast works on numbers, not on handles (" << e << ")";
    const Type from = e.type();
    if (t.is_float() && from.is_float()) {
        // Infinities stay at the ends of the range, as a plain cast has them.
        if (t.bits() < from.bits())
            return cast(t, clamp(e, Internal::type_min(t), Internal::type_max(t)));
        return clamp(cast(t, e), Internal::type_min(t), Internal::type_max(t));
    }
    if (from == t) return e;
    if (from.is_float() && t.bits() >= from.bits()) {
        // t's max is not a float of e's width: the float just above it (t.max() rounds up to
        // it) and beyond give t's max.
        e = max(e, Internal::make_const(from, t.is_uint() ? 0.0 : (double)t.min_int()));
        Expr top =
            Internal::make_const(from, t.is_uint() ? (double)t.max_uint() : (double)t.max_int());
        Expr t_max = t.is_uint() ? Internal::make_const(t, t.max_uint())
                                 : Internal::make_const(t, t.max_int());
        return select(e >= top, t_max, cast(t, e));
    }
    std::optional<Expr> lo, hi;
    if (t.is_int_or_uint()) {
        if (!from.is_uint()) lo = exact_limit(from, t, false);
        hi = exact_limit(from, t, true);
    }
    if (lo) e = max(e, *lo);
    if (hi) e = min(e, *hi);
    return cast(t, e);
}

Tuple tuple_select(const Tuple &condition, const Tuple &true_value, const Tuple &false_value) {
    user_assert(condition.size() == true_value.size() && true_value.size() == false_value.size())
        << "tuple_select of Tuples of sizes " << condition.size() << ", " << true_value.size()
        << " and " << false_value.size() << ": the three must have one size.";
    std::vector<Expr> out;
    for (size_t i = 0; i < condition.size(); i++)
        out.push_back(select(condition[i], true_value[i], false_value[i]));
    return Tuple(out);
}

Tuple tuple_select(const Expr &condition, const Tuple &true_value, const Tuple &false_value) {
    user_assert(true_value.size() == false_value.size())
        << "tuple_select of Tuples of sizes " << true_value.size() << " and " << false_value.size()
        << ": the two must have one size.";
    std::vector<Expr> out;
    for (size_t i = 0; i < true_value.size(); i++)
        out.push_back(select(condition, true_value[i], false_value[i]));
    return Tuple(out);
}

namespace {

/** x and y coerced to one integer type, for the divisions that round to zero. */
void integer_operands(Expr &x, Expr &y, const char *name) {
    check_defined(x, name);
    check_defined(y, name);
    Internal::match_types(x, y);
    user_assert(x.type().is_int_or_uint())
        << name << " divides integers, but its operands have type " << x.type()
        << ". For floats, use trunc(x / y) (or x - trunc(x / y) * y).";
}

} // namespace

// Loom's x / y rounds down and x % y is never negative (Halide's rules); where x is negative
// and the division is not exact, the quotient rounding to zero is one step toward zero from it
// (up for a positive y, down for a negative one) and the remainder takes y's sign back.
Expr div_round_to_zero(Expr x, Expr y) {
    integer_operands(x, y, "div_round_to_zero");
    Expr q = x / y;
    if (x.type().is_uint()) return q;
    Expr inexact_negative =
        x < Internal::make_zero(x.type()) && x % y != Internal::make_zero(x.type());
    Expr step = select(y < Internal::make_zero(y.type()),
                       Internal::make_const(y.type(), (int64_t)-1), Internal::make_one(y.type()));
    return select(inexact_negative, q + step, q);
}

Expr mod_round_to_zero(Expr x, Expr y) {
    integer_operands(x, y, "mod_round_to_zero");
    Expr r = x % y;
    if (x.type().is_uint()) return r;
    Expr inexact_negative = x < Internal::make_zero(x.type()) && r != Internal::make_zero(x.type());
    Expr magnitude = select(y < Internal::make_zero(y.type()), -y, y);
    return select(inexact_negative, r - magnitude, r);
}

Expr likely_if_innermost(Expr e) { return likely(std::move(e)); }

Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max) {
    check_defined(value, "unsafe_promise_clamped");
    Expr lo = min.defined() ? cast(value.type(), min) : Internal::type_min(value.type());
    Expr hi = max.defined() ? cast(value.type(), max) : Internal::type_max(value.type());
    return Internal::Call::make_intrinsic(value.type(), Internal::Call::promise_clamped,
                                          {value, lo, hi});
}

namespace {

Expr scatter_gather(const std::vector<Expr> &args, const char *what) {
    user_assert(!args.empty()) << what << "() needs at least one value";
    for (const Expr &a : args) {
        check_defined(a, what);
        user_assert(a.type() == args[0].type())
            << what << "(" << args[0] << ", ...): its values have one type, but " << a << " is "
            << a.type() << " where the first is " << args[0].type() << ". Cast them to one type.";
    }
    return Internal::Call::make_intrinsic(args[0].type(), Internal::Call::scatter_gather, args);
}

} // namespace

Expr scatter(const std::vector<Expr> &args) { return scatter_gather(args, "scatter"); }
Expr gather(const std::vector<Expr> &args) { return scatter_gather(args, "gather"); }

Expr memoize_tag(const Expr &result, const std::vector<Expr> &tags) {
    check_defined(result, "memoize_tag");
    std::vector<Expr> args{result};
    for (const Expr &t : tags) {
        check_defined(t, "memoize_tag");
        args.push_back(t);
    }
    for (size_t i = tags.empty() ? 0 : 1; i < args.size(); i++) {
        FirstNonParam reads;
        args[i].accept(&reads);
        user_assert(reads.found.empty())
            << "memoize_tag: the cache key value " << args[i] << " reads " << reads.found
            << ". A memoized Func's key is computed once per production, before its loops, so "
               "its values may read Params only; tag with Params or expressions of them.";
    }
    return Internal::Call::make_intrinsic(result.type(), Internal::Call::memoize_tag, args);
}

} // namespace loom
