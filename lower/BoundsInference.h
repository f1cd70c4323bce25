// Defines the region each stage computes: the loop bounds <func>.s<k>.<var>.min/.max of every
// stage of every Func. An output covers its output buffer. Any other Func's update stages
// cover the box its consumers read; its pure stage covers that box plus everything its
// updates read or write of it. Boxes come from interval arithmetic over the consumers' loops
// where the Func is realized. Lets for a Func's bounds are placed just outside its Realize, so
// they may use any loop variable around it; the Realize itself covers what the stages write.
#pragma once

#include <vector>

#include "dsl/Function.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

Stmt bounds_inference(const Stmt &s, const std::vector<FunctionPtr> &outputs, const Environment &env);

}  // namespace Internal
}  // namespace loom
