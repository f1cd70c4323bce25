// Loop rewinding, for sliding window (lower/SlidingWindow.h): a serial loop over which Funcs
// slide starts a few iterations early, so that every iteration, the first included, computes
// only the rows past the previous one's (Halide 14's warm-up). The early iterations compute
// those Funcs' first rows and nothing else: every other statement in the loop's body is
// guarded to run from the loop's original first iteration.
#pragma once

#include <set>
#include <string>

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** Whether the Funcs `slid` (each computed in `body`) may warm up in early iterations of a
 * loop with that body: no other Func they read, directly or not, is computed in it (its
 * region there would follow the loop's early iterations, which bounds inference never saw). */
bool can_rewind(const Stmt &body, const std::set<std::string> &slid, const Environment &env);

/** The loop started `iterations` earlier and renamed `<name>.$w` (print_loop_nest shows it as
 * `<var>.`, as Halide 14's shows its rewound loops), its body guarded so that only the
 * productions of `slid` (and what holds them) run before the original first iteration. */
Stmt rewind_loop(const For *loop, int64_t iterations, const std::set<std::string> &slid);

} // namespace Internal
} // namespace loom
