// Random pipelines: a chain of 1-4 Funcs over 1-3 dimensions reading 1-2 input Buffers, each
// Func pointwise, a stencil, an inline reduction, a reduction over an RDom (convolution, scan,
// in-place update, histogram), or Tuple-valued; one or two outputs.
//
// Every value is well defined in Loom's semantics, so that any two legal schedules must agree
// bit for bit: integer arithmetic wraps and divides by zero to zero, floats never reach inf or
// NaN (products have a small factor, divisors are nonzero, values are clamped at each Func),
// and a float converted to an integer is first clamped into the integer's range.
#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

#include "FuzzData.h"
#include "FuzzIR.h"
#include "FuzzIRQueries.h"
#include "FuzzRegions.h"
#include "FuzzRng.h"

namespace loom_fuzz {

namespace {

constexpr double kFloatLimit = 1e9;

// ---------------------------------------------------------------------------------------------
// Node constructors.

NodeP make_node(Node n) { return std::make_shared<const Node>(std::move(n)); }

NodeP konst(ET t, double v) {
    Node n;
    n.kind = Node::Const;
    n.type = t;
    n.value = v;
    return make_node(n);
}

NodeP bin(Op op, ET t, NodeP a, NodeP b) {
    Node n;
    n.kind = Node::Bin;
    n.type = t;
    n.op = op;
    n.kids = {std::move(a), std::move(b)};
    return make_node(n);
}

NodeP clamp_node(ET t, NodeP a, double lo, double hi) {
    Node n;
    n.kind = Node::Clamp;
    n.type = t;
    n.lo = lo;
    n.hi = hi;
    n.kids = {std::move(a)};
    return make_node(n);
}

NodeP unary(Unary u, ET t, NodeP a) {
    Node n;
    n.kind = Node::Un;
    n.type = t;
    n.unary = u;
    n.kids = {std::move(a)};
    return make_node(n);
}

/** A conversion that is defined for every value: floats are clamped into an integer type's
 * range first. */
NodeP convert(ET to, NodeP a) {
    if (a->type == to) return a;
    if (is_float(a->type) && !is_float(to)) {
        double lo = to == ET::I32 ? -2e9 : type_lo(to), hi = to == ET::I32 ? 2e9 : type_hi(to);
        a = clamp_node(a->type, a, lo, hi);
    }
    Node n;
    n.kind = Node::Cast;
    n.type = to;
    n.kids = {std::move(a)};
    return make_node(n);
}

NodeP call(Callee c, ET t, int value_index, std::vector<Index> args) {
    Node n;
    n.kind = Node::Call;
    n.type = t;
    n.callee = c;
    n.value_index = value_index;
    n.args = std::move(args);
    return make_node(n);
}

NodeP rvar_node(ET t, int rdom, int rdim) {
    Node n;
    n.kind = Node::RVar;
    n.type = t;
    n.rdom = rdom;
    n.rdim = rdim;
    return make_node(n);
}

/** Floats leaving a Func stay within +-kFloatLimit. */
NodeP bounded(NodeP v) {
    return is_float(v->type) ? clamp_node(v->type, v, -kFloatLimit, kFloatLimit) : v;
}

// ---------------------------------------------------------------------------------------------
// The generator.

class PipelineGen {
public:
    PipelineGen(uint32_t seed, const GenOptions &options)
        : r(seed), extern_rng(seed ^ 0x65787465u), options(options) {}

    PipelineDesc run() {
        dims = r.weighted({15, 65, 20}) + 1;
        if (options.large) {
            large_output_extents();
            for (int d = 0; d < dims; d++) p.out_mins.push_back(r.chance(65) ? 0 : r.uni(-9, 9));
        } else {
            for (int d = 0; d < dims; d++) {
                int e = dims == 1   ? r.uni(1, 100)
                        : dims == 2 ? (r.chance(75) ? r.uni(8, 36) : r.uni(1, 8))
                                    : r.uni(1, 9);
                p.out_extents.push_back(e);
                p.out_mins.push_back(r.chance(65) ? 0 : r.uni(-9, 9));
            }
        }
        int n_inputs = r.chance(75) ? 1 : 2;
        for (int i = 0; i < n_inputs; i++) gen_input(i);
        int n_funcs = r.weighted({20, 35, 30, 15}) + 1;
        side_output = n_funcs >= 2 && r.chance(20) ? r.uni(0, n_funcs - 2) : -1;
        last = n_funcs - 1;
        for (int f = 0; f < n_funcs; f++) gen_func(f);
        if (side_output >= 0) p.outputs.push_back(side_output);
        p.outputs.push_back(last);
        size_inputs();
        return p;
    }

private:
    Rng r;
    // Extern stages draw from a stream of their own, so that a pipeline without one is the
    // pipeline the seed gave before they were fuzzed.
    Rng extern_rng;
    GenOptions options;
    PipelineDesc p;
    int dims = 2;

