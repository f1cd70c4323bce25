// Drops the productions nobody reads.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` without the production of any Func none of whose values is read, and without that
 * Func's allocation. A production is dead when every buffer it stores into is allocated in
 * `s` (not an output) and every load of those buffers lies inside the production itself (an
 * update reading its own Func) or inside another dead production; the greatest such set is
 * removed, so a Func read only by removed productions goes with them (an input's boundary
 * condition computed at root for a Func whose reads all folded away). A production that
 * holds an assertion or a call with an effect (other than a prefetch) is kept: its errors
 * must still be reported.
 *
 * Runs after storage flattening (reads are Loads) and simplification: a read that
 * simplification folds away (select(c, -81, -78) >> 8 is -1 whatever f(x) is inside c) makes
 * its producer dead, as Halide's lowering finds too. */
Stmt remove_dead_productions(const Stmt &s);

/** remove_dead_productions within the scope of each allocation in `s`, innermost first: a
 * production whose reads are gone from one copy of a loop nest goes from that copy, though
 * other copies of the nest (another loop partition's, another unrolled iteration's) still read
 * the Func and keep theirs. (Loop partitioning drops a guarded store where the guard fails, and
 * with it the only read of the Func computed for it there.) */
Stmt remove_dead_productions_per_allocation(const Stmt &s);

}  // namespace Internal
}  // namespace loom
