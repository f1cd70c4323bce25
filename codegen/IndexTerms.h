// An index as a loop variable's term, a constant and the rest, for codegen to compute
// addresses that advance by a fixed step per iteration and share a base across constant
// offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** index = loop_var * coefficient + rest + constant, where coefficient and rest are free of
 * loop_var; an undefined coefficient or rest stands for 0. */
struct IndexTerms {
    Expr coefficient;
    Expr rest;
    int64_t constant = 0;
};

/** The Int(32) index as a sum of a term linear in loop_var (when loop_var is not empty), the
 * constants at its top level and the rest. Built from Add, Sub and Mul; a subexpression that
 * reads loop_var in any other way (a division, a min, a lookup) makes the whole split fail, and
 * nothing is returned. A let variable computed from loop_var is part of the rest. */
std::optional<IndexTerms> split_index(const Expr &index, const std::string &loop_var);

} // namespace Internal
} // namespace loom
