#include "lower/BoundGPUExtents.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <vector>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// An exact fraction, for the coefficients of a bound: a quotient by a constant divides them.
struct Fraction {
    int64_t num = 0, den = 1; // den > 0, in lowest terms
    Fraction(int64_t n = 0, int64_t d = 1) : num(n), den(d) {
        if (den < 0) num = -num, den = -den;
        const int64_t g = std::gcd(num < 0 ? -num : num, den);
        if (g > 1) num /= g, den /= g;
    }
    Fraction operator+(const Fraction &o) const { return {num * o.den + o.num * den, den * o.den}; }
    Fraction operator-(const Fraction &o) const { return {num * o.den - o.num * den, den * o.den}; }
    Fraction operator*(int64_t k) const { return {num * k, den}; }
    Fraction operator*(const Fraction &o) const { return {num * o.num, den * o.den}; }
    bool operator<(const Fraction &o) const { return num * o.den < o.num * den; }
    bool is_zero() const { return num == 0; }
    int64_t floor() const { return num >= 0 ? num / den : -((-num + den - 1) / den); }
};

// A linear bound on an expression: its value is at most (an upper form) or at least (a lower
// form) the sum of `terms` times their coefficients plus `constant`. Terms are the
// subexpressions the bound does not see into (variables, loads, products of variables).
struct Form {
    std::map<Expr, Fraction, ExprStructureLess> terms;
    Fraction constant;
    bool is_constant() const {
        for (const auto &[t, c] : terms)
            if (!c.is_zero()) return false;
        return true;
    }
};

// One way of bounding an expression: the largest (upper) or smallest (lower) of some forms.
// A min bounded above has two ways (either operand), a max one way (the larger of both).
using Way = std::vector<Form>;
using Ways = std::vector<Way>;

// Sums and quotients multiply the ways; beyond this many, the first are kept. An extent has a
// few mins (one per GuardWithIf split and clamp on its way), and forms with the same terms
// merge, so a way stays small.
constexpr size_t kMaxWays = 256;

bool same_terms(const Form &a, const Form &b) {
    if (a.terms.size() != b.terms.size()) return false;
    for (auto i = a.terms.begin(), j = b.terms.begin(); i != a.terms.end(); ++i, ++j) {
        if (compare_exprs(i->first, j->first) != 0 || i->second.num != j->second.num ||
            i->second.den != j->second.den) {
            return false;
        }
    }
    return true;
}

// Adds f to way w: where a form with the same terms is there, the larger (upper) or smaller
// (lower) constant of the two stands for both.
void merge_into(Way &w, Form f, bool upper) {
    for (auto it = f.terms.begin(); it != f.terms.end();)
        it = it->second.is_zero() ? f.terms.erase(it) : std::next(it);
    for (Form &g : w) {
        if (!same_terms(g, f)) continue;
        if (upper ? g.constant < f.constant : f.constant < g.constant) g.constant = f.constant;
        return;
    }
    w.push_back(std::move(f));
}

Form combine(const Form &a, const Form &b, int64_t b_sign) {
    Form f = a;
    for (const auto &[t, c] : b.terms)
        f.terms[t] = f.terms[t] + c * b_sign;
    f.constant = a.constant + b.constant * b_sign;
    return f;
}

// f times k: every coefficient and the constant.
Form scaled(const Form &f, const Fraction &k) {
    Form g = f;
    for (auto &[t, c] : g.terms)
        c = c * k;
    g.constant = f.constant * k;
    return g;
}

// The bound a set of ways gives: each way is the worst (largest for an upper bound) of what
// `bound_of` gives its forms, and fails where one of them does; the best way's.
std::optional<Fraction>
best_of_ways(const Ways &ways, bool upper,
             const std::function<std::optional<Fraction>(const Form &)> &bound_of) {
    auto worse = [&](const Fraction &a, const Fraction &b) { return upper ? b < a : a < b; };
    std::optional<Fraction> best;
    for (const Way &way : ways) {
        std::optional<Fraction> worst;
        for (const Form &f : way) {
            std::optional<Fraction> b = bound_of(f);
            if (!b) {
                worst.reset();
                break;
            }
            if (!worst || worse(*b, *worst)) worst = b;
        }
        if (worst && (!best || worse(*best, *worst))) best = worst;
    }
    return best;
}

Ways map_forms(Ways ways, bool upper, const std::function<Form(const Form &)> &f) {
    for (Way &w : ways) {
        Way mapped;
        for (const Form &form : w)
            merge_into(mapped, f(form), upper);
        w = std::move(mapped);
    }
    return ways;
}

