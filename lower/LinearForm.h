// The canonical linear form of integer sums, and the facts the simplifier reads from it.
//
// A sum of terms times constant coefficients plus a constant, with the coefficients kept modulo
// 2^bits of the sum's type: exact under the wrap-around arithmetic of every integer type, so
// that rebuilding a sum from its form never changes a result bit. Two sums whose forms differ
// by a constant differ by that constant whatever the values of their variables.
#pragma once

#include <cstdint>
#include <map>

#include "dsl/IR.h"
#include "dsl/IREquality.h"

namespace loom {
namespace Internal {

struct Linear {
    Type type;
    /** Coefficient of each term, in the terms' structural order (which is the order rebuild()
     * writes them in). */
    std::map<Expr, uint64_t, ExprStructureLess> terms;
    uint64_t constant = 0; // coefficients wrap modulo 2^bits, as the arithmetic does

    /** Adds e times scale: sums, differences and products by constants flattened, every other
     * subexpression a term as it is. */
    void add(const Expr &e, uint64_t scale);
    void add_term(const Expr &e, uint64_t scale) { terms[e] += scale; }
    /** Whether every term's coefficient is zero. */
    bool is_constant() const;
    /** A coefficient as a signed value of the type's width. */
    int64_t wrapped(uint64_t v) const;
    /** The sum written back: positive terms first, then the negative ones subtracted, then the
     * constant. */
    Expr rebuild() const;
};

/** Whether sums of type t have a linear form: scalar integers other than bool. */
bool is_linear_type(Type t);

/** Whether integer arithmetic of type t never overflows in a pipeline (Int(32), Int(64): index
 * and loop arithmetic), so that rules such as x + 1 > x hold. */
bool no_overflow_int(Type t);

/** (a - b) as a canonical constant, if it is one. */
bool constant_difference(const Expr &a, const Expr &b, int64_t *diff);

/** Whether b >= a for every value of the variables (1), b <= a (-1), or neither is known (0),
 * where b - a is m * (q / k - p / k) + c for constants m > 0, k > 0, c and numerators with a
 * constant difference d = q - p: division rounds down, so q / k - p / k lies in
 * [floor(d / k), ceil(d / k)]. */
int quotient_difference_sign(const Expr &a, const Expr &b);

/** Whether a >= b for every value of the variables (1), a <= b (-1), or neither is known (0),
 * where a - b is a constant, or a sum of terms that are each provably_non_negative, times
 * coefficients of one sign, plus a constant of that sign (or zero): min(e, e + max(n, 0) * 16) is e
 * (the union of a split's vectors and its tail, which bounds inference writes for every GuardWithIf
 * split). */
int nonnegative_difference_sign(const Expr &a, const Expr &b);

/** Whether e is never negative, by its form: a non-negative constant, an input buffer's extent,
 * or sums, products, quotients by a positive constant and min/max of such. */
bool provably_non_negative(const Expr &e);

} // namespace Internal
} // namespace loom
