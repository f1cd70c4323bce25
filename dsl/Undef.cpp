#include "dsl/Undef.h"

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

bool contains_undef(const Expr &e) {
    class Finder : public IRVisitor {
    public:
        bool found = false;

    private:
        void visit(const Call *op) override {
            found = found || op->is_intrinsic(Call::undef);
            if (!found) IRVisitor::visit(op);
        }
    } finder;
    e.accept(&finder);
    return finder.found;
}

StoredValue stored_value(const Expr &e) {
    if (!contains_undef(e)) return {false, Expr(), e};
    const Select *s = e.as<Select>();
    if (!s || contains_undef(s->condition)) return {true, Expr(), Expr()};
    const StoredValue when_true = stored_value(s->true_value);
    const StoredValue when_false = stored_value(s->false_value);
    auto both = [](const Expr &a, const Expr &b) { return b.defined() ? a && b : a; };
    if (when_true.never && when_false.never) return {true, Expr(), Expr()};
    if (when_true.never)
        return {false, both(!s->condition, when_false.condition), when_false.value};
    if (when_false.never) return {false, both(s->condition, when_true.condition), when_true.value};
    // Stored on both sides: the select picks the side's condition as it picks its value.
    Expr condition;
    if (when_true.condition.defined() || when_false.condition.defined()) {
        auto holds = [](const Expr &c) { return c.defined() ? c : const_true(); };
        condition = select(s->condition, holds(when_true.condition), holds(when_false.condition));
    }
    return {false, condition, select(s->condition, when_true.value, when_false.value)};
}

Expr value_keeping_undef_points(const Expr &e, const Expr &current) {
    const StoredValue stored = stored_value(e);
    if (stored.never) return current;
    if (!stored.condition.defined()) return stored.value;
    return select(stored.condition, stored.value, current);
}

} // namespace Internal
} // namespace loom
