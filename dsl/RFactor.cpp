// Stage::rfactor: splits an associative, commutative update into an intermediate Func that
// computes partial results over some RVars (made pure) and an update that merges them.
//
// Halide's rule: the update is f(args) = f(args) op e with op one of + * min max & | ^. An
// integer reduction gives the same bits factored or not; a float + or * reduction factored
// sums in another order and rounds differently, as in Halide (README.md, "Schedules that
// reorder a float reduction").
#include "dsl/Func.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"
#include "dsl/Stage.h"
#include "dsl/Associativity.h"
#include "dsl/Substitute.h"

namespace loom {

using namespace Internal;

namespace {

// `d` (an update of `func`, factored into `intm`) becomes the merge of intm's partial results
// over merged's RVars: func(pure...) op= intm(pure..., merged RVars...), its loops those RVars
// (innermost first) and then the pure Vars. Where its left side was not pure Vars (a
// histogram), the merge covers every point: the left side becomes the Func's own Vars.
void become_merge(const FunctionPtr &func, Definition &d, Func &intm,
                  const std::shared_ptr<ReductionDomainContents> &merged,
                  const std::vector<Var> &pure, bool pure_lhs, const Reduction &red, Type t) {
    std::vector<Expr> reads(pure.begin(), pure.end());
    for (const ReductionVariable &rv : merged->domain)
        reads.push_back(Variable::make(Int(32), rv.var, nullptr, merged));
    if (!pure_lhs) d.args.assign(pure.begin(), pure.end());
    // Weak: the call goes into func's own definition (see FunctionRef).
    Expr self = Call::make(t, func->name, d.args, Call::Halide, FunctionRef(func).weakened(), 0);
    d.values = {combine(red.op, self, Expr(intm(reads)))};
    d.rdom = merged;
    d.predicate = Expr();
    d.schedule = StageSchedule();
    d.schedule.touched = true; // as Halide's rfactor leaves it
    for (const ReductionVariable &rv : merged->domain) {
        Dim m{rv.var};
        m.is_rvar = true;
        d.schedule.dims.push_back(m);
    }
    for (const Var &v : pure)
        d.schedule.dims.push_back(Dim{v.name()});
}

} // namespace

Func Stage::rfactor(const RVar &r, const Var &v) { return rfactor({{r, v}}); }

// rfactor of loops of split RVars (split(r.x, rxo, rxi, k) then rfactor(rxo, u) or
// rfactor(rxi, u)): the intermediate keeps the update's schedule with each such loop made a
// pure Var (u), so each u reduces its own slice of r.x (a block of it, or every k-th point); this
// update then combines the slices over new RVars, one per preserved loop. Where the update's left
// side is not pure Vars (a histogram), the intermediate scatters as the update did, into its slice.
Func Stage::rfactor_split(const std::vector<std::pair<std::string, Var>> &loops,
                          const Reduction &red, const std::vector<Var> &pure, bool pure_lhs,
                          Type t) {
    std::string where = "rfactor of " + stage_name();
    Definition &d = definition();
    StageSchedule schedule = d.schedule;
    auto merged = std::make_shared<ReductionDomainContents>();
    merged->name = d.rdom->name + "_merge";
    std::vector<Var> slice_vars;
    for (const auto &[loop_name, u] : loops) {
        size_t dim = find_dim(loop_name, "rfactor");
        const std::string loop = d.schedule.dims[dim].var;
        const Split *split = nullptr;
        for (const Split &s : d.schedule.splits) {
            if (s.kind == Split::SplitVar && (s.outer == loop || s.inner == loop)) split = &s;
            user_assert(s.old_var != loop)
                << where << ": " << loop_name << " is split again; rfactor the loop before "
                << "splitting it";
        }
        const ReductionVariable *rv = nullptr;
        for (const ReductionVariable &r : d.rdom->domain) {
            if (split && r.var == split->old_var) rv = &r;
        }
        user_assert(split && rv && d.schedule.dims[dim].is_rvar)
            << where << ": " << loop_name << " is neither an RVar of the RDom " << d.rdom->name
            << " nor a loop of a split of one";
        const bool outer = split->outer == loop;
        for (const Var &p : pure) {
            user_assert(p.name() != u.name())
                << where << ": the new Var " << u.name() << " is already an argument";
        }
        for (Split &s : schedule.splits) {
            if (s.outer == loop) s.outer = u.name();
            if (s.inner == loop) s.inner = u.name();
        }
        schedule.dims[dim] = Dim{u.name()};
        slice_vars.push_back(u);
        // One slice per iteration of the loop: the outer loop runs ceil(extent / factor)
        // times, the inner one `factor` times (a slice past the RDom's end keeps the identity).
        Expr slices = outer ? (rv->extent + split->factor - 1) / split->factor : split->factor;
        merged->domain.push_back(
            ReductionVariable{merged->name + "$" + std::to_string(merged->domain.size()),
                              make_zero(Int(32)), slices});
    }

    // The intermediate: f_intm(pure..., u...) over the same RDom, with the update's schedule.
    Func intm(func->name + "_intm_" + unique_user_name('f'));
    std::vector<Expr> args(pure.begin(), pure.end());
    for (const Var &u : slice_vars)
        args.push_back(u);
    intm(args) = reduction_identity(red.op, t);
    std::vector<Expr> lhs = args;
    if (!pure_lhs) {
        lhs.assign(d.args.begin(), d.args.end());
        for (const Var &u : slice_vars)
            lhs.push_back(u);
    }
    intm(lhs) = combine(red.op, Expr(intm(lhs)), red.other);
    intm.function()->updates.back().schedule = schedule;

    // This update now combines the slices.
    become_merge(func, d, intm, merged, pure, pure_lhs, red, t);
    return intm;
}

Func Stage::rfactor(const std::vector<std::pair<RVar, Var>> &preserved) {
    std::string where = "rfactor of " + stage_name();
    user_assert(index > 0 && !specialized) << where << ": rfactor applies to an update definition";
    Definition &d = definition();
    user_assert(d.rdom) << where << ": the update has no RDom to factor";
    user_assert(d.values.size() == 1) << where << ": rfactor of a Tuple-valued update is not available";
    user_assert(d.specializations.empty()) << where << ": rfactor before specialize(), not after";
    // The left side's pure Vars; where it is not all pure Vars (a histogram, hist(in(r)) +=
    // 1), the Func's own Vars, which the merged update below covers (Halide 14's rule).
    std::vector<Var> pure;
    bool pure_lhs = true;
    for (const Expr &a : d.args) {
        const Variable *var = a.as<Variable>();
        pure_lhs = pure_lhs && var && !var->rdom && !var->param;
        if (pure_lhs) pure.emplace_back(var->name);
    }
    if (!pure_lhs) {
        pure.clear();
        for (const std::string &a : func->args)
            pure.emplace_back(a);
    }
    Type t = d.values[0].type();
    // Weak: the call goes into func's own definition (see FunctionRef).
    Expr self = Call::make(t, func->name, d.args, Call::Halide, FunctionRef(func).weakened(), 0);
    Reduction red;
    user_assert(match_reduction(d.values[0], self, func->name, &red))
        << where << ": the update is not of the form f(args) = f(args) op e with op one of + * "
           "min max & | ^ and e not reading " << func->name;

    // Which RVars become pure Vars in the intermediate, and which stay reductions there.
    const auto &domain = d.rdom->domain;
    std::map<std::string, Expr> rvar_to_var;
    std::vector<Var> new_vars;
    std::vector<ReductionVariable> kept, lifted;
    for (const ReductionVariable &rv : domain) {
        bool is_preserved = false;
        for (const auto &p : preserved) {
            if (p.first.name() == rv.var) {
                is_preserved = true;
                for (const Var &existing : pure) {
                    user_assert(existing.name() != p.second.name())
                        << where << ": the new Var " << p.second.name() << " is already an argument";
                }
                rvar_to_var[rv.var] = p.second;
                new_vars.push_back(p.second);
            }
        }
        (is_preserved ? kept : lifted).push_back(rv);
    }
    // Split loops (loops of split RVars), all of them: the intermediate keeps the
    // update's schedule.
    bool any_split = false, all_split = true;
    for (const auto &p : preserved) {
        const bool is_rvar = rvar_to_var.count(p.first.name()) > 0;
        any_split = any_split || !is_rvar;
        all_split = all_split && !is_rvar;
    }
    user_assert(!any_split || all_split)
        << where << ": preserve either RVars of the RDom " << d.rdom->name << " or loops "
        << "of splits of them, not both in one rfactor.";
    if (all_split) {
        std::vector<std::pair<std::string, Var>> loops;
        for (const auto &p : preserved)
            loops.emplace_back(p.first.name(), p.second);
        return rfactor_split(loops, red, pure, pure_lhs, t);
    }
    for (const auto &p : preserved) {
        user_assert(rvar_to_var.count(p.first.name()))
            << where << ": " << p.first.name() << " is not an RVar of the update's RDom "
            << d.rdom->name << ", nor a loop of a split of one";
    }

    // The intermediate: f_intm(pure..., new...) reduces the lifted RVars.
    Func intm(func->name + "_intm_" + unique_user_name('f'));
    std::vector<Expr> intm_args(pure.begin(), pure.end());
    for (const Var &v : new_vars) intm_args.push_back(v);
    Expr partial = substitute(rvar_to_var, red.other);
    Expr predicate = d.predicate.defined() ? substitute(rvar_to_var, d.predicate) : Expr();
    // The RDom of the intermediate's update: the lifted RVars, relinked to it.
    auto dom = std::make_shared<ReductionDomainContents>();
    dom->name = d.rdom->name + "_intm";
    std::map<std::string, Expr> relink;
    for (const ReductionVariable &rv : lifted) {
        dom->domain.push_back(rv);
        relink[rv.var] = Variable::make(Int(32), rv.var, nullptr, dom);
    }
    if (!pure_lhs) {
        // The intermediate scatters as the update did, each slice (the new Vars) into its own
        // partial result: intm(args with the preserved RVars as the new Vars..., new...) op=
        // e, over the lifted RVars (or once per point where none is lifted).
        std::vector<Expr> lhs;
        for (const Expr &a : d.args)
            lhs.push_back(substitute(relink, substitute(rvar_to_var, a)));
        for (const Var &v : new_vars)
            lhs.push_back(v);
        intm(intm_args) = reduction_identity(red.op, t);
        Expr update = combine(red.op, Expr(intm(lhs)), substitute(relink, partial));
        if (predicate.defined()) {
            if (lifted.empty()) {
                update = select(predicate, update, Expr(intm(lhs)));
            } else {
                dom->predicate = substitute(relink, predicate);
            }
        }
        intm(lhs) = update;
    } else if (lifted.empty()) {
        Expr value = combine(red.op, reduction_identity(red.op, t), partial);
        intm(intm_args) = predicate.defined() ? select(predicate, value, reduction_identity(red.op, t)) : value;
    } else {
        if (predicate.defined()) dom->predicate = substitute(relink, predicate);
        intm(intm_args) = reduction_identity(red.op, t);
        intm(intm_args) = combine(red.op, Expr(intm(intm_args)), substitute(relink, partial));
    }

    // This update now merges the partial results over the preserved RVars.
    auto merged = std::make_shared<ReductionDomainContents>();
    merged->name = d.rdom->name + "_merge";
    merged->domain = kept;
    become_merge(func, d, intm, merged, pure, pure_lhs, red, t);
    return intm;
}

}  // namespace loom
