// Func::in's wrappers take over the calls they were made for.
#pragma once

#include "dsl/Function.h"

namespace loom {
namespace Internal {

/** Rewrites the calls in `caller`'s definitions (values, arguments, where() conditions and
 * specializations) to each Func that has wrappers: to the wrapper made for `caller`
 * (f.in(caller)), else to the global one (f.in()), as Halide 14 does. A wrapper's own calls to
 * the Func it wraps stay. The Funcs no longer called directly are kept alive by `caller`.
 * Idempotent: once redirected, a call reads the wrapper, which has none for it. Run on every
 * Func as the environment is collected, so that every pass sees the wrappers. */
void redirect_to_wrappers(const FunctionPtr &caller);

} // namespace Internal
} // namespace loom
