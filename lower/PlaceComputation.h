// Where each Func's computation and storage go in the loop nest its consumers built: the loop
// levels a schedule names resolved to loops, the levels that are legal, and the checks of a
// placement once made, each failure an error that names the Func and the legal locations.
#pragma once

#include <functional>
#include <string>

#include "dsl/Function.h"
#include "dsl/Schedule.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** Whether the loop nest built so far reads Func `name`. */
bool is_called(const std::string &name, const Stmt &nest);

/** The levels f may be computed at in `nest` (the loops around every read of it), as the user
 * names them, outermost first: "root, g.y, g.x". */
std::string legal_levels(const FunctionPtr &f, const Stmt &nest);

/** The innermost loop around every read of f in `nest`, or root where there is none: where a
 * Func with updates that the schedule inlines is computed, as Halide does. Never inside the
 * storage of an async Func whose productions read f: those run ahead of the work beside them. */
LoopLevel innermost_use(const FunctionPtr &f, const Stmt &nest, const Environment &env);

/** A loop level as the user gave it (a Func and a Var's name) resolved to the loop of the stage
 * it names; a level that names no stage means the first stage of the consumer that reads f,
 * which `stage_reads(g, k)` tells. Errors name f, the `directive` ("compute_at") and the legal
 * levels. */
LoopLevel resolve_level(const LoopLevel &level, const FunctionPtr &f, const Environment &env,
                        const std::function<bool(const FunctionPtr &, int)> &stage_reads,
                        const char *directive, const Stmt &nest);

/** Checks f's placement in `nest` (its storage and production injected at `store` and
 * `compute`): no parallel loop between its storage and its production, and no read of it
 * outside its production's loop. `nest_before` is the nest before the injection, for the legal
 * levels the errors list. */
void check_placement(const FunctionPtr &f, const LoopLevel &compute, const LoopLevel &store,
                     const Stmt &nest, const Stmt &nest_before);

} // namespace Internal
} // namespace loom
