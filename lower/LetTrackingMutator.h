// An IRMutator that knows the value of every let around the statement it is visiting, for
// passes that resolve an expression through its enclosing lets (simplify_to_constant): the
// extent of a vectorized or unrolled loop, the size of a tile's allocation.
#pragma once

#include <map>
#include <string>

#include "dsl/IRMutator.h"

namespace loom {
namespace Internal {

class LetTrackingMutator : public IRMutator {
public:
    using IRMutator::mutate;

protected:
    /** Name -> value of the LetStmts enclosing the current node (an inner let hides an
     * outer one of the same name, and is forgotten when its body is done). */
    std::map<std::string, Expr> lets;

    Stmt visit(const LetStmt *op) override {
        auto it = lets.find(op->name);
        Expr saved = it == lets.end() ? Expr() : it->second;
        lets[op->name] = op->value;
        Stmt result = IRMutator::visit(op);
        if (saved.defined()) {
            lets[op->name] = saved;
        } else {
            lets.erase(op->name);
        }
        return result;
    }
};

}  // namespace Internal
}  // namespace loom
