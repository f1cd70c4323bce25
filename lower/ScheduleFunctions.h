// Builds the first loop nest of a pipeline from its Funcs and their schedules: a loop nest
// per computed stage, a Realize (storage) around each Func computed at root, and the
// definitions of inlined Funcs substituted into their callers.
//
// Loop variables are named <func>.s<stage>.<var>; each loop runs over
// [<func>.s<stage>.<var>.min, <func>.s<stage>.<var>.max], which bounds inference defines.
#pragma once

#include <vector>

#include "dsl/Function.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

Stmt schedule_functions(const std::vector<FunctionPtr> &outputs, const Environment &env);

/** Whether f is fused into its callers rather than computed into a buffer. */
bool is_inlined(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
