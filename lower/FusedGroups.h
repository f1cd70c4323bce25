// compute_with's groups: the Funcs whose stages share loops, found from the schedules, checked
// against Halide 14's rules (each error names both stages and says what to change), and put in
// the order lowering builds them.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "dsl/Function.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** A stage: a Func's name and its index (0: the pure definition, k: update k - 1). */
using StageRef = std::pair<std::string, int>;

/** Funcs whose stages compute_with joins, computed in one production. The stages form trees:
 * each stage computed with another (its parent) shares the parent's loops from its fuse level
 * outward, and runs inside the innermost of them after the parent's body. */
struct FusedGroup {
    /** The Funcs, the one whose stage runs first (whose production holds the group) first. */
    std::vector<std::string> funcs;
    /** Every stage of every Func of the group, in the order they run: each Func's stages in
     * order, and every stage after its parent. */
    std::vector<StageRef> stage_order;
    /** The stages computed with each stage, in stage_order's order. */
    std::map<StageRef, std::vector<StageRef>> children;
    /** For each stage computed with another: how many loops, outermost first, they share. */
    std::map<StageRef, int> shared_loops;
};

/** The variable of stage s's loop at `position`, outermost first, in version `def` of the
 * stage: "f.s0.y". */
std::string stage_loop_name(const StageRef &s, const Definition &def, int position);

/** The stage a stage's compute_with names (stage -1 of a Func means its pure definition), or
 * {"", -1} where it has none. */
StageRef fuse_parent(const Definition &def);

/** Finds the fused groups of the pipeline, checks them, and reorders env.order so that each
 * group's Funcs are adjacent (in the group's order) and after every Func any of them reads;
 * fills env.fused_members. Outputs count as computed at the root. */
std::vector<FusedGroup> find_fused_groups(Environment &env, const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
