// The schedule generator (FuzzScheduleGenerator.h): the entities and what they read, where
// their uses are, and where each is computed and stored.
#include "FuzzScheduleGenerator.h"

namespace loom_fuzz {

Schedule ScheduleGen::run() {
    build_entities();
    const int nf = (int)p.funcs.size();
    std::vector<int> order;
    for (int f = nf - 1; f >= 0; f--)
        order.push_back(f);
    for (size_t i = 0; i < p.inputs.size(); i++) {
        if (p.inputs[i].bc != Boundary::None) order.push_back(nf + (int)i);
    }
    for (int e : order)
        decide(e);
    share_loops();
    make_async();
    wrap_and_store();
    return s;
}

int ScheduleGen::entity_of(const Callee &c) const {
    if (c.kind == Callee::Func) return c.index;
    if (c.kind == Callee::Bc) return (int)p.funcs.size() + c.index;
    return -1;
}

void ScheduleGen::collect(const Node &n, int owner, int stage) {
    if (n.kind == Node::Reduce) {
        EntM pe;
        pe.name = "(" + std::string(n.red == Red::Sum ? "sum" : "inline reduction") + " in " +
                  ents[owner].name + ")";
        pe.real = false;
        pe.has_updates = true;
        pe.refs.resize(2);
        pe.reduces.resize(2);
        pe.stages.resize(2);
        ents.push_back(pe);
        int id = (int)ents.size() - 1;
        ents[owner].reduces[stage].push_back(id);
        ents[owner].refs[stage].push_back(id);
        collect(*n.kids[0], id, 1);
        return;
    }
    if (n.kind == Node::Call) {
        int e = entity_of(n.callee);
        if (e >= 0 && e != owner) ents[owner].refs[stage].push_back(e);
    }
    for (const Index &ix : n.args) {
        if (ix.value) collect(*ix.value, owner, stage);
    }
    for (const Cond &c : n.conds) {
        collect(*c.a, owner, stage);
        collect(*c.b, owner, stage);
    }
    for (const NodeP &k : n.kids)
        collect(*k, owner, stage);
}

void ScheduleGen::build_entities() {
    for (const FuncDesc &fd : p.funcs) {
        EntM e;
        e.name = fd.name;
        e.dims = fd.dims;
        e.has_updates = !fd.updates.empty() || fd.is_extern;
        e.is_extern = fd.is_extern;
        int n = 1 + (int)fd.updates.size();
        e.refs.resize(n);
        e.reduces.resize(n);
        e.stages.resize(n);
        ents.push_back(e);
    }
    for (const int o : p.outputs)
        ents[o].output = true;
    for (const InputDesc &id : p.inputs) {
        EntM e;
        e.name = id.name + "_bc";
        e.dims = id.dims;
        e.refs.resize(1);
        e.reduces.resize(1);
        e.stages.resize(1);
        ents.push_back(e);
    }
    for (size_t f = 0; f < p.funcs.size(); f++) {
        const FuncDesc &fd = p.funcs[f];
        for (const NodeP &v : fd.init)
            collect(*v, (int)f, 0);
        for (size_t u = 0; u < fd.updates.size(); u++) {
            for (const Index &ix : fd.updates[u].lhs) {
                if (ix.value) collect(*ix.value, (int)f, (int)u + 1);
            }
            for (const NodeP &v : fd.updates[u].values)
                collect(*v, (int)f, (int)u + 1);
        }
    }
}

void ScheduleGen::expand(const std::vector<int> &refs, std::set<int> &out) const {
    for (int e : refs) {
        if (ents[e].state == EntM::Inlined) {
            expand(ents[e].refs[0], out);
        } else {
            out.insert(e);
        }
    }
}

std::vector<std::pair<int, int>> ScheduleGen::readers(int e) const {
    std::vector<std::pair<int, int>> out;
    for (size_t g = 0; g < ents.size(); g++) {
        if (ents[g].state != EntM::Computed) continue;
        for (size_t k = 0; k < ents[g].refs.size(); k++) {
            std::set<int> eff;
            expand(ents[g].refs[k], eff);
            if (eff.count(e)) out.push_back({(int)g, (int)k});
        }
    }
    return out;
}

Chain ScheduleGen::chain(int g, int k) const {
    const EntM &e = ents[g];
    Chain c = e.place;
    ChainElem outer;
    outer.ent = g;
    outer.stage = -1;
    outer.loop = "__outermost";
    outer.nameable = e.real;
    outer.is_loop = false;
    c.push_back(outer);
    if (!e.real) {
        ChainElem anon;
        anon.ent = g;
        anon.stage = k;
        anon.loop = "(loops of an inline reduction)";
        anon.nameable = false;
        c.push_back(anon);
        return c;
    }
    const std::vector<LoopM> &loops = e.stages[k].loops;
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
        ChainElem el;
        el.ent = g;
        el.stage = k;
        el.loop = it->name;
        el.type = it->type;
        el.nameable = unique_name(e.stages[k], it->name);
        c.push_back(el);
    }
    return c;
}

Chain ScheduleGen::common_prefix(const std::vector<std::pair<int, int>> &rd) const {
    Chain common = chain(rd[0].first, rd[0].second);
    for (size_t i = 1; i < rd.size(); i++) {
        Chain c = chain(rd[i].first, rd[i].second);
        size_t n = 0;
        while (n < common.size() && n < c.size() && common[n].same(c[n]))
            n++;
        common.resize(n);
    }
    return common;
}

Chain ScheduleGen::default_place(Chain common) {
    while (!common.empty() && !common.back().is_loop)
        common.pop_back();
    return common;
}

