#include "codegen/IndexTerms.h"

#include <optional>

#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

// The terms of a subexpression: how often the loop variable appears in it, and whether each
// time as a plain added term (not scaled, not subtracted).
struct Split {
    int loop_uses = 0;
    bool plain = true;
    Expr rest;
    int64_t constant = 0;
};

// a + b or a - b where either may be undefined (0).
Expr sum(const Expr &a, const Expr &b, bool subtract) {
    if (!b.defined()) return a;
    if (!a.defined()) return subtract ? -b : b;
    return subtract ? a - b : a + b;
}

// The factor times the terms; a loop variable under it is no longer a plain term.
Split scaled(const Split &t, const Expr &factor) {
    Split r;
    r.loop_uses = t.loop_uses;
    r.plain = t.loop_uses == 0;
    if (const int64_t *k = as_const_int(factor)) {
        if (t.rest.defined()) r.rest = t.rest * factor;
        r.constant = t.constant * *k;
    } else {
        r.rest = sum(t.rest.defined() ? t.rest * factor : Expr(),
                     t.constant ? make_const(factor.type(), t.constant) * factor : Expr(), false);
    }
    return r;
}

std::optional<Split> split(const Expr &e, const std::string &v) {
    if (const int64_t *c = as_const_int(e)) return Split{0, true, Expr(), *c};
    const Add *add = e.as<Add>();
    const Sub *sub = e.as<Sub>();
    if (add || sub) {
        auto a = split(add ? add->a : sub->a, v), b = split(add ? add->b : sub->b, v);
        if (!a || !b) return std::nullopt;
        return Split{a->loop_uses + b->loop_uses,
                     a->plain && b->plain && (add || b->loop_uses == 0),
                     sum(a->rest, b->rest, sub != nullptr),
                     add ? a->constant + b->constant : a->constant - b->constant};
    }
    if (v.empty() || !expr_uses_var(e, v)) return Split{0, true, e, 0};
    if (const Variable *var = e.as<Variable>(); var && var->name == v)
        return Split{1, true, Expr(), 0};
    if (const Mul *mul = e.as<Mul>()) {
        const bool in_a = expr_uses_var(mul->a, v), in_b = expr_uses_var(mul->b, v);
        if (in_a && in_b) return std::nullopt;
        auto t = split(in_a ? mul->a : mul->b, v);
        if (!t) return std::nullopt;
        return scaled(*t, in_a ? mul->b : mul->a);
    }
    return std::nullopt;
}

} // namespace

IndexTerms split_index(const Expr &index, const std::string &loop_var) {
    std::optional<Split> s = split(index, loop_var);
    // Not one plain term: split on the constants alone (the loop variable stays where it is).
    // Without a loop variable, split always succeeds.
    if (!s || (s->loop_uses > 0 && !(s->loop_uses == 1 && s->plain))) s = split(index, "");
    return IndexTerms{s->loop_uses == 1, s->rest, s->constant};
}

} // namespace Internal
} // namespace loom