    /** 256 Ki to 4 Mi points (1-16 MiB of 32-bit values), spread over the dimensions as images
     * are: rows of 256 to 2048 points (any width, not only multiples of vector sizes), and 1 to
     * 4 planes in 3-D. */
    void large_output_extents() {
        const int points = 1 << r.uni(18, 22);
        if (dims == 1) {
            p.out_extents.push_back(points + r.uni(-64, 64));
            return;
        }
        const int planes = dims == 3 ? r.uni(1, 4) : 1;
        const int width = r.uni(256, 2048);
        p.out_extents.push_back(width);
        p.out_extents.push_back(std::max(1, points / planes / width));
        if (dims == 3) p.out_extents.push_back(planes);
    }
    int side_output = -1, last = 0;
    // What the definition being generated may still spend: operators and calls. Keeps compile
    // times in the tens of milliseconds once Funcs are inlined into each other.
    int nodes_left = 0, calls_left = 0;

    void budget(int nodes, int calls) {
        nodes_left = nodes;
        calls_left = calls;
    }

    struct Ctx {
        int func = -1;
        std::vector<bool> vars;      // the pure Vars usable here
        std::vector<int> dim_rvar;   // per dimension: the update RVar standing for it, or -1
        int upd_rdom = -1;           // the update's RDom
        int red_rdom = -1;           // the RDom of the inline reduction being generated
        int rvar_bias = 30;          // percent of coordinates that get an RVar term
        int offset_bias = 30;        // percent of coordinates with a stencil offset
        bool allow_reduce = true;
        std::vector<Callee> callees;
        std::vector<bool> identity_only;  // per callee: read only at (x, y, ...)
    };

    // Inputs and callees.
    void gen_input(int i) {
        InputDesc id;
        id.name = "in" + std::to_string(i);
        id.type = (ET)r.uni(0, kNumTypes - 1);
        id.dims = r.chance(75) ? dims : r.uni(1, 3);
        id.bc = (Boundary)r.weighted({25, 45, 10, 10, 10});
        id.exterior = is_float(id.type) ? r.uni(-16, 16) / 4.0 : r.uni(0, 100);
        id.data_seed = r.raw();
        for (int d = 0; d < id.dims; d++) {
            if (options.large) {
                // About the outputs' size: a boundary condition then guards the edges of an
                // image, not nearly every point. (Inputs without one are sized later, to what
                // the pipeline reads.)
                // Dimensions past the outputs' stay short: a plane of a 4 Mi-point row is
                // already 16 MiB.
                id.extents.push_back(d < dims ? std::max(1, p.out_extents[d] + r.uni(-8, 8)) : r.uni(1, 2));
            } else {
                id.extents.push_back(id.dims == 3 ? r.uni(1, 8) : r.uni(1, 24));
            }
            id.mins.push_back(r.chance(60) ? 0 : r.uni(-6, 6));
        }
        p.inputs.push_back(id);
    }

    int callee_dims(const Callee &c) const {
        return c.kind == Callee::Func ? p.funcs[c.index].dims : p.inputs[c.index].dims;
    }
    std::vector<ET> callee_types(const Callee &c) const {
        return c.kind == Callee::Func ? p.funcs[c.index].types : std::vector<ET>{p.inputs[c.index].type};
    }
    Callee input_callee(int i) const {
        return Callee{p.inputs[i].bc == Boundary::None ? Callee::Input : Callee::Bc, i};
    }

    /** The Func or input that Func f must read, so that every Func reaches the outputs. */
    Callee predecessor(int f) const {
        for (int g = f - 1; g >= 0; g--) {
            if (g != side_output) return Callee{Callee::Func, g};
        }
        return input_callee(0);
    }

    Ctx base_ctx(int f) {
        Ctx c;
        c.func = f;
        c.vars.assign(dims, true);
        c.dim_rvar.assign(dims, -1);
        for (size_t i = 0; i < p.inputs.size(); i++) {
            c.callees.push_back(input_callee((int)i));
            c.identity_only.push_back(false);
        }
        for (int g = 0; g < f; g++) {
            if (g == side_output) continue;
            c.callees.push_back(Callee{Callee::Func, g});
            c.identity_only.push_back(false);
        }
        // The predecessor is read most often: it is the last callee.
        Callee pre = predecessor(f);
        c.callees.push_back(pre);
        c.identity_only.push_back(false);
        return c;
    }

