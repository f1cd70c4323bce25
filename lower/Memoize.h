// Func::memoize: a memoized Func's production runs only where the process-wide cache has no
// region for its key; the region computed is stored there for the runs after.
#pragma once

#include <vector>

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** s (after storage flattening) with each memoized Func's production wrapped as
 *   if (!memoize_lookup(f, buffer, bytes, key...)) { produce f {...}; memoize_store(...) }
 * where the key holds a hash of the production (so that two pipelines' Funcs of one name
 * differ), the region (its mins and extents), and every Param and input buffer (address and
 * shape) the Func depends on, through its producers, except those read only inside memoize_tag,
 * whose key values (its tags, or its value where it has none) stand for them. A memoized Func must
 * be computed at the root, not be an output and not have folded storage (errors name it). */
Stmt inject_memoization(const Stmt &s, const Environment &env,
                        const std::vector<FunctionPtr> &outputs);

/** The let inject_memoization binds around a memoized Func's production (1 where the cache
 * held its region): with the production, the unit that computes the Func. */
std::string memoization_hit_name(const std::string &func);

} // namespace Internal
} // namespace loom
