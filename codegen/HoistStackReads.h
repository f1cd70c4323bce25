// Reads of a function's stack allocations taken out of a loop that codegen outlines. An
// outlined loop is passed what it uses as arguments; the address of a stack allocation passed
// that way escapes, and LLVM then keeps the allocation in memory in the caller too (a row's
// maximum, a tile of accumulators). A loop that only reads such an allocation at constant
// indices (softmax's row maximum, read by every iteration of its exponential loop) can take
// the values instead, read once before the call.
#pragma once

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `loop` with each read of one of `allocations` at a constant index replaced by a variable,
 * whose value (the read, to evaluate before the loop) is appended to `reads` as (name, load).
 * Undefined when the loop writes one of the allocations or reads one at an index that is not
 * constant: the loop must then see the allocation itself. */
Stmt hoist_constant_reads(const Stmt &loop, const std::set<std::string> &allocations,
                          std::vector<std::pair<std::string, Expr>> *reads);

} // namespace Internal
} // namespace loom
