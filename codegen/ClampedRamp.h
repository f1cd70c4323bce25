// Vector indices that clamp a ramp, as boundary conditions (repeat_edge, clamp) make them: the
// clamp changes lanes only at the edges of the clamped range, so codegen tests at run time
// whether it changes any lane and loads without it when it does not.
#pragma once

#include <optional>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The first clamp of a ramp in a vector index, `max(min(ramp, lo..hi))` in either order of
 * min and max and of their operands, with broadcast bounds and a constant stride. */
struct ClampedRamp {
    /** True in exactly the iterations where every lane of the ramp lies in [lo, hi], so the
     * clamp leaves every lane as it is: a scalar Bool. */
    Expr all_lanes_inside;
    /** The index with that clamp replaced by its ramp: equal to the index wherever
     * all_lanes_inside holds. */
    Expr unclamped_index;
    /** Where the rest of the index is a broadcast (undefined otherwise): true where every
     * lane lies on one side of the clamp's range, at or below its lower bound or at or above
     * its upper one (with lower <= upper), so that the clamp gives that bound in every lane
     * and the index is outside_index, a broadcast: one element for every lane. Beyond the
     * edge of an image, where a boundary condition repeats the edge, whole vectors are so. */
    Expr all_lanes_outside;
    Expr outside_index;
};

/** The clamped ramp in `index`, or nothing when it has none. */
std::optional<ClampedRamp> find_clamped_ramp(const Expr &index);

/** A vector store whose value loads through clamped ramps at two or more offsets (the taps of
 * a stencil over a boundary condition): the store with every such clamp removed, and the
 * condition under which that is the same store, every clamped ramp lying inside its clamp's
 * range. One test per vector instead of one per load; the loads of the unclamped store may be
 * dense ones, and share them. */
struct UnclampedStore {
    Expr all_inside; // a scalar Bool
    Stmt store;
};

/** The store without its clamps, or nothing where its clamped loads test fewer than two
 * different conditions (loads of several channels at one offset: a second copy of the
 * store would cost compile time and save no test), or where a clamp's range depends on a
 * variable bound inside the value (a Let). */
std::optional<UnclampedStore> unclamp_loads(const Store *store);

} // namespace Internal
} // namespace loom
