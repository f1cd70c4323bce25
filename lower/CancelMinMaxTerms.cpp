#include "lower/CancelMinMaxTerms.h"

#include <utility>

#include "dsl/IR.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {

namespace {

size_t nonzero_terms(const Linear &l) {
    size_t n = 0;
    for (const auto &t : l.terms)
        n += l.wrapped(t.second) != 0;
    return n;
}

// How many mins deep move_one_term_into_min_max looks for a term's cancelling.
constexpr int kMoveDepth = 4;

// Whether adding j * T to e cancels T somewhere in e: e holds T as -j * T, or holds a min or
// max, plus or minus, whose operand would cancel it (at most `depth` mins down).
bool cancels_inside(const Expr &e, const Expr &T, uint64_t j, Type type, int depth) {
    Linear form;
    form.type = type;
    form.add(e, 1);
    if (auto it = form.terms.find(T); it != form.terms.end())
        return form.wrapped(it->second) != 0 && form.wrapped(it->second + j) == 0;
    if (depth == 0) return false;
    for (const auto &[term, m] : form.terms) {
        const int64_t c = form.wrapped(m);
        const Min *mn = term.as<Min>();
        const Max *mx = term.as<Max>();
        if ((c != 1 && c != -1) || (!mn && !mx)) continue;
        const uint64_t inner = c == 1 ? j : (uint64_t)0 - j;
        if (cancels_inside(mn ? mn->a : mx->a, T, inner, type, depth - 1) ||
            cancels_inside(mn ? mn->b : mx->b, T, inner, type, depth - 1))
            return true;
    }
    return false;
}

bool move_one_term_into_min_max(Linear &l, int depth, const ExprSimplifier &simplify) {
    for (const auto &t : l.terms) {
        const Min *mn = t.first.as<Min>();
        const Max *mx = t.first.as<Max>();
        const int64_t c = l.wrapped(t.second);
        if ((c != 1 && c != -1) || (!mn && !mx)) continue;
        const Expr a = mn ? mn->a : mx->a, b = mn ? mn->b : mx->b;
        for (const auto &[term, k] : l.terms) {
            if (l.wrapped(k) == 0 || term.same_as(t.first)) continue;
            const uint64_t inside = c == 1 ? k : (uint64_t)0 - k;
            if (!cancels_inside(a, term, inside, l.type, depth) &&
                !cancels_inside(b, term, inside, l.type, depth))
                continue;
            Linear new_a, new_b, rest = l;
            new_a.type = new_b.type = l.type;
            new_a.add(a, 1);
            new_a.add(term, inside);
            new_b.add(b, 1);
            new_b.add(term, inside);
            const Expr moved = term, min_max = t.first; // they dangle once rest replaces l
            rest.terms.erase(min_max);
            rest.terms.erase(moved);
            Expr operand_a = simplify(new_a.rebuild()), operand_b = simplify(new_b.rebuild());
            rest.add(simplify(mn ? Expr(Min::make(operand_a, operand_b))
                                 : Expr(Max::make(operand_a, operand_b))),
                     t.second);
            l = std::move(rest);
            return true;
        }
    }
    return false;
}

// min(p, q) + k * T + r, where adding k * T to an operand cancels T there: the term moves
// inside, min(p + k * T, q + k * T) + r (min(p, q) + e = min(p + e, q + e)), and so for
// max and for -min(p, q) (T moves in as -k * T). The operand no longer counts T twice:
// a + min(b, (M - a) - 7) becomes min(a + b, M - 7), whose largest value is M's less 7,
// where the sum's bounds counted a's range twice. The cancelling may lie in a min inside
// the operand (a ShiftInwards split's clamp of a block to its region's end, min +
// min(base, extent - factor), nested once per split and once per producer computed in the
// block: an input was asked for columns past any the output needs, fuzz seed 8401 pair
// 1169; test RoundedTails.ShiftedBlocksOfProducersPerTileAskNoPointPastTheirRegions);
// the simplification of the new operands moves it on down. Halide's rule
// z + min(x, y - z) -> min(z + x, y), for any term and through nested mins.
bool move_one_term_into_min_max(Linear &l, const ExprSimplifier &simplify) {
    // The shallowest cancelling first: f0.min + min(8 * v, f0.max - f0.min - 7), where
    // f0.min holds a term a that also cancels deeper in f0.max, becomes
    // min(f0.min + 8 * v, f0.max - 7) only if f0.min moves in whole before a does.
    for (int depth = 0; depth <= kMoveDepth; depth++) {
        if (move_one_term_into_min_max(l, depth, simplify)) return true;
    }
    return false;
}

// One rewrite of cancel_into_min_max, if any applies.
bool cancel_one_min_max(Linear &l, const ExprSimplifier &simplify) {
    for (const auto &t : l.terms) {
        const Min *mn = t.first.as<Min>();
        const Max *mx = t.first.as<Max>();
        if (l.wrapped(t.second) == 0 || (!mn && !mx)) continue;
        const Expr a = mn ? mn->a : mx->a, b = mn ? mn->b : mx->b;
        for (const auto &[p, q] : {std::make_pair(a, b), std::make_pair(b, a)}) {
            Linear rest = l;
            rest.terms.erase(t.first);
            const size_t before = nonzero_terms(rest);
            rest.add(p, t.second);
            if (nonzero_terms(rest) >= before) continue;
            Expr zero = make_zero(l.type), difference = simplify(Sub::make(q, p));
            rest.add(simplify(mn ? Expr(Min::make(zero, difference))
                                 : Expr(Max::make(zero, difference))),
                     t.second);
            l = std::move(rest); // t dangles from here on
            return true;
        }
    }
    return false;
}

} // namespace

// c * min(p, q) + r, where r cancels some of c * p's terms, is c * min(0, q - p) + (r + c * p)
// (min(p, q) = p + min(0, q - p) where nothing overflows), and so for max: min(x, e) - x
// becomes min(0, e - x), whose bounds no longer count x twice. A partitioned loop over a
// producer's region runs (min(x, end) - x) / factor times; bounded as it was, the
// difference spanned the whole consumer's range and the region read grew by as much.
void cancel_into_min_max(Linear &l, const ExprSimplifier &simplify) {
    // Each rewrite takes a term out of the sum; the cap is for a min that simplifies back
    // into a sum holding it again, which no rule does today.
    for (int rewrites = 0; rewrites < 64; rewrites++) {
        if (!cancel_one_min_max(l, simplify) && !move_one_term_into_min_max(l, simplify)) break;
    }
}

} // namespace Internal
} // namespace loom
