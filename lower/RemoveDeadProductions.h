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

}  // namespace Internal
}  // namespace loom
