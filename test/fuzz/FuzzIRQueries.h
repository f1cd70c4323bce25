// Queries of the fuzzers' expression trees (FuzzIR.h) that the generators ask of a
// pipeline's definitions: structural equality, and which Funcs a tree reads, and where.
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

/** Whether n calls c anywhere (in its arguments, conditions and operands). */
inline bool calls(const Node &n, const Callee &c) {
    if (n.kind == Node::Call && n.callee.kind == c.kind && n.callee.index == c.index) return true;
    for (const Index &ix : n.args) {
        if (ix.value && calls(*ix.value, c)) return true;
    }
    for (const Cond &k : n.conds) {
        if (calls(*k.a, c) || calls(*k.b, c)) return true;
    }
    for (const NodeP &k : n.kids) {
        if (calls(*k, c)) return true;
    }
    return false;
}

/** Whether n calls Func f anywhere. */
inline bool calls_func(const Node &n, int f) { return calls(n, Callee{Callee::Func, f}); }

/** Whether every read of Func f inside n is at exactly `lhs`. */
inline bool reads_only_at(const Node &n, int f, const std::vector<Index> &lhs) {
    if (n.kind == Node::Call && n.callee.kind == Callee::Func && n.callee.index == f) {
        if (n.args.size() != lhs.size()) return false;
        for (size_t i = 0; i < lhs.size(); i++) {
            if (!same_index(n.args[i], lhs[i])) return false;
        }
    }
    for (const Index &ix : n.args) {
        if (ix.value && !reads_only_at(*ix.value, f, lhs)) return false;
    }
    for (const Cond &c : n.conds) {
        if (!reads_only_at(*c.a, f, lhs) || !reads_only_at(*c.b, f, lhs)) return false;
    }
    for (const NodeP &k : n.kids) {
        if (!reads_only_at(*k, f, lhs)) return false;
    }
    return true;
}

} // namespace loom_fuzz
