// Defines the region each stage computes: the loop bounds <func>.s0.<var>.min/.max of every
// Func. An output covers its output buffer; any other Func covers exactly the box its
// consumers read, computed by interval arithmetic over the consumers' loops where the Func
// is realized. Lets for a Func's bounds are placed just outside its Realize, so they may use
// any loop variable around it.
#pragma once

#include <vector>

#include "dsl/Function.h"

namespace loom {
namespace Internal {

Stmt bounds_inference(const Stmt &s, const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