    // Expressions.
    NodeP random_const(ET t) {
        switch (t) {
        case ET::U8: return konst(t, r.chance(70) ? r.uni(0, 16) : r.uni(0, 255));
        case ET::U16: return konst(t, r.chance(70) ? r.uni(0, 40) : r.uni(0, 65535));
        case ET::I16: return konst(t, r.chance(70) ? r.uni(-20, 20) : r.uni(-32768, 32767));
        case ET::I32: return konst(t, r.chance(80) ? r.uni(-100, 100) : (int32_t)r.raw());
        default: return konst(t, r.uni(-32, 32) / 4.0);
        }
    }
    /** Bounds that keep a good part of the values apart. */
    void clamp_bounds(ET t, double &lo, double &hi) {
        switch (t) {
        case ET::U8: lo = r.uni(0, 100); hi = lo + r.uni(20, 255 - (int)lo); break;
        case ET::U16: lo = r.uni(0, 30); hi = lo + r.uni(10, 3000); break;
        case ET::I16: case ET::I32: lo = -r.uni(0, 1000); hi = r.uni(0, 1000); break;
        default: lo = -r.uni(0, 256) / 4.0; hi = r.uni(0, 256) / 4.0; break;
        }
    }

    /** v, reading callee `which` too if it does not already. */
    NodeP with_call(NodeP v, Ctx &c, int which) {
        if (calls(*v, c.callees[which])) return v;
        NodeP call = convert(v->type, gen_call(c, which));
        return bin(is_float(v->type) ? Op::Add : Op::Xor, v->type, v, call);
    }

    NodeP nonzero_const(ET t) {
        NodeP c = random_const(t);
        return c->value == 0 ? konst(t, 3) : c;
    }

    Index gen_index(int j, Ctx &c, bool identity) {
        Index ix;
        if (identity) {
            ix.var = j;
            return ix;
        }
        if (c.allow_reduce && nodes_left > 2 && r.chance(5)) {
            nodes_left -= 2;
            Ctx inner = c;
            inner.allow_reduce = false;
            NodeP v = convert(ET::I32, gen((ET)r.uni(0, kNumTypes - 1), 1, inner));
            ix.gather = true;
            ix.value = v;
            ix.lo = r.uni(-3, 5);
            ix.hi = ix.lo + r.uni(0, 20);
            return ix;
        }
        int scope = c.red_rdom >= 0 ? c.red_rdom : c.upd_rdom;
        if (j < dims && c.vars[j] && r.chance(85)) {
            ix.var = j;
        } else if (scope == c.upd_rdom && j < dims && c.dim_rvar[j] >= 0) {
            ix.rdom = c.upd_rdom;
            ix.rdim = c.dim_rvar[j];
        } else {
            std::vector<int> avail;
            for (int v = 0; v < dims; v++) {
                if (c.vars[v]) avail.push_back(v);
            }
            if (!avail.empty()) ix.var = r.pick(avail);
        }
        if (ix.var >= 0) {
            int k = r.uni(0, 99);
            if (k < 7) ix.mul = 2;
            else if (k < 14) ix.div = r.uni(2, 3);
        }
        if (ix.rdom < 0 && scope >= 0 && (ix.var < 0 || r.chance(c.rvar_bias))) {
            int rd = (int)p.rdoms[scope].mins.size();
            ix.rdom = scope;
            ix.rdim = j < rd && r.chance(70) ? j : r.uni(0, rd - 1);
        }
        if (r.chance(c.offset_bias)) ix.off = r.uni(-2, 2);
        return ix;
    }

    NodeP gen_call(Ctx &c, int which = -1) {
        if (which < 0) which = r.chance(50) ? (int)c.callees.size() - 1 : r.uni(0, (int)c.callees.size() - 1);
        const Callee &callee = c.callees[which];
        std::vector<ET> types = callee_types(callee);
        int vi = r.uni(0, (int)types.size() - 1);
        std::vector<Index> args;
        for (int j = 0; j < callee_dims(callee); j++) args.push_back(gen_index(j, c, c.identity_only[which]));
        return call(callee, types[vi], vi, args);
    }

