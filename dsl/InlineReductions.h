// Reductions written inline in an expression: sum(f(x, r)) over the RDom of its RVars. Each
// creates an anonymous Func over the expression's free Vars with an initial value and one
// update, and returns a call to it at those Vars.
#pragma once

#include <string>

#include "dsl/Func.h"
#include "dsl/RDom.h"

namespace loom {

Expr sum(const Expr &e, const std::string &name = "sum");
Expr product(const Expr &e, const std::string &name = "product");
Expr maximum(const Expr &e, const std::string &name = "maximum");
Expr minimum(const Expr &e, const std::string &name = "minimum");
/** The coordinates (one per RDom dimension) of the first point where e is largest, and that
 * value, as a Tuple. */
Tuple argmax(const Expr &e, const std::string &name = "argmax");
Tuple argmin(const Expr &e, const std::string &name = "argmin");
/** The same over the given RDom, which e need not read (sum(r, 1) counts its points). */
Expr sum(const RDom &r, const Expr &e, const std::string &name = "sum");
Expr product(const RDom &r, const Expr &e, const std::string &name = "product");
Expr maximum(const RDom &r, const Expr &e, const std::string &name = "maximum");
Expr minimum(const RDom &r, const Expr &e, const std::string &name = "minimum");
Tuple argmax(const RDom &r, const Expr &e, const std::string &name = "argmax");
Tuple argmin(const RDom &r, const Expr &e, const std::string &name = "argmin");
/** The sum held to the range of e's type at every step: an integer sum that would pass the
 * type's largest (smallest) value stays there, and later terms add to that (Halide's
 * saturating_sum; for floats, sum). */
Expr saturating_sum(const Expr &e, const std::string &name = "saturating_sum");
Expr saturating_sum(const RDom &r, const Expr &e, const std::string &name = "saturating_sum");

}  // namespace loom
