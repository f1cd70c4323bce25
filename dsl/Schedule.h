// The schedule recorded on a Func: where it is computed and stored, and how each stage's
// loops are split, ordered and run. The directives of Func write these structures; lowering
// reads them. Nothing here affects what a Func computes, only how.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dsl/IR.h"

namespace loom {

class Func;
class VarOrRVar;

/** Where a loop runs: the schedule's GPU directives take one (Halide's DeviceAPI). */
using DeviceAPI = Internal::DeviceAPI;
/** Where a Func's storage lives (Func::store_in; Halide's MemoryType). */
using MemoryType = Internal::MemoryType;

/** What a split does with the iterations past a multiple of the factor. Predicate,
 * PredicateLoads and PredicateStores are Halide's names for guarding the tail's loads and
 * stores; Loom guards them as GuardWithIf does (the same values, where Halide's are defined:
 * Halide's PredicateLoads / PredicateStores also constrain the output / input sizes). */
enum class TailStrategy {
    Auto,
    GuardWithIf,
    ShiftInwards,
    RoundUp,
    Predicate,
    PredicateLoads,
    PredicateStores
};

/** What a prefetch does with the part of its region outside the buffer: shrink the region to
 * the buffer (Clamp), skip the prefetch when any of it is outside (GuardWithIf), or prefetch it
 * anyway (NonFaulting: prefetch instructions never fault on x86). Halide's names. */
enum class PrefetchBoundStrategy { Clamp, GuardWithIf, NonFaulting };

/** A place in the loop nest: inside no loop (root), fused into each use (inlined), or inside
 * loop `var` of Func `func`.
 *
 * A handle, as Halide 14's: copies share one place, and set() moves every copy, so that a
 * schedule may name a LoopLevel (a Generator's LoopLevel parameter, say) whose place is given
 * later. Lowering locks the levels it reads: after it, set() is refused. A default-constructed
 * level is undefined until set(); lowering refuses a Func placed at one. */
class LoopLevel {
public:
    /** Undefined until set() (Halide's default). */
    LoopLevel();
    static LoopLevel root() { return LoopLevel(Kind::Root, "", "", -1); }
    static LoopLevel inlined() { return LoopLevel(Kind::Inlined, "", "", -1); }
    LoopLevel(const std::string &func, const std::string &var, int stage = -1)
        : LoopLevel(Kind::At, func, var, stage) {}
    /** Loop `var` of Func f; stage -1 means the first stage of f that reads the Func placed
     * there (Halide's LoopLevel(f, v)). */
    LoopLevel(const Func &f, const VarOrRVar &var, int stage = -1);

    bool defined() const { return contents->kind != Kind::Undefined; }
    bool is_root() const { return contents->kind == Kind::Root; }
    bool is_inlined() const { return contents->kind == Kind::Inlined; }
    const std::string &func() const { return contents->func_name; }
    const std::string &var() const { return contents->var_name; }
    int stage_index() const { return contents->stage; }
    std::string to_string() const;

    /** Makes this level, and every copy of it, the place `other` names. A locked level
     * refuses (a pipeline lowered with it would not follow). */
    void set(const LoopLevel &other);
    /** Lowering's: no set() after it. An undefined level is an error. */
    LoopLevel &lock();
    bool locked() const { return contents->locked; }
    /** Whether `loop` (a lowered loop's name, "f.s0.x.xi") is this level's loop: of its Func
     * (and stage, if it names one), ending in its Var. */
    bool match(const std::string &loop) const;
    /** Whether the two name the same loop, one Var's name possibly ending the other's. */
    bool match(const LoopLevel &other) const;

