// Which loop names of a schedule are RVars. Loom finds a loop by its name alone; Halide 14's
// scheduling calls take Var or RVar and refuse to split an RVar into Vars, to rename one into a
// Var, or to fuse one into a Var. A name is an RVar when it is a loop of the stage's RDom or was
// made from one: split (both halves), tile (each axis's halves), rename, and fuse (the fused
// loop, when either part is one).
#include <map>
#include <set>
#include <string>
#include <utility>

#include "FuzzIR.h"

namespace loom_fuzz {

namespace {

const char *kRVarNames[] = {"x", "y", "z", "w"};

class RVarNames {
public:
    explicit RVarNames(const PipelineDesc &p) : p(p) {}

    std::set<std::string> &of(int ent, int stage) {
        auto key = std::make_pair(ent, stage);
        auto it = names.find(key);
        if (it != names.end()) return it->second;
        std::set<std::string> &s = names[key];
        if (ent < (int)p.funcs.size() && stage > 0) {
            int rdom = p.funcs[ent].updates[stage - 1].rdom;
            if (rdom >= 0) {
                const RDomDesc &rd = p.rdoms[rdom];
                for (size_t i = 0; i < rd.mins.size(); i++) s.insert(rd.name + "$" + kRVarNames[i]);
            }
        }
        return s;
    }

private:
    const PipelineDesc &p;
    std::map<std::pair<int, int>, std::set<std::string>> names;
};

}  // namespace

LoopKinds loop_kinds(const PipelineDesc &p, const Schedule &s) {
    LoopKinds kinds;
    RVarNames rvars(p);
    for (const Directive &d : s.directives) {
        std::vector<bool> flags(d.names.size(), false);
        bool at = false;
        const bool loop_directive = d.kind != Directive::ComputeAt && d.kind != Directive::StoreAt &&
                                    d.kind != Directive::ComputeWith &&
                                    d.kind != Directive::ComputeRoot &&
                                    d.kind != Directive::ComputeInline &&
                                    d.kind != Directive::StoreRoot &&
                                    d.kind != Directive::ReorderStorage;
        if (loop_directive) {
            std::set<std::string> &set = rvars.of(d.ent, d.stage);
            auto is = [&](size_t i) { return set.count(d.names[i]) > 0; };
            auto mark = [&](size_t i, bool rvar) {
                flags[i] = rvar;
                if (rvar) set.insert(d.names[i]);
            };
            for (size_t i = 0; i < d.names.size(); i++) flags[i] = is(i);
            switch (d.kind) {
            case Directive::Split: mark(1, is(0)); mark(2, is(0)); break;
            case Directive::Tile:  // x, y, xo, yo, xi, yi
                mark(2, is(0)); mark(4, is(0)); mark(3, is(1)); mark(5, is(1));
                break;
            case Directive::TileInPlace: mark(2, is(0)); mark(3, is(1)); break;  // x, y, xi, yi
            case Directive::Fuse: mark(2, is(0) || is(1)); break;               // inner, outer, fused
            case Directive::Rename: mark(1, is(0)); break;
            default: break;
            }
        } else if (d.kind == Directive::ComputeAt || d.kind == Directive::StoreAt ||
                   d.kind == Directive::ComputeWith) {
            at = rvars.of(d.at_ent, d.at_stage).count(d.at_loop) > 0;
        }
        kinds.names.push_back(flags);
        kinds.at_loop.push_back(at);
    }
    return kinds;
}

}  // namespace loom_fuzz
