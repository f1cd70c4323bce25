#include "lower/PartitionLoops.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/GuardUnderLets.h"
#include "lower/RemoveDeadProductions.h"

namespace loom {
namespace Internal {

namespace {

bool is_likely(const Expr &e) {
    const Call *c = e.as<Call>();
    return c && c->is_intrinsic(Call::likely);
}

/** Whether e is a likely-tagged value: likely(x), or a min or max of one (a clamp of a
 * likely value is max(min(likely(x), hi), lo)). */
bool tagged(const Expr &e) {
    if (is_likely(e)) return true;
    if (const Min *m = e.as<Min>()) return tagged(m->a) || tagged(m->b);
    if (const Max *m = e.as<Max>()) return tagged(m->a) || tagged(m->b);
    return false;
}

/** An affine function of the loop variable over the lanes of a vector: c * v + r, r between
 * lo and hi in every lane (lo and hi free of v and of everything bound inside the loop). */
struct Affine {
    int64_t c = 0;
    Expr lo, hi;
};

/** A range of iterations [lo, hi]; an undefined end is unbounded. */
struct IterationRange {
    Expr lo, hi;
};

/** The values a loop inside the one being partitioned takes: [min, max], in names bound outside
 * the partitioned loop. */
using InnerRanges = std::map<std::string, std::pair<Expr, Expr>>;

class Solver {
public:
    // Keeps references: every argument must outlive the Solver.
    Solver(const std::string &v, const std::set<std::string> &inner, const InnerRanges &ranges)
        : v(v), inner(inner), ranges(ranges) {}

    /** The iterations where cond holds in every lane, when it is a conjunction of affine
     * comparisons of v; nothing otherwise. */
    std::optional<IterationRange> solve(const Expr &cond) const {
        if (const And *a = cond.as<And>()) {
            auto x = solve(a->a), y = solve(a->b);
            if (!x || !y) return std::nullopt;
            return IterationRange{tighter(x->lo, y->lo, true), tighter(x->hi, y->hi, false)};
        }
        if (const LE *c = cond.as<LE>()) return at_most(c->a, c->b, 0);
        if (const LT *c = cond.as<LT>()) return at_most(c->a, c->b, 1);
        if (const GE *c = cond.as<GE>()) return at_most(c->b, c->a, 0);
        if (const GT *c = cond.as<GT>()) return at_most(c->b, c->a, 1);
        return std::nullopt;
    }

    static Expr tighter(const Expr &a, const Expr &b, bool lower) {
        if (!a.defined()) return b;
        if (!b.defined()) return a;
        return lower ? max(a, b) : min(a, b);
    }

    bool free_of_loop(const Expr &e) const {
        if (expr_uses_var(e, v)) return false;
        for (const std::string &n : inner)
            if (expr_uses_var(e, n)) return false;
        return true;
    }

    std::optional<Affine> affine(const Expr &e) const {
        if (!e.type().is_int() || e.type().bits() != 32) return std::nullopt;
        // A vector's lanes are bounded through its ramps and broadcasts below; lo and hi are
        // scalars.
        if (e.type().is_scalar() && free_of_loop(e)) return Affine{0, e, e};
        if (const Variable *var = e.as<Variable>()) {
            if (var->name == v) return Affine{1, Expr(0), Expr(0)};
            // A loop inside: the condition must hold at every value it takes, as at every lane
            // of a vector (a site's condition may read an RVar's loop or the columns inside a
            // row loop being partitioned).
            auto range = ranges.find(var->name);
            if (range != ranges.end() && free_of_loop(range->second.first) &&
                free_of_loop(range->second.second)) {
                return Affine{0, range->second.first, range->second.second};
            }
            return std::nullopt;
        }
        if (const Broadcast *b = e.as<Broadcast>()) return affine(b->value);
        if (const Ramp *r = e.as<Ramp>()) {
            auto base = affine(r->base);
            auto stride = const_int_value(r->stride);
            if (!base || !stride) return std::nullopt;
            int64_t last = *stride * (r->lanes - 1);
            return Affine{base->c, base->lo + (int)std::min<int64_t>(0, last),
                          base->hi + (int)std::max<int64_t>(0, last)};
        }
        if (const Add *a = e.as<Add>()) {
            auto x = affine(a->a), y = affine(a->b);
            if (!x || !y) return std::nullopt;
            return Affine{x->c + y->c, x->lo + y->lo, x->hi + y->hi};
        }
        if (const Sub *s = e.as<Sub>()) {
            auto x = affine(s->a), y = affine(s->b);
            if (!x || !y) return std::nullopt;
            return Affine{x->c - y->c, x->lo - y->hi, x->hi - y->lo};
        }
        if (const Mul *m = e.as<Mul>()) {
            auto k = const_int_value(m->b);
            auto x = affine(m->a);
            if (!k) {
                k = const_int_value(m->a);
                x = affine(m->b);
            }
            if (!k || !x) return std::nullopt;
            if (*k >= 0) return Affine{x->c * *k, x->lo * (int)*k, x->hi * (int)*k};
            return Affine{x->c * *k, x->hi * (int)*k, x->lo * (int)*k};
        }
        if (const Div *d = e.as<Div>()) {
            // Division rounds down: (c*v + r) / k is (c/k)*v + r / k when k divides c, and
            // monotonic in r.
            auto k = const_int_value(d->b);
            auto x = affine(d->a);
            if (!k || *k <= 0 || !x || x->c % *k != 0) return std::nullopt;
            return Affine{x->c / *k, x->lo / (int)*k, x->hi / (int)*k};
        }
        return std::nullopt;
    }

