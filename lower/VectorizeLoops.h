// Turns each Vectorized loop into straight-line vector code: the loop variable becomes the
// vector ramp(min, 1, lanes), and every expression that depends on it becomes a vector of that
// many lanes (loads and stores with a ramp index are dense; others become gathers and
// scatters). Storage allocated inside the loop (an inline reduction's accumulator, a Func
// computed per point) gets one copy per lane, so its accesses are vectors too; a serial loop
// inside (an RDom's) stays a loop whose body runs all lanes at once, its min may differ per
// lane. A body whose control flow depends on the loop variable (a guard inside it, an inner
// loop whose extent differs per lane) runs the lanes as a scalar loop instead, which is always
// correct.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

Stmt vectorize_loops(const Stmt &s);

}  // namespace Internal
}  // namespace loom
