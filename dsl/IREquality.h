// Structural comparison of expressions, without printing them.
#pragma once

#include "dsl/Expr.h"

namespace loom {
namespace Internal {

/** A total order on expressions by structure: negative, zero or positive as a sorts before,
 * equal to or after b. Equal means the same node kinds, types, names, constants (floats by
 * their bits) and operands all the way down; shared subtrees compare in constant time. An
 * undefined Expr sorts first. Variables and calls are identified by name, as in the printed
 * IR. The order is deterministic (it never looks at addresses), so containers sorted by it
 * give the same IR on every run. */
int compare_exprs(const Expr &a, const Expr &b);

/** compare_exprs(a, b) == 0. */
inline bool deep_equal(const Expr &a, const Expr &b) { return compare_exprs(a, b) == 0; }

/** For ordered containers keyed by expression structure. */
struct ExprStructureLess {
    bool operator()(const Expr &a, const Expr &b) const { return compare_exprs(a, b) < 0; }
};

} // namespace Internal
} // namespace loom
