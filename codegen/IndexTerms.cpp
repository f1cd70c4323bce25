#include "codegen/IndexTerms.h"

#include <optional>

#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

// The terms of a subexpression: how often the loop variable appears in it, whether each time
// as a term of the sum times a constant (linear), and that constant (loop_scale) where it
// appears once.
struct Split {
    int loop_uses = 0;
    bool linear = true;
    int64_t loop_scale = 0;
    Expr rest;
    int64_t constant = 0;
};

// a + b or a - b where either may be undefined (0).
Expr sum(const Expr &a, const Expr &b, bool subtract) {
    if (!b.defined()) return a;
    if (!a.defined()) return subtract ? -b : b;
    return subtract ? a - b : a + b;
}

// The factor times the terms; a loop variable under a factor other than a constant is no
// longer a linear term.
Split scaled(const Split &t, const Expr &factor) {
    Split r;
    r.loop_uses = t.loop_uses;
    r.linear = t.loop_uses == 0;
    if (const int64_t *k = as_const_int(factor)) {
        if (t.rest.defined()) r.rest = t.rest * factor;
        r.constant = t.constant * *k;
        r.linear = t.linear;
        r.loop_scale = t.loop_scale * *k;
    } else {
        r.rest = sum(t.rest.defined() ? t.rest * factor : Expr(),
                     t.constant ? make_const(factor.type(), t.constant) * factor : Expr(), false);
    }
    return r;
}

std::optional<Split> split(const Expr &e, const std::string &v) {
    if (const int64_t *c = as_const_int(e)) return Split{0, true, 0, Expr(), *c};
    const Add *add = e.as<Add>();
    const Sub *sub = e.as<Sub>();
    if (add || sub) {
        auto a = split(add ? add->a : sub->a, v), b = split(add ? add->b : sub->b, v);
        if (!a || !b) return std::nullopt;
        return Split{a->loop_uses + b->loop_uses,
                     a->linear && b->linear,
                     add ? a->loop_scale + b->loop_scale : a->loop_scale - b->loop_scale,
                     sum(a->rest, b->rest, sub != nullptr),
                     add ? a->constant + b->constant : a->constant - b->constant};
    }
    if (v.empty() || !expr_uses_var(e, v)) return Split{0, true, 0, e, 0};
    if (const Variable *var = e.as<Variable>(); var && var->name == v)
        return Split{1, true, 1, Expr(), 0};
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
    // Not one linear term: split on the constants alone (the loop variable stays where it is).
    // Without a loop variable, split always succeeds.
    const bool one_linear_term = s && s->loop_uses == 1 && s->linear && s->loop_scale != 0;
    if (!s || (s->loop_uses > 0 && !one_linear_term)) s = split(index, "");
    return IndexTerms{s->loop_uses == 1, s->rest, s->constant, s->loop_uses == 1 ? s->loop_scale : 1};
}

} // namespace Internal
} // namespace loom