    NodeP leaf(ET t, Ctx &c) {
        int k = r.uni(0, 99);
        if (k < 65 && calls_left > 0) {
            calls_left--;
            return convert(t, gen_call(c));
        }
        if (k < 80) return random_const(t);
        std::vector<std::pair<int, int>> rvars;  // (rdom, dim)
        int scope = c.red_rdom >= 0 ? c.red_rdom : c.upd_rdom;
        if (scope >= 0) {
            for (size_t d = 0; d < p.rdoms[scope].mins.size(); d++) rvars.push_back({scope, (int)d});
        }
        std::vector<int> vars;
        for (int v = 0; v < dims; v++) {
            if (c.vars[v]) vars.push_back(v);
        }
        if (!rvars.empty() && (vars.empty() || r.chance(50))) {
            auto rv = r.pick(rvars);
            return convert(t, rvar_node(ET::I32, rv.first, rv.second));
        }
        if (vars.empty()) return random_const(t);
        Node n;
        n.kind = Node::Var;
        n.type = ET::I32;
        n.var = r.pick(vars);
        return convert(t, make_node(n));
    }

    NodeP gen(ET t, int depth, Ctx &c) {
        if (depth <= 0 || nodes_left <= 0 || r.chance(20)) return leaf(t, c);
        nodes_left--;
        int k = r.uni(0, 99);
        if (k < 36) return gen_bin(t, depth, c);
        if (k < 46) return gen_select(t, depth, c);
        if (k < 56) {
            ET from = (ET)r.uni(0, kNumTypes - 1);
            return convert(t, gen(from, depth - 1, c));
        }
        if (k < 63) return gen_unary(t, depth, c);
        if (k < 68) {
            NodeP a = gen(t, depth - 1, c);
            double lo, hi;
            clamp_bounds(t, lo, hi);
            return clamp_node(t, a, lo, hi);
        }
        if (k < 74 && !is_float(t)) {
            Node n;
            n.kind = Node::Shift;
            n.type = t;
            n.shift_left = r.chance(50);
            n.var = r.chance(80) ? r.uni(0, bits_of(t) / 4) : r.uni(0, bits_of(t) - 1);
            n.kids = {gen(t, depth - 1, c)};
            return make_node(n);
        }
        if (k < 86 && c.allow_reduce && c.red_rdom < 0) return gen_reduce(t, depth, c);
        return leaf(t, c);
    }

    NodeP gen_bin(ET t, int depth, Ctx &c) {
        static const std::vector<Op> int_ops = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::Mod, Op::Min,
                                                Op::Max, Op::And, Op::Or,  Op::Xor, Op::Absd};
        static const std::vector<Op> float_ops = {Op::Add, Op::Sub, Op::Mul, Op::Div,
                                                  Op::Mod, Op::Min, Op::Max, Op::Absd};
        Op op = is_float(t) ? r.pick(float_ops) : r.pick(int_ops);
        NodeP a = gen(t, depth - 1, c), b;
        if (is_float(t) && op == Op::Mul) {
            b = r.chance(50) ? konst(t, r.uni(-12, 12) / 4.0) : clamp_node(t, gen(t, depth - 1, c), -16, 16);
        } else if (is_float(t) && op == Op::Div) {
            b = r.chance(50) ? konst(t, r.pick(std::vector<int>{-4, -3, -1, 1, 2, 3, 5, 8}) / 2.0)
                             : bin(Op::Add, t, unary(Unary::Abs, t, gen(t, depth - 1, c)), konst(t, 1));
        } else if (is_float(t) && op == Op::Mod) {
            b = konst(t, r.pick(std::vector<int>{-6, -3, 1, 2, 3, 7, 10}) / 2.0);
        } else if (t == ET::I32 && op == Op::Mul) {
            // 32-bit signed overflow is undefined (Loom, like Halide, simplifies as if it never
            // happens), so a product's factors are kept to 15 bits: sums of a few products fit.
            a = clamp_node(t, a, -16383, 16383);
            b = clamp_node(t, gen(t, depth - 1, c), -16383, 16383);
        } else if ((op == Op::Div || op == Op::Mod) && r.chance(50)) {
            b = r.chance(10) ? konst(t, 0) : nonzero_const(t);
        } else {
            b = gen(t, depth - 1, c);
        }
        return bin(op, t, a, b);
    }

