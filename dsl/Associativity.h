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

/** Whether update definition d of f is an integer reduction (+ * min max & | ^), whose result
 * does not depend on the order its RVars iterate in (integer arithmetic wraps exactly). */
bool is_order_independent_reduction(const FunctionPtr &f, const Definition &d);

}  // namespace Internal
}  // namespace loom