    /** Whether every range solved so far is exactly where its condition holds (outside it the
     * condition fails), rather than a part of it. */
    bool exact() const { return all_exact; }

private:
    const std::string &v;
    const std::set<std::string> &inner;
    const InnerRanges &ranges;
    mutable bool all_exact = true;
    // How many more min/max splits this condition may take. Each split solves both operands,
    // so nested mins and maxes (the clamps of a boundary condition under unrolled and
    // shifted splits) cost twice per level: past the budget a split gives up, which leaves
    // the iterations it would have found in the loop's guarded part (correct, slower). The
    // fuzz run of 2026-12-01 met a condition that took minutes (seed 9112, pipeline 115).
    mutable int splits_left = 256;

    /** Where every lane of a <= b - slack. */
    std::optional<IterationRange> at_most(const Expr &a, const Expr &b, int slack) const {
        auto x = affine(a), y = affine(b);
        if (!x || !y) {
            if (auto q = at_most_with_quotient(a, b, slack)) return q;
            return at_most_over_min_max(a, b, slack);
        }
        // c * v + r <= 0, r the largest lane of a less the smallest of b.
        return where_at_most_zero(x->c - y->c, x->hi - y->lo + slack);
    }

    /** The iterations where c * v + r <= 0. */
    static std::optional<IterationRange> where_at_most_zero(int64_t c, const Expr &r) {
        if (c == 0 || c > (1 << 20) || c < -(1 << 20)) return std::nullopt;
        if (c > 0) return IterationRange{Expr(), (0 - r) / (int)c};
        return IterationRange{(r + (int)(-c) - 1) / (int)(-c), Expr()};
    }

    /** A sum's terms with their signs (differences flattened; a ramp with a constant stride
     * is its base's terms and ramp(0, stride, lanes), a broadcast its value's terms: scalar
     * terms are broadcast again where they meet vector ones). */
    static void terms_of(const Expr &e, int sign, std::vector<std::pair<Expr, int>> &terms) {
        if (const Ramp *op = e.as<Ramp>(); op && is_const(op->stride)) {
            terms_of(op->base, sign, terms);
            terms.push_back({Ramp::make(make_zero(op->base.type()), op->stride, op->lanes), sign});
        } else if (const Broadcast *op = e.as<Broadcast>()) {
            terms_of(op->value, sign, terms);
        } else if (const Add *op = e.as<Add>()) {
            terms_of(op->a, sign, terms);
            terms_of(op->b, sign, terms);
        } else if (const Sub *op = e.as<Sub>()) {
            terms_of(op->a, sign, terms);
            terms_of(op->b, -sign, terms);
        } else {
            terms.push_back({e, sign});
        }
    }

