// Sliding window: a Func stored outside a serial loop but computed inside it need not
// recompute, in each iteration, what earlier iterations already stored. Where the region an
// iteration needs moves forward monotonically in one dimension (a stencil walking down rows,
// an upsampling reading rows y / 2 and (y + 1) / 2), each iteration after the first computes
// only the part past what the previous one computed, in every stage: the pure definition
// and each update, which must write and read the Func only at its own pure Var in the slid
// dimension (an update that scatters along it through an RDom, or reads another row of the
// Func, keeps the whole region recomputed). A dimension some stage's schedule splits slides
// in whole blocks of the rows each iteration computed before the slide (a ShiftInwards block
// ends at the region's max, a RoundUp block starts on the region's own grid), so no split loop
// computes past the storage or the inputs bounds inference sized. A dimension fused as the
// outer part of a serial loop that is not split again slides as if unfused (the fused loop
// runs over whole rows); one fused otherwise, mapped to a non-serial loop unsplit, folded by
// fold_storage and split, or split by several RoundUp factors is not slid.
// The first iteration computes its whole region; or, where every Func slid over a loop moves
// by a constant number of rows an iteration over a window of constant length (its slid
// dimension unsplit) and reads no other Func computed in the loop, the loop starts early
// instead (lower/RewindLoop.h): its early iterations warm the window up, and every iteration
// computes only the rows past the previous one's, as Halide 14's loop rewinding does.
// Also checks, for fold_storage, that one iteration's window fits in the fold.
#pragma once

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

Stmt sliding_window(const Stmt &s, const Environment &env);

}  // namespace Internal
}  // namespace loom
