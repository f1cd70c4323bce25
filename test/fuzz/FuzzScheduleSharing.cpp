// The schedule generator (FuzzScheduleGenerator.h): what it decides once every stage's loops
// are final: compute_with, wrappers, store_in and async.
#include "FuzzScheduleGenerator.h"

namespace loom_fuzz {

bool ScheduleGen::reads(int from, int to) const {
    std::vector<int> pending{from};
    std::set<int> seen;
    while (!pending.empty()) {
        const int e = pending.back();
        pending.pop_back();
        for (const std::vector<int> &stage_refs : ents[e].refs) {
            for (int c : stage_refs) {
                if (c == to) return true;
                if (seen.insert(c).second) pending.push_back(c);
            }
        }
    }
    return false;
}

bool ScheduleGen::same_place(const Chain &a, const Chain &b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); i++) {
        if (!a[i].same(b[i])) return false;
    }
    return true;
}

int ScheduleGen::matching_outer_loops(int a, int b) const {
    const std::vector<LoopM> &la = ents[a].stages[0].loops, &lb = ents[b].stages[0].loops;
    int k = 0;
    while (k < (int)la.size() && k < (int)lb.size()) {
        const LoopM &x = la[la.size() - 1 - k], &y = lb[lb.size() - 1 - k];
        if (x.name != y.name || x.name == kUnnamedLoop || x.type != y.type || x.rvar || y.rvar ||
            x.type == LT::Vectorized || x.type == LT::Unrolled)
            break;
        k++;
    }
    return k;
}

void ScheduleGen::share_loops() {
    if (baseline || avoid.count("compute-with")) return;
    const int nf = (int)p.funcs.size();
    auto eligible = [&](int e) {
        return ents[e].real && ents[e].state == EntM::Computed && !ents[e].default_placed &&
               !ents[e].is_extern;
    };
    std::vector<bool> paired(nf, false);
    for (int a = 0; a < nf; a++) {
        if (paired[a] || !eligible(a) || !r.chance(35)) continue;
        std::vector<int> partners;
        for (int b = 0; b < nf; b++) {
            // (An output is computed at the root: a Func computed there may share its loops.)
            if (b != a && !paired[b] && eligible(b) && same_place(ents[a].place, ents[b].place) &&
                !reads(a, b) && !reads(b, a))
                partners.push_back(b);
        }
        if (partners.empty()) continue;
        const int b = r.pick(partners);
        const int shared = r.uni(0, matching_outer_loops(a, b));
        Directive d;
        d.kind = Directive::ComputeWith;
        d.ent = a;
        d.at_ent = b;
        const std::vector<LoopM> &lb = ents[b].stages[0].loops;
        d.at_loop = shared == 0 ? "__outermost" : lb[lb.size() - shared].name;
        d.align = r.uni(0, 3);
        s.directives.push_back(d);
        s.notes.push_back(ents[a].name + " shares " + std::to_string(shared) + " loops with " +
                          ents[b].name);
        paired[a] = paired[b] = true;
        ents[a].shares_loops = ents[b].shares_loops = true;
    }
}

void ScheduleGen::wrap_and_store() {
    if (baseline || avoid.count("wrap")) return;
    const int nf = (int)p.funcs.size();
    for (int e = 0; e < nf; e++) {
        const EntM &E = ents[e];
        if (!E.real || E.state != EntM::Computed) continue;
        if (wrap_rng.chance(10)) add_func_directive(Directive::StoreInHeap, e);
        // A wrapper at the root reads f at the root: f must be computed there too.
        if (!E.place.empty() || E.output || E.shares_loops || E.is_extern || !wrap_rng.chance(12))
            continue;
        std::vector<int> readers_of_e;
        for (int g = 0; g < nf; g++) {
            if (g == e || !ents[g].real || ents[g].state != EntM::Computed || ents[g].is_extern)
                continue;
            for (const std::vector<int> &stage_refs : ents[g].refs) {
                if (std::find(stage_refs.begin(), stage_refs.end(), e) != stage_refs.end()) {
                    readers_of_e.push_back(g);
                    break;
                }
            }
        }
        if (readers_of_e.empty()) continue;
        Directive d;
        d.kind = Directive::Wrap;
        d.ent = e;
        d.at_ent = wrap_rng.pick(readers_of_e);
        s.directives.push_back(d);
    }
}

void ScheduleGen::make_async() {
    if (baseline || avoid.count("async")) return;
    for (int e = 0; e < (int)p.funcs.size(); e++) {
        const EntM &E = ents[e];
        if (!E.real || E.state != EntM::Computed || E.default_placed || E.shares_loops ||
            E.is_extern || !async_rng.chance(15))
            continue;
        // The Funcs its production reads, through those computed inside it (its inline
        // reductions, Funcs computed at its loops), which are part of the production.
        bool producers_ok = true;
        std::vector<int> pending{e};
        std::set<int> seen{e};
        while (!pending.empty()) {
            const int g = pending.back();
            pending.pop_back();
            std::set<int> producers;
            for (const std::vector<int> &stage_refs : ents[g].refs)
                expand(stage_refs, producers);
            for (int q : producers) {
                const Chain &at = ents[q].place;
                const bool inside = std::any_of(at.begin(), at.end(),
                                                [&](const ChainElem &c) { return c.ent == e; });
                producers_ok &= at.empty() || inside;
                if (inside && seen.insert(q).second) pending.push_back(q);
            }
        }
        if (E.stored_outside && !producers_ok) continue;
        add_func_directive(Directive::Async, e);
    }
}

} // namespace loom_fuzz
