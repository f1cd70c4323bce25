// The shape of a vector load's index, for codegen to choose between a dense load, dense loads
// plus a shuffle, and a gather.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** A vector index whose lane i is `base + offsets[residue][i]`: a scalar base plus constant
 * offsets, picked by a scalar residue in [0, modulus) when the index divides (or takes the
 * modulo of) a ramp by a constant. `ramp(b, s, n)` is {b, -, 1, {0, s, ..., (n-1)s}};
 * `ramp(b, 1, 4) / 2` is {b / 2, b % 2, 2, {{0, 0, 1, 1}, {0, 1, 1, 2}}}. Division and modulo
 * are Euclidean, so floor((q*k + r + o) / k) = q + floor((r + o) / k) holds for any base. */
struct LaneOffsets {
    Expr base;
    Expr residue;  // undefined when modulus == 1
    int modulus = 1;
    std::vector<std::vector<int64_t>> offsets;  // modulus rows of one entry per lane
};

/** The index as base + constant offsets, or nothing when it has another shape (a non-constant
 * stride, a Select, a lookup...). Built from Ramp, Broadcast, Add, Sub, multiplication by a
 * constant and one division or modulo by a constant in [2, 8]. */
std::optional<LaneOffsets> lane_offsets(const Expr &index);

}  // namespace Internal
}  // namespace loom
