// Stage: one definition of a Func (the pure one, or an update) and the directives that shape
// its loop nest. Func forwards these for its pure definition; Func::update(i) gives an update's.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/ImageParam.h"
#include "dsl/RVar.h"
#include "dsl/Schedule.h"
#include "dsl/Var.h"

namespace loom {

class Func;
namespace Internal {
struct Reduction;
}

/** A loop variable of a stage, pure (a Var) or of a reduction (an RVar), as Halide 14's: its
 * public var, rvar and is_rvar are Halide's. Made from a Var, it also makes an unnamed RVar,
 * and from an RVar an unnamed Var, as Halide's does: the numbers in the names of unnamed Vars
 * made after it follow Halide's. */
class VarOrRVar {
public:
    VarOrRVar(const Var &v) : var(v), is_rvar(false) {}
    VarOrRVar(const RVar &r) : rvar(r), is_rvar(true) {}
    /** Halide's ImplicitVar<n>: the implicit Var _n. */
    template <int N> VarOrRVar(const ImplicitVar<N> &v) : VarOrRVar(v.to_var()) {}
    VarOrRVar(const std::string &name, bool is_rvar) : var(name), rvar(name), is_rvar(is_rvar) {}
    /** A loop named only (Loom's own directives name the loops they make): no unnamed Var
     * or RVar is made. */
    VarOrRVar(const std::string &name) : VarOrRVar(name, false) {}
    const std::string &name() const { return is_rvar ? rvar.name() : var.name(); }

    Var var;
    RVar rvar;
    bool is_rvar;
};

class Stage {
public:
    Stage(Internal::FunctionPtr func, int stage_index, Internal::Definition *specialized = nullptr)
        : func(std::move(func)), index(stage_index), specialized(specialized) {}

    /** A version of this stage used when `condition` holds at run time (a condition on Params
     * or input sizes), scheduled independently: the returned Stage starts with a copy of this
     * stage's schedule. Conditions are tried in the order they were given. */
    Stage specialize(const Expr &condition);
    /** When no specialization's condition holds, the pipeline fails with `message` instead of
     * running the general case. */
    void specialize_fail(const std::string &message);

