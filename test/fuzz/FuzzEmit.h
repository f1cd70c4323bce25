// One walker over a PipelineDesc, parameterized by a backend: LoomBackend (FuzzBuild.cpp)
// turns each step into Loom API calls, PrintBackend (FuzzPrint.cpp) into the C++ text of the
// same calls. Keeping the walk in one place is what makes the printed reproducer faithful.
//
// A backend B provides a value type B::E and:
//   E konst(ET, double)              a typed constant
//   E var(int), E rvar(int rdom, int dim)
//   E call(const Callee &, int value_index, std::vector<E> args)
//   E bin(Op, ET, E, E), E shift(bool left, E, int), E cast(ET, E), E unary(Unary, ET, E)
//   E cmp(Cmp, E, E), E join(bool is_or, E, E), E select(E, E, E)
//   E clamp(E, E lo, E hi)
//   E reduce(Red, int value_index, E body)
//   E index_add(E, int), E index_mul(E, int), E index_div(E, int), E index_plus(E, E)
//   E index_const(int), E index_gather(E value, int lo, int hi)
//   void define(int func, int update, std::vector<E> lhs, std::vector<E> values)
//   void define_extern(int func)        an extern stage (FuncDesc::is_extern)
#pragma once

#include "FuzzIR.h"

namespace loom_fuzz {

template<typename B>
class Emitter {
public:
    using E = typename B::E;
    Emitter(const PipelineDesc &p, B &b) : p(p), b(b) {}

    E expr(const Node &n) {
        switch (n.kind) {
        case Node::Const: return b.konst(n.type, n.value);
        case Node::Var: return n.type == ET::I32 ? b.var(n.var) : b.cast(n.type, b.var(n.var));
        case Node::RVar:
            return n.type == ET::I32 ? b.rvar(n.rdom, n.rdim) : b.cast(n.type, b.rvar(n.rdom, n.rdim));
        case Node::Call: {
            std::vector<E> args;
            for (const Index &ix : n.args) args.push_back(index(ix));
            return b.call(n.callee, n.value_index, std::move(args));
        }
        case Node::Bin: return b.bin(n.op, n.type, expr(*n.kids[0]), expr(*n.kids[1]));
        case Node::Shift: return b.shift(n.shift_left, expr(*n.kids[0]), n.var);
        case Node::Cast: return b.cast(n.type, expr(*n.kids[0]));
        case Node::Un: return b.unary(n.unary, n.type, expr(*n.kids[0]));
        case Node::Select: {
            E c = cond(n.conds[0]);
            for (size_t i = 1; i < n.conds.size(); i++) c = b.join(n.join_or, c, cond(n.conds[i]));
            return b.select(c, expr(*n.kids[0]), expr(*n.kids[1]));
        }
        case Node::Clamp:
            return b.clamp(expr(*n.kids[0]), b.konst(n.type, n.lo), b.konst(n.type, n.hi));
        case Node::Reduce: return b.reduce(n.red, n.value_index, expr(*n.kids[0]));
        }
        return E();
    }

    E index(const Index &ix) {
        E e;
        if (ix.gather) {
            e = b.index_gather(expr(*ix.value), ix.lo, ix.hi);
            if (ix.off) e = b.index_add(e, ix.off);
        } else if (ix.var >= 0) {
            e = b.var(ix.var);
            if (ix.mul != 1) e = b.index_mul(e, ix.mul);
            if (ix.div != 1) e = b.index_div(e, ix.div);
            if (ix.off) e = b.index_add(e, ix.off);
        } else if (ix.rdom >= 0) {
            e = b.rvar(ix.rdom, ix.rdim);
            if (ix.off) e = b.index_add(e, ix.off);
            return e;
        } else {
            return b.index_const(ix.off);
        }
        if (ix.rdom >= 0) e = b.index_plus(e, b.rvar(ix.rdom, ix.rdim));
        return e;
    }

    /** Every definition of every Func, producers first. */
    void definitions() {
        for (size_t f = 0; f < p.funcs.size(); f++) {
            const FuncDesc &fd = p.funcs[f];
            if (fd.is_extern) {
                b.define_extern((int)f);
                continue;
            }
            std::vector<E> values;
            for (const NodeP &v : fd.init) values.push_back(expr(*v));
            b.define((int)f, -1, {}, std::move(values));
            for (size_t u = 0; u < fd.updates.size(); u++) {
                const UpdateDesc &ud = fd.updates[u];
                std::vector<E> lhs, vals;
                for (const Index &ix : ud.lhs) lhs.push_back(index(ix));
                for (const NodeP &v : ud.values) vals.push_back(expr(*v));
                b.define((int)f, (int)u, std::move(lhs), std::move(vals));
            }
        }
    }

private:
    const PipelineDesc &p;
    B &b;

    E cond(const Cond &c) { return b.cmp(c.cmp, expr(*c.a), expr(*c.b)); }
};

}  // namespace loom_fuzz
