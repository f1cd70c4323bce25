// Queries of the fuzzers' expression trees (FuzzIR.h) that the generators ask of a
// pipeline's definitions: structural equality, and which Funcs and RDoms a tree reads, and where.
#pragma once

#include <vector>

#include "FuzzIR.h"

namespace loom_fuzz {

inline bool same_index(const Index &a, const Index &b);

inline bool same_node(const Node &a, const Node &b) {
    if (a.kind != b.kind || a.type != b.type || a.value != b.value || a.var != b.var ||
        a.rdom != b.rdom || a.rdim != b.rdim || a.callee.kind != b.callee.kind ||
        a.callee.index != b.callee.index || a.value_index != b.value_index || a.op != b.op ||
        a.shift_left != b.shift_left || a.unary != b.unary || a.join_or != b.join_or ||
        a.lo != b.lo || a.hi != b.hi || a.red != b.red || a.args.size() != b.args.size() ||
        a.conds.size() != b.conds.size() || a.kids.size() != b.kids.size()) {
        return false;
    }
    for (size_t i = 0; i < a.args.size(); i++) {
        if (!same_index(a.args[i], b.args[i])) return false;
    }
    for (size_t i = 0; i < a.conds.size(); i++) {
        if (a.conds[i].cmp != b.conds[i].cmp || !same_node(*a.conds[i].a, *b.conds[i].a) ||
            !same_node(*a.conds[i].b, *b.conds[i].b)) {
            return false;
        }
    }
    for (size_t i = 0; i < a.kids.size(); i++) {
        if (!same_node(*a.kids[i], *b.kids[i])) return false;
    }
    return true;
}

inline bool same_index(const Index &a, const Index &b) {
    if (a.gather != b.gather || a.var != b.var || a.mul != b.mul || a.div != b.div ||
        a.off != b.off || a.rdom != b.rdom || a.rdim != b.rdim || a.lo != b.lo || a.hi != b.hi) {
        return false;
    }
    return !a.gather || same_node(*a.value, *b.value);
}

/** Whether `node_hit` holds of n or of any node below it (in index expressions, conditions
 * and operands), or `index_hit` of any of their indices: the one walk of every query below. */
template <typename NodeHit, typename IndexHit>
bool any_below(const Node &n, const NodeHit &node_hit, const IndexHit &index_hit) {
    if (node_hit(n)) return true;
    for (const Index &ix : n.args) {
        if (index_hit(ix)) return true;
        if (ix.value && any_below(*ix.value, node_hit, index_hit)) return true;
    }
    for (const Cond &c : n.conds) {
        if (any_below(*c.a, node_hit, index_hit) || any_below(*c.b, node_hit, index_hit))
            return true;
    }
    for (const NodeP &k : n.kids) {
        if (any_below(*k, node_hit, index_hit)) return true;
    }
    return false;
}

inline bool no_index_hit(const Index &) { return false; }

/** Whether n calls c anywhere. */
inline bool calls(const Node &n, const Callee &c) {
    return any_below(
        n,
        [&](const Node &m) {
            return m.kind == Node::Call && m.callee.kind == c.kind && m.callee.index == c.index;
        },
        no_index_hit);
}

/** Whether n calls Func f anywhere. */
inline bool calls_func(const Node &n, int f) { return calls(n, Callee{Callee::Func, f}); }

/** Whether n reads RDom `rdom` anywhere: an RVar of it, or an index along one. */
inline bool uses_rdom(const Node &n, int rdom) {
    return any_below(
        n, [&](const Node &m) { return m.kind == Node::RVar && m.rdom == rdom; },
        [&](const Index &ix) { return ix.rdom == rdom; });
}

/** Whether every read of Func f inside n is at exactly `lhs`. */
inline bool reads_only_at(const Node &n, int f, const std::vector<Index> &lhs) {
    auto elsewhere = [&](const Node &m) {
        if (m.kind != Node::Call || m.callee.kind != Callee::Func || m.callee.index != f)
            return false;
        if (m.args.size() != lhs.size()) return true;
        for (size_t i = 0; i < lhs.size(); i++) {
            if (!same_index(m.args[i], lhs[i])) return true;
        }
        return false;
    };
    return !any_below(n, elsewhere, no_index_hit);
}

/** Whether n's value moves with Func f's by rounding only: every read of f reaches n through
 * float arithmetic (+ - * / min max absd), clamps, abs, sqrt, sin, exp, selects (not their
 * conditions) and the values of sums, products, minima and maxima; never through a cast to an
 * integer, a comparison, floor, round, a bit operation, a modulus, an index or an argmax. A
 * float reduction of f summed in another order then changes n within the fuzzer's tolerance;
 * through the others a difference in the last bit becomes any difference (a cast to uint8 of
 * 26.99999 or of 27.00001: fuzz seed 7002 pair 1989). */
inline bool moves_by_rounding_with(const Node &n, int f) {
    if (!calls_func(n, f)) return true;
    if (!is_float(n.type)) return false;
    for (const Index &ix : n.args) {
        if (ix.value && calls_func(*ix.value, f)) return false;
    }
    for (const Cond &c : n.conds) {
        if (calls_func(*c.a, f) || calls_func(*c.b, f)) return false;
    }
    bool continuous = false;
    switch (n.kind) {
    case Node::Call:
        return true;
    case Node::Bin:
        continuous = n.op == Op::Add || n.op == Op::Sub || n.op == Op::Mul || n.op == Op::Div ||
                     n.op == Op::Min || n.op == Op::Max || n.op == Op::Absd;
        break;
    case Node::Un:
        continuous = n.unary == Unary::Abs || n.unary == Unary::SqrtAbs || n.unary == Unary::Sin ||
                     n.unary == Unary::Exp;
        break;
    case Node::Reduce:
        continuous = n.red == Red::Sum || n.red == Red::Product || n.red == Red::Maximum ||
                     n.red == Red::Minimum;
        break;
    case Node::Cast:
    case Node::Select:
    case Node::Clamp:
        continuous = true;
        break;
    default:
        break;
    }
    if (!continuous) return false;
    for (const NodeP &k : n.kids) {
        if (!moves_by_rounding_with(*k, f)) return false;
    }
    return true;
}

} // namespace loom_fuzz
