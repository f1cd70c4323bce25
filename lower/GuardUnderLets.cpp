#include "lower/GuardUnderLets.h"

#include <map>
#include <string>

#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

Stmt GuardUnderLets::unguarded() const {
    Stmt body = guard->then_case;
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
        body = LetStmt::make((*it)->name, (*it)->value, body);
    return body;
}

GuardUnderLets guard_under_lets(const Stmt &s) {
    GuardUnderLets g;
    std::map<std::string, Expr> values;
    Stmt inner = s;
    while (const LetStmt *l = inner.as<LetStmt>()) {
        g.lets.push_back(l);
        values[l->name] = values.empty() ? l->value : substitute(values, l->value);
        inner = l->body;
    }
    const IfThenElse *guard = inner.as<IfThenElse>();
    if (!guard || guard->else_case.defined()) return g;
    g.guard = guard;
    const Call *tag = guard->condition.as<Call>();
    const Expr c = tag && tag->is_intrinsic(Call::likely) ? tag->args[0] : guard->condition;
    g.condition = values.empty() ? c : substitute(values, c);
    return g;
}

} // namespace Internal
} // namespace loom