    /** a <= b - slack where v appears only in one quotient n / k of a positive constant k
     * (a row y / 2 of an upsampling): moving every other term across gives q <= T or q >= T
     * with T free of v, and n / k <= T holds where n <= k * T + k - 1, n / k >= T where
     * n >= k * T (division rounds down), n affine in v. */
    std::optional<IterationRange> at_most_with_quotient(const Expr &a, const Expr &b,
                                                        int slack) const {
        if (!a.type().is_int() || a.type().bits() != 32) return std::nullopt;
        std::vector<std::pair<Expr, int>> terms; // a - b as a sum of signed terms
        terms_of(a, 1, terms);
        terms_of(b, -1, terms);
        const Div *quotient = nullptr;
        int sign = 0;
        Expr rest = make_const(a.type(), slack); // a - b + slack = sign * q + rest <= 0
        for (const auto &[t, s] : terms) {
            const Div *d = t.as<Div>();
            if (d && !free_of_loop(d->a) && !quotient) {
                quotient = d;
                sign = s;
            } else {
                rest = s > 0 ? rest + t : rest - t;
            }
        }
        std::optional<int64_t> k = quotient ? const_int_value(quotient->b) : std::nullopt;
        if (!k || *k <= 0) return std::nullopt;
        auto n = affine(quotient->a), r = affine(rest);
        if (!n || !r || r->c != 0) return std::nullopt;
        const int kk = (int)*k;
        if (sign > 0) {
            // q <= -rest for every lane: n's largest over k at most -rest's smallest.
            Expr t_lo = 0 - r->hi;
            return where_at_most_zero(n->c, n->hi - (t_lo * kk + (kk - 1)));
        }
        // q >= rest for every lane: n's smallest at least k times rest's largest.
        return where_at_most_zero(-n->c, r->hi * kk - n->lo);
    }

    /** a <= b - slack where a term of a - b is a min or a max that moves with the loop: split
     * on it. With R the other terms, max(p, q) + R <= 0 holds where p + R <= 0 and q + R <= 0
     * both do (-min(p, q) likewise); min(p, q) + R <= 0 holds where either does, and the range
     * where the operand that moves with the loop does is a part of that, no longer exact (a
     * ShiftInwards split's start min(x * 8 + m, e - 8) is at most x * 8 + m: the clamps of a
     * boundary condition at its points reduce over the blocks whose start is not shifted and
     * the shifted last block alike, as in Halide's steady state; fuzz seed 2026 pair 358). */
    /** k * min(p, q) (either order) as min(k * p, k * q), a max where k < 0 (max likewise):
     * a ShiftInwards split's start scaled by the inner factor (the vectors of an unrolled
     * split, min(xo * 2, e - 2) * 8). Undefined for anything else. */
    static Expr min_max_scaled(const Expr &t) {
        const Mul *m = t.as<Mul>();
        if (!m) return Expr();
        Expr operand = m->a;
        std::optional<int64_t> k = const_int_value(m->b);
        if (!k) {
            operand = m->b;
            k = const_int_value(m->a);
        }
        if (!k || *k == 0) return Expr();
        const Expr factor = make_const(t.type(), *k);
        if (const Min *mn = operand.as<Min>()) {
            return *k > 0 ? min(mn->a * factor, mn->b * factor)
                          : max(mn->a * factor, mn->b * factor);
        }
        if (const Max *mx = operand.as<Max>()) {
            return *k > 0 ? max(mx->a * factor, mx->b * factor)
                          : min(mx->a * factor, mx->b * factor);
        }
        return Expr();
    }

