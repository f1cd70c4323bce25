// The knobs of an automatic schedule that the heuristic scheduler turns one way and the
// autotuner (dsl/Autotune.h) tries every way: where each Func is computed, strip heights,
// register tiles, GPU blocks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace loom {
namespace Internal {
namespace autoschedule {

/** The decisions the heuristic makes that a search or the autotuner may make differently: each
 * is a knob with a few values, and any combination of values is a legal schedule (the
 * heuristic falls back to its own choice where a value asked for is not legal for that Func).
 * Printed and parsed as one line ("blur_x=row blur_y/strip=16 prod/1/tile=4x2"), the key of the
 * autotuner's database. */
struct Choices {
    /** Per Func that is not an output: "inline", "root", or computed in its consumer's strips
     * "strip" (once a strip), "row" (once a row) or "sliding" (per row, stored for the strip);
     * on the GPU, "shared": in its consumer kernel's blocks, in their shared memory. */
    std::map<std::string, std::string> placement;
    /** Per root Func that runs in strips: the rows of a strip. */
    std::map<std::string, int64_t> strip;
    /** Per update stage "func/k" whose pure loops run in any order: its register tile, rows x
     * vectors. */
    std::map<std::string, std::pair<int, int>> tile;
    /** Per stage "func/k" that runs as a GPU kernel: its threads a block and the points each
     * thread computes as a vector (GpuMapping.h). */
    std::map<std::string, std::pair<int, int>> gpu;

    std::string to_string() const;
    /** to_string()'s form; throws a CompileError naming the text on anything else. */
    static Choices parse(const std::string &text);
    bool operator==(const Choices &o) const {
        return placement == o.placement && strip == o.strip && tile == o.tile && gpu == o.gpu;
    }
};

/** The key of stage k of Func `func` among a Choices' per-stage knobs (tile, gpu): "func/k". */
inline std::string stage_key(const std::string &func, int k) {
    return func + "/" + std::to_string(k);
}

/** `a` with each knob that `b` turns away from `base`'s value turned as `b` has it: two
 * variations of `base` (from neighbours(base)) combined. */
Choices combine(const Choices &a, const Choices &b, const Choices &base);

/** The values each of `made`'s knobs may take (beside the one it has): the placements, strips of
 * a power of two rows from 1 to 256, tiles of powers of two with at most 32 accumulators, GPU
 * blocks of 32 to 1024 threads of 1 to 8 lanes. A schedule with GPU kernels places Funcs inline,
 * at root or in shared memory (a kernel has no strips to compute them in). */
std::vector<Choices> neighbours(const Choices &made);

} // namespace autoschedule
} // namespace Internal
} // namespace loom
