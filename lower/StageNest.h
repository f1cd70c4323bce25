// The loop nest of each stage of a Func, as its schedule shapes it: loops from the splits,
// reorders and loop types, lets that recover each split variable, guards of GuardWithIf tails
// and where() conditions, specializations chosen at run time; and the nest of a compute_with
// group, whose stages share their outer loops.
//
// Loop variables are named <func>.s<stage>.<var>; each loop runs over
// [<loop>.loop_min, <loop>.loop_min + <loop>.loop_extent), lets defined from the region bounds
// inference chooses for the stage (<func>.s<stage>.<var>.min / .max).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/IRMutator.h"
#include "dsl/Substitute.h"
#include "lower/FusedGroups.h"
#include "lower/ScheduleFunctions.h"

namespace loom {
namespace Internal {

/** Replaces calls to inlined Funcs by their (already inlined) definitions, memoized in
 * `inlined_values` by Func. */
class InlineCalls : public IRMutator {
public:
    InlineCalls(const std::vector<FunctionPtr> &outputs,
                std::map<std::string, std::vector<Expr>> &inlined_values)
        : outputs(outputs), inlined_values(inlined_values) {}
    using IRMutator::mutate;

    bool inlines(const FunctionPtr &f) const { return is_inlined(f, outputs); }

    const std::vector<Expr> &values_of(const FunctionPtr &f) {
        auto it = inlined_values.find(f->name);
        if (it != inlined_values.end()) return it->second;
        std::vector<Expr> values;
        for (const Expr &v : f->init.values)
            values.push_back(mutate(v));
        return inlined_values[f->name] = values;
    }

private:
    const std::vector<FunctionPtr> &outputs;
    std::map<std::string, std::vector<Expr>> &inlined_values;

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (c->call_type != Call::Halide || !is_inlined(c->func, outputs)) return e;
        const std::vector<Expr> &values = values_of(c->func);
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < c->args.size(); i++)
            args[c->func->args[i]] = c->args[i];
        return substitute(args, values[c->value_index]);
    }
};

/** All stages of f, in order: what its production computes. */
Stmt build_produce(const FunctionPtr &f, InlineCalls &inliner);

/** All stages of a compute_with group's Funcs, in the group's order, the stages computed with
 * another inside the loops they share with it: what the group's production computes. */
Stmt build_group_produce(const FusedGroup &group, const Environment &env, InlineCalls &inliner);

/** The lowest point a stage's loops over `var` write, relative to the loop's min, where the
 * loop covers `extent` (> 0) points: below zero only where a ShiftInwards split's block is
 * longer than the points it covers (its start, min(outer * factor, extent - factor), goes
 * negative). nullopt where the Var is fused with another. */
std::optional<Expr> lowest_written_offset(const std::vector<Split> &splits, const std::string &var,
                                          const Expr &extent);

}  // namespace Internal
}  // namespace loom
