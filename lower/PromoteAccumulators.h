// Keeps the points a serial loop updates again and again (a reduction's register tile) in a
// small buffer of constant size for the length of the loop, so that LLVM holds them in
// registers.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The largest tile moved into a local buffer: twice the sixteen 64-byte vectors that AVX-512
 * holds as accumulators (codegen places a constant allocation this small on the stack, where
 * SROA splits it into registers). */
constexpr int64_t kMaxAccumulatorBytes = 2048;

/** `s` with each serial loop L (outside any GPU loop) whose body updates a fixed tile of one
 * Func f rewritten as: the tile copied into a local buffer, L updating that buffer, the buffer
 * copied back. The tile lives in f's buffer at strides that are often known only at run time
 * (a tile of a strip as wide as the image), and LLVM then cannot tell its rows apart, so it
 * loads and stores every accumulator on every iteration of L (the reduction loop of a matrix
 * product: one load and one store beside each multiply-add). In the local buffer the
 * accumulators lie at constant offsets.
 *
 * L qualifies when its body is a nest of unrolled and vectorized loops of constant extents
 * (what a register tile is), lets and ifs without else, around one Provide to f (beside loops
 * that run no iteration: a split's empty tail), and:
 * - the Provide's coordinates, the ifs' conditions and the inner loops' bounds do not change
 *   with L (through the lets either), so every iteration of L updates the same points;
 * - each iteration of the inner loops updates a point of its own (the coordinates are
 *   affine in the inner loop variables with constant coefficients that do not overlap), so
 *   the local buffer is indexed by the iteration; an unrolled loop that no coordinate uses
 *   (a split of the reduction) updates the same points in turn, as it does in f;
 * - the value reads f only at the point it updates.
 * The copies in and out run the same inner loops under the same conditions, so they touch
 * exactly the points L updates: the bits are those of the loop as written. The tile is at
 * most kMaxAccumulatorBytes.
 *
 * Runs before storage flattening: the local buffer is an Allocate of constant size read and
 * written by Load and Store, which flattening leaves as they are. */
Stmt promote_accumulators(const Stmt &s);

} // namespace Internal
} // namespace loom
