// Lets that add a loop's variable to the rest, rewritten so that their uses show the loop
// variable itself.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` with every Int(32) LetStmt whose value's top-level sum holds the variable of an
 * enclosing loop (a split loop's point: `let f.s0.x = (f.min.0 + f.s0.x.xi) + base`) bound
 * instead as `<name>.rest` = the value without that term, its uses reading `<name>.rest + xi`
 * (the rest substituted where it is a constant or one variable). An index through such a let
 * is then visibly the loop variable plus an invariant, as code generation's split_index looks
 * for: addresses advance by a fixed step, consecutive across an unrolled loop, each computed
 * from a base extended to 64 bits once, rather than each from its own 32-bit sum (fuzz seed
 * 2026 pair 235: a 16-iteration inner loop unrolled by LLVM into 16 separately sign-extended
 * loads, 8x Halide's time). Exact: a sum is the same sum whatever its grouping.
 *
 * Runs last, on the loop nest code generation takes: earlier passes compare and bound lets as
 * bounds inference wrote them (the allocation of a Func computed per vector lane, say), and
 * the rewritten form hides equalities from the simplifier. */
Stmt peel_loop_variables(const Stmt &s);

} // namespace Internal
} // namespace loom