    NodeP gen_select(ET t, int depth, Ctx &c) {
        Node n;
        n.kind = Node::Select;
        n.type = t;
        int conds = r.chance(25) ? 2 : 1;
        for (int i = 0; i < conds; i++) {
            ET ct = r.chance(50) ? t : (ET)r.uni(0, kNumTypes - 1);
            Cond k;
            k.cmp = (Cmp)r.uni(0, 5);
            k.a = gen(ct, depth - 1, c);
            k.b = r.chance(50) ? random_const(ct) : gen(ct, depth - 1, c);
            n.conds.push_back(k);
        }
        n.join_or = r.chance(50);
        n.kids = {gen(t, depth - 1, c), gen(t, depth - 1, c)};
        return make_node(n);
    }

    NodeP gen_unary(ET t, int depth, Ctx &c) {
        NodeP a = gen(t, depth - 1, c);
        if (!is_float(t)) return unary(r.chance(60) ? Unary::Abs : Unary::Popcount, t, a);
        switch (r.uni(0, options.halide_exact ? 3 : 5)) {
        case 0: return unary(Unary::Abs, t, a);
        case 1: return unary(Unary::SqrtAbs, t, a);
        case 2: return unary(Unary::Floor, t, a);
        case 3: return unary(Unary::Round, t, a);
        case 4: return unary(Unary::Sin, t, a);
        default: return unary(Unary::Exp, t, clamp_node(t, a, -20, 20));
        }
    }

    int new_rdom(int ndims, int min_lo, int min_hi, int ext_lo, int ext_hi, int where_percent) {
        RDomDesc rd;
        rd.name = "r" + std::to_string(p.rdoms.size());
        for (int d = 0; d < ndims; d++) {
            rd.mins.push_back(r.uni(min_lo, min_hi));
            rd.extents.push_back(r.uni(ext_lo, ext_hi));
        }
        if (r.chance(where_percent)) {
            rd.where_kind = r.uni(1, 2);
            rd.wa = r.uni(0, ndims - 1);
            rd.wb = r.uni(0, ndims - 1);
            rd.wm = r.uni(2, 3);
            rd.wc = rd.where_kind == 1 ? r.uni(0, rd.wm - 1) : r.uni(-1, 2);
        }
        p.rdoms.push_back(rd);
        return (int)p.rdoms.size() - 1;
    }

    /** Adds a read at RVar coordinates when `v` does not use the RDom (an RDom must be used). */
    NodeP ensure_uses(NodeP v, int rdom, Ctx &c) {
        if (uses_rdom(*v, rdom)) return v;
        Ctx k = c;
        k.rvar_bias = 100;
        k.allow_reduce = false;
        NodeP extra = convert(v->type, gen_call(k));
        if (!uses_rdom(*extra, rdom)) extra = convert(v->type, rvar_node(ET::I32, rdom, 0));
        return bin(is_float(v->type) ? Op::Add : Op::Xor, v->type, v, extra);
    }

    NodeP gen_reduce(ET t, int depth, Ctx &c) {
        int nd = r.chance(70) ? 1 : 2;
        int rd = new_rdom(nd, -2, 0, 1, 4, 15);
        Ctx inner = c;
        inner.red_rdom = rd;
        inner.allow_reduce = false;
        inner.rvar_bias = 70;
        std::vector<Red> kinds = {Red::Sum, Red::Maximum, Red::Minimum, Red::ArgMax, Red::ArgMin};
        if (!is_float(t)) kinds.push_back(Red::Product);
        Red red = r.pick(kinds);
        ET bt = r.chance(70) ? t : (ET)r.uni(0, kNumTypes - 1);
        if (red == Red::Product && is_float(bt)) bt = t;
        NodeP body = ensure_uses(gen(bt, std::max(depth - 1, 1), inner), rd, inner);
        Node n;
        n.kind = Node::Reduce;
        n.red = red;
        n.rdom = rd;
        n.kids = {body};
        n.type = bt;
        if (red == Red::ArgMax || red == Red::ArgMin) {
            n.value_index = r.chance(50) ? 0 : nd;
            if (n.value_index == 0) n.type = ET::I32;
        }
        return convert(t, make_node(n));
    }

    // Funcs.
    NodeP self_call(int f, int value_index, const std::vector<Index> &args) {
        return call(Callee{Callee::Func, f}, p.funcs[f].types[value_index], value_index, args);
    }

    /** [lo, lo + k) inside the output region in dimension d when f is an output. */
    bool pick_range(int f, int d, int kmin, int kmax, int &lo, int &k) {
        bool out = f == last || f == side_output;
        if (out) {
            int ext = p.out_extents[d];
            if (ext < kmin) return false;
            k = r.uni(kmin, std::min(kmax, ext));
            lo = p.out_mins[d] + r.uni(0, ext - k);
        } else {
            k = r.uni(kmin, kmax);
            lo = r.uni(-4, 6);
        }
        return true;
    }

