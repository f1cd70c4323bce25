// How many iterations a nest of loops with constant extents runs.
#pragma once

#include <cstdint>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The iterations of the innermost loops of s, counted through every serial or unrolled loop in
 * s whose extent has a constant upper bound over the loops and lets around it (a constant, or
 * an RDom's loop trimmed by its where(): `max(4 - max(r.y + 1, 0), 0)` for r.y in [0, 3]),
 * the largest count among sibling nests; 1 where s holds no loop; -1 where some loop in s has
 * no such bound or is of another kind (parallel, vectorized, GPU). A loop whose body is a nest
 * of a few constant iterations (an RDom of 2 x 2 taps) may be unrolled whole by LLVM like an
 * innermost one, leaving its consumer's loop innermost and vectorizable. */
int64_t constant_nest_iterations(const Stmt &s);

} // namespace Internal
} // namespace loom
