#include "lower/PeelLoopVariables.h"

#include <set>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

class PeelLoopVariables : public IRMutator {
    std::set<std::string> loops; // the variables of the loops around the node visited

    using IRMutator::visit;

    Stmt visit(const For *op) override {
        const bool inserted = loops.insert(op->name).second;
        Stmt result = IRMutator::visit(op);
        if (inserted) loops.erase(op->name);
        return result;
    }

    // value without one term of its top-level sum that is an enclosing loop's variable
    // (*loop_var), or undefined where it has none.
    Expr without_loop_variable(const Expr &value, Expr *loop_var) const {
        const Add *add = value.as<Add>();
        if (!add) return Expr();
        for (const Expr *term : {&add->b, &add->a}) {
            const Variable *v = term->as<Variable>();
            if (v && loops.count(v->name)) {
                *loop_var = *term;
                return term == &add->b ? add->a : add->b;
            }
        }
        if (Expr rest = without_loop_variable(add->a, loop_var); rest.defined())
            return rest + add->b;
        if (Expr rest = without_loop_variable(add->b, loop_var); rest.defined())
            return add->a + rest;
        return Expr();
    }

    Stmt visit(const LetStmt *op) override {
        Expr loop_var, rest;
        if (op->value.type() == Int(32)) rest = without_loop_variable(op->value, &loop_var);
        if (!rest.defined()) return IRMutator::visit(op);
        if (is_const(rest) || rest.as<Variable>()) {
            return mutate(substitute(op->name, rest + loop_var, op->body));
        }
        const std::string rest_name = op->name + ".rest";
        Stmt body = substitute(op->name, Variable::make(Int(32), rest_name) + loop_var, op->body);
        return LetStmt::make(rest_name, rest, mutate(body));
    }
};

} // namespace

Stmt peel_loop_variables(const Stmt &s) { return PeelLoopVariables().mutate(s); }

} // namespace Internal
} // namespace loom