    void gen_func(int f) {
        FuncDesc fd;
        fd.name = "f" + std::to_string(f);
        fd.dims = dims;
        bool is_out = f == last || f == side_output;
        ET t = (ET)r.uni(0, kNumTypes - 1);
        fd.types = {t};
        std::vector<std::string> kinds = {"pointwise", "stencil", "inline reduction", "convolution",
                                          "scan", "in-place update", "histogram", "argmax update",
                                          "tuple"};
        std::vector<int> weights = {18, 20, 12, 12, 8, 8, 6, 5, 6};
        if (is_out) weights[6] = 0;  // a histogram writes outside the region asked for
        std::string kind = kinds[r.weighted(weights)];
        if (kind == "argmax update") fd.types = {ET::I32, t};
        if (kind == "tuple") fd.types = {t, (ET)r.uni(0, kNumTypes - 1)};
        if (kind == "histogram") fd.types = {r.pick(std::vector<ET>{ET::I32, ET::U16, ET::F32})};
        fd.kind = kind;
        p.funcs.push_back(fd);
        FuncDesc &me = p.funcs.back();

        Ctx c = base_ctx(f);
        const int pre_index = (int)c.callees.size() - 1;
        const bool reads_side_output = f == last && side_output >= 0 && r.chance(50);
        if (reads_side_output) {
            c.callees.push_back(Callee{Callee::Func, side_output});
            c.identity_only.push_back(true);
        }
        c.offset_bias = kind == "stencil" ? 80 : kind == "pointwise" ? 0 : 25;
        int depth = r.uni(1, 3);
        budget(r.uni(2, 8), kind == "stencil" ? r.uni(2, 5) : r.uni(1, 3));

        // The pure definition.
        std::vector<NodeP> init;
        for (ET vt : me.types) {
            if (kind == "histogram" || kind == "argmax update") {
                init.push_back(r.chance(50) ? konst(vt, 0) : random_const(vt));
            } else if (kind == "inline reduction") {
                Ctx k = c;
                NodeP red = gen_reduce(vt, depth + 1, k);
                init.push_back(r.chance(50) ? red : bin(Op::Add, vt, red, gen(vt, depth - 1, k)));
            } else {
                init.push_back(gen(vt, depth, c));
            }
        }
        Callee pre = predecessor(f);
        bool reads_pre = false;
        for (const NodeP &v : init) reads_pre |= calls(*v, pre);
        // A value that is mostly constant hides what the stages before computed; often mix the
        // predecessor in with an operator that keeps its information.
        if ((!reads_pre || r.chance(40)) && kind != "histogram" && kind != "argmax update") {
            ET vt = init[0]->type;
            init[0] = bin(is_float(vt) ? Op::Add : Op::Xor, vt, init[0], convert(vt, gen_call(c, pre_index)));
        }
        for (NodeP &v : init) v = bounded(v);
        p.funcs[f].init = init;

        // Update definitions.
        if (reads_side_output) {
            // The other output may be read in the pure definition only.
            c.callees.pop_back();
            c.identity_only.pop_back();
        }
        if (kind == "convolution" || kind == "argmax update") gen_convolution(f, c, kind == "argmax update");
        if (kind == "scan") gen_scan(f, c);
        if (kind == "in-place update") gen_in_place(f, c);
        if (kind == "histogram") gen_histogram(f, c);
        if (r.chance(kind == "tuple" ? 40 : 12)) gen_pure_update(f, c);
        if (options.extern_stages && !is_out) maybe_make_extern(f);
    }

    /** Sometimes turns Func f, once generated, into an extern stage reading its predecessor
     * (a Func of one value, or an input, of f's dimensions): what later Funcs read of it is
     * then generated against its new type. */
    void maybe_make_extern(int f) {
        const Callee pre = predecessor(f);
        const std::vector<ET> types = callee_types(pre);
        if (types.size() != 1 || callee_dims(pre) != dims || !extern_rng.chance(10)) return;
        FuncDesc &fd = p.funcs[f];
        fd.is_extern = true;
        fd.kind = "extern stage";
        fd.types = types;
        fd.extern_dx = extern_rng.uni(-2, 2);
        fd.extern_k = extern_rng.uni(-3, 5);
        std::vector<Index> args(dims);
        for (int d = 0; d < dims; d++) {
            args[d].var = d;
            if (d == 0) args[d].off = fd.extern_dx;
        }
        fd.init = {call(pre, types[0], 0, args)};
        fd.updates.clear();
    }