    /** old -> outer * factor + inner. The tail (extent not a multiple of factor) is handled
     * by `tail`; Auto is resolved here as Halide 14 resolves it: GuardWithIf for RVars and
     * inside an update's inner loops, RoundUp for an update's other pure loops, ShiftInwards
     * for pure definitions (RoundUp inside the blocks of an earlier ShiftInwards split). */
    Stage &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                 const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Joins two adjacent loops (inner directly inside outer) into one. */
    Stage &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    /** Reorders the named loops, innermost first; the others keep their places. */
    Stage &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    Stage &reorder(const VarOrRVar &first, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{first, VarOrRVar(rest)...});
    }
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
                TailStrategy tail = TailStrategy::Auto);
    Stage &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    /** Halide's tile of any number of dimensions: previous[i] split into outers[i] and
     * inners[i] by factors[i], then the inner loops inside the outer ones (in place: the outer
     * loops keep the old names). */
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                const std::vector<TailStrategy> &tails);
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                TailStrategy tail = TailStrategy::Auto);
    Stage &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);
    Stage &rename(const VarOrRVar &old, const VarOrRVar &new_name);

    /** Lets the RVar loops of this stage made parallel or vectorized after this call run
     * their iterations at once even where Loom cannot prove that they write distinct elements
     * (as Halide 14's: the user vouches for it; where iterations do collide, the result depends
     * on their timing). */
    Stage &allow_race_conditions();
    /** Halide's atomic(): each store of this update reads its element, computes the new value
     * and stores it atomically (an atomic read-modify-write, or a compare-and-swap loop), so
     * that its RVars may then be parallelized or vectorized even where iterations update the
     * same element (a histogram). The update must be f(args) = f(args) op e with op one of
     * + * min max & | ^ (or write values that use no RVar), unless override_associativity_test
     * is set; then it must still read f only at the element it writes. A float + or * then
     * sums in a different order, changing the last bits (README, "Schedules that reorder a
     * float reduction"). Tuples are refused. */
    Stage &atomic(bool override_associativity_test = false);
    /** Says that this update is meant to run in its default loop nest, so that lowering does
     * not warn that it was left unscheduled while the Func's other stages were scheduled
     * (Halide 14's). An error on a stage that has a directive. */
    void unscheduled();
    Stage &serial(const VarOrRVar &var);
    Stage &parallel(const VarOrRVar &var);
    Stage &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    /** The loop becomes SIMD lanes; its extent must be a constant after splitting. */
    Stage &vectorize(const VarOrRVar &var);
    Stage &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** The loop is replicated; its extent must be a constant after splitting. */
    Stage &unroll(const VarOrRVar &var);
    Stage &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** GPU mapping (Target::CUDA). A kernel is the loop nest from the outermost block loop
     * in: block loops outermost, thread loops inside them, at most three of each; x is the
     * innermost dimension (blockIdx.x / threadIdx.x). The body of the thread loops runs once
     * per thread; loops inside them run serially in each thread. */
    Stage &gpu_blocks(const VarOrRVar &x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, const VarOrRVar &y,
                       DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                       DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** split(x, bx, tx, x_size) with bx on blocks and tx on threads; the 2-D forms tile. */
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                    const Expr &x_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                    const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                    const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                    const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                    TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** In place: x keeps its name as the block loop. */
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                    TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                    const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
                    const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size,
                    const Expr &y_size, const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                    const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size,
                    const Expr &y_size, const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                    DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** gpu_blocks on the block loops and gpu_threads on the thread loops (Halide's gpu). */
    Stage &gpu(const VarOrRVar &bx, const VarOrRVar &tx,
               DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
               DeviceAPI device_api = DeviceAPI::Default_GPU);
    Stage &gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
               const VarOrRVar &ty, const VarOrRVar &tz,
               DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** At the top of each iteration of loop `at`, prefetches into the cache the region of
     * `image` that the body of `at` reads `offset` iterations of loop `from` later (`from` is
     * `at` or a loop outside it): one prefetch per 64-byte line of its innermost dimension. The
     * values computed never change. Halide's Func::prefetch. */
    Stage &prefetch(const ImageParam &image, const VarOrRVar &at, const VarOrRVar &from,
                    const Expr &offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    /** The same for the buffer of Func f, which must be computed into one (not inlined) and
     * read by this stage's body at `at`. Coordinates are f's: its realization bounds limit
     * the region for Clamp and GuardWithIf. */
    Stage &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                    const Expr &offset = 1,
                    PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);

    /** Splits this associative integer update into an intermediate Func, returned, that
     * reduces over the other RVars with each preserved RVar made the given pure Var, and an
     * update here that combines the intermediate's results over the preserved RVars. */
    Func rfactor(const std::vector<std::pair<RVar, Var>> &preserved);
    Func rfactor(const RVar &r, const Var &v);

    /** Horizontal fusion (Halide 14's compute_with): this stage shares the loops of stage `s`
     * from loop `var` outward and runs after s's body inside the innermost shared loop, so
     * that both read their common inputs in one pass. The shared loops cover the union of both
     * stages' bounds; each stage runs only at its own points. The two stages must be computed
     * at the same level, neither may read the other, and this stage must not be specialized.
     * `align` lines up each shared loop (by the user's loop names; the others NoAlign). */
    Stage &compute_with(const Stage &s, const VarOrRVar &var,
                        const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Stage &compute_with(const Stage &s, const VarOrRVar &var,
                        LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Stage &compute_with(const LoopLevel &level,
                        const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Stage &compute_with(const LoopLevel &level, LoopAlignStrategy align = LoopAlignStrategy::Auto);

    /** The loop level at loop `var` of this stage, for compute_at / store_at. */
    LoopLevel at(const VarOrRVar &var) const;
    const std::string &name() const { return func->name; }
    std::string dump_loops() const;
    /** Halide's dump_argument_list: "Vars:" and the stage's loop variables after its splits,
     * fuses and reorders, innermost first, then __outermost, on one line. */
    std::string dump_argument_list() const;

private:
    Internal::FunctionPtr func;
    int index;
    Internal::Definition *specialized;  // owned by func; null for the general case
    Internal::Definition &definition() const;
    /** The schedule, to change it: every directive goes through here, which marks the stage
     * scheduled (StageSchedule::touched). */
    Internal::StageSchedule &schedule() const {
        definition().schedule.touched = true;
        return definition().schedule;
    }
    /** The position of var in the dims list; throws naming the legal choices if absent. */
    size_t find_dim(const std::string &var, const char *directive) const;
    void set_loop_type(const VarOrRVar &var, Internal::ForType t, const char *directive);
    /** set_loop_type for a GPU loop kind, on the device API the schedule named. */
    void set_gpu_loop_type(const std::vector<VarOrRVar> &vars, Internal::ForType t,
                           DeviceAPI device_api, const char *directive);
    std::string stage_name() const;
    Stage &set_fuse_level(const LoopLevel &level,
                          const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align,
                          LoopAlignStrategy default_align);
    void check_no_race(const std::string &loop, const char *directive) const;
    bool reads_only_the_element_written() const;
    /** Checks and records p (its image or func set) with the other arguments of prefetch. */
    Stage &add_prefetch(Internal::PrefetchDirective p, const VarOrRVar &at, const VarOrRVar &from,
                        const Expr &offset, PrefetchBoundStrategy strategy);
    Func rfactor_split(const std::vector<std::pair<std::string, Var>> &loops,
                       const Internal::Reduction &red, const std::vector<Var> &pure, bool pure_lhs,
                       Type t);
    /** names_from_user: outer and inner are the user's names, which must not name a loop
     * the stage already has (vectorize's and unroll's inner loops have names of Loom's). */
    Stage &split_for(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                     const Expr &factor, TailStrategy tail, const char *directive,
                     bool names_from_user);
    /** Throws if name would name a loop the stage already has, other than `replaced`. */
    void check_new_loop_name(const std::string &name, const std::string &replaced,
                             const char *directive) const;
};

}  // namespace loom
