// Computes once, before a loop, a production that every iteration of the loop would repeat.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` with each production that no iteration of a serial loop around it changes computed
 * once before that loop instead of in every iteration, its allocation and free moved with it:
 * a Func computed inside a loop it does not depend on (an inline reduction of an update's
 * term that does not read the RDom, which Halide computes at the update's innermost RVar
 * loop; a compute_at at a loop the Func's region does not move with). Halide leaves these to
 * LLVM, which hoists them after unrolling the loops around them whole; code generation here
 * unrolls only what the schedule asks for, so the lowering does it, for every loop size.
 *
 * A production leaves loop L when L's body (through its lets) is the allocation of the
 * buffers the production stores into, then the production, then code that consumes it, and:
 * the allocation's extents and the production use no variable L or its lets bind; the
 * production loads no buffer the rest of L's body stores into; it holds no call with an effect
 * (its effects would happen once instead of once per iteration); L is serial or unrolled and
 * provably runs at least once (so the production still runs exactly when it did, first in the
 * first iteration). Repeats outward, loop by loop.
 *
 * Runs after storage flattening (buffers are Allocates, reads Loads) and before unrolling. */
Stmt hoist_invariant_productions(const Stmt &s);

} // namespace Internal
} // namespace loom
