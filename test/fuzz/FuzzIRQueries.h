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

} // namespace loom_fuzz
