// Random legal schedules. The generator keeps a model of every stage's loops (names, extents
// where known, loop types, and for RVars their order) and of where each Func is computed, and
// only emits a directive that the model says is legal:
//
// - compute_at / store_at name a loop around every use of the Func (after inlining), never a
//   vectorized loop or one inside a vectorized loop; storage outside a parallel loop only for
//   Funcs without update definitions (their recomputation writes identical values), and none
//   for a Func computed inside one Loom places by default;
// - a Func with update definitions is computed (compute_root, compute_at, or Loom's default,
//   the innermost loop of its one user); a Func whose pure definition holds an inline
//   reduction is inlined only into a single user stage;
// - splits: RoundUp only in pure definitions of non-outputs; ShiftInwards only in pure
//   definitions, and in outputs only where the loop's extent is at least the factor; updates
//   use GuardWithIf or Auto (which rounds their pure loops up, as Halide's does: the points
//   computed beyond the region count against the inputs' margins, and outputs are realized
//   after a bounds query); no split by a factor at least a constant extent;
// - RVar loops keep their relative order (a reordered reduction is a different reduction), and
//   run in parallel or vectorized only when the RVar is a bare argument on the left and the Func
//   is read only at the left-hand side's coordinates (Loom's race rule), or the update is
//   atomic() (its RVars commute);
// - a wrapper (f.in(g), computed at the root) of a Func computed at the root, for one stage
//   that reads it directly; store_in(MemoryType::Heap) on any computed Func;
// - async() on a computed Func not sharing loops (compute_with), whose storage is where it is
//   computed, or whose producers are all computed at the root or inside it: its producer task
//   reads nothing the consumer task computes beside it;
// - vectorize / unroll without a factor only on loops of constant extent (<= 16 / <= 8).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "FuzzIR.h"
#include "FuzzIRQueries.h"
#include "FuzzLoopModel.h"
#include "FuzzRng.h"
#include "FuzzScheduleModel.h"

namespace loom_fuzz {

namespace {

const char *kVar[] = {"x", "y", "z"};
const char *kRVar[] = {"x", "y", "z", "w"};

class ScheduleGen {
public:
    ScheduleGen(const PipelineDesc &p, uint32_t seed, bool baseline,
                const std::set<std::string> &avoid)
        : p(p), r(seed), trace_rng(seed ^ 0x74726163u), atomic_rng(seed ^ 0x61746f6du),
          async_rng(seed ^ 0x6173796eu), wrap_rng(seed ^ 0x77726170u), baseline(baseline),
          avoid(avoid) {}

    Schedule run() {
        build_entities();
        const int nf = (int)p.funcs.size();
        std::vector<int> order;
        for (int f = nf - 1; f >= 0; f--) order.push_back(f);
        for (size_t i = 0; i < p.inputs.size(); i++) {
            if (p.inputs[i].bc != Boundary::None) order.push_back(nf + (int)i);
        }
        for (int e : order) decide(e);
        share_loops();
        make_async();
        wrap_and_store();
        return s;
    }

private:
    const PipelineDesc &p;
    Rng r;
    // Tracing draws from a stream of its own, so that the other choices (and every reproducer
    // written before tracing was fuzzed) stay what they were for a seed.
    Rng trace_rng;
    Rng atomic_rng; // atomic() too: a stream of its own, for the same reason
    Rng async_rng;  // and async()
    Rng wrap_rng;   // and wrappers and store_in
    bool baseline;
    const std::set<std::string> &avoid;
    Schedule s;
    std::vector<EntM> ents;

    // ---- compute_with.

