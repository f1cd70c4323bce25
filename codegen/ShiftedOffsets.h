// Index sums that clamp a loop's variable: min(x * 16, n - 16), where a ShiftInwards split
// shifts its last vector back. Codegen computes such a clamp in 64 bits, apart from the rest of
// the sum, where few distinct rests share it (codegen/CodeGen_Memory.cpp, sign_extended).
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Whether e is a clamp of `var`: a min or max that uses it. */
bool is_clamp_of(const Expr &e, const std::string &var);

/** Whether one of the terms of e's sum (through additions and subtractions) is a clamp of
 * `var`. */
bool sum_clamps_var(const Expr &e, const std::string &var);

/** A sum as its clamps of a variable, each added (true) or subtracted, and the sum of its
 * other terms in their order (undefined where there are none). */
struct ClampedSum {
    std::vector<std::pair<Expr, bool>> clamps;
    Expr rest;
};
ClampedSum split_clamps(const Expr &e, const std::string &var);

/** The distinct sums left when the clamps of `var` are taken out of the indices (ramp bases,
 * scalar indices) of the loads and stores of `loop_body` that have one; loops nested inside
 * it are not looked into. Each is a loop-invariant base for LLVM to keep in a register. */
size_t distinct_clamped_bases(const Stmt &loop_body, const std::string &var);

} // namespace Internal
} // namespace loom