    std::vector<Index> pure_lhs() {
        std::vector<Index> lhs(dims);
        for (int d = 0; d < dims; d++) lhs[d].var = d;
        return lhs;
    }

    Op accumulate_op(ET t) {
        return is_float(t) ? r.pick(std::vector<Op>{Op::Add, Op::Add, Op::Max, Op::Min, Op::Sub})
                           : r.pick(std::vector<Op>{Op::Add, Op::Add, Op::Max, Op::Min, Op::Xor, Op::Sub});
    }

    void gen_convolution(int f, Ctx c, bool argmax) {
        budget(r.uni(1, 5), r.uni(1, 3));
        int nd = std::min(dims, r.chance(60) ? 2 : 1);
        int rd = new_rdom(nd, -2, 0, 1, 4, 20);
        c.upd_rdom = rd;
        c.rvar_bias = 75;
        c.offset_bias = 20;
        UpdateDesc u;
        u.rdom = rd;
        u.lhs = pure_lhs();
        const FuncDesc &fd = p.funcs[f];
        if (argmax) {
            ET t = fd.types[1];
            NodeP v = with_call(ensure_uses(gen(t, 2, c), rd, c), c, (int)c.callees.size() - 1);
            Node sel;
            sel.kind = Node::Select;
            sel.type = ET::I32;
            sel.conds = {Cond{Cmp::GT, v, self_call(f, 1, u.lhs)}};
            sel.kids = {rvar_node(ET::I32, rd, 0), self_call(f, 0, u.lhs)};
            u.values = {make_node(sel), bounded(bin(Op::Max, t, self_call(f, 1, u.lhs), v))};
        } else {
            for (size_t k = 0; k < fd.types.size(); k++) {
                ET t = fd.types[k];
                NodeP v = ensure_uses(gen(t, 2, c), rd, c);
                const Op op = accumulate_op(t);
                // A float sum bounds its terms, not itself (at most 16 of them: finite), so that
                // it stays f = f + e, a reduction whose RVars a schedule may reorder.
                if (is_float(t) && op == Op::Add && fd.types.size() == 1) {
                    u.values.push_back(bin(op, t, self_call(f, (int)k, u.lhs), bounded(v)));
                } else {
                    u.values.push_back(bounded(bin(op, t, self_call(f, (int)k, u.lhs), v)));
                }
            }
        }
        p.funcs[f].updates.push_back(u);
    }

    void gen_scan(int f, Ctx c) {
        budget(r.uni(1, 5), r.uni(1, 3));
        int d = r.uni(0, dims - 1), lo = 0, k = 0;
        if (!pick_range(f, d, 2, 16, lo, k)) return;
        int rd = new_rdom(1, 0, 0, 1, 1, 0);
        p.rdoms[rd].mins[0] = lo + 1;
        p.rdoms[rd].extents[0] = k - 1;
        c.upd_rdom = rd;
        c.vars[d] = false;
        c.dim_rvar[d] = 0;
        c.rvar_bias = 20;
        UpdateDesc u;
        u.rdom = rd;
        u.lhs = pure_lhs();
        u.lhs[d] = Index();
        u.lhs[d].rdom = rd;
        std::vector<Index> prev = u.lhs;
        prev[d].off = -1;
        const FuncDesc &fd = p.funcs[f];
        for (size_t i = 0; i < fd.types.size(); i++) {
            ET t = fd.types[i];
            NodeP v = gen(t, 2, c);
            u.values.push_back(bounded(bin(accumulate_op(t), t, self_call(f, (int)i, prev), v)));
        }
        p.funcs[f].updates.push_back(u);
    }

