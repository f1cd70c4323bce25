// The heuristic scheduler's choices for a reduction's inner loops on the CPU: the register tile
// its RVars accumulate in, and the blocks its innermost RVar runs in so that the reads the
// tiles share stay in L1.
#pragma once

#include <string>

#include "dsl/Stage.h"
#include "lower/autoschedule/Choices.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {

/** A reduction's register tile: `cols` vectors along pure dimension 0 by `rows` points of pure
 * dimension `row_dim`, accumulated in registers across the RVars' loops, which run inside it.
 * rows == 1 and cols == 1: one vector, no tile. */
struct RegisterTile {
    int row_dim = -1;
    int rows = 1, cols = 1;
};

/** An RVar split into blocks (block_reduction): `outer` over the blocks, `inner` within one. */
struct ReductionBlock {
    std::string rvar, outer, inner; // rvar empty: not split
};

/** The largest power of two at most v (1 for v < 2). */
int64_t floor_pow2(int64_t v);

/** Lanes of a vector of n's narrowest value on `machine`. */
int vector_lanes(const FuncNode &n, const MachineModel &machine);

/** Whether every pure loop of stage k may run in any order: then its RVars may go inside
 * them all (a register tile's place). */
bool pure_loops_independent(const FuncNode &n, int k);

/** The register tile for update stage k of n over `region` (the points it is computed over at
 * once), by the loads per fused multiply-add it leaves: in a tile of R rows by C vectors, per
 * step of the RVars, a read that moves along both dimensions loads R * C vectors, one along
 * dimension 0 only C (reused by the R rows), one along the row dimension only R broadcasts
 * (reused by the C vectors), while the tile does R * C vector operations; counted over the
 * region's rows, the last tile holding what is left of them. Among tiles of as many loads an
 * operation, the fewest bytes loaded an operation (a broadcast loads one value, a vector load
 * a whole vector). The tile's accumulators, its C vectors loaded and one broadcast fit in the
 * vector registers: with AVX2's 16 a matrix product (A(k, y) * B(x, k)) gets 6 rows by 2
 * vectors (8 loads for 12 operations; 8 accumulators, 4 x 2, leave the two FMA units waiting
 * on their latency), with AVX-512's 32, 6 by 4. C is a power of two (vectors that divide the
 * widths of images and matrices); R any count within the region's rows. The row dimension is
 * the first pure dimension after 0.
 * No tile for a stage that is not a reduction or whose pure loops do not all run in any order
 * (the RVars go inside them). `asked`'s tile for the stage replaces it where the region and
 * the registers hold it. */
RegisterTile choose_register_tile(const FuncNode &n, int k, const Region64 &region,
                                  const MachineModel &machine, const Choices &asked);

/** Splits the innermost RVar of update k into blocks whose reads that the register tiles of
 * one block share (they move along the RVar and along dimension 0, not along the rows: B's
 * rows in A * B) fit in half of L1, where the RVar is longer than that. The block's loop then
 * goes outside the pure loops: each block of B is read from L1 by every tile of rows, instead
 * of from as far as its whole length lies (a matrix product's strip of B is K rows apart by the
 * width of B, which L2's sets can't all hold). Each point still sums over the RVar in order. */
ReductionBlock block_reduction(Stage stage, const FuncNode &n, int k, const RegisterTile &t,
                               const MachineModel &machine);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
