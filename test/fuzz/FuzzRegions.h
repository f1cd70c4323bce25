// The region of each Func and input a random pipeline reads, to size inputs that are read
// without a boundary condition (FuzzPipelineGen.cpp): intervals per dimension, joined over
// every call, through the calls' index expressions evaluated on the callers' regions.
#pragma once

#include <algorithm>
#include <vector>

#include "FuzzIR.h"

namespace loom_fuzz {

struct Iv {
    long lo = 0, hi = -1;
    bool empty() const { return hi < lo; }
    void add(const Iv &o) {
        if (o.empty()) return;
        if (empty()) {
            *this = o;
        } else {
            lo = std::min(lo, o.lo);
            hi = std::max(hi, o.hi);
        }
    }
};
using Box = std::vector<Iv>;

inline long floor_div(long a, long b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class RegionAnalysis {
public:
    RegionAnalysis(const PipelineDesc &p, int pad) : p(p), pad(pad) {
        funcs.resize(p.funcs.size());
        for (size_t f = 0; f < p.funcs.size(); f++)
            funcs[f].resize(p.funcs[f].dims);
        inputs.resize(p.inputs.size());
        for (size_t i = 0; i < p.inputs.size(); i++)
            inputs[i].resize(p.inputs[i].dims);
    }

    /** The boxes of each input read directly, given every Func's region padded by `pad`. */
    std::vector<Box> run() {
        for (int o : p.outputs) {
            for (size_t d = 0; d < p.out_mins.size(); d++) {
                funcs[o][d].add(Iv{p.out_mins[d], p.out_mins[d] + p.out_extents[d] - 1});
            }
        }
        for (int f = (int)p.funcs.size() - 1; f >= 0; f--) {
            const FuncDesc &fd = p.funcs[f];
            if (funcs[f].empty() || funcs[f][0].empty()) continue;
            // The updates' left-hand sides and self-reads widen the region; twice reaches the
            // fixed point of the shapes generated here.
            for (int iter = 0; iter < 2; iter++) {
                for (const UpdateDesc &u : fd.updates) {
                    Env env = env_of(funcs[f], u.rdom);
                    for (size_t d = 0; d < u.lhs.size(); d++)
                        funcs[f][d].add(index(u.lhs[d], env));
                    for (const NodeP &v : u.values)
                        reads(*v, env);
                }
            }
            Box box = funcs[f];
            for (Iv &iv : box) {
                iv.lo -= pad;
                iv.hi += pad;
            }
            Env env = env_of(box, -1);
            for (const NodeP &v : fd.init)
                reads(*v, env);
            for (const UpdateDesc &u : fd.updates) {
                Env uenv = env_of(box, u.rdom);
                for (const Index &ix : u.lhs)
                    index(ix, uenv);
                for (const NodeP &v : u.values)
                    reads(*v, uenv);
            }
        }
        return inputs;
    }

private:
    const PipelineDesc &p;
    int pad;
    std::vector<Box> funcs, inputs;

    struct Env {
        Box vars;
        std::vector<std::pair<int, Box>> rdoms;
    };

    Env env_of(const Box &vars, int rdom) {
        Env e;
        e.vars = vars;
        if (rdom >= 0) push_rdom(e, rdom);
        return e;
    }
    void push_rdom(Env &e, int rdom) {
        Box b;
        const RDomDesc &rd = p.rdoms[rdom];
        for (size_t i = 0; i < rd.mins.size(); i++)
            b.push_back(Iv{rd.mins[i], rd.mins[i] + rd.extents[i] - 1});
        e.rdoms.push_back({rdom, b});
    }
    Iv rvar(const Env &e, int rdom, int rdim) {
        for (const auto &r : e.rdoms) {
            if (r.first == rdom) return r.second[rdim];
        }
        return Iv{0, 0};
    }

    Iv index(const Index &ix, Env &env) {
        Iv v{0, 0};
        if (ix.gather) {
            reads(*ix.value, env);
            v = Iv{ix.lo, ix.hi};
        } else if (ix.var >= 0) {
            Iv x = ix.var < (int)env.vars.size() ? env.vars[ix.var] : Iv{0, 0};
            v = Iv{floor_div(x.lo * ix.mul, ix.div), floor_div(x.hi * ix.mul, ix.div)};
        }
        v.lo += ix.off;
        v.hi += ix.off;
        if (ix.rdom >= 0) {
            Iv r = rvar(env, ix.rdom, ix.rdim);
            v.lo += r.lo;
            v.hi += r.hi;
        }
        return v;
    }

    void reads(const Node &n, Env &env) {
        if (n.kind == Node::Reduce) {
            Env inner = env;
            push_rdom(inner, n.rdom);
            reads(*n.kids[0], inner);
            return;
        }
        if (n.kind == Node::Call) {
            Box b;
            for (const Index &ix : n.args)
                b.push_back(index(ix, env));
            Box *target = n.callee.kind == Callee::Func    ? &funcs[n.callee.index]
                          : n.callee.kind == Callee::Input ? &inputs[n.callee.index]
                                                           : nullptr;
            if (target) {
                for (size_t d = 0; d < b.size(); d++)
                    (*target)[d].add(b[d]);
            }
        }
        for (const Cond &c : n.conds) {
            reads(*c.a, env);
            reads(*c.b, env);
        }
        for (const NodeP &k : n.kids)
            reads(*k, env);
    }
};

} // namespace loom_fuzz