void ScheduleGen::decide(int e) {
    EntM &E = ents[e];
    if (E.output) {
        E.state = EntM::Computed;
        init_loops(e);
        if (!baseline) schedule_loops(e);
        place_reductions(e, {});
        return;
    }
    std::vector<std::pair<int, int>> rd = readers(e);
    if (rd.empty()) {
        E.state = EntM::Inlined; // not part of the pipeline
        return;
    }
    const Chain common = common_prefix(rd);
    std::vector<int> at_candidates;
    for (size_t i = 0; i < common.size(); i++) {
        if (common[i].type == LT::Vectorized) break;
        if (common[i].nameable) at_candidates.push_back((int)i);
    }

    // An extern stage takes its input as a buffer: a pure Func it reads is computed (Loom and
    // Halide refuse one left inline), where the schedule says.
    bool read_by_extern = false;
    for (const EntM &g : ents)
        read_by_extern |= g.is_extern && std::count(g.refs[0].begin(), g.refs[0].end(), e) > 0;
    int choice; // 0 inline, 1 unscheduled with updates (Loom's default placement), 2 root, 3 at
    if (baseline) {
        choice = E.has_updates ? 1 : read_by_extern ? 2 : 0;
    } else {
        choice = r.weighted({E.has_updates || read_by_extern ? 0 : 35, E.has_updates ? 30 : 0, 25,
                             at_candidates.empty() ? 0 : 45});
    }
    if (choice == 0) {
        E.state = EntM::Inlined;
        if (!baseline && r.chance(15)) add_func_directive(Directive::ComputeInline, e);
        place_reductions(e, default_place(common));
        return;
    }
    E.state = EntM::Computed;
    if (choice == 1) {
        E.default_placed = true;
        E.place = default_place(common);
        s.notes.push_back(E.name + " has update definitions and is not scheduled: Loom computes "
                                   "it at the innermost loop around all its uses, or at root.");
    } else if (choice == 2) {
        E.place.clear();
        add_func_directive(Directive::ComputeRoot, e);
    } else {
        int at = r.pick(at_candidates);
        E.place.assign(common.begin(), common.begin() + at + 1);
        Directive d = level_directive(Directive::ComputeAt, e, common[at]);
        s.directives.push_back(d);
        if (!baseline) choose_storage(e);
    }
    if (E.is_extern) return;
    init_loops(e);
    if (!baseline && E.real) schedule_loops(e);
    if (!baseline && E.real && e < (int)p.funcs.size() && E.dims >= 2 && r.chance(12)) {
        Directive d;
        d.kind = Directive::ReorderStorage;
        d.ent = e;
        for (int i = 0; i < E.dims; i++)
            d.storage_order.push_back(i);
        for (int i = E.dims - 1; i > 0; i--)
            std::swap(d.storage_order[i], d.storage_order[r.uni(0, i)]);
        s.directives.push_back(d);
    }
    // Tracing: the events wrap values, loads and productions in effects, which every pass
    // must keep in place (the run's events are counted, not printed: see fuzz_test.cpp).
    if (!baseline && E.real && e < (int)p.funcs.size() && !avoid.count("trace") &&
        trace_rng.chance(6)) {
        Directive d;
        d.kind = Directive::Trace;
        d.ent = e;
        d.factor = trace_rng.uni(1, 7);
        s.directives.push_back(d);
    }
    place_reductions(e, {});
}

void ScheduleGen::add_func_directive(Directive::Kind k, int e) {
    Directive d;
    d.kind = k;
    d.ent = e;
    s.directives.push_back(d);
}

Directive ScheduleGen::level_directive(Directive::Kind k, int e, const ChainElem &at) {
    Directive d;
    d.kind = k;
    d.ent = e;
    d.at_ent = at.ent;
    d.at_stage = at.stage < 0 ? 0 : at.stage;
    d.at_loop = at.loop;
    return d;
}

void ScheduleGen::choose_storage(int e) {
    EntM &E = ents[e];
    if (!r.chance(50)) return;
    // Inside a Func placed by default, the parallel loops around the computation are not
    // known for sure (fuzz seed 6 pipeline 119: stored at root, computed inside a
    // parallel loop the model did not see).
    for (const ChainElem &c : E.place)
        if (ents[c.ent].default_placed) return;
    std::vector<int> cands; // -1: root
    for (int i = -1; i + 1 < (int)E.place.size(); i++) {
        bool ok = i < 0 || E.place[i].nameable;
        for (int j = i + 1; j < (int)E.place.size(); j++)
            ok &= E.place[j].type != LT::Parallel;
        if (ok) cands.push_back(i);
    }
    if (cands.empty()) return;
    int i = r.pick(cands);
    E.stored_outside = true;
    if (i < 0) {
        add_func_directive(Directive::StoreRoot, e);
    } else {
        s.directives.push_back(level_directive(Directive::StoreAt, e, E.place[i]));
    }
}

void ScheduleGen::place_reductions(int e, const Chain &inlined_place) {
    EntM &E = ents[e];
    for (size_t k = 0; k < E.reduces.size(); k++) {
        for (int pe : E.reduces[k]) {
            ents[pe].state = EntM::Computed;
            ents[pe].place =
                E.state == EntM::Inlined ? inlined_place : default_place(chain(e, (int)k));
        }
    }
}

Schedule generate_schedule(const PipelineDesc &p, uint32_t seed, bool baseline,
                           const std::set<std::string> &avoid) {
    return ScheduleGen(p, seed, baseline, avoid).run();
}

} // namespace loom_fuzz
