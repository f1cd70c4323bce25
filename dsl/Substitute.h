// Replaces free Variables by Exprs, and answers what an expression uses. The replacement is simultaneous: an Expr substituted in
// is never itself rewritten, so substituting {x: y, y: x} swaps x and y.
#pragma once

#include <map>
#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e);
Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s);
Expr substitute(const std::string &name, const Expr &replacement, const Expr &e);
Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s);

/** e with the value of each of its Let expressions substituted for its name: a region written
 * with Let expressions (as boxes that name fixed regions are) whose values the simplifier keeps
 * apart, so that max - min cancels (a block of 16 rows from a let n = y / 3 + 1 and y / 3). */
Expr substitute_lets(const Expr &e);

/** Whether e (or s) reads the Variable `name`. */
bool expr_uses_var(const Expr &e, const std::string &name);
bool stmt_uses_var(const Stmt &s, const std::string &name);

/** Whether e calls the Func named `func`. */
bool expr_calls_func(const Expr &e, const std::string &func);

}  // namespace Internal
}  // namespace loom
