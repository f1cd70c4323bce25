// Constant indices for an allocation's loads and stores that are constant only through lets.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Each load and store of an allocation of constant size whose index, with the values of the
 * enclosing lets substituted and simplified, is a constant (or a ramp from a constant with a
 * constant stride) gets that as its index. A tile of accumulators computed at a consumer's loop
 * is written at constant indices by its unrolled update, but read by the consumer at
 * (consumer x - tile min x) + width * (consumer y - tile min y), constant only through the
 * lets that define both. With every access constant, LLVM splits the tile into values from
 * its first pass (SROA) instead of leaving it in memory for LICM to promote loop by loop,
 * comparing each of its loads and stores with every other (matmul's task: O3 ~11 ms less of
 * ~28). Runs last: unrolling and vectorization make the indices it folds.
 *
 * First, a serial loop of constant extent from a variable min whose body indexes such an
 * allocation by its variable (a Func computed per point over the few points around it) runs
 * from 0, its variable plus the min substituted in the body and the allocation's indices
 * simplified: they become the loop variables plus constants, constants once LLVM unrolls. */
Stmt fold_allocation_indices(const Stmt &s);

} // namespace Internal
} // namespace loom
