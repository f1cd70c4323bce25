// Random variables (random_float, random_uint, random_int in dsl/IROperator.h): a call is a
// placeholder until the Func definition it appears in gives it coordinates.
#pragma once

#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace loom {
namespace Internal {

/** The name of a random variable's placeholder call, before a definition gives it a value. */
extern const char *const random_variable_call_name;

/** `exprs` with each random variable replaced by a hash of `coordinates` (a definition's
 * point: its left-hand side's arguments, then its RVars), of the Func's name and definition
 * index, of the variable's identity and of its seed. The hash is a bijective 32-bit mixer
 * applied after each ingredient, in 32-bit integer arithmetic that vectorizes: the values
 * depend on nothing in the schedule. */
std::vector<Expr> define_random_variables(const std::vector<Expr> &exprs,
                                          const std::vector<Expr> &coordinates,
                                          const std::string &func_name, int definition);

} // namespace Internal
} // namespace loom
