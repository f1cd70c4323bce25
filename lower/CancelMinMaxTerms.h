// Sums holding a min or max whose operand cancels other terms of the sum, rewritten so that no
// term is counted twice: for bounds inference, whose interval arithmetic would otherwise bound
// each occurrence of the term separately and grow the region by the term's whole range.
#pragma once

#include <functional>

#include "dsl/IR.h"
#include "lower/LinearForm.h"

namespace loom {
namespace Internal {

/** Simplifies a new operand or min/max that a rewrite builds (the caller's simplifier). */
using ExprSimplifier = std::function<Expr(const Expr &)>;

/** Rewrites l, an integer sum of a type that does not overflow, until no rule applies:
 * c * min(p, q) + r where r cancels c * p becomes c * min(0, q - p) + (r + c * p); a term T
 * whose addition cancels T inside a min's operand (up to four mins deep) moves into the min,
 * z + min(x, y - z) -> min(z + x, y). Both hold for max, and neither changes the value. */
void cancel_into_min_max(Linear &l, const ExprSimplifier &simplify);

} // namespace Internal
} // namespace loom
