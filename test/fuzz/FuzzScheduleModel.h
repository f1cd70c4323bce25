// The schedule generator's model of a pipeline under construction (FuzzScheduleGenerator.h): each
// stage's loops (names, extents where known, loop types, the order of RVars, what splits made
// them) and each Func's placement, from which it decides which directive is legal next.
#pragma once

#include <string>
#include <vector>

#include "FuzzIR.h"

namespace loom_fuzz {

enum class LT { Serial, Parallel, Vectorized, Unrolled };

/** The model's name of a loop no directive can name: the inner loop of vectorize(x, n),
 * unroll(x, n) and parallel(x, n), which Loom names as Halide does, after a fresh Var ("x.v7"). */
inline const std::string kUnnamedLoop = "#unnamed";

struct LoopM {
    std::string name;
    bool rvar = false;
    std::vector<int> key;  // RVar loops: outer loops of the reduction have smaller keys
    long extent = -1;      // known extent, -1 when it depends on the region
    bool is_const = false; // a compile-time constant
    LT type = LT::Serial;
    bool par_ok = true;   // RVar loops: iterations may run at once
    bool derived = false; // made by a split, fuse or rename
    // Descends (through splits and renames) from the outer loop of a ShiftInwards split: Auto
    // rounds its splits up (Halide's rule), while an explicit ShiftInwards would start whole
    // blocks before the region, reading inputs beyond the margins the fuzzer allocates.
    bool in_shifted_blocks = false;
    bool fused_shifted = false; // a fuse of such a loop: the rule does not see through it
    long shifted_factor = 0;    // in_shifted_blocks: that ShiftInwards split's factor
    // Lies inside the inner loop of a split (an inner loop, its parts, renames, fuses with it):
    // in an update, Auto guards it instead of rounding it up (Halide's rule).
    bool inside_inner = false;
    int dim = -1;  // the pure dimension it iterates over (a fuse: its outer one); -1 for RVars
    long unit = 1; // points of that dimension per iteration (a split's outer loop: factor x)
};

struct StageM {
    bool update = false;
    bool output = false;
    bool rvars_commute = false;  // f = f op e, op associative: RVars may be reordered
    bool reorder_rounds = false; // ... and op is float + or *: reordered, it rounds differently
    bool atomic = false;         // Stage::atomic: every RVar loop may run its iterations at once
    std::vector<LoopM> loops;   // innermost first, as Loom keeps them
    int fresh = 0;
    // Points the rounding splits of the Func's stages may add, per pure dimension: shared by all
    // of them, since the pure stage covers what a rounded-up update writes and rounds again.
    std::shared_ptr<std::map<int, long>> rounded = std::make_shared<std::map<int, long>>();
    // The blocks (points) the rounding splits of the Func's stages round each pure dimension
    // to, shared as `rounded`. An output's buffer grows until every stage's blocks fit it: to
    // a common multiple of them, past the margins where they don't divide each other (blocks
    // of 16 and of 3 round 100 points to 144: fuzz seed 8201 pair 23).
    std::shared_ptr<std::map<int, std::vector<long>>> blocks =
        std::make_shared<std::map<int, std::vector<long>>>();
};

struct ChainElem {
    int ent = 0, stage = 0;
    std::string loop;
    bool nameable = true;
    bool is_loop = true; // false for Var::outermost() of a stage
    LT type = LT::Serial;
    bool same(const ChainElem &o) const {
        return ent == o.ent && stage == o.stage && loop == o.loop;
    }
};
using Chain = std::vector<ChainElem>;

struct EntM {
    std::string name;
    bool real = true; // a Func the schedule can name
    bool output = false;
    bool has_updates = false;
    // An extern stage: computed (never inlined) like a Func with updates, without loops of its
    // own to schedule or to compute others at; not shared, wrapped, made async or traced.
    bool is_extern = false;
    int dims = 0;
    std::vector<std::vector<int>> refs;    // per stage: the entities it reads directly
    std::vector<std::vector<int>> reduces; // per stage: its inline reductions (pseudo entities)
    std::vector<StageM> stages;
    enum State { Undecided, Inlined, Computed } state = Undecided;
    Chain place; // the loops around its computation
    // Placed by Loom's default (unscheduled, with updates): at the innermost loop around the
    // uses that survive simplification, which may be deeper than the model's (an update whose
    // where() never holds drops its uses).
    bool default_placed = false;
    bool stored_outside = false; // store_root / store_at a loop outside its computation
    bool shares_loops = false;   // in a compute_with pair
};

} // namespace loom_fuzz