    // Whether entity `from` reads `to`, directly or through others.
    bool reads(int from, int to) const {
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

    static bool same_place(const Chain &a, const Chain &b) {
        if (a.size() != b.size()) return false;
        for (size_t i = 0; i < a.size(); i++) {
            if (!a[i].same(b[i])) return false;
        }
        return true;
    }

    // How many outer loops of the pure stages of a and b have the same names and kinds (none
    // vectorized or unrolled): the loops compute_with may share.
    int matching_outer_loops(int a, int b) const {
        const std::vector<LoopM> &la = ents[a].stages[0].loops, &lb = ents[b].stages[0].loops;
        int k = 0;
        while (k < (int)la.size() && k < (int)lb.size()) {
            const LoopM &x = la[la.size() - 1 - k], &y = lb[lb.size() - 1 - k];
            if (x.name != y.name || x.type != y.type || x.rvar || y.rvar ||
                x.type == LT::Vectorized || x.type == LT::Unrolled)
                break;
            k++;
        }
        return k;
    }

    // Last, once every stage's loops are final: a Func computed where another is (both at the
    // root, or at one loop), neither reading the other, shares some of that one's outer loops
    // of the same names and kinds (compute_with, in pairs).
    void share_loops() {
        if (baseline || avoid.count("compute-with")) return;
        const int nf = (int)p.funcs.size();
        auto eligible = [&](int e) {
            return ents[e].real && ents[e].state == EntM::Computed && !ents[e].default_placed;
        };
        std::vector<bool> paired(nf, false);
        for (int a = 0; a < nf; a++) {
            if (paired[a] || !eligible(a) || !r.chance(35)) continue;
            std::vector<int> partners;
            for (int b = 0; b < nf; b++) {
                // (An output is computed at the root: a Func computed there may share its loops.)
                if (b != a && !paired[b] && eligible(b) &&
                    same_place(ents[a].place, ents[b].place) && !reads(a, b) && !reads(b, a))
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

    // ---- Wrappers and store_in, last: neither changes where the model's Funcs are computed.

    void wrap_and_store() {
        if (baseline || avoid.count("wrap")) return;
        const int nf = (int)p.funcs.size();
        for (int e = 0; e < nf; e++) {
            const EntM &E = ents[e];
            if (!E.real || E.state != EntM::Computed) continue;
            if (wrap_rng.chance(10)) add_func_directive(Directive::StoreInHeap, e);
            // A wrapper at the root reads f at the root: f must be computed there too.
            if (!E.place.empty() || E.output || E.shares_loops || !wrap_rng.chance(12)) continue;
            std::vector<int> readers_of_e;
            for (int g = 0; g < nf; g++) {
                if (g == e || !ents[g].real || ents[g].state != EntM::Computed) continue;
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

    // ---- async().

    // Last: a Func computed where the schedule put it (not by Loom's default), outside any
    // compute_with pair, runs its productions as a task of its own. Stored outside its
    // computation, its producers must be computed at the root or inside it: one computed
    // between its storage and its computation would be computed by the consumer task
    // (Loom refuses that schedule).
    void make_async() {
        if (baseline || avoid.count("async")) return;
        for (int e = 0; e < (int)p.funcs.size(); e++) {
            const EntM &E = ents[e];
            if (!E.real || E.state != EntM::Computed || E.default_placed || E.shares_loops ||
                !async_rng.chance(15))
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

    // ---- The entities and what they read.

    int entity_of(const Callee &c) const {
        if (c.kind == Callee::Func) return c.index;
        if (c.kind == Callee::Bc) return (int)p.funcs.size() + c.index;
        return -1;
    }

    void collect(const Node &n, int owner, int stage) {
        if (n.kind == Node::Reduce) {
            EntM pe;
            pe.name = "(" + std::string(n.red == Red::Sum ? "sum" : "inline reduction") + " in " + ents[owner].name + ")";
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
        for (const NodeP &k : n.kids) collect(*k, owner, stage);
    }

    void build_entities() {
        for (const FuncDesc &fd : p.funcs) {
            EntM e;
            e.name = fd.name;
            e.dims = fd.dims;
            e.has_updates = !fd.updates.empty();
            int n = 1 + (int)fd.updates.size();
            e.refs.resize(n);
            e.reduces.resize(n);
            e.stages.resize(n);
            ents.push_back(e);
        }
        for (const int o : p.outputs) ents[o].output = true;
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
            for (const NodeP &v : fd.init) collect(*v, (int)f, 0);
            for (size_t u = 0; u < fd.updates.size(); u++) {
                for (const Index &ix : fd.updates[u].lhs) {
                    if (ix.value) collect(*ix.value, (int)f, (int)u + 1);
                }
                for (const NodeP &v : fd.updates[u].values) collect(*v, (int)f, (int)u + 1);
            }
        }
    }

    // ---- Where uses are.

    void expand(const std::vector<int> &refs, std::set<int> &out) const {
        for (int e : refs) {
            if (ents[e].state == EntM::Inlined) {
                expand(ents[e].refs[0], out);
            } else {
                out.insert(e);
            }
        }
    }

    /** The computed stages that read entity e once inlined Funcs are substituted. */
    std::vector<std::pair<int, int>> readers(int e) const {
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

    /** The loops around the body of stage k of computed entity g, outermost first. */
    Chain chain(int g, int k) const {
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

    // ---- Decisions per entity, consumers first.

    /** The loops around every use: the common prefix of the readers' chains. */
    Chain common_prefix(const std::vector<std::pair<int, int>> &rd) const {
        Chain common = chain(rd[0].first, rd[0].second);
        for (size_t i = 1; i < rd.size(); i++) {
            Chain c = chain(rd[i].first, rd[i].second);
            size_t n = 0;
            while (n < common.size() && n < c.size() && common[n].same(c[n])) n++;
            common.resize(n);
        }
        return common;
    }

    /** Where Loom puts a Func with updates that is not scheduled (and an inline reduction):
     * the innermost loop around all its uses, or root. */
    static Chain default_place(Chain common) {
        while (!common.empty() && !common.back().is_loop) common.pop_back();
        return common;
    }

    void decide(int e) {
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
            E.state = EntM::Inlined;  // not part of the pipeline
            return;
        }
        const Chain common = common_prefix(rd);
        std::vector<int> at_candidates;
        for (size_t i = 0; i < common.size(); i++) {
            if (common[i].type == LT::Vectorized) break;
            if (common[i].nameable) at_candidates.push_back((int)i);
        }

        int choice;  // 0 inline, 1 unscheduled with updates (Loom's default placement), 2 root, 3 at
        if (baseline) {
            choice = E.has_updates ? 1 : 0;
        } else {
            choice = r.weighted({E.has_updates ? 0 : 35, E.has_updates ? 30 : 0, 25,
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
        init_loops(e);
        if (!baseline && E.real) schedule_loops(e);
        if (!baseline && E.real && e < (int)p.funcs.size() && E.dims >= 2 && r.chance(12)) {
            Directive d;
            d.kind = Directive::ReorderStorage;
            d.ent = e;
            for (int i = 0; i < E.dims; i++) d.storage_order.push_back(i);
            for (int i = E.dims - 1; i > 0; i--) std::swap(d.storage_order[i], d.storage_order[r.uni(0, i)]);
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

    void add_func_directive(Directive::Kind k, int e) {
        Directive d;
        d.kind = k;
        d.ent = e;
        s.directives.push_back(d);
    }

    Directive level_directive(Directive::Kind k, int e, const ChainElem &at) {
        Directive d;
        d.kind = k;
        d.ent = e;
        d.at_ent = at.ent;
        d.at_stage = at.stage < 0 ? 0 : at.stage;
        d.at_loop = at.loop;
        return d;
    }

    /** store_root or store_at a loop outside the compute_at level: never outside a parallel
     * loop around the computation (Loom and Halide reject that race), never inside a
     * vectorized loop. */
    void choose_storage(int e) {
        EntM &E = ents[e];
        if (!r.chance(50)) return;
        // Inside a Func placed by default, the parallel loops around the computation are not
        // known for sure (fuzz seed 6 pipeline 119: stored at root, computed inside a
        // parallel loop the model did not see).
        for (const ChainElem &c : E.place)
            if (ents[c.ent].default_placed) return;
        std::vector<int> cands;  // -1: root
        for (int i = -1; i + 1 < (int)E.place.size(); i++) {
            bool ok = i < 0 || E.place[i].nameable;
            for (int j = i + 1; j < (int)E.place.size(); j++) ok &= E.place[j].type != LT::Parallel;
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

    /** The inline reductions of e are computed at the innermost loop of the stage that holds
     * them, or, when e is inlined, where Loom puts an unscheduled Func with updates. */
    void place_reductions(int e, const Chain &inlined_place) {
        EntM &E = ents[e];
        for (size_t k = 0; k < E.reduces.size(); k++) {
            for (int pe : E.reduces[k]) {
                ents[pe].state = EntM::Computed;
                ents[pe].place = E.state == EntM::Inlined ? inlined_place : default_place(chain(e, (int)k));
            }
        }
    }

    // ---- Loops.

    void init_loops(int e) {
        EntM &E = ents[e];
        if (!E.real) return;
        const bool is_bc = e >= (int)p.funcs.size();
        for (size_t k = 0; k < E.stages.size(); k++) {
            StageM &st = E.stages[k];
            st.update = k > 0;
            st.rounded = E.stages[0].rounded;
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
                if (ix.gather || ix.var < 0 || ix.rdom >= 0 || ix.mul != 1 || ix.div != 1 || ix.off != 0) continue;
                LoopM l;
                l.dim = ix.var;
                l.name = kVar[ix.var];
                if (E.output) l.extent = p.out_extents[ix.var];
                st.loops.push_back(l);
            }
        }
    }

    /** Whether every output moves with Func f's values by rounding only (see
     * moves_by_rounding_with): each Func reading f, f's own definitions included, reads it so
     * and, where it is another Func, its own readers read it so in turn. */
    bool outputs_round_with(int f) const {
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

    /** Loom's (and Halide's) rule for reordering RVars: a single value f(lhs) op e, op one of
     * + * min max & | ^, with e not reading f. (Halide's other case, a value that uses no RVar,
     * the generator leaves out: its pipelines' update values nearly always use one.) */
    bool order_independent(int f, const UpdateDesc &u) const {
        if (u.values.size() != 1) return false;
        const Node &v = *u.values[0];
        static const std::vector<Op> ops = {Op::Add, Op::Mul, Op::Min, Op::Max, Op::And, Op::Or, Op::Xor};
        if (v.kind != Node::Bin || std::find(ops.begin(), ops.end(), v.op) == ops.end()) return false;
        auto is_self = [&](const Node &n) {
            if (n.kind != Node::Call || n.callee.kind != Callee::Func || n.callee.index != f) return false;
            for (size_t i = 0; i < u.lhs.size(); i++) {
                if (!same_index(n.args[i], u.lhs[i])) return false;
            }
            return true;
        };
        return (is_self(*v.kids[0]) && !calls_func(*v.kids[1], f)) ||
               (is_self(*v.kids[1]) && !calls_func(*v.kids[0], f));
    }

    bool rvar_race_free(int f, const UpdateDesc &u, int rdim) const {
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

    std::string fresh(StageM &st, const LoopM &from, const char *what) {
        char base = from.rvar ? 'r' : from.name[0] == '$' ? 'a' : from.name[0];
        return std::string(1, base) + what + std::to_string(++st.fresh);
    }

    /** Loops a directive may name: unique names, optionally serial only. */
    std::vector<int> nameable(const StageM &st, bool serial_only, bool pure_only = false) const {
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

    bool tail_ok(const StageM &st, const LoopM &l, int factor, Tail t) const {
        if (l.is_const && factor >= l.extent) return false;
        if (l.dim >= 0) {
            auto so_far = st.rounded->find(l.dim);
            long before = so_far == st.rounded->end() ? 0 : so_far->second;
            if (before + rounding(st, l, factor, t) > kRoundingMargin) return false;
        }
        if (!st.update && t == Tail::ShiftInwards && (l.in_shifted_blocks || l.fused_shifted)) return false;
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

    Tail pick_tail(const StageM &st) {
        if (st.update) return r.chance(60) ? Tail::Auto : Tail::GuardWithIf;
        return (Tail)r.weighted({40, 25, 20, st.output ? 0 : 15});
    }

    void schedule_loops(int e) {
        EntM &E = ents[e];
        for (size_t k = 0; k < E.stages.size(); k++) {
            // Compile time grows quickly with the number of loops; keep schedules moderate.
            int attempts = r.weighted({20, 30, 25, 15, 10});
            for (int a = 0; a < attempts && s.directives.size() < 14; a++) try_directive(e, (int)k);
        }
    }

    void try_directive(int e, int k) {
        StageM &st = ents[e].stages[k];
        Directive d;
        d.ent = e;
        d.stage = k;
        static const std::vector<int> weights = {20, 9, 12, 6, 16, 6, 8, 4, 12, 4, 2};
        int which = r.weighted(weights);
        std::vector<int> serial = nameable(st, true);
        if (serial.empty()) return;
        switch (which) {
        case 0: {  // split
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
        case 1: {  // tile, both forms
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
        case 2: {  // reorder
            std::vector<int> all = nameable(st, false);
            if (all.size() < 2) return;
            int n = std::min((int)all.size(), r.uni(2, 3));
            for (int i = (int)all.size() - 1; i > 0; i--) std::swap(all[i], all[r.uni(0, i)]);
            std::vector<std::string> names;
            for (int i = 0; i < n; i++) names.push_back(st.loops[all[i]].name);
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
        case 3: {  // fuse
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
            fused.fused_shifted = in.in_shifted_blocks || out.in_shifted_blocks || in.fused_shifted ||
                                  out.fused_shifted;
            st.loops[i] = fused;
            st.loops.erase(st.loops.begin() + i + 1);
            d.kind = Directive::Fuse;
            d.names = {in.name, out.name, fused.name};
            break;
        }
        case 4: {  // vectorize(var, factor)
            // Two vectorized loops in one stage are legal but rare in practice.
            if (has_vectorized(st) && (avoid.count("nested-vectorize") || r.chance(80))) return;
            int i = st.loops.size() && unique_name(st, st.loops[0].name) && st.loops[0].type == LT::Serial &&
                            r.chance(80)
                        ? 0
                        : r.pick(serial);
            LoopM l = st.loops[i];
            if ((l.rvar && !l.par_ok) || l.name == "vec") return;  // Loom names the inner loop "vec"
            int factor = r.pick(std::vector<int>{4, 8, 16});
            Tail t = r.chance(50) ? Tail::Auto : pick_tail(st);
            if (!tail_ok(st, l, factor, t)) return;
            d.kind = Directive::VectorizeBy;
            d.names = {l.name};
            d.factor = factor;
            d.tail = t;
            split_model(st, i, l.name, "vec", factor, t);
            st.loops[i].type = LT::Vectorized;
            break;
        }
        case 5: {  // vectorize a loop of constant extent
            if (has_vectorized(st) && (avoid.count("nested-vectorize") || r.chance(80))) return;
            int i = r.pick(serial);
            LoopM &l = st.loops[i];
            if (!l.is_const || l.extent < 2 || l.extent > 16 || (l.rvar && !l.par_ok)) return;
            d.kind = Directive::Vectorize;
            d.names = {l.name};
            l.type = LT::Vectorized;
            break;
        }
        case 6: {  // unroll(var, factor)
            int i = r.pick(serial);
            LoopM l = st.loops[i];
            if (l.name == "unroll") return;
            int factor = r.uni(2, 4);
            Tail t = r.chance(50) ? Tail::Auto : pick_tail(st);
            if (!tail_ok(st, l, factor, t)) return;
            d.kind = Directive::UnrollBy;
            d.names = {l.name};
            d.factor = factor;
            d.tail = t;
            split_model(st, i, l.name, "unroll", factor, t);
            st.loops[i].type = LT::Unrolled;
            break;
        }
        case 7: {  // unroll a loop of constant extent
            int i = r.pick(serial);
            LoopM &l = st.loops[i];
            if (!l.is_const || l.extent > 8) return;
            d.kind = Directive::Unroll;
            d.names = {l.name};
            l.type = LT::Unrolled;
            break;
        }
        case 8: {  // parallel
            int i = r.pick(serial);
            LoopM &l = st.loops[i];
            if (l.rvar && !l.par_ok) return;
            d.kind = Directive::Parallel;
            d.names = {l.name};
            l.type = LT::Parallel;
            break;
        }
        case 9: {  // parallel(var, task size)
            int i = r.pick(serial);
            LoopM l = st.loops[i];
            if ((l.rvar && !l.par_ok) || l.name == "par_inner") return;
            int factor = r.pick(std::vector<int>{2, 3, 4, 8});
            Tail t = r.chance(60) ? Tail::Auto : pick_tail(st);
            if (!tail_ok(st, l, factor, t)) return;
            d.kind = Directive::ParallelBy;
            d.names = {l.name};
            d.factor = factor;
            d.tail = t;
            split_model(st, i, l.name, "par_inner", factor, t);
            st.loops[i + 1].type = LT::Parallel;
            break;
        }
        default: {  // rename
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
};

}  // namespace

Schedule generate_schedule(const PipelineDesc &p, uint32_t seed, bool baseline,
                           const std::set<std::string> &avoid) {
    return ScheduleGen(p, seed, baseline, avoid).run();
}

}  // namespace loom_fuzz