    std::optional<IterationRange> at_most_over_min_max(const Expr &a, const Expr &b,
                                                       int slack) const {
        if (!a.type().is_int() || a.type().bits() != 32) return std::nullopt;
        if (splits_left <= 0) return std::nullopt;
        splits_left--;
        std::vector<std::pair<Expr, int>> terms; // a - b as a sum of signed terms
        terms_of(a, 1, terms);
        terms_of(b, -1, terms);
        Expr rest = make_const(a.type(), slack), split;
        int sign = 0;
        for (const auto &[t, s] : terms) {
            if (!split.defined() && !free_of_loop(t) && (t.as<Min>() || t.as<Max>())) {
                split = t;
                sign = s;
            } else if (Expr scaled = min_max_scaled(t); !split.defined() && scaled.defined() &&
                                                        !free_of_loop(t)) {
                split = scaled;
                sign = s;
            } else {
                rest = s > 0 ? rest + t : rest - t;
            }
        }
        if (!split.defined()) return std::nullopt;
        const Min *mn = split.as<Min>();
        const Max *mx = split.as<Max>();
        const Expr p = mn ? mn->a : mx->a, q = mn ? mn->b : mx->b;
        auto with = [&](const Expr &operand) {
            return at_most(sign > 0 ? rest + operand : rest - operand, make_zero(a.type()), 0);
        };
        if ((mx != nullptr) == (sign > 0)) { // every operand's condition
            // An operand that does not move with the loop gives a condition that holds at
            // every iteration or at none (a shifted block's start e - 8 past a boundary): it
            // empties the other operand's range where it fails.
            auto invariant = [&](const Expr &operand) -> std::optional<Expr> {
                auto x = affine(sign > 0 ? rest + operand : rest - operand);
                if (!x || x->c != 0) return std::nullopt;
                return x->hi <= 0;
            };
            const std::optional<Expr> p_holds = invariant(p), q_holds = invariant(q);
            auto x = p_holds ? std::nullopt : with(p);
            auto y = q_holds ? std::nullopt : with(q);
            if (x && y)
                return IterationRange{tighter(x->lo, y->lo, true), tighter(x->hi, y->hi, false)};
            std::optional<IterationRange> moving = x ? x : y;
            std::optional<Expr> holds = p_holds ? p_holds : q_holds;
            if (!moving || !holds || (p_holds && q_holds)) return std::nullopt;
            const Expr far = make_const(Int(32), 1 << 30);
            if (moving->lo.defined()) return IterationRange{select(*holds, moving->lo, far), moving->hi};
            return IterationRange{moving->lo, select(*holds, moving->hi, 0 - far)};
        }
        // Either operand's condition: the one moving with the loop first.
        const bool p_first = !free_of_loop(p) || free_of_loop(q);
        auto range = with(p_first ? p : q);
        if (!range) range = with(p_first ? q : p);
        if (range) all_exact = false;
        return range;
    }
};

/** The steady state of one loop: its body with every site whose condition it can solve for
 * the loop's variable reduced, and the range of iterations where all of those hold. */
class SteadyState : public IRMutator {
    /** The largest condition solved, in nodes (its lets expanded). */
    static constexpr size_t kMaxConditionNodes = 400;

public:
    /** With assume_split_starts, an untagged min(a, b) with a moving with the loop's variable
     * and b fixed (a ShiftInwards split's start, min(outer * factor, extent - factor)) is a
     * site too: the steady state is where a <= b, and the lets bound inside take their steady
     * values, so the sites that read them solve. */
    explicit SteadyState(const std::string &v, bool assume_split_starts = false)
        : v(v), assume_split_starts(assume_split_starts) {}
    using IRMutator::mutate;
    std::vector<IterationRange> ranges;
    // The solved scalar sites whose condition reads no loop inside this one: their range is
    // exactly where the condition holds (as trimmed() relies on), so outside it, it fails.
    struct ExactSite {
        const IRNode *node;
        IterationRange range;
    };
    std::vector<ExactSite> exact_sites;
    /** Whether `node` was met with one meaning only (see seen). */
    bool single_meaning(const IRNode *node) const {
        auto it = seen.find(node);
        return it != seen.end() && it->second.size() == 1;
    }
    int tagged_sites = 0;   // likely sites solved
    int unsolved_sites = 0; // likely sites whose condition moves with the loop but did not solve

private:
    const std::string v;
    const bool assume_split_starts;
    std::map<std::string, Expr> lets; // bound inside the loop: their values, lets expanded
    std::set<std::string> inner;      // loop variables bound inside the loop
    InnerRanges inner_ranges;         // and the values they take
    // The sites met so far, each with its condition (lets expanded) and whether it solved. A
    // node reached twice (shared by an unrolled loop's copies) may mean different things where
    // lets of its names are bound again: each meaning is a site of its own, solved for its own
    // range (the steady state is where all hold); a meaning met again reduces as it did.
    struct SeenSite {
        Expr condition;
        bool solved;
    };
    std::map<const IRNode *, std::vector<SeenSite>> seen;
    Expr expand(const Expr &e) const { return lets.empty() ? e : substitute(lets, e); }