// The ways of bounding expressions above or below, through the values of the lets around
// them: a let's ways are its value's, found once (a chain of lets naming the ones before
// twice each would be exponential written out, while its ways merge).
class Bounder {
public:
    Bounder(const std::map<std::string, Expr> &lets, const std::map<std::string, Range> &loops)
        : lets(lets), loops(loops) {}
    Ways bound_ways(const Expr &e, bool upper);

    /** The constant bound of a form whose terms are loop variables (and what cancels once
     * they are replaced): each loop variable replaced by its last (first) iteration where it
     * raises (lowers) the form. A tile's start, x_block * 128, is at most the image's width
     * less one: what is left of a clamped tile end that did not cancel. */
    std::optional<Fraction> form_bound(const Form &f, bool upper, int depth = 0);

private:
    const std::map<std::string, Expr> &lets;
    const std::map<std::string, Range> &loops;
    std::map<std::pair<std::string, bool>, Ways> of_let;
    Ways sum_ways(const Expr &a, const Expr &b, int64_t b_sign, bool upper);
};

// a + b_sign * b, every way of one with every way of the other.
Ways Bounder::sum_ways(const Expr &a, const Expr &b, int64_t b_sign, bool upper) {
    const Ways as = bound_ways(a, upper), bs = bound_ways(b, b_sign > 0 ? upper : !upper);
    Ways out;
    for (const Way &wa : as) {
        for (const Way &wb : bs) {
            if (out.size() >= kMaxWays) return out;
            Way w;
            for (const Form &fa : wa)
                for (const Form &fb : wb)
                    merge_into(w, combine(fa, fb, b_sign), upper);
            out.push_back(std::move(w));
        }
    }
    return out;
}

std::optional<Fraction> Bounder::form_bound(const Form &f, bool upper, int depth) {
    if (f.is_constant()) return f.constant;
    constexpr int max_loops_replaced = 4;
    if (depth >= max_loops_replaced) return std::nullopt;
    for (const auto &[term, coefficient] : f.terms) {
        const Variable *v = term.as<Variable>();
        auto loop = v ? loops.find(v->name) : loops.end();
        if (loop == loops.end() || coefficient.is_zero()) continue;
        Form rest = f;
        rest.terms.erase(term);
        const bool raise = (coefficient.num > 0) == upper; // the bound wants it large
        const Range &r = loop->second;
        const Expr end = raise ? simplify(r.min + r.extent - 1) : r.min;
        // coefficient * (the end's largest or smallest form) added to the rest of the form.
        return best_of_ways(bound_ways(end, raise), upper, [&](const Form &g) {
            return form_bound(combine(rest, scaled(g, coefficient), 1), upper, depth + 1);
        });
    }
    return std::nullopt;
}

// The ways of bounding e above (upper) or below.
Ways Bounder::bound_ways(const Expr &e, bool upper) {
    if (const int64_t *c = as_const_int(e)) return {{Form{{}, Fraction(*c)}}};
    if (const Variable *v = e.as<Variable>()) {
        auto let = lets.find(v->name);
        if (let != lets.end()) {
            const std::pair<std::string, bool> key{v->name, upper};
            auto known = of_let.find(key);
            if (known != of_let.end()) return known->second;
            Ways ways = bound_ways(let->second, upper);
            return of_let[key] = ways;
        }
    }
    if (const Add *op = e.as<Add>()) return sum_ways(op->a, op->b, 1, upper);
    if (const Sub *op = e.as<Sub>()) return sum_ways(op->a, op->b, -1, upper);
    if (const Mul *op = e.as<Mul>()) {
        const int64_t *k = as_const_int(op->b);
        if (k) {
            return map_forms(bound_ways(op->a, *k >= 0 ? upper : !upper), upper,
                             [&](const Form &f) { return scaled(f, Fraction(*k)); });
        }
    }
    if (const Div *op = e.as<Div>()) {
        // Division rounds down: v / k lies in [v / k - (k - 1) / k, v / k] for k > 0.
        const int64_t *k = as_const_int(op->b);
        if (k && *k > 0) {
            const int64_t d = *k;
            return map_forms(bound_ways(op->a, upper), upper, [&](const Form &f) {
                Form g = scaled(f, Fraction(1, d));
                if (!upper) g.constant = g.constant - Fraction(d - 1, d);
                return g;
            });
        }
    }
    if (const Mod *op = e.as<Mod>()) {
        // Euclidean: a remainder by k > 0 lies in [0, k - 1].
        const int64_t *k = as_const_int(op->b);
        if (k && *k > 0) return {{Form{{}, Fraction(upper ? *k - 1 : 0)}}};
    }
    const bool is_min = e.as<Min>() != nullptr, is_max = e.as<Max>() != nullptr;
    if (is_min || is_max) {
        const Expr a = is_min ? e.as<Min>()->a : e.as<Max>()->a;
        const Expr b = is_min ? e.as<Min>()->b : e.as<Max>()->b;
        Ways as = bound_ways(a, upper), bs = bound_ways(b, upper);
        if (is_min == upper) {
            // Either operand bounds it: each of their ways is one of its.
            for (Way &w : bs) {
                if (as.size() >= kMaxWays) break;
                as.push_back(std::move(w));
            }
            return as;
        }
        // The larger (smaller) of both.
        Ways out;
        for (const Way &wa : as) {
            for (const Way &wb : bs) {
                if (out.size() >= kMaxWays) return out;
                Way w = wa;
                for (const Form &f : wb)
                    merge_into(w, f, upper);
                out.push_back(std::move(w));
            }
        }
        return out;
    }
    Form atom;
    atom.terms[e] = Fraction(1);
    return {{atom}};
}

