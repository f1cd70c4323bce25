// Random legal schedules. The generator keeps a model of every stage's loops (names, extents
// where known, loop types, and for RVars their order) and of where each Func is computed, and
// only emits a directive that the model says is legal:
//
// - compute_at / store_at name a loop around every use of the Func (after inlining), never a
//   vectorized loop or one inside a vectorized loop; storage outside a parallel loop only for
//   Funcs without update definitions (their recomputation writes identical values), and none
//   for a Func computed inside one Loom places by default;
// - a Func with update definitions is computed (compute_root, compute_at, or Loom's default,
//   the innermost loop of its one user); a Func whose pure definition holds an inline
//   reduction is inlined only into a single user stage;
// - splits: RoundUp only in pure definitions of non-outputs; ShiftInwards only in pure
//   definitions, and in outputs only where the loop's extent is at least the factor; updates
//   use GuardWithIf or Auto (which rounds their pure loops up, as Halide's does: the points
//   computed beyond the region count against the inputs' margins, and outputs are realized
//   after a bounds query); no split by a factor at least a constant extent;
// - RVar loops keep their relative order (a reordered reduction is a different reduction), and
//   run in parallel or vectorized only when the RVar is a bare argument on the left and the Func
//   is read only at the left-hand side's coordinates (Loom's race rule), or the update is
//   atomic() (its RVars commute);
// - a wrapper (f.in(g), computed at the root) of a Func computed at the root, for one stage
//   that reads it directly; store_in(MemoryType::Heap) on any computed Func;
// - async() on a computed Func not sharing loops (compute_with), whose storage is where it is
//   computed, or whose producers are all computed at the root or inside it: its producer task
//   reads nothing the consumer task computes beside it;
// - vectorize / unroll without a factor only on loops of constant extent (<= 16 / <= 8).
//
// The generator is one class, its methods in three files: FuzzScheduleGen.cpp (the entities,
// where their uses are, where each is computed and stored), FuzzScheduleLoops.cpp (each stage's
// loop directives) and FuzzScheduleSharing.cpp (compute_with, wrappers, store_in, async).
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "FuzzIR.h"
#include "FuzzIRQueries.h"
#include "FuzzLoopModel.h"
#include "FuzzRng.h"
#include "FuzzScheduleModel.h"

namespace loom_fuzz {

inline const char *const kVar[] = {"x", "y", "z"};
inline const char *const kRVar[] = {"x", "y", "z", "w"};

class ScheduleGen {
public:
    ScheduleGen(const PipelineDesc &p, uint32_t seed, bool baseline,
                const std::set<std::string> &avoid)
        : p(p), r(seed), trace_rng(seed ^ 0x74726163u), atomic_rng(seed ^ 0x61746f6du),
          async_rng(seed ^ 0x6173796eu), wrap_rng(seed ^ 0x77726170u), baseline(baseline),
          avoid(avoid) {}

    Schedule run();

private:
    const PipelineDesc &p;
    Rng r;
    // Tracing draws from a stream of its own, so that the other choices (and every reproducer
    // written before tracing was fuzzed) stay what they were for a seed.
    Rng trace_rng;
    Rng atomic_rng; // atomic() too: a stream of its own, for the same reason
    Rng async_rng;  // and async()
    Rng wrap_rng;   // and wrappers and store_in
    bool baseline;
    const std::set<std::string> &avoid;
    Schedule s;
    std::vector<EntM> ents;

    // ---- compute_with.

    // Whether entity `from` reads `to`, directly or through others.
    bool reads(int from, int to) const;

    static bool same_place(const Chain &a, const Chain &b);

    // How many outer loops of the pure stages of a and b have the same names and kinds (none
    // vectorized or unrolled): the loops compute_with may share.
    int matching_outer_loops(int a, int b) const;

    // Last, once every stage's loops are final: a Func computed where another is (both at the
    // root, or at one loop), neither reading the other, shares some of that one's outer loops
    // of the same names and kinds (compute_with, in pairs).
    void share_loops();

    // ---- Wrappers and store_in, last: neither changes where the model's Funcs are computed.

    void wrap_and_store();

    // ---- async().

    // Last: a Func computed where the schedule put it (not by Loom's default), outside any
    // compute_with pair, runs its productions as a task of its own. Stored outside its
    // computation, its producers must be computed at the root or inside it: one computed
    // between its storage and its computation would be computed by the consumer task
    // (Loom refuses that schedule).
    void make_async();

    // ---- The entities and what they read.

    int entity_of(const Callee &c) const;

    void collect(const Node &n, int owner, int stage);

    void build_entities();

    // ---- Where uses are.

    void expand(const std::vector<int> &refs, std::set<int> &out) const;

    /** The computed stages that read entity e once inlined Funcs are substituted. */
    std::vector<std::pair<int, int>> readers(int e) const;

    /** The loops around the body of stage k of computed entity g, outermost first. */
    Chain chain(int g, int k) const;

    // ---- Decisions per entity, consumers first.

    /** The loops around every use: the common prefix of the readers' chains. */
    Chain common_prefix(const std::vector<std::pair<int, int>> &rd) const;

    /** Where Loom puts a Func with updates that is not scheduled (and an inline reduction):
     * the innermost loop around all its uses, or root. */
    static Chain default_place(Chain common);

    void decide(int e);

    void add_func_directive(Directive::Kind k, int e);

    Directive level_directive(Directive::Kind k, int e, const ChainElem &at);

    /** store_root or store_at a loop outside the compute_at level: never outside a parallel
     * loop around the computation (Loom and Halide reject that race), never inside a
     * vectorized loop. */
    void choose_storage(int e);

    /** The inline reductions of e are computed at the innermost loop of the stage that holds
     * them, or, when e is inlined, where Loom puts an unscheduled Func with updates. */
    void place_reductions(int e, const Chain &inlined_place);

    // ---- Loops.

    void init_loops(int e);

    /** Whether every output moves with Func f's values by rounding only (see
     * moves_by_rounding_with): each Func reading f, f's own definitions included, reads it so
     * and, where it is another Func, its own readers read it so in turn. */
    bool outputs_round_with(int f) const;

    /** Loom's (and Halide's) rule for reordering RVars: a single value f(lhs) op e, op one of
     * + * min max & | ^, with e not reading f. (Halide's other case, a value that uses no RVar,
     * the generator leaves out: its pipelines' update values nearly always use one.) */
    bool order_independent(int f, const UpdateDesc &u) const;

    bool rvar_race_free(int f, const UpdateDesc &u, int rdim) const;

    std::string fresh(StageM &st, const LoopM &from, const char *what);

    /** Loops a directive may name: unique names, optionally serial only. */
    std::vector<int> nameable(const StageM &st, bool serial_only, bool pure_only = false) const;

    bool tail_ok(const StageM &st, const LoopM &l, int factor, Tail t) const;

    Tail pick_tail(const StageM &st);

    void schedule_loops(int e);

    void try_directive(int e, int k);
};

} // namespace loom_fuzz