    /** Whether site `node` with condition `cond` (in the steady values of its parts) holds
     * over a range of this loop's iterations; records the range. */
    bool solved(const IRNode *node, const Expr &cond, bool over_inner_loops = true,
                bool tagged_site = true) {
        Expr c = expand(cond);
        // First, as the walks below take time in the size of c as a tree: the values of lets
        // share their terms, and a chain of Funcs computed in one loop, each region written
        // in terms of the next, expands to a tree exponential in the chain's length.
        if (expr_larger_than(c, kMaxConditionNodes)) return false;
        std::vector<SeenSite> &meanings = seen[node];
        for (const SeenSite &m : meanings)
            if (deep_equal(m.condition, c)) return m.solved;
        meanings.push_back({c, false});
        if (!expr_uses_var(c, v)) return false;
        static const InnerRanges none;
        // Both operands lvalues: the ternary binds one, copying neither map.
        const InnerRanges &relaxed = over_inner_loops ? inner_ranges : none;
        Solver solver(v, inner, relaxed);
        std::optional<IterationRange> range = solver.solve(c);
        if (!range) {
            unsolved_sites += tagged_site;
            return false;
        }
        ranges.push_back(*range);
        tagged_sites += tagged_site;
        meanings.back().solved = true;
        bool reads_inner = false;
        for (const std::string &n : inner)
            reads_inner = reads_inner || expr_uses_var(c, n);
        // (A vector's condition holds over the range where every lane's does: outside it
        // some lanes' may still hold.)
        if (!reads_inner && tagged_site && c.type().lanes() == 1 && solver.exact())
            exact_sites.push_back({node, *range});
        return true;
    }

    // A ShiftInwards split's start: min(a, b), a moving with the loop, b fixed.
    bool split_start(const Min *op, const Expr &a, const Expr &b) {
        if (!assume_split_starts || tagged(op->a) || tagged(op->b) || !op->type.is_int() ||
            !op->type.is_scalar()) {
            return false;
        }
        Expr ea = expand(a), eb = expand(b);
        // solved() refuses conditions this large: no need to walk them (see there).
        if (expr_larger_than(ea, kMaxConditionNodes) || expr_larger_than(eb, kMaxConditionNodes))
            return false;
        if (!expr_uses_var(ea, v) || expr_uses_var(eb, v)) return false;
        for (const std::string &n : inner)
            if (expr_uses_var(eb, n)) return false;
        return solved(op, a <= b, true, /*tagged_site=*/false);
    }

    static Expr untag(const Expr &e) { return is_likely(e) ? e.as<Call>()->args[0] : e; }

    Expr visit(const Min *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (split_start(op, a, b)) return a;
        if (tagged(op->a) && solved(op, untag(a) <= untag(b))) return untag(a);
        if (tagged(op->b) && !tagged(op->a) && solved(op, untag(b) <= untag(a))) return untag(b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Min::make(a, b);
    }

    Expr visit(const Max *op) override {
        Expr a = mutate(op->a), b = mutate(op->b);
        if (tagged(op->a) && solved(op, untag(a) >= untag(b))) return untag(a);
        if (tagged(op->b) && !tagged(op->a) && solved(op, untag(b) >= untag(a))) return untag(b);
        if (a.same_as(op->a) && b.same_as(op->b)) return op;
        return Max::make(a, b);
    }

    Expr visit(const Select *op) override {
        Expr cond = mutate(op->condition), t = mutate(op->true_value);
        if (is_likely(op->condition) && solved(op, untag(cond))) return t;
        Expr f = mutate(op->false_value);
        if (cond.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value))
            return op;
        return Select::make(cond, t, f);
    }

    Stmt visit(const IfThenElse *op) override {
        if (!is_likely(op->condition)) return IRMutator::visit(op);
        // Not over the loops inside: an if inside a loop of its own is trimmed with that loop
        // (a GuardWithIf tail's lanes), and partitioning the loops around it for the guard
        // would copy them for nothing.
        Expr cond = mutate(op->condition);
        if (solved(op, untag(cond), false)) return mutate(op->then_case);
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        return IfThenElse::make(cond, then_case, else_case);
    }

    /** body() with `name` bound to value (its lets expanded) for the sites inside. */
    template <typename Body> auto with_let(const std::string &name, const Expr &value, Body body) {
        auto saved = lets.find(name);
        std::optional<Expr> before;
        if (saved != lets.end()) before = saved->second;
        lets[name] = expand(value);
        auto result = body();
        if (before) {
            lets[name] = *before;
        } else {
            lets.erase(name);
        }
        return result;
    }

    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        // Assuming split starts, the sites inside read the steady values of the lets.
        Stmt body = with_let(op->name, assume_split_starts ? value : op->value,
                             [&] { return mutate(op->body); });
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        Expr body = with_let(op->name, op->value, [&] { return mutate(op->body); });
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }

