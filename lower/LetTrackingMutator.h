// An IRMutator that knows the value of every let around the statement it is visiting, for
// passes that resolve an expression through its enclosing lets (simplify_to_constant): the
// extent of a vectorized or unrolled loop, the size of a tile's allocation, a tile's index.
#pragma once

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dsl/IRMutator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

class LetTrackingMutator : public IRMutator {
public:
    using IRMutator::mutate;

    /** `outer`: the values of lets bound around the statements to be mutated (a Func's region,
     * bound outside its production), hidden like the others by a rebinding of their names. */
    explicit LetTrackingMutator(std::map<std::string, Expr> outer = {}) : lets(std::move(outer)) {
        for (const auto &l : lets)
            bound.insert(l.first);
    }

protected:
    /** Name -> value of the LetStmts enclosing the current node whose values may be
     * substituted there: every name in such a value means what it meant where the let was
     * bound (see Rebinding). */
    std::map<std::string, Expr> lets;

    /** For the body of a let or loop that binds `name`: where an enclosing let or loop already
     * binds it, takes out of `lets` the let of that name and every let whose value uses it,
     * directly or through another let (substituted in the body, they would read the new
     * binding); puts them back when destroyed. A subclass that mutates a loop's body itself
     * holds one around it. (Lowering binds no let or loop by the name of a pipeline parameter,
     * so only names bound here are looked for, and the common case costs a lookup.) */
    class Rebinding {
    public:
        Rebinding(LetTrackingMutator &m, const std::string &name) : m(m), name(name) {
            if (m.bound.count(name)) hide_lets_using();
            m.bound.insert(name);
        }
        ~Rebinding() {
            m.bound.erase(m.bound.find(name));
            for (auto &[n, value] : hidden)
                m.lets[n] = std::move(value);
        }
        Rebinding(const Rebinding &) = delete;
        Rebinding &operator=(const Rebinding &) = delete;

    private:
        LetTrackingMutator &m;
        std::string name;
        std::vector<std::pair<std::string, Expr>> hidden;

        void hide_lets_using() {
            std::set<std::string> stale = {name};
            for (bool grew = true; grew;) {
                grew = false;
                for (const auto &[n, value] : m.lets) {
                    if (stale.count(n)) continue;
                    for (const std::string &s : stale) {
                        if (expr_uses_var(value, s)) {
                            stale.insert(n);
                            grew = true;
                            break;
                        }
                    }
                }
            }
            for (const std::string &n : stale) {
                auto it = m.lets.find(n);
                if (it == m.lets.end()) continue;
                hidden.emplace_back(n, it->second);
                m.lets.erase(it);
            }
        }
    };

    // A let whose value uses its own name (x = x + 1) is not entered at all.
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        Stmt body;
        {
            Rebinding rebinding(*this, op->name);
            const bool entered = !expr_uses_var(op->value, op->name);
            if (entered) lets[op->name] = op->value;
            body = mutate(op->body);
            if (entered) lets.erase(op->name);
        }
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    Stmt visit(const For *op) override {
        Rebinding rebinding(*this, op->name);
        return IRMutator::visit(op);
    }

private:
    // The names the enclosing lets and loops bind.
    std::multiset<std::string> bound;
};

}  // namespace Internal
}  // namespace loom
