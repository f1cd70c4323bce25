// Turns each Vectorized loop into straight-line vector code: the loop variable becomes the
// vector ramp(min, 1, lanes), and every expression that depends on it becomes a vector of that
// many lanes (loads and stores with a ramp index are dense; others become gathers and
// scatters). A body whose control flow depends on the loop variable (a guard inside it) runs
// the lanes as a scalar loop instead, which is always correct.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

Stmt vectorize_loops(const Stmt &s);

}  // namespace Internal
}  // namespace loom