    Stmt visit(const For *op) override {
        const bool added = inner.insert(op->name).second;
        if (added) inner_ranges[op->name] = {expand(op->min), expand(op->min + op->extent - 1)};
        Stmt result = IRMutator::visit(op);
        if (added) {
            inner.erase(op->name);
            inner_ranges.erase(op->name);
        }
        return result;
    }
};

/** Every likely dropped but those that are the whole condition of an if. */
class StripLikely : public IRMutator {
public:
    using IRMutator::mutate;

private:
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::likely)) return mutate(op->args[0]);
        return IRMutator::visit(op);
    }
    Stmt visit(const IfThenElse *op) override {
        if (!is_likely(op->condition)) return IRMutator::visit(op);
        const Call *c = op->condition.as<Call>();
        Expr cond = mutate(c->args[0]);
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        return IfThenElse::make(likely(cond), then_case, else_case);
    }
};

/** Whether s has a GPU thread loop. */
bool has_thread_loop(const Stmt &s) {
    class Finder : public IRVisitor {
    public:
        bool found = false;
        void visit(const For *op) override {
            found = found || op->for_type == ForType::GPUThread;
            if (!found) IRVisitor::visit(op);
        }
    } finder;
    s.accept(&finder);
    return finder.found;
}

/** A loop whose whole body, past its lets, is `if (c) s` with c an affine bound on the loop's
 * variable, as a loop whose range is where c holds and whose body is s: outside that range
 * the body does nothing. (A GuardWithIf split's inner loop over a region smaller than its
 * factor, say a vector of 16 guarded down to 1 point, runs its one iteration, not 16 tests.)
 * Undefined where the body has another shape. */
Stmt trimmed(const For *op) {
    const GuardUnderLets g = guard_under_lets(op->body);
    if (!g.guard) return Stmt();
    const Expr &cond = g.condition;
    if (!expr_uses_var(cond, op->name) || expr_larger_than(cond, 400)) return Stmt();
    static const std::set<std::string> no_inner_loops;
    static const InnerRanges no_ranges;
    Solver solver(op->name, no_inner_loops, no_ranges);
    std::optional<IterationRange> range = solver.solve(cond);
    if (!range || !solver.exact()) return Stmt();
    const Stmt body = g.unguarded();
    const std::string start = op->name + ".trim_start", end = op->name + ".trim_end";
    Expr start_v = Variable::make(Int(32), start), end_v = Variable::make(Int(32), end);
    Expr first = range->lo.defined() ? max(op->min, range->lo) : op->min;
    Expr last_plus_one = op->min + op->extent;
    if (range->hi.defined()) last_plus_one = min(last_plus_one, range->hi + 1);
    Stmt loop =
        For::make(op->name, start_v, max(end_v - start_v, 0), op->for_type, op->device_api, body);
    return LetStmt::make(start, first, LetStmt::make(end, last_plus_one, loop));
}

/** A body with the given sites reduced to the branch their conditions take: where the range
 * a site's condition holds over is exact (see SteadyState::exact_sites), that is every site's
 * true value and then-branch inside the range, false value and else-branch outside. In the edges
 * of a loop whose steady state is the exact range of one site, a constant_exterior's planes past
 * the input's extent fill with the constant instead of testing each point (fuzz seed 2026 pair
 * 483). */
class ReduceSites : public IRMutator {
public:
    ReduceSites(std::set<const IRNode *> sites, bool hold) : sites(std::move(sites)), hold(hold) {}
    using IRMutator::mutate;

private:
    const std::set<const IRNode *> sites;
    const bool hold;
    Expr visit(const Select *op) override {
        if (sites.count(op)) return mutate(hold ? op->true_value : op->false_value);
        return IRMutator::visit(op);
    }
    Stmt visit(const IfThenElse *op) override {
        if (!sites.count(op)) return IRMutator::visit(op);
        if (hold) return mutate(op->then_case);
        return op->else_case.defined() ? mutate(op->else_case) : Evaluate::make(0);
    }
};

/** The names of the lets that cut one loop into three. */
struct CutNames {
    std::string start, end, lo, hi;
};

/** `loops` inside the lets that name where loop `op` is cut: its start and end, and lo and hi
 * clamped into them, hi not below lo. */