    /** The same place (not necessarily the same handle). */
    bool operator==(const LoopLevel &o) const {
        return contents->kind == o.contents->kind && func() == o.func() && var() == o.var() &&
               stage_index() == o.stage_index();
    }
    bool operator!=(const LoopLevel &o) const { return !(*this == o); }

private:
    enum class Kind { Undefined, Inlined, Root, At };
    LoopLevel(Kind k, std::string f, std::string v, int s);
    struct Contents {
        Kind kind;
        std::string func_name, var_name;
        int stage;
        bool locked = false;
    };
    std::shared_ptr<Contents> contents;
};

/** How compute_with lines up a stage's loop with its parent's where their bounds differ
 * (Halide 14's names): shift the stage's iterations so that its first (AlignStart) or last
 * (AlignEnd) one meets the parent's, or leave the loop variables equal (NoAlign). Auto is
 * NoAlign, as in Halide 14. */
enum class LoopAlignStrategy { AlignStart, AlignEnd, NoAlign, Auto };

namespace Internal {

/** compute_with: this stage shares its loops from `level` (a loop of the parent stage) outward
 * with the parent, and runs after the parent's body in the innermost shared loop. `align`
 * names, by the user's loop names, how each shared loop lines up. An inlined level: none. */
struct FuseLevel {
    LoopLevel level = LoopLevel::inlined();
    std::vector<std::pair<std::string, LoopAlignStrategy>> align;
    /** The strategy of the shared loops `align` does not name. */
    LoopAlignStrategy default_align = LoopAlignStrategy::Auto;
};

/** One loop-splitting step of a stage: split old_var into outer * factor + inner, fuse two
 * vars into one, or rename one. */
struct Split {
    enum Kind { SplitVar, FuseVars, RenameVar };
    Kind kind = SplitVar;
    std::string old_var, outer, inner;
    Expr factor;
    // A SplitVar's is never Auto: Stage::split resolves Auto as Halide 14 does when the split
    // is made (the table above auto_tail in dsl/Stage.cpp), so lowering reads it as given.
    TailStrategy tail = TailStrategy::Auto;
};

/** One loop of a stage, innermost first (Halide's order). */
struct Dim {
    std::string var;
    ForType for_type = ForType::Serial;
    DeviceAPI device_api = DeviceAPI::Host;
    bool is_rvar = false;
};

/** A user-given bound on a pure dimension: the Func is computed over exactly [min, min+extent). */
struct Bound {
    std::string var;
    Expr min, extent; // min undefined (bound_extent): the first point the consumers read
};

/** prefetch(image or Func, at, from, offset): at the top of each iteration of loop `at`, bring
 * into the cache the region of the image (or the Func's buffer) that the body of `at` reads
 * when loop `from` (at or outside `at`) is `offset` iterations further on. `at` and `from` are the
 * names the user gave; they are matched to the stage's loops when it is lowered, as other
 * directives' names are. */
struct PrefetchDirective {
    // What is prefetched: an input image, or the buffer of a Func that is computed into one
    // (exactly one of the two is set).
    std::shared_ptr<ParameterContents> image;
    std::shared_ptr<Internal::FunctionContents> func;
    std::string at, from;
    Expr offset;
    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf;
};

/** The name of the image or Func that p prefetches. */
const std::string &prefetched_name(const PrefetchDirective &p);

/** Whether `name`, as a user names a loop of a stage, names `loop` (a stage's Dim var): equal,
 * or its last components. Loop names are qualified by the loops they were split from
 * ("x.xo.xi"), so "xi" matches "x.xi". */
bool loop_name_matches(const std::string &loop, const std::string &name);

/** A stage's loops as errors list them, outermost first: "y, x.xo, x.xi" ("(none)"). */
std::string loops_outermost_first(const std::vector<Dim> &dims);

struct StageSchedule {
    std::vector<Split> splits;
    std::vector<Dim> dims;  // innermost first
    std::vector<PrefetchDirective> prefetches;
    /** Stage::allow_race_conditions: the user vouches that the RVar loops made parallel or
     * vectorized after it write disjoint elements, which the checks at those directives could
     * not prove. */
    bool allow_race_conditions = false;
    /** Stage::atomic: each of the stage's stores updates its element atomically (a read, the
     * new value from it, and a store that happens only where the element did not change in
     * between), so that iterations that update one element may run at once. */
    bool atomic = false;
    FuseLevel fuse_level;
    /** Whether any directive named this stage (Halide's touched()): lowering warns about an
     * update left unscheduled while the Func's other stages were scheduled. Changes no code. */
    bool touched = false;
};

/** align_bounds / align_extent: the region computed in `var` is widened so that its extent is
 * a multiple of `modulus` and, for align_bounds, its min is `remainder` modulo `modulus`
 * (`remainder` undefined: the min is left where it is). */
struct BoundAlignment {
    std::string var;
    Expr modulus, remainder;
};

/** align_storage: the storage of dimension `var` is padded to a multiple of `alignment`
 * elements, so that the strides of the dimensions outside it are multiples of it. */
struct StorageAlignment {
    std::string var;
    Expr alignment;
};

/** bound_storage: the storage of dimension `var` is `bound` elements, whatever region bounds
 * inference gives it (a run whose region is larger stops with an error). */
struct StorageBound {
    std::string var;
    Expr bound;
};

/** fold_storage: dimension `var` of the buffer is stored modulo `extent`. */
struct StorageFold {
    std::string var;
    Expr extent;
};

struct FuncSchedule {
    LoopLevel compute_level = LoopLevel::inlined();
    LoopLevel store_level = LoopLevel::inlined(); // follows compute_level unless set
    std::vector<Bound> bounds;
    /** Hints of the region a Func will be realized over, for auto-schedulers; no effect on
     * the code. */
    std::vector<Bound> estimates;
    /** The pure Vars in storage order, innermost (stride 1) first; empty means args order. */
    std::vector<std::string> storage_order;
    std::vector<StorageFold> folds;
    std::vector<BoundAlignment> alignments;
    std::vector<StorageAlignment> storage_alignments;
    std::vector<StorageBound> storage_bounds;
    MemoryType memory_type = MemoryType::Auto; // store_in
    /** Func::memoize: the computed region is kept between runs (lower/Memoize.h), keyed by the
     * region and every Param and input buffer the Func depends on; eviction_key (optional, an
     * integer or handle Expr) tags the entries for loom_memoization_cache_evict. */
    bool memoized = false;
    Expr eviction_key;
    /** Func::async: the Func's productions run as a task of their own, beside the work that
     * consumes them (lower/AsyncProducers.h). */
    bool async = false;
    /** Func::debug_to_file: the file each realization's values are written to when it ends
     * (runtime/loom_debug_to_file.c); empty for none. */
    std::string debug_file;
};

}  // namespace Internal
}  // namespace loom
