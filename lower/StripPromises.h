// Drops the promises that only bounds inference and the image checks read, and the tags only
// memoization reads.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` with each promise_clamped(v, lo, hi) replaced by v. The promise narrows v's bounds for
 * the passes that take boxes (bounds inference, sliding window, the image checks, prefetches);
 * after them it would only hide v from the simplifier and code generation, which see through
 * arithmetic but not through calls. */
Stmt strip_promises(const Stmt &s);

/** `s` with each memoize_tag(value, tags...) replaced by value. Memoization reads the tags from
 * the Funcs' definitions (lower/Memoize.h), never from the loop nest, where a tag would hide
 * the value from every pass. */
Stmt strip_memoize_tags(const Stmt &s);

} // namespace Internal
} // namespace loom