Stmt with_cut_lets(const For *op, const Expr &lo, const Expr &hi, const CutNames &names,
                   Stmt loops) {
    Expr start_v = Variable::make(Int(32), names.start), end_v = Variable::make(Int(32), names.end);
    Expr lo_v = Variable::make(Int(32), names.lo);
    loops = LetStmt::make(names.hi, hi.defined() ? clamp(hi + 1, lo_v, end_v) : end_v, loops);
    loops = LetStmt::make(names.lo, lo.defined() ? clamp(lo, start_v, end_v) : start_v, loops);
    loops = LetStmt::make(names.end, start_v + op->extent, loops);
    return LetStmt::make(names.start, op->min, loops);
}

/** Loop `op` as loops over [start, lo) and [hi, end) running edge, around `middle`, which runs
 * [lo, hi) (lo and hi the variables names.lo and names.hi: clamped into the loop's range, hi not
 * below lo, so that the three cover it exactly, in order, each with a count of zero or more).
 * No first loop where lo is undefined (nothing bounds the range from below), no last where hi
 * is. */
Stmt cut_loop(const For *op, const Expr &lo, const Expr &hi, const Stmt &edge, const Stmt &middle,
              const CutNames &names) {
    Expr start_v = Variable::make(Int(32), names.start), end_v = Variable::make(Int(32), names.end);
    Expr lo_v = Variable::make(Int(32), names.lo), hi_v = Variable::make(Int(32), names.hi);
    std::vector<Stmt> parts;
    if (lo.defined())
        parts.push_back(
            For::make(op->name, start_v, lo_v - start_v, op->for_type, op->device_api, edge));
    parts.push_back(middle);
    if (hi.defined())
        parts.push_back(For::make(op->name, hi_v, end_v - hi_v, op->for_type, op->device_api, edge));
    return with_cut_lets(op, lo, hi, names, Block::make(parts));
}

/** Loop `op`'s iterations [names.lo, names.hi) running body. */
Stmt middle_loop(const For *op, const CutNames &names, const Stmt &body) {
    Expr lo_v = Variable::make(Int(32), names.lo), hi_v = Variable::make(Int(32), names.hi);
    return For::make(op->name, lo_v, hi_v - lo_v, op->for_type, op->device_api, body);
}

class PartitionLoops : public IRMutator {
public:
    using IRMutator::mutate;

private:
    int guard_cuts = 0;

    /** The body of an edge loop, where `failing` sites fail: without them, and without the
     * productions only their branches read; its inner loops partitioned, its own sites plain
     * conditions. */
    Stmt edge_body(const Stmt &body, const std::set<const IRNode *> &failing) {
        Stmt edge = body;
        if (!failing.empty())
            edge = remove_dead_productions_per_allocation(ReduceSites(failing, false).mutate(body));
        return mutate(StripLikely().mutate(edge));
    }

    /** Loop op cut where an exact guard holds (see visit(For)), or undefined where it has none. */
    Stmt cut_at_guard(const For *op, const SteadyState &steady_state) {
        using Site = SteadyState::ExactSite;
        auto single = [&](const Site &s) { return steady_state.single_meaning(s.node); };
        auto guard = std::find_if(
            steady_state.exact_sites.begin(), steady_state.exact_sites.end(),
            [&](const Site &s) { return s.node->node_type == IRNodeType::IfThenElse && single(s); });
        if (guard == steady_state.exact_sites.end()) return Stmt();
        // The sites whose range is the guard's (the guard's copies in a nest's other copies)
        // take the same branch as the guard on each side of the cut.
        auto same_end = [](const Expr &a, const Expr &b) {
            return a.defined() == b.defined() && (!a.defined() || deep_equal(a, b));
        };
        std::set<const IRNode *> cut_sites;
        for (const Site &s : steady_state.exact_sites)
            if (single(s) && same_end(s.range.lo, guard->range.lo) &&
                same_end(s.range.hi, guard->range.hi))
                cut_sites.insert(s.node);
        // Numbered: the loop inside may be cut again at another guard.
        const std::string tag = op->name + ".guard" + std::to_string(guard_cuts++);
        const CutNames names{tag + "_start", tag + "_end", tag + "_lo", tag + "_hi"};
        Stmt inside = middle_loop(op, names, ReduceSites(cut_sites, true).mutate(op->body));
        return cut_loop(op, guard->range.lo, guard->range.hi, edge_body(op->body, cut_sites),
                        mutate(inside), names);
    }

