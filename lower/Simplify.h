// Algebraic simplification that never changes a result bit.
//
// Integer sums are put in a canonical linear form (exact under wrap-around arithmetic);
// constants fold with Loom's exact semantics (Euclidean division, wrapping, IEEE floats in
// their own width); lets of constants and variables are substituted. Rules that need "no
// overflow" (min(x, x + 1) == x, x + 1 > x) apply only to Int(32) and Int(64), whose
// overflow a pipeline never relies on (index and loop arithmetic); narrower integer types
// wrap and get none of them. Float rules never reassociate or drop operations (x + 0.0f is
// not x when x is -0.0f).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

Expr simplify(const Expr &e);
Stmt simplify(const Stmt &s);

/** The `variable == constant` terms of a conjunction: what holds inside `if (condition)`. */
std::map<std::string, Expr> equalities_in(const Expr &condition);
/** simplify, and a sum holding min(x, e) - x (or max) written min(0, e - x): interval
 * arithmetic then bounds the difference by e - x alone instead of counting x twice (the
 * iterations of a partitioned loop over a producer's region, (min(x, end) - x) / factor). For
 * bounds, which are evaluated once: the rewrite changes the form of code it would touch. */
Expr simplify_for_bounds(const Expr &e);

/** e simplified, then, while it is not a constant, with the values of the enclosing lets
 * substituted (innermost first) and simplified again. For the extent of a vectorized or
 * unrolled loop over a compute_at Func's region: bounds inference writes it with that region's
 * lets (f.s0.x.max - f.s0.x.min + 1), whose values differ by a constant. Stops where a
 * substitution would grow it past max_nodes (chains of lets that each use the one before
 * several times multiply in size), returning what it had. The default bound is far past any
 * extent that cancels to a constant, and keeps a chain of Funcs computed in one loop, whose
 * regions name their consumers' through splits, from taking exponential time (eight in a row
 * ran for minutes in storage flattening). */
constexpr size_t kMaxConstantSearchNodes = 2000;
Expr simplify_to_constant(const Expr &e, const std::map<std::string, Expr> &lets,
                          size_t max_nodes = kMaxConstantSearchNodes);

/** Whether a - b is a constant (set in *diff) by the linear forms of a and b as written: sums,
 * differences and constant multiples flattened, every other subexpression compared as it is,
 * nothing simplified. Where it finds one, simplify(a - b) is that same constant (it cancels the
 * same subexpressions, simplified alike); it misses differences that only simplification
 * reveals, at a fraction of its cost. */
bool difference_is_constant(const Expr &a, const Expr &b, int64_t *diff);

/** Whether e is provably true / false after simplification. */
bool can_prove(const Expr &e);

/** A statement that does nothing (what simplification leaves of a removed statement). */
Stmt make_no_op();
bool is_no_op(const Stmt &s);

}  // namespace Internal
}  // namespace loom
