// The operators and functions of the Loom language, with Halide's type-coercion rules, plus
// the constant helpers passes use. Each user-facing function states its result type.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/IR.h"
#include "dsl/Tuple.h"

namespace loom {

namespace Internal {

/** A constant of type t (broadcast if t is a vector). Wraps ints to the type's width. */
Expr make_const(Type t, int64_t value);
Expr make_const(Type t, uint64_t value);
Expr make_const(Type t, double value);
inline Expr make_const(Type t, int value) { return make_const(t, (int64_t)value); }
Expr make_zero(Type t);
Expr make_one(Type t);
Expr make_bool(bool value, int lanes = 1);
Expr const_true(int lanes = 1);
Expr const_false(int lanes = 1);

/** The constant's value if e is an IntImm (or a Broadcast of one), else nullptr. The pointer
 * points into e's node: it is valid while e lives, so these take named Exprs only (the overloads
 * for temporaries are deleted); for a computed Expr use the const_*_value forms below, which
 * return the value itself. */
const int64_t *as_const_int(const Expr &e);
const uint64_t *as_const_uint(const Expr &e);
const double *as_const_float(const Expr &e);
const int64_t *as_const_int(Expr &&e) = delete;
const uint64_t *as_const_uint(Expr &&e) = delete;
const double *as_const_float(Expr &&e) = delete;
/** The constant's value, by value, if e is an IntImm / UIntImm / FloatImm (or a Broadcast of
 * one): safe on any Expr, the result of a call included. */
std::optional<int64_t> const_int_value(const Expr &e);
std::optional<uint64_t> const_uint_value(const Expr &e);
std::optional<double> const_float_value(const Expr &e);
/** IntImm, UIntImm or FloatImm, or a Broadcast of one. */
bool is_const(const Expr &e);
/** Whether e is the same value wherever it is evaluated: made of constants and pure intrinsics
 * alone (no variable, load, Func or image read, or call to a function). */
bool is_constant_expr(const Expr &e);
bool is_const(const Expr &e, int64_t value);
inline bool is_const_zero(const Expr &e) { return is_const(e, 0); }
inline bool is_const_one(const Expr &e) { return is_const(e, 1); }

/** Euclidean (floor) division and modulo of constants by a positive k, as the IR divides. */
inline int64_t floor_div(int64_t a, int64_t k) {
    int64_t q = a / k;
    return (a % k != 0 && a < 0) ? q - 1 : q;
}
inline int64_t floor_mod(int64_t a, int64_t k) { return a - floor_div(a, k) * k; }

/** Coerces two operands to one type by Halide's rules: a scalar is broadcast to a vector's
 * lanes; int with float gives the float; two floats give the wider; two uints give the wider
 * uint; otherwise both become a signed int of the wider width. */
void match_types(Expr &a, Expr &b);

/** Like match_types for the bitwise operators: both must be integers of the same signedness;
 * the narrower is widened. */
void match_types_bitwise(Expr &a, Expr &b, const char *op_name);

/** The smallest and largest value of a type, as constants. */
Expr type_min(Type t);
Expr type_max(Type t);

/** A Variable of type Int(32). */
Expr int_var(const std::string &name);

/** Halide's coercion of two operands to one type (an int constant takes the other's type, a
 * narrower type the wider one's, an integer a float's); errors name both operands. */
void match_types(Expr &a, Expr &b);

}  // namespace Internal

/** Converts a value to type t; see Cast for the rounding rules. */
Expr cast(Type t, Expr a);
template<typename T>
Expr cast(Expr a) {
    return cast(type_of<T>(), std::move(a));
}
/** Same bits viewed as another type of equal width. */
Expr reinterpret(Type t, Expr a);
template<typename T>
Expr reinterpret(Expr a) {
    return reinterpret(type_of<T>(), std::move(a));
}

// Arithmetic. Two Exprs coerce with match_types; an int operand takes the Expr's type and must
// be representable in it; a float operand is a Float(32) Expr.
Expr operator+(Expr a, Expr b);
Expr operator+(Expr a, int b);
Expr operator+(int a, Expr b);
Expr operator-(Expr a, Expr b);
Expr operator-(Expr a, int b);
Expr operator-(int a, Expr b);
Expr operator-(Expr a);
Expr operator*(Expr a, Expr b);
Expr operator*(Expr a, int b);
Expr operator*(int a, Expr b);
/** Integer division rounds toward negative infinity (positive divisor); x / 0 == 0. */
Expr operator/(Expr a, Expr b);
Expr operator/(Expr a, int b);
Expr operator/(int a, Expr b);
/** Integer modulo is never negative; x % 0 == 0. Float modulo is a - b * floor(a / b). */
Expr operator%(Expr a, Expr b);
Expr operator%(Expr a, int b);
Expr operator%(int a, Expr b);
Expr &operator+=(Expr &a, Expr b);
Expr &operator-=(Expr &a, Expr b);
Expr &operator*=(Expr &a, Expr b);
Expr &operator/=(Expr &a, Expr b);
Expr &operator%=(Expr &a, Expr b);

// Comparisons give bool.
Expr operator==(Expr a, Expr b);
Expr operator==(Expr a, int b);
Expr operator==(int a, Expr b);
Expr operator!=(Expr a, Expr b);
Expr operator!=(Expr a, int b);
Expr operator!=(int a, Expr b);
Expr operator<(Expr a, Expr b);
Expr operator<(Expr a, int b);
Expr operator<(int a, Expr b);
Expr operator<=(Expr a, Expr b);
Expr operator<=(Expr a, int b);
Expr operator<=(int a, Expr b);
Expr operator>(Expr a, Expr b);
Expr operator>(Expr a, int b);
Expr operator>(int a, Expr b);
Expr operator>=(Expr a, Expr b);
Expr operator>=(Expr a, int b);
Expr operator>=(int a, Expr b);

// Operators with a float operand treat it as a Float(32) Expr (and prevent float->int).
#define LOOM_FLOAT_OVERLOADS(OP)                                                                \
    inline Expr operator OP(Expr a, float b) { return std::move(a) OP Expr(b); }                \
    inline Expr operator OP(float a, Expr b) { return Expr(a) OP std::move(b); }
LOOM_FLOAT_OVERLOADS(+)
LOOM_FLOAT_OVERLOADS(-)
LOOM_FLOAT_OVERLOADS(*)
LOOM_FLOAT_OVERLOADS(/)
LOOM_FLOAT_OVERLOADS(%)
LOOM_FLOAT_OVERLOADS(==)
LOOM_FLOAT_OVERLOADS(!=)
LOOM_FLOAT_OVERLOADS(<)
LOOM_FLOAT_OVERLOADS(<=)
LOOM_FLOAT_OVERLOADS(>)
LOOM_FLOAT_OVERLOADS(>=)
#undef LOOM_FLOAT_OVERLOADS

// Logical operators on bools (both sides are evaluated).
Expr operator&&(Expr a, Expr b);
Expr operator&&(Expr a, bool b);
Expr operator&&(bool a, Expr b);
Expr operator||(Expr a, Expr b);
Expr operator||(Expr a, bool b);
Expr operator||(bool a, Expr b);
Expr operator!(Expr a);

// Bitwise operators: integers of one signedness; the result has the wider type, or the Expr's
// type when the other operand is an int.
Expr operator&(Expr a, Expr b);
Expr operator&(Expr a, int b);
Expr operator&(int a, Expr b);
Expr operator|(Expr a, Expr b);
Expr operator|(Expr a, int b);
Expr operator|(int a, Expr b);
Expr operator^(Expr a, Expr b);
Expr operator^(Expr a, int b);
Expr operator^(int a, Expr b);
Expr operator~(Expr a);
/** Shifts keep the type of the first operand; a negative signed amount shifts the other way.
 * >> on signed values extends the sign. */
Expr operator<<(Expr a, Expr b);
Expr operator<<(Expr a, int b);
Expr operator>>(Expr a, Expr b);
Expr operator>>(Expr a, int b);

Expr min(Expr a, Expr b);
Expr min(Expr a, int b);
Expr min(int a, Expr b);
inline Expr min(Expr a, float b) { return min(std::move(a), Expr(b)); }
inline Expr min(float a, Expr b) { return min(Expr(a), std::move(b)); }
Expr max(Expr a, Expr b);
Expr max(Expr a, int b);
Expr max(int a, Expr b);
inline Expr max(Expr a, float b) { return max(std::move(a), Expr(b)); }
inline Expr max(float a, Expr b) { return max(Expr(a), std::move(b)); }
/** min(max(a, lo), hi) with the bounds cast to a's type. */
Expr clamp(Expr a, const Expr &lo, const Expr &hi);
/** |a|; for signed ints the result is the unsigned type of the same width. */
Expr abs(Expr a);
/** |a - b| computed without overflow; unsigned of the same width for ints. */
Expr absd(Expr a, Expr b);
/** cond ? t : f, evaluating both; t and f coerce with match_types. */
Expr select(Expr condition, Expr true_value, Expr false_value);
/** select(c0, v0, c1, v1, ..., default): the first value whose condition holds. */
template<typename... Rest>
Expr select(Expr c0, Expr v0, Expr c1, Expr v1, Rest &&...rest) {
    return select(std::move(c0), std::move(v0),
                  select(std::move(c1), std::move(v1), std::forward<Rest>(rest)...));
}
/** Linear interpolation zero + (one - zero) * weight with Halide's rules for integer types
 * (the weight of an integer type is scaled by its range). */
Expr lerp(Expr zero_val, Expr one_val, Expr weight);

// Float math. An argument that is not a float is cast to Float(32); the result has the
// argument's float type. Results are those of the C library's functions of that width (sqrt,
// floor, ceil, round, trunc are exact), except float32 exp: Loom's own expansion into float
// arithmetic (codegen/ExpF32.h), so that it vectorizes; it is within 0.85 ulp of e^x, equals
// expf for the great majority of inputs, and gives the same bits for every vector width,
// schedule and target. Halide 14's float32 exp, log and pow are its own approximations too,
// a few ulps away.
Expr sqrt(Expr x);
Expr exp(Expr x);
Expr log(Expr x);
Expr pow(Expr x, Expr y);
Expr sin(Expr x);
Expr cos(Expr x);
Expr tan(Expr x);
Expr asin(Expr x);
Expr acos(Expr x);
Expr atan(Expr x);
Expr atan2(Expr y, Expr x);
Expr sinh(Expr x);
Expr cosh(Expr x);
Expr tanh(Expr x);
Expr asinh(Expr x);
Expr acosh(Expr x);
Expr atanh(Expr x);
/** The C library's erf (within 1 ulp); Halide 14's is its own approximation, a few ulps off. */
Expr erf(Expr x);
/** sqrt(x * x + y * y), as Halide 14 computes it (not the C library's hypot, which avoids the
 * overflow of the squares). */
Expr hypot(const Expr &x, const Expr &y);
Expr floor(Expr x);
Expr ceil(Expr x);
/** Rounds to nearest, ties to even. */
Expr round(Expr x);
Expr trunc(Expr x);
Expr fract(Expr x);
/** a * b + c rounded once (IEEE-754 fusedMultiplyAdd), as a single instruction where the target
 * has one (x86 FMA, AVX-512) and the C library's fma otherwise: the same bits on every target
 * and schedule. Loom never fuses a * b + c written as two operations (see dsl/IR.h), so this is
 * how an algorithm asks for the fused form. The operands coerce as arithmetic does and must
 * end up floats. (Halide 14 has no fma; by default it may fuse a * b + c by itself.) */
Expr fma(Expr a, Expr b, Expr c);
Expr is_nan(Expr x);
Expr is_inf(Expr x);
Expr is_finite(Expr x);
Expr popcount(Expr x);
Expr count_leading_zeros(Expr x);
Expr count_trailing_zeros(Expr x);

/** A hint that the condition is usually true; it evaluates to its argument. */
Expr likely(Expr e);

/** Halide's undef: a value of type t that is never stored. An element of an update defined as
 * undef (or as a value that depends on one) keeps the value it had: f(x)[1] = e updates
 * element 1 alone. In a pure definition, the points whose value depends on undef are not
 * written: f(x) = undef<float>() leaves f's storage as allocated, for an update to fill. A
 * select on a condition that does not depend on undef stores where its other side is chosen. */
Expr undef(Type t);
template <typename T> Expr undef() { return undef(type_of<T>()); }

/** The least (greatest) of three or more values, folded from the right: min(a, min(b, c)). */
template <typename A, typename B, typename C, typename... Rest,
          typename std::enable_if_t<(std::is_convertible_v<Rest, Expr> && ...)> * = nullptr>
Expr min(A &&a, B &&b, C &&c, Rest &&...rest) {
    return min(std::forward<A>(a),
               min(std::forward<B>(b), std::forward<C>(c), std::forward<Rest>(rest)...));
}
template <typename A, typename B, typename C, typename... Rest,
          typename std::enable_if_t<(std::is_convertible_v<Rest, Expr> && ...)> * = nullptr>
Expr max(A &&a, B &&b, C &&c, Rest &&...rest) {
    return max(std::forward<A>(a),
               max(std::forward<B>(b), std::forward<C>(c), std::forward<Rest>(rest)...));
}

/** Tuples chosen element by element (Halide's tuple_select): by one condition, or by a Tuple of
 * conditions, one per element; the chained form picks the first whose condition holds. */
Tuple tuple_select(const Tuple &condition, const Tuple &true_value, const Tuple &false_value);
Tuple tuple_select(const Expr &condition, const Tuple &true_value, const Tuple &false_value);
template <typename... Args>
Tuple tuple_select(const Tuple &c0, const Tuple &v0, const Tuple &c1, const Tuple &v1,
                   Args &&...args) {
    return tuple_select(c0, v0, tuple_select(c1, v1, std::forward<Args>(args)...));
}
template <typename... Args>
Tuple tuple_select(const Expr &c0, const Tuple &v0, const Expr &c1, const Tuple &v1,
                   Args &&...args) {
    return tuple_select(c0, v0, tuple_select(c1, v1, std::forward<Args>(args)...));
}

/** Integer division and remainder rounding toward zero (C's), where x / y and x % y round
 * down (Halide's); operands coerced as arithmetic does. Unsigned: the same as / and %. */
Expr div_round_to_zero(Expr x, Expr y);
Expr mod_round_to_zero(Expr x, Expr y);

/** Loom partitions the loops around every likely condition, innermost or not; this is
 * likely(e). */
Expr likely_if_innermost(Expr e);

/** value, which the user promises lies in [min, max] (an undefined side is unbounded): bounds
 * inference takes the promise without a check, and a broken promise reads or writes outside
 * the buffers (Halide's unsafe_promise_clamped). */
Expr unsafe_promise_clamped(const Expr &value, const Expr &min, const Expr &max);
/** Halide's scatter and gather: in an update, f(x, scatter(3, 4)) = gather(a, b) stores a at
 * (x, 3) and b at (x, 4). Each makes a bundle of values (of one type); arithmetic on bundles
 * applies element by element, so a definition's bundles must all have the same number of
 * elements and may not nest. The definition stores each element in turn, left to right (a
 * repeated place keeps the last), after computing every value it stores: f(scatter(3, 5)) =
 * f(gather(5, 3)) swaps two elements. */
Expr scatter(const std::vector<Expr> &args);
Expr gather(const std::vector<Expr> &args);
template <typename... Rest> Expr scatter(const Expr &first, const Rest &...rest) {
    return scatter(std::vector<Expr>{first, Expr(rest)...});
}
template <typename... Rest> Expr gather(const Expr &first, const Rest &...rest) {
    return gather(std::vector<Expr>{first, Expr(rest)...});
}
/** Halide's memoize_tag: `result`, with the cache key of a memoized Func that reads it (Func::
 * memoize) holding other values than the Params `result` reads. Alone, the key holds result's
 * own value (a float Param quantized to an integer keys by the integer); with tags, the key
 * holds the tags, and nothing `result` reads, so tags that miss a change of its inputs give a
 * stale region: the caller's promise. The key values are computed once per production, so they
 * may read Params only (an error names a Var, RVar, Func or image they read). */
Expr memoize_tag(const Expr &result, const std::vector<Expr> &tags);
template <typename... Tags> Expr memoize_tag(const Expr &result, const Tags &...tags) {
    return memoize_tag(result, std::vector<Expr>{Expr(tags)...});
}
/** Halide's strict_float: e with its float arithmetic kept as written (IEEE, no reassociation,
 * no contraction into fused multiply-adds). Loom never rewrites float arithmetic that way, so
 * every Expr already is; e is returned unchanged. */
inline Expr strict_float(const Expr &e) { return e; }

/** values[id]: select(id == 0, values[0], id == 1, values[1], ..., values.back()), so an id out
 * of range gives the last value (Halide's mux). The values must share one type; a Tuple's
 * elements are the values. */
Expr mux(const Expr &id, const std::initializer_list<Expr> &values);
Expr mux(const Expr &id, const std::vector<Expr> &values);
Expr mux(const Expr &id, const Tuple &values);

/** e cast to t with its value clamped to t's range first, with Halide 14's rules: float to
 * float clamps to t's range, whose ends are the infinities (a value past the largest finite one
 * of a narrower float becomes infinite, as a plain cast has it); float to an integer type at
 * least as wide saturates both ends; otherwise e is clamped to whichever of t's limits e's
 * type holds exactly, then cast. */
Expr saturating_cast(Type t, Expr e);
template <typename T> Expr saturating_cast(Expr e) {
    return saturating_cast(type_of<T>(), std::move(e));
}

// Fast Float(32) math (dsl/FastMath.cpp): expansions into arithmetic that vectorize and give
// the same bits on every target and schedule. Errors, measured over each function's domain by
// test/e2e/fast_math_test.cpp against float64: fast_exp within 4 ulp (subnormal results to
// 2 units of 2^-149 down to -103.3, 0 below; infinity above 88.7; NaN for NaN); fast_log within 3
// ulp or 2^-22 absolutely near 1 (-inf at 0, NaN below); fast_pow(x, y) = fast_exp(y * fast_log(x))
// for x > 0, pow's values at x = 0, NaN for x < 0; fast_sin and fast_cos within 2e-6 absolutely for
// |x| < 1000 (Halide promises 1e-5); fast_inverse and fast_inverse_sqrt are exact, 1 / x and 1 /
// sqrt(x) correctly rounded (a division: the same bits everywhere, where x86's rcpps and rsqrtps
// differ between AMD and Intel).
Expr fast_sin(const Expr &x);
Expr fast_cos(const Expr &x);
Expr fast_exp(const Expr &x);
Expr fast_log(const Expr &x);
Expr fast_pow(Expr x, Expr y);
Expr fast_inverse(Expr x);
Expr fast_inverse_sqrt(Expr x);

/** Random variables, uniform and independent, deterministic (dsl/Random.cpp): each call is a
 * variable of its own, whose value at a point of the Func it is defined in depends on the
 * point's coordinates, the Func, which of its definitions it is in and the seed (an integer
 * Expr, 0 where not given), and on nothing in the schedule. One variable used twice has one
 * value (`Expr r = random_float(); r + r` doubles it); it is shared across a Tuple's elements.
 * random_float lies in [0, 1) (23 random bits); random_uint covers all of UInt(32) and
 * random_int all of Int(32). The values are Loom's own: they differ from Halide's. */
Expr random_float(Expr seed = Expr());
Expr random_uint(Expr seed = Expr());
Expr random_int(Expr seed = Expr());

/** Halide's debugging prints (dsl/Debugging.cpp). print(a, b, ...) is a's value, and each time
 * it is evaluated prints one line to stdout (through loom_print, runtime/loom_runtime.h): the
 * values separated by spaces, floats with six decimals (doubles in scientific notation), each
 * lane of a vector on a line of its own. print_when prints only where the condition holds.
 * Where the Func is inlined into several consumers, each prints. */
Expr print(const std::vector<Expr> &values);
Expr print_when(const Expr &condition, const std::vector<Expr> &values);

namespace Internal {
inline Expr print_arg(const char *s) { return Expr(std::string(s)); }
inline Expr print_arg(const std::string &s) { return Expr(s); }
template <typename T> Expr print_arg(const T &value) { return Expr(value); }
inline void collect_print_args(std::vector<Expr> &) {}
template <typename T, typename... Args>
void collect_print_args(std::vector<Expr> &out, const T &first, const Args &...rest) {
    out.push_back(print_arg(first));
    collect_print_args(out, rest...);
}
} // namespace Internal

/** Halide's require: `value` where `condition` holds; where it does not, the pipeline stops and
 * realize() throws "Requirement Failed: (false) <value> <args...>" (an AOT pipeline returns
 * loom_code_requirement_failed). The rest of the arguments are printed as print() prints them. */
Expr require(const Expr &condition, const std::vector<Expr> &values);
template <typename... Args>
Expr require(const Expr &condition, const Expr &value, const Args &...rest) {
    std::vector<Expr> values{value};
    Internal::collect_print_args(values, rest...);
    return require(condition, values);
}

template <typename... Args> Expr print(const Expr &first, const Args &...rest) {
    std::vector<Expr> values{first};
    Internal::collect_print_args(values, rest...);
    return print(values);
}
template <typename... Args>
Expr print_when(const Expr &condition, const Expr &first, const Args &...rest) {
    std::vector<Expr> values{first};
    Internal::collect_print_args(values, rest...);
    return print_when(condition, values);
}

}  // namespace loom
