// Constant folding with Loom's exact semantics, for the simplifier: integer arithmetic wraps in
// its type's width, division and modulo are Euclidean (x / 0 and x % 0 are 0), floats round
// in their own width, shifts by a negative amount go the other way.
//
// Every fold_* function returns an undefined Expr unless it folds. Besides constants, each
// folds an operation whose operands are constants or selects between two constants under one
// condition: op(select(c, a, b), k) is select(c, op(a, k), op(b, k)), which is one constant
// where both branches agree (select(c, -81, -78) >> 8 is -1). That is what lets a Func whose
// every read folds away stop being computed (lower/RemoveDeadProductions.h).
#pragma once

#include <cstdint>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Division rounding toward negative infinity for positive divisors (the remainder is never
 * negative); x / 0 is 0; INT64_MIN / -1 wraps. */
int64_t euclid_div(int64_t a, int64_t b);
/** The remainder of euclid_div, in [0, |b|); x % 0 and x % -1 are 0. */
int64_t euclid_mod(int64_t a, int64_t b);

/** The value of a scalar constant of a signed integer, unsigned integer (bool included) or
 * float type; false for anything else (broadcasts included). */
bool const_int_value(const Expr &e, int64_t *v);
bool const_uint_value(const Expr &e, uint64_t *v);
bool const_float_value(const Expr &e, double *v);

enum class Arith { Add, Sub, Mul, Div, Mod, Min, Max };
enum class Compare { EQ, NE, LT, LE, GT, GE };

/** a op b. Min and Max of constants return the operand itself. */
Expr fold_arith(Arith op, const Expr &a, const Expr &b);
/** a op b as a bool constant (any comparison with a NaN but NE is false). */
Expr fold_compare(Compare op, const Expr &a, const Expr &b);
/** The conversion of v to t, where it is defined (a float outside an integer type's range,
 * or not finite, is left alone). */
Expr fold_cast(Type t, const Expr &v);
/** A pure intrinsic of constants: bitwise operations, shifts (by less than the width, either
 * direction), abs, absd, count_leading_zeros, count_trailing_zeros, popcount. */
Expr fold_intrinsic(const Call *op);

}  // namespace Internal
}  // namespace loom