    Stmt visit(const For *op) override {
        // A GPU kernel's innermost thread loop is partitioned as a parallel loop is: each
        // thread tests where it is (a vectorized GuardWithIf split inside it ran every
        // thread's vector lane by lane). Not the outer thread and block loops: nothing may
        // come between them and the thread loops inside (ValidateGPULoops.h).
        const bool thread_loop = op->for_type == ForType::GPUThread && !has_thread_loop(op->body);
        if (op->for_type != ForType::Serial && op->for_type != ForType::Parallel && !thread_loop)
            return IRMutator::visit(op);
        // A thread loop's extent is the block's shape, never trimmed.
        if (!thread_loop) {
            if (Stmt trim = trimmed(op); trim.defined()) return mutate(trim);
        }
        SteadyState steady_state(op->name);
        Stmt steady = steady_state.mutate(op->body);
        // Sites behind a ShiftInwards split's start (a boundary condition's clamp of
        // min(xo * 4, extent - 4) + r) solve where the start is its first operand. Taken only
        // where that solves more sites: partitioning every split for its start alone doubled
        // the code of every vectorized pure loop, for one scalar min per vector.
        if (steady_state.unsolved_sites > 0) {
            SteadyState assuming(op->name, /*assume_split_starts=*/true);
            Stmt assumed = assuming.mutate(op->body);
            if (assuming.tagged_sites > steady_state.tagged_sites) {
                steady = assumed;
                steady_state.ranges = assuming.ranges;
                steady_state.exact_sites.clear(); // the edges keep every site as it was
            }
        }
        if (steady_state.ranges.empty()) return IRMutator::visit(op);
        // A serial loop with a guard among other sites is first cut where the guard holds:
        // past it, only what the guard leaves runs, and inside, the other sites partition the
        // loop as below. (A vectorized GuardWithIf split whose body has other sites runs its
        // tail lane by lane: the lanes past the end ran the whole nest inside, producers and
        // all, for nothing; one live lane of 16 inside a parallel loop cost 16 parallel loops:
        // fuzz seed 2026 pair 240.)
        if (op->for_type == ForType::Serial && steady_state.ranges.size() > 1) {
            if (Stmt cut = cut_at_guard(op, steady_state); cut.defined()) return cut;
        }
        Expr lo, hi;
        for (const IterationRange &r : steady_state.ranges) {
            if (r.lo.defined()) lo = lo.defined() ? max(lo, r.lo) : r.lo;
            if (r.hi.defined()) hi = hi.defined() ? min(hi, r.hi) : r.hi;
        }
        // The edges run the body as it was, each site a plain condition; the steady state is
        // partitioned further where its loops have sites of their own.
        std::set<const IRNode *> failing;
        if (steady_state.ranges.size() == 1 && steady_state.exact_sites.size() == 1 &&
            steady_state.single_meaning(steady_state.exact_sites[0].node))
            failing.insert(steady_state.exact_sites[0].node);
        Stmt edge = edge_body(op->body, failing); // trimmed, not partitioned
        steady = mutate(steady);
        const CutNames names{op->name + ".partition_start", op->name + ".partition_end",
                             op->name + ".steady_lo", op->name + ".steady_hi"};
        if (op->for_type == ForType::Serial)
            return cut_loop(op, lo, hi, edge, middle_loop(op, names, steady), names);
        // A parallel loop stays one loop, each iteration one task, testing where it is; a
        // thread loop stays one loop, each iteration one thread.
        Expr start_v = Variable::make(Int(32), names.start), end_v = Variable::make(Int(32), names.end);
        Expr lo_v = Variable::make(Int(32), names.lo), hi_v = Variable::make(Int(32), names.hi);
        Expr v = Variable::make(Int(32), op->name);
        Stmt loop = For::make(op->name, start_v, end_v - start_v, op->for_type, op->device_api,
                              IfThenElse::make(v >= lo_v && v < hi_v, steady, edge));
        return with_cut_lets(op, lo, hi, names, loop);
    }
};

} // namespace

Stmt partition_loops(const Stmt &s) { return StripLikely().mutate(PartitionLoops().mutate(s)); }

} // namespace Internal
} // namespace loom
