// Halide's scatter and gather (dsl/IROperator.h): a definition whose arguments or values hold
// bundles stores each bundle element in turn.
#pragma once

#include <string>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The Provide of `func`'s values at args. Where they hold scatter_gather bundles of n
 * elements, n Provides instead, the k-th with element k of every bundle, after lets that
 * compute every value (and every argument that reads a Func or an image) first: an update that
 * reads the elements it writes (f(scatter(3, 5)) = f(gather(5, 3))) reads them all before it
 * writes any. Stores run left to right, so a place written twice keeps the last value.
 * `let_prefix` names the lets (unique within the stage). */
Stmt provide_scattered(const std::string &func, const std::vector<Expr> &values,
                       const std::vector<Expr> &args, const std::string &let_prefix);

/** Whether e holds a scatter_gather bundle. */
bool has_bundle(const Expr &e);

} // namespace Internal
} // namespace loom
