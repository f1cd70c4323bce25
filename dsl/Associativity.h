// Recognizing updates of the form f(args) = f(args) op e, with op associative and
// commutative: what rfactor splits, and why the RVars of such an update may run in any order.
#pragma once

#include <string>

#include "dsl/Function.h"
#include "dsl/IR.h"

namespace loom {
namespace Internal {

struct Reduction {
    enum Op { Add, Mul, Min, Max, And, Or, Xor } op;
    Expr other;  // the operand that is not the self-reference
};

/** Whether value == op(self, e) or op(e, self) with e not calling `func`. */
bool match_reduction(const Expr &value, const Expr &self, const std::string &func, Reduction *r);
Expr combine(Reduction::Op op, const Expr &a, const Expr &b);
Expr reduction_identity(Reduction::Op op, Type t);

/** Whether the RVars of update definition d of f may iterate in any order, Halide 14's rule:
 * either d is f(args) = f(args) op e with op associative and commutative (+ * min max & | ^,
 * e not reading f), or d never reads f and its values use no RVar (every iteration that writes
 * a point writes the same value there). Integer arithmetic wraps exactly, so an integer
 * reduction gives the same bits in any order; a float + or * reduction is associative only up
 * to rounding: reordering it changes the last bits, as it does in Halide (documented in
 * README.md, "Schedules that reorder a float reduction"). */
bool is_order_independent_reduction(const FunctionPtr &f, const Definition &d);

/** Whether a schedule that changes the order of d's RVars changes d's rounding: d is a float +
 * or * reduction (float min and max are exact in any order). */
bool reordering_changes_rounding(const FunctionPtr &f, const Definition &d);

}  // namespace Internal
}  // namespace loom