    void gen_in_place(int f, Ctx c) {
        budget(r.uni(1, 5), r.uni(1, 3));
        int nd = std::min(dims, r.chance(70) ? 1 : 2);
        std::vector<int> ds;
        for (int d = 0; d < dims; d++) ds.push_back(d);
        for (int i = dims - 1; i > 0; i--) std::swap(ds[i], ds[r.uni(0, i)]);
        ds.resize(nd);
        std::sort(ds.begin(), ds.end());
        int rd = new_rdom(nd, 0, 0, 1, 1, 25);
        for (int i = 0; i < nd; i++) {
            int lo = 0, k = 0;
            if (!pick_range(f, ds[i], 1, 20, lo, k)) return;
            p.rdoms[rd].mins[i] = lo;
            p.rdoms[rd].extents[i] = k;
        }
        c.upd_rdom = rd;
        c.rvar_bias = 20;
        UpdateDesc u;
        u.rdom = rd;
        u.lhs = pure_lhs();
        for (int i = 0; i < nd; i++) {
            c.vars[ds[i]] = false;
            c.dim_rvar[ds[i]] = i;
            u.lhs[ds[i]] = Index();
            u.lhs[ds[i]].rdom = rd;
            u.lhs[ds[i]].rdim = i;
        }
        const FuncDesc &fd = p.funcs[f];
        for (size_t i = 0; i < fd.types.size(); i++) {
            ET t = fd.types[i];
            NodeP v = ensure_uses(gen(t, 2, c), rd, c);
            if (r.chance(70)) v = bin(accumulate_op(t), t, self_call(f, (int)i, u.lhs), v);
            u.values.push_back(bounded(v));
        }
        p.funcs[f].updates.push_back(u);
    }

    void gen_histogram(int f, Ctx c) {
        budget(r.uni(1, 5), r.uni(1, 3));
        int rd = new_rdom(1, -2, 4, 2, 12, 15);
        c.upd_rdom = rd;
        c.vars[0] = false;
        c.dim_rvar[0] = 0;
        c.rvar_bias = 10;
        c.allow_reduce = false;
        UpdateDesc u;
        u.rdom = rd;
        u.lhs = pure_lhs();
        Index bucket;
        bucket.gather = true;
        NodeP v = gen_call(c, (int)c.callees.size() - 1);
        if (!uses_rdom(*v, rd)) v = bin(Op::Add, v->type, v, convert(v->type, rvar_node(ET::I32, rd, 0)));
        bucket.value = convert(ET::I32, v);
        bucket.lo = 0;
        bucket.hi = r.uni(3, 23);
        u.lhs[0] = bucket;
        ET t = p.funcs[f].types[0];
        NodeP inc = r.chance(60) ? konst(t, 1) : convert(t, gen(t, 1, c));
        u.values = {bounded(bin(Op::Add, t, self_call(f, 0, u.lhs), inc))};
        p.funcs[f].updates.push_back(u);
    }

    void gen_pure_update(int f, Ctx c) {
        budget(r.uni(1, 5), r.uni(1, 3));
        UpdateDesc u;
        u.lhs = pure_lhs();
        c.allow_reduce = r.chance(30);
        const FuncDesc &fd = p.funcs[f];
        for (size_t k = 0; k < fd.types.size(); k++) {
            ET t = fd.types[k];
            NodeP v;
            if (fd.types.size() > 1 && r.chance(50)) {
                v = convert(t, self_call(f, (int)(fd.types.size() - 1 - k), u.lhs));
            } else {
                v = with_call(gen(t, 1, c), c, r.uni(0, (int)c.callees.size() - 1));
            }
            u.values.push_back(bounded(bin(accumulate_op(t), t, self_call(f, (int)k, u.lhs), v)));
        }
        p.funcs[f].updates.push_back(u);
    }

    /** Inputs read without a boundary condition cover everything any schedule may read: the
     * region each Func needs, widened at every Func by what rounding splits may add. */
    void size_inputs() {
        std::vector<Box> boxes = RegionAnalysis(p, kRoundingMargin).run();
        for (size_t i = 0; i < p.inputs.size(); i++) {
            InputDesc &id = p.inputs[i];
            if (id.bc != Boundary::None) continue;
            for (int d = 0; d < id.dims; d++) {
                const Iv &iv = boxes[i][d];
                if (iv.empty()) continue;
                id.mins[d] = (int)iv.lo - 4;
                id.extents[d] = (int)(iv.hi - iv.lo + 9);
            }
        }
    }
};

}  // namespace

PipelineDesc generate_pipeline(uint32_t seed, const GenOptions &options) {
    PipelineDesc p = PipelineGen(seed, options).run();
    // A large pipeline whose reads spread an input past 2^25 points (a stride of 3 in two
    // dimensions, a third dimension read at many planes) is drawn again from a derived seed:
    // its input would take more memory than the machine's share for one pair.
    auto too_large = [](const PipelineDesc &d) {
        for (const InputDesc &in : d.inputs) {
            int64_t points = 1;
            for (int e : in.extents) points *= e;
            if (points > (int64_t(1) << 25)) return true;
        }
        return false;
    };
    for (uint32_t attempt = 1; options.large && too_large(p); attempt++) {
        p = PipelineGen(fuzz_hash(seed, attempt), options).run();
    }
    return p;
}

}  // namespace loom_fuzz
