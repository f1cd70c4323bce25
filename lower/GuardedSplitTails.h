// The tails of GuardWithIf splits, as lower/ScheduleFunctions partitions a split's outer loop
// into its steady iterations (the guard removed) and its last one (the tail): the guard taken
// out where it holds, the tail's inner loop shrunk to the iterations left, or, where the inner
// loop is an unrolled register tile's, run as smaller tiles.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/IR.h"

namespace loom {
namespace Internal {

// A GuardWithIf split's guard, `likely(var <= highest)`, and what it says of the split's old
// variable: var is at most highest (no promise where var is empty).
struct SplitGuard {
    Expr guard;
    std::string var;
    Expr highest;
};

/** s with the split's guard `if (guard) ...` taken out, for iterations where it holds; what
 * it said stays with the split's variable as a promise (see GuardedSplitTails.cpp). */
Stmt remove_guard(const SplitGuard &split, const Stmt &s);

/** The tail `body` with the loop `inner_loop` (the split's inner loop, serial or unrolled) run
 * serially over its first `remaining` iterations, unguarded. */
Stmt shrink_tail_loop(const Stmt &body, const std::string &inner_loop, const Expr &remaining,
                      const SplitGuard &split);

/** Whether the tail of GuardWithIf split `split` of a stage with loops `dims` (innermost
 * first) runs as smaller register tiles (specialized_tail). */
bool specializes_tail(const Split &split, const std::vector<Dim> &dims);

/** The tail `body` run in unrolled blocks of 4, 2 and 1 iterations of `inner_loop` by the bits
 * of `remaining`; an IfThenElse whose condition serial_tails recognizes. */
Stmt specialized_tail(const Stmt &body, const std::string &inner_loop, const Expr &remaining,
                      const SplitGuard &split, int factor);

/** s with each tail specialized_tail made whose condition is among `conditions` replaced by
 * its serial loop (the tails inside the tail of a split further out). */
Stmt serial_tails(const std::vector<Expr> &conditions, const Stmt &s);

/** Whether a split's inner variable is a loop of the stage. */
bool inner_is_a_loop(const Split &split, const std::vector<Split> &splits);

} // namespace Internal
} // namespace loom