// constant_upper_bound of `whole`, which simplify_to_constant left varying.
std::optional<int64_t> upper_bound_of_varying(const Expr &whole,
                                              const std::map<std::string, Expr> &lets,
                                              const std::map<std::string, Range> &loops) {
    if (!whole.type().is_int() && !whole.type().is_uint()) return std::nullopt;
    Bounder bounder(lets, loops);
    std::optional<Fraction> bound =
        best_of_ways(bounder.bound_ways(whole, true), true,
                     [&](const Form &f) { return bounder.form_bound(f, true); });
    if (!bound) return std::nullopt;
    return bound->floor();
}

// `s` with `condition` guarding it inside the thread loops and lets it starts with: the
// thread loops of a nest are nested directly in one another (lower/ValidateGPULoops).
Stmt guard_inside_nest(const Stmt &s, const Expr &condition) {
    if (const LetStmt *l = s.as<LetStmt>()) {
        return LetStmt::make(l->name, l->value, guard_inside_nest(l->body, condition));
    }
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUThread) {
        return For::make(f->name, f->min, f->extent, f->for_type, f->device_api,
                         guard_inside_nest(f->body, condition));
    }
    return IfThenElse::make(condition, s, Stmt());
}

class BoundGPUExtents : public LetTrackingMutator {
    using LetTrackingMutator::visit;
    int kernel_depth = 0;

    // The loops around the statement being visited: their variables' ranges.
    std::map<std::string, Range> loops;

    std::optional<int64_t> bound_if_varying(const Expr &extent) {
        const Expr whole = simplify_to_constant(extent, lets);
        if (is_const(whole)) return std::nullopt;
        return upper_bound_of_varying(whole, lets, loops);
    }

    Stmt visit(const For *op) override {
        const bool gpu = op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread;
        kernel_depth += gpu;
        auto outer = loops.find(op->name);
        std::optional<Range> hidden;
        if (outer != loops.end()) hidden = outer->second;
        loops[op->name] = Range(op->min, op->extent);
        Stmt s = LetTrackingMutator::visit(op);
        if (hidden) {
            loops[op->name] = *hidden;
        } else {
            loops.erase(op->name);
        }
        kernel_depth -= gpu;
        if (op->for_type != ForType::GPUThread) return s;
        const For *f = s.as<For>();
        std::optional<int64_t> bound = bound_if_varying(f->extent);
        if (!bound) return s;
        Stmt body =
            guard_inside_nest(f->body, Variable::make(Int(32), f->name) < f->min + f->extent);
        return For::make(f->name, f->min, make_const(Int(32), std::max<int64_t>(*bound, 1)),
                         f->for_type, f->device_api, body);
    }

    Stmt visit(const Realize *op) override {
        Stmt s = IRMutator::visit(op);
        if (kernel_depth == 0) return s;
        const Realize *r = s.as<Realize>();
        Region bounds = r->bounds;
        bool changed = false;
        for (Range &range : bounds) {
            if (std::optional<int64_t> bound = bound_if_varying(range.extent)) {
                range.extent = make_const(Int(32), std::max<int64_t>(*bound, 0));
                changed = true;
            }
        }
        return changed ? Realize::make(r->name, r->types, bounds, r->body) : s;
    }
};

} // namespace

std::optional<int64_t> constant_upper_bound(const Expr &e, const std::map<std::string, Expr> &lets,
                                            const std::map<std::string, Range> &loops) {
    // The lets substituted first where that makes a constant (the common case: a tile that
    // divides its consumer's).
    const Expr whole = simplify_to_constant(e, lets);
    if (const int64_t *c = as_const_int(whole)) return *c;
    return upper_bound_of_varying(whole, lets, loops);
}

Stmt bound_gpu_extents(const Stmt &s) { return BoundGPUExtents().mutate(s); }

} // namespace Internal
} // namespace loom
