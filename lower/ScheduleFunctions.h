// Builds the first loop nest of a pipeline from its Funcs and their schedules: a loop nest
// per computed stage (one for the stages a compute_with group shares, lower/StageNest), placed
// at the Func's compute level, a Realize (storage) around it at its store level, and the
// definitions of inlined Funcs substituted into their callers.
//
// Loop variables are named <func>.s<stage>.<var>; each loop runs over
// [<func>.s<stage>.<var>.min, <func>.s<stage>.<var>.max], which bounds inference defines.
#pragma once

#include <vector>

#include "dsl/Function.h"
#include "lower/FindEnvironment.h"
#include "lower/FusedGroups.h"

namespace loom {
namespace Internal {

Stmt schedule_functions(const std::vector<FunctionPtr> &outputs, const Environment &env,
                        const std::vector<FusedGroup> &groups);

/** Whether f is fused into its callers rather than computed into a buffer. */
bool is_inlined(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
