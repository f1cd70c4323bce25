#include "codegen/IndexTerms.h"

#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

// a + b or a - b where either may be undefined (0).
Expr sum(const Expr &a, const Expr &b, bool subtract) {
    if (!b.defined()) return a;
    if (!a.defined()) return subtract ? -b : b;
    return subtract ? a - b : a + b;
}

// The factor times the terms.
IndexTerms scaled(const IndexTerms &t, const Expr &factor) {
    IndexTerms r;
    if (t.coefficient.defined()) r.coefficient = t.coefficient * factor;
    if (const int64_t *k = as_const_int(factor)) {
        if (t.rest.defined()) r.rest = t.rest * factor;
        r.constant = t.constant * *k;
    } else {
        r.rest = sum(t.rest.defined() ? t.rest * factor : Expr(),
                     t.constant ? make_const(factor.type(), t.constant) * factor : Expr(), false);
    }
    return r;
}

std::optional<IndexTerms> split(const Expr &e, const std::string &v) {
    if (const int64_t *c = as_const_int(e)) return IndexTerms{Expr(), Expr(), *c};
    if (const Add *add = e.as<Add>()) {
        auto a = split(add->a, v), b = split(add->b, v);
        if (!a || !b) return std::nullopt;
        return IndexTerms{sum(a->coefficient, b->coefficient, false), sum(a->rest, b->rest, false),
                          a->constant + b->constant};
    }
    if (const Sub *sub = e.as<Sub>()) {
        auto a = split(sub->a, v), b = split(sub->b, v);
        if (!a || !b) return std::nullopt;
        return IndexTerms{sum(a->coefficient, b->coefficient, true), sum(a->rest, b->rest, true),
                          a->constant - b->constant};
    }
    const bool reads_v = !v.empty() && expr_uses_var(e, v);
    if (!reads_v) return IndexTerms{Expr(), e, 0};
    if (const Variable *var = e.as<Variable>(); var && var->name == v) {
        return IndexTerms{make_one(e.type()), Expr(), 0};
    }
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

std::optional<IndexTerms> split_index(const Expr &index, const std::string &loop_var) {
    return split(index, loop_var);
}

} // namespace Internal
} // namespace loom
