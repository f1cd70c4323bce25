// The schedule generator (FuzzScheduleGenerator.h): the loops of each stage and the loop
// directives (split, fuse, reorder, tile, vectorize, unroll, parallel, atomic) that keep them
// legal.
#include "FuzzScheduleGenerator.h"

namespace loom_fuzz {

void ScheduleGen::init_loops(int e) {
    EntM &E = ents[e];
    if (!E.real) return;
    const bool is_bc = e >= (int)p.funcs.size();
    for (size_t k = 0; k < E.stages.size(); k++) {
        StageM &st = E.stages[k];
        st.update = k > 0;
        st.rounded = E.stages[0].rounded;
        st.blocks = E.stages[0].blocks;
        st.output = E.output;
        if (k == 0) {
            for (int d = 0; d < E.dims; d++) {
                LoopM l;
                l.dim = d;
                l.name = is_bc ? "$" + std::to_string(d) : kVar[d];
                if (E.output) l.extent = p.out_extents[d];
                st.loops.push_back(l);
            }
            continue;
        }
        const UpdateDesc &u = p.funcs[e].updates[k - 1];
        // A float + or * summed in another order rounds differently: allowed where the
        // outputs move with it by rounding only, which the comparison tolerates.
        const bool rounds = u.values.size() == 1 && is_float(p.funcs[e].types[0]) &&
                            (u.values[0]->op == Op::Add || u.values[0]->op == Op::Mul);
        st.rvars_commute = order_independent(e, u) && (!rounds || outputs_round_with(e));
        st.reorder_rounds = st.rvars_commute && rounds;
        // atomic(): the RVar loops may then run at once whatever the update writes; a
        // float + or * then sums in another order.
        if (!baseline && !avoid.count("atomic") && st.rvars_commute && u.rdom >= 0 &&
            atomic_rng.chance(12)) {
            st.atomic = true;
            Directive d;
            d.kind = Directive::Atomic;
            d.ent = e;
            d.stage = (int)k;
            s.directives.push_back(d);
            s.reorders_float_reduction |= st.reorder_rounds;
        }
        if (u.rdom >= 0) {
            const RDomDesc &rd = p.rdoms[u.rdom];
            int n = (int)rd.mins.size();
            for (int i = 0; i < n; i++) {
                LoopM l;
                l.name = rd.name + "$" + kRVar[i];
                l.rvar = true;
                l.key = {n - 1 - i};
                l.extent = rd.extents[i];
                l.is_const = true;
                l.par_ok = st.atomic || rvar_race_free(e, u, i);
                st.loops.push_back(l);
            }
        }
        for (const Index &ix : u.lhs) {
            if (ix.gather || ix.var < 0 || ix.rdom >= 0 || ix.mul != 1 || ix.div != 1 ||
                ix.off != 0)
                continue;
            LoopM l;
            l.dim = ix.var;
            l.name = kVar[ix.var];
            if (E.output) l.extent = p.out_extents[ix.var];
            st.loops.push_back(l);
        }
    }
}

bool ScheduleGen::outputs_round_with(int f) const {
    for (size_t c = (size_t)f; c < p.funcs.size(); c++) {
        const FuncDesc &fd = p.funcs[c];
        bool reads_f = false;
        auto check = [&](const NodeP &v) {
            if (!v || !calls_func(*v, f)) return true;
            reads_f = true;
            return moves_by_rounding_with(*v, f);
        };
        for (const NodeP &v : fd.init) {
            if (!check(v)) return false;
        }
        for (const UpdateDesc &u : fd.updates) {
            for (const NodeP &v : u.values) {
                if (!check(v)) return false;
            }
            for (const Index &ix : u.lhs) {
                if (ix.value && calls_func(*ix.value, f)) return false;
            }
        }
        if (reads_f && (int)c != f && !outputs_round_with((int)c)) return false;
    }
    return true;
}

bool ScheduleGen::order_independent(int f, const UpdateDesc &u) const {
    if (u.values.size() != 1) return false;
    const Node &v = *u.values[0];
    static const std::vector<Op> ops = {Op::Add, Op::Mul, Op::Min, Op::Max,
                                        Op::And, Op::Or,  Op::Xor};
    if (v.kind != Node::Bin || std::find(ops.begin(), ops.end(), v.op) == ops.end()) return false;
    auto is_self = [&](const Node &n) {
        if (n.kind != Node::Call || n.callee.kind != Callee::Func || n.callee.index != f)
            return false;
        for (size_t i = 0; i < u.lhs.size(); i++) {
            if (!same_index(n.args[i], u.lhs[i])) return false;
        }
        return true;
    };
    return (is_self(*v.kids[0]) && !calls_func(*v.kids[1], f)) ||
           (is_self(*v.kids[1]) && !calls_func(*v.kids[0], f));
}

bool ScheduleGen::rvar_race_free(int f, const UpdateDesc &u, int rdim) const {
    bool bare = false;
    for (const Index &ix : u.lhs) {
        bare |= !ix.gather && ix.var < 0 && ix.rdom == u.rdom && ix.rdim == rdim && ix.off == 0;
    }
    if (!bare) return false;
    for (const NodeP &v : u.values) {
        if (!reads_only_at(*v, f, u.lhs)) return false;
    }
    return true;
}

std::string ScheduleGen::fresh(StageM &st, const LoopM &from, const char *what) {
    char base = from.rvar ? 'r' : from.name[0] == '$' ? 'a' : from.name[0];
    return std::string(1, base) + what + std::to_string(++st.fresh);
}

std::vector<int> ScheduleGen::nameable(const StageM &st, bool serial_only, bool pure_only) const {
    std::vector<int> v;
    for (size_t i = 0; i < st.loops.size(); i++) {
        const LoopM &l = st.loops[i];
        if (!unique_name(st, l.name)) continue;
        if (serial_only && l.type != LT::Serial) continue;
        if (pure_only && l.rvar) continue;
        v.push_back((int)i);
    }
    return v;
}

bool ScheduleGen::tail_ok(const StageM &st, const LoopM &l, int factor, Tail t) const {
    if (l.is_const && factor >= l.extent) return false;
    if (l.dim >= 0) {
        auto so_far = st.rounded->find(l.dim);
        long before = so_far == st.rounded->end() ? 0 : so_far->second;
        if (before + rounding(st, l, factor, t) > kRoundingMargin) return false;
        // An output's blocks along a dimension divide each other: it then grows by the largest
        // block, within the sum the margin bounds (see StageM::blocks).
        if (st.output && rounding(st, l, factor, t) > 0) {
            const long block = l.unit * factor;
            for (long b : (*st.blocks)[l.dim]) {
                if (b % block != 0 && block % b != 0) return false;
            }
        }
    }
    if (!st.update && t == Tail::ShiftInwards && (l.in_shifted_blocks || l.fused_shifted))
        return false;
    if (!st.update && t == Tail::Auto && l.fused_shifted) return false;
    // Auto shifting inwards again inside shifted blocks (a larger factor than theirs):
    // whole blocks before the region, as an explicit ShiftInwards there.
    if (!st.update && t == Tail::Auto && l.in_shifted_blocks &&
        effective_tail(st, l, factor, t) == Tail::ShiftInwards)
        return false;
    if (avoid.count("guard-derived") && st.output && l.derived &&
        (t == Tail::GuardWithIf || (st.update && t == Tail::Auto))) {
        return false;
    }
    if (st.update) return t == Tail::Auto || t == Tail::GuardWithIf;
    if (t == Tail::RoundUp) return !st.output;
    if (t == Tail::ShiftInwards || t == Tail::Auto) return !st.output || l.extent >= factor;
    return true;
}

Tail ScheduleGen::pick_tail(const StageM &st) {
    if (st.update) return r.chance(60) ? Tail::Auto : Tail::GuardWithIf;
    return (Tail)r.weighted({40, 25, 20, st.output ? 0 : 15});
}

void ScheduleGen::schedule_loops(int e) {
    EntM &E = ents[e];
    for (size_t k = 0; k < E.stages.size(); k++) {
        // Compile time grows quickly with the number of loops; keep schedules moderate.
        int attempts = r.weighted({20, 30, 25, 15, 10});
        for (int a = 0; a < attempts && s.directives.size() < 14; a++)
            try_directive(e, (int)k);
    }
}

void ScheduleGen::try_directive(int e, int k) {
    StageM &st = ents[e].stages[k];
    Directive d;
    d.ent = e;
    d.stage = k;
    static const std::vector<int> weights = {20, 9, 12, 6, 16, 6, 8, 4, 12, 4, 2};
    int which = r.weighted(weights);
    std::vector<int> serial = nameable(st, true);
    if (serial.empty()) return;
    switch (which) {
    case 0: { // split
        int i = r.pick(serial);
        LoopM l = st.loops[i];
        int factor = r.pick(std::vector<int>{2, 3, 4, 5, 7, 8, 16});
        Tail t = pick_tail(st);
        if (!tail_ok(st, l, factor, t)) return;
        std::string outer = r.chance(30) ? l.name : fresh(st, l, "o");
        std::string inner = fresh(st, l, "i");
        d.kind = Directive::Split;
        d.names = {l.name, outer, inner};
        d.factor = factor;
        d.tail = t;
        split_model(st, i, outer, inner, factor, t);
        break;
    }
    case 1: { // tile, both forms
        std::vector<int> pure = nameable(st, true, true);
        if (pure.size() < 2) return;
        int i = r.pick(pure), j = r.pick(pure);
        if (i == j) return;
        LoopM lx = st.loops[i], ly = st.loops[j];
        int fx = r.pick(std::vector<int>{2, 4, 8, 16}), fy = r.pick(std::vector<int>{2, 3, 4, 8});
        Tail t = pick_tail(st);
        if (!tail_ok(st, lx, fx, t) || !tail_ok(st, ly, fy, t)) return;
        std::string xi = fresh(st, lx, "i"), yi = fresh(st, ly, "i");
        std::string xo = lx.name, yo = ly.name;
        if (r.chance(60)) {
            xo = fresh(st, lx, "o");
            yo = fresh(st, ly, "o");
            d.kind = Directive::Tile;
            d.names = {lx.name, ly.name, xo, yo, xi, yi};
        } else {
            d.kind = Directive::TileInPlace;
            d.names = {lx.name, ly.name, xi, yi};
        }
        d.factor = fx;
        d.factor2 = fy;
        d.tail = t;
        split_model(st, i, xo, xi, fx, t);
        split_model(st, find_loop(st, ly.name), yo, yi, fy, t);
        reorder_model(st, {xi, yi, xo, yo});
        break;
    }
    case 2: { // reorder
        std::vector<int> all = nameable(st, false);
        if (all.size() < 2) return;
        int n = std::min((int)all.size(), r.uni(2, 3));
        for (int i = (int)all.size() - 1; i > 0; i--)
            std::swap(all[i], all[r.uni(0, i)]);
        std::vector<std::string> names;
        for (int i = 0; i < n; i++)
            names.push_back(st.loops[all[i]].name);
        StageM trial = st;
        reorder_model(trial, names);
        const bool rvars_move = !rvar_order_ok(trial);
        if (!st.rvars_commute && rvars_move) return;
        s.reorders_float_reduction |= rvars_move && st.reorder_rounds;
        st = trial;
        d.kind = Directive::Reorder;
        d.names = names;
        break;
    }
    case 3: { // fuse
        if (avoid.count("fuse")) return;
        int i = r.pick(serial);
        if (i + 1 >= (int)st.loops.size()) return;
        LoopM in = st.loops[i], out = st.loops[i + 1];
        if (out.type != LT::Serial || !unique_name(st, out.name) || in.rvar != out.rvar) return;
        LoopM fused = out;
        fused.name = fresh(st, in, "f");
        fused.extent = in.extent >= 0 && out.extent >= 0 ? in.extent * out.extent : -1;
        fused.is_const = in.is_const && out.is_const;
        // Loom's race check does not see through fused RVars; an atomic stage has none.
        fused.par_ok = !in.rvar || st.atomic;
        fused.derived = true;
        fused.in_shifted_blocks = false;
        fused.inside_inner = in.inside_inner || out.inside_inner;
        fused.fused_shifted =
            in.in_shifted_blocks || out.in_shifted_blocks || in.fused_shifted || out.fused_shifted;
        st.loops[i] = fused;
        st.loops.erase(st.loops.begin() + i + 1);
        d.kind = Directive::Fuse;
        d.names = {in.name, out.name, fused.name};
        break;
    }
    case 4: { // vectorize(var, factor)
        // Two vectorized loops in one stage are legal but rare in practice.
        if (has_vectorized(st) && (avoid.count("nested-vectorize") || r.chance(80))) return;
        int i = st.loops.size() && unique_name(st, st.loops[0].name) &&
                        st.loops[0].type == LT::Serial && r.chance(80)
                    ? 0
                    : r.pick(serial);
        LoopM l = st.loops[i];
        if (l.rvar && !l.par_ok) return;
        int factor = r.pick(std::vector<int>{4, 8, 16});
        Tail t = r.chance(50) ? Tail::Auto : pick_tail(st);
        if (!tail_ok(st, l, factor, t)) return;
        d.kind = Directive::VectorizeBy;
        d.names = {l.name};
        d.factor = factor;
        d.tail = t;
        split_model(st, i, l.name, kUnnamedLoop, factor, t);
        st.loops[i].type = LT::Vectorized;
        break;
    }
    case 5: { // vectorize a loop of constant extent
        if (has_vectorized(st) && (avoid.count("nested-vectorize") || r.chance(80))) return;
        int i = r.pick(serial);
        LoopM &l = st.loops[i];
        if (!l.is_const || l.extent < 2 || l.extent > 16 || (l.rvar && !l.par_ok)) return;
        d.kind = Directive::Vectorize;
        d.names = {l.name};
        l.type = LT::Vectorized;
        break;
    }
    case 6: { // unroll(var, factor)
        int i = r.pick(serial);
        LoopM l = st.loops[i];
        int factor = r.uni(2, 4);
        Tail t = r.chance(50) ? Tail::Auto : pick_tail(st);
        if (!tail_ok(st, l, factor, t)) return;
        d.kind = Directive::UnrollBy;
        d.names = {l.name};
        d.factor = factor;
        d.tail = t;
        split_model(st, i, l.name, kUnnamedLoop, factor, t);
        st.loops[i].type = LT::Unrolled;
        break;
    }
    case 7: { // unroll a loop of constant extent
        int i = r.pick(serial);
        LoopM &l = st.loops[i];
        if (!l.is_const || l.extent > 8) return;
        d.kind = Directive::Unroll;
        d.names = {l.name};
        l.type = LT::Unrolled;
        break;
    }
    case 8: { // parallel
        int i = r.pick(serial);
        LoopM &l = st.loops[i];
        if (l.rvar && !l.par_ok) return;
        d.kind = Directive::Parallel;
        d.names = {l.name};
        l.type = LT::Parallel;
        break;
    }
    case 9: { // parallel(var, task size)
        int i = r.pick(serial);
        LoopM l = st.loops[i];
        if (l.rvar && !l.par_ok) return;
        int factor = r.pick(std::vector<int>{2, 3, 4, 8});
        Tail t = r.chance(60) ? Tail::Auto : pick_tail(st);
        if (!tail_ok(st, l, factor, t)) return;
        d.kind = Directive::ParallelBy;
        d.names = {l.name};
        d.factor = factor;
        d.tail = t;
        split_model(st, i, l.name, kUnnamedLoop, factor, t);
        st.loops[i + 1].type = LT::Parallel;
        break;
    }
    default: { // rename
        if (avoid.count("guard-derived")) return;
        int i = r.pick(serial);
        LoopM &l = st.loops[i];
        l.derived = true;
        std::string n = fresh(st, l, "n");
        d.kind = Directive::Rename;
        d.names = {l.name, n};
        l.name = n;
        break;
    }
    }
    s.directives.push_back(d);
}

} // namespace loom_fuzz
