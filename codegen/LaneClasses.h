// A vector index that divides a ramp by a constant, as a few dense vectors interleaved: the
// shape Halide loads `f(x / 2)` in, with no run-time residue.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Lane i of the index is bases[lane_class[i]] + offsets[i]: a scalar base per class and
 * constant offsets. floor((b + o) / k) with o = k t + s is floor((b + s) / k) + t (Euclidean
 * division), so `ramp(b, 1, 8) / 2` is two classes, {b / 2, (b + 1) / 2}, with lanes
 * {0, 1, 0, 1, ...} and offsets {0, 0, 1, 1, 2, 2, 3, 3}. */
struct LaneClasses {
    std::vector<Expr> bases;
    std::vector<int> lane_class;
    std::vector<int64_t> offsets;
};

/** The index as classes, or nothing when it has another shape or no division by a constant in
 * [2, 8] (an index without one is a single class: LaneOffsets covers it). Built from Ramp,
 * Broadcast, Add, Sub, multiplication by a constant and one division by a constant. */
std::optional<LaneClasses> lane_classes(const Expr &index);

} // namespace Internal
} // namespace loom
