// Builds a PipelineDesc as Loom Funcs, applies a Schedule to them, and realizes the result.
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include "FuzzData.h"
#include "FuzzEmit.h"
#include "FuzzIR.h"

namespace loom_fuzz {

using namespace loom;

// ---------------------------------------------------------------------------------------------
// Element types.

bool is_float(ET t) { return t == ET::F32; }
bool is_signed(ET t) { return t == ET::I16 || t == ET::I32 || t == ET::F32; }
int bits_of(ET t) {
    switch (t) {
    case ET::U8: return 8;
    case ET::U16: case ET::I16: return 16;
    default: return 32;
    }
}
Type loom_type(ET t) {
    switch (t) {
    case ET::U8: return UInt(8);
    case ET::U16: return UInt(16);
    case ET::I16: return Int(16);
    case ET::I32: return Int(32);
    default: return Float(32);
    }
}
const char *cpp_name(ET t) {
    static const char *names[] = {"uint8_t", "uint16_t", "int16_t", "int32_t", "float"};
    return names[(int)t];
}
const char *type_ctor(ET t) {
    static const char *names[] = {"UInt(8)", "UInt(16)", "Int(16)", "Int(32)", "Float(32)"};
    return names[(int)t];
}
double type_lo(ET t) {
    switch (t) {
    case ET::U8: case ET::U16: return 0;
    case ET::I16: return -32768;
    case ET::I32: return -2147483648.0;
    default: return -3.0e38;
    }
}
double type_hi(ET t) {
    switch (t) {
    case ET::U8: return 255;
    case ET::U16: return 65535;
    case ET::I16: return 32767;
    case ET::I32: return 2147483647.0;
    default: return 3.0e38;
    }
}

uint32_t pipeline_seed(uint32_t run_seed, int k) { return fuzz_hash(run_seed, 2u * (uint32_t)k); }
uint32_t schedule_seed(uint32_t run_seed, int k, int j) {
    return fuzz_hash(fuzz_hash(run_seed, 2u * (uint32_t)k + 1u), (uint32_t)j);
}

// ---------------------------------------------------------------------------------------------
// The Loom backend of the Emitter.

namespace {

struct LoomBackend {
    using E = Expr;
    const PipelineDesc &p;
    std::vector<Buffer<>> inputs;
    std::vector<Func> funcs, bcs;
    std::vector<RDom> rdoms;
    std::vector<Var> vars{Var("x"), Var("y"), Var("z")};

    LoomBackend(const PipelineDesc &p, const std::vector<Buffer<>> &in) : p(p), inputs(in) {
        for (const InputDesc &id : p.inputs) {
            const Buffer<> &b = inputs[bcs.size()];
            switch (id.bc) {
            case Boundary::None: bcs.emplace_back(); break;
            case Boundary::RepeatEdge: bcs.push_back(BoundaryConditions::repeat_edge(b)); break;
            case Boundary::ConstantExterior:
                bcs.push_back(BoundaryConditions::constant_exterior(b, konst(id.type, id.exterior)));
                break;
            case Boundary::MirrorImage: bcs.push_back(BoundaryConditions::mirror_image(b)); break;
            case Boundary::MirrorInterior: bcs.push_back(BoundaryConditions::mirror_interior(b)); break;
            }
        }
        for (const RDomDesc &rd : p.rdoms) {
            Internal::Region region;
            for (size_t i = 0; i < rd.mins.size(); i++) region.emplace_back(Expr(rd.mins[i]), Expr(rd.extents[i]));
            RDom r(region, rd.name);
            if (rd.where_kind == 1) {
                Expr s = rd.wa == rd.wb ? Expr(r[rd.wa]) : Expr(r[rd.wa]) + r[rd.wb];
                r.where(s % rd.wm != rd.wc);
            } else if (rd.where_kind == 2) {
                r.where(r[rd.wa] <= r[rd.wb] + rd.wc);
            }
            rdoms.push_back(r);
        }
        for (const FuncDesc &fd : p.funcs) funcs.emplace_back(fd.name);
    }

    E konst(ET t, double v) {
        if (t == ET::F32) return Expr((float)v);
        if (t == ET::I32) return Expr((int32_t)v);
        return loom::cast(loom_type(t), Expr((int32_t)v));
    }
    E var(int i) { return vars[i]; }
    E rvar(int r, int d) { return rdoms[r][d]; }
    E call(const Callee &c, int value_index, std::vector<E> args) {
        switch (c.kind) {
        case Callee::Func: {
            FuncRef ref = funcs[c.index](args);
            return funcs[c.index].outputs() > 1 ? ref[value_index] : Expr(ref);
        }
        case Callee::Input: return inputs[c.index](args);
        case Callee::Bc: return Expr(bcs[c.index](args));
        }
        return E();
    }
    E bin(Op op, ET t, E a, E b) {
        switch (op) {
        case Op::Add: return a + b;
        case Op::Sub: return a - b;
        case Op::Mul: return a * b;
        case Op::Div: return a / b;
        case Op::Mod: return a % b;
        case Op::Min: return min(a, b);
        case Op::Max: return max(a, b);
        case Op::And: return a & b;
        case Op::Or: return a | b;
        case Op::Xor: return a ^ b;
        case Op::Absd: return loom::cast(loom_type(t), absd(a, b));
        }
        return E();
    }
    E shift(bool left, E a, int n) { return left ? a << n : a >> n; }
    E cast(ET t, E a) { return loom::cast(loom_type(t), a); }
    E unary(Unary u, ET t, E a) {
        switch (u) {
        case Unary::Abs: return loom::cast(loom_type(t), abs(a));
        case Unary::SqrtAbs: return sqrt(abs(a));
        case Unary::Floor: return floor(a);
        case Unary::Round: return round(a);
        case Unary::Sin: return sin(a);
        case Unary::Exp: return exp(a);
        case Unary::Popcount: return loom::cast(loom_type(t), popcount(a));
        }
        return E();
    }
    E cmp(Cmp c, E a, E b) {
        switch (c) {
        case Cmp::LT: return a < b;
        case Cmp::LE: return a <= b;
        case Cmp::EQ: return a == b;
        case Cmp::NE: return a != b;
        case Cmp::GT: return a > b;
        case Cmp::GE: return a >= b;
        }
        return E();
    }
    E join(bool is_or, E a, E b) { return is_or ? (a || b) : (a && b); }
    E select(E c, E t, E f) { return loom::select(c, t, f); }
    E clamp(E a, E lo, E hi) { return loom::clamp(a, lo, hi); }
    E reduce(Red r, int value_index, E body) {
        switch (r) {
        case Red::Sum: return sum(body);
        case Red::Maximum: return maximum(body);
        case Red::Minimum: return minimum(body);
        case Red::Product: return product(body);
        case Red::ArgMax: return argmax(body)[value_index];
        case Red::ArgMin: return argmin(body)[value_index];
        }
        return E();
    }
    E index_add(E e, int k) { return e + k; }
    E index_mul(E e, int k) { return e * k; }
    E index_div(E e, int k) { return e / k; }
    E index_plus(E a, E b) { return a + b; }
    E index_const(int k) { return Expr(k); }
    E index_gather(E v, int lo, int hi) { return loom::clamp(loom::cast(Int(32), v), lo, hi); }

    void define(int f, int update, std::vector<E> lhs, std::vector<E> values) {
        const FuncDesc &fd = p.funcs[f];
        if (update < 0) {
            std::vector<Var> args(vars.begin(), vars.begin() + fd.dims);
            if (values.size() == 1) {
                funcs[f](args) = values[0];
            } else {
                funcs[f](args) = Tuple(values);
            }
        } else {
            if (values.size() == 1) {
                funcs[f](lhs) = values[0];
            } else {
                funcs[f](lhs) = Tuple(values);
            }
        }
    }

    // Scheduling.
    Func entity(int ent) const {
        return ent < (int)funcs.size() ? funcs[ent] : bcs[ent - funcs.size()];
    }
    VarOrRVar loop(int ent, const std::string &name) const {
        if (!name.empty() && name[0] == '$') return VarOrRVar(entity(ent).args()[std::stoi(name.substr(1))]);
        return VarOrRVar(name);
    }
    Stage stage(int ent, int k) const { return k == 0 ? entity(ent).stage() : entity(ent).update(k - 1); }
};

TailStrategy tail_strategy(Tail t) {
    switch (t) {
    case Tail::GuardWithIf: return TailStrategy::GuardWithIf;
    case Tail::ShiftInwards: return TailStrategy::ShiftInwards;
    case Tail::RoundUp: return TailStrategy::RoundUp;
    default: return TailStrategy::Auto;
    }
}

void apply(const LoomBackend &b, const Directive &d) {
    auto n = [&](size_t i) { return b.loop(d.ent, d.names[i]); };
    TailStrategy tail = tail_strategy(d.tail);
    Func f = b.entity(d.ent);
    switch (d.kind) {
    case Directive::Split: b.stage(d.ent, d.stage).split(n(0), n(1), n(2), d.factor, tail); break;
    case Directive::Fuse: b.stage(d.ent, d.stage).fuse(n(0), n(1), n(2)); break;
    case Directive::Reorder: {
        std::vector<VarOrRVar> order;
        for (size_t i = 0; i < d.names.size(); i++) order.push_back(n(i));
        b.stage(d.ent, d.stage).reorder(order);
        break;
    }
    case Directive::Tile:
        b.stage(d.ent, d.stage).tile(n(0), n(1), n(2), n(3), n(4), n(5), d.factor, d.factor2, tail);
        break;
    case Directive::TileInPlace:
        b.stage(d.ent, d.stage).tile(n(0), n(1), n(2), n(3), d.factor, d.factor2, tail);
        break;
    case Directive::Rename: b.stage(d.ent, d.stage).rename(n(0), n(1)); break;
    case Directive::Vectorize: b.stage(d.ent, d.stage).vectorize(n(0)); break;
    case Directive::VectorizeBy: b.stage(d.ent, d.stage).vectorize(n(0), d.factor, tail); break;
    case Directive::Unroll: b.stage(d.ent, d.stage).unroll(n(0)); break;
    case Directive::UnrollBy: b.stage(d.ent, d.stage).unroll(n(0), d.factor, tail); break;
    case Directive::Parallel: b.stage(d.ent, d.stage).parallel(n(0)); break;
    case Directive::ParallelBy: b.stage(d.ent, d.stage).parallel(n(0), d.factor, tail); break;
    case Directive::ComputeRoot: f.compute_root(); break;
    case Directive::ComputeInline: f.compute_inline(); break;
    // As printed: the Func form (its first stage that reads f, which the generator only names
    // when that is stage 0) or the Stage form for an update's loop.
    case Directive::ComputeAt:
        if (d.at_stage == 0) {
            f.compute_at(b.entity(d.at_ent), b.loop(d.at_ent, d.at_loop));
        } else {
            f.compute_at(b.stage(d.at_ent, d.at_stage).at(b.loop(d.at_ent, d.at_loop)));
        }
        break;
    case Directive::StoreRoot: f.store_root(); break;
    case Directive::StoreAt:
        if (d.at_stage == 0) {
            f.store_at(b.entity(d.at_ent), b.loop(d.at_ent, d.at_loop));
        } else {
            f.store_at(b.stage(d.at_ent, d.at_stage).at(b.loop(d.at_ent, d.at_loop)));
        }
        break;
    case Directive::ReorderStorage: {
        std::vector<Var> order;
        for (int k : d.storage_order) order.push_back(f.args()[k]);
        f.reorder_storage(order);
        break;
    }
    }
}

}  // namespace

std::vector<Buffer<>> make_inputs(const PipelineDesc &p) {
    std::vector<Buffer<>> inputs;
    for (const InputDesc &id : p.inputs) {
        Buffer<> b(loom_type(id.type), id.extents, id.name);
        b.set_min(id.mins);
        fuzz_fill_any(b, id.data_seed);
        inputs.push_back(b);
    }
    return inputs;
}

namespace {

// Copies the elements of `to`'s region from `from` (which contains it), by coordinates.
void copy_region(const Buffer<> &from, Buffer<> &to) {
    const int bytes = to.type().bytes();
    to.for_each_position([&](const std::vector<int> &pos) {
        int64_t src = 0, dst = 0;
        for (size_t d = 0; d < pos.size(); d++) {
            src += int64_t(pos[d] - from.dim(int(d)).min()) * from.dim(int(d)).stride();
            dst += int64_t(pos[d] - to.dim(int(d)).min()) * to.dim(int(d)).stride();
        }
        std::memcpy(static_cast<char *>(to.raw_data()) + dst * bytes,
                    static_cast<const char *>(from.raw_data()) + src * bytes, bytes);
    });
}

} // namespace

std::vector<Buffer<>> realize(const PipelineDesc &p, const Schedule &s,
                              const std::vector<Buffer<>> &inputs, Timing *timing) {
    LoomBackend b(p, inputs);
    Emitter<LoomBackend>(p, b).definitions();
    for (const Directive &d : s.directives) apply(b, d);
    std::vector<Func> outputs;
    std::vector<Buffer<>> buffers;
    for (int o : p.outputs) {
        outputs.push_back(b.funcs[o]);
        for (size_t k = 0; k < p.funcs[o].types.size(); k++) {
            Buffer<> out(loom_type(p.funcs[o].types[k]), p.out_extents,
                         p.funcs[o].name + "_out" + std::to_string(k));
            out.set_min(p.out_mins);
            buffers.push_back(out);
        }
    }
    Pipeline pipeline(outputs);
    // Every output that can stream does, small as the fuzz's are: its streaming stores (whole
    // lines, joined across rows) are checked against the unscheduled pipeline too.
    CompileOptions options;
    options.streaming_min_bytes = 0;
    pipeline.set_options(options);
    auto start = std::chrono::steady_clock::now();
    pipeline.compile_jit();
    auto compiled = std::chrono::steady_clock::now();
    // As Halide's realize(sizes) does: a bounds query first, for a schedule that writes past the
    // requested region (Auto rounds an update's pure loops up), then a run over the region it
    // writes, whose requested part is the result.
    std::vector<Buffer<>> query, whole;
    for (const Buffer<> &out : buffers) {
        query.push_back(Buffer<>::from_contents(loom::Internal::BufferContents::bounds_query(
            out.type(), p.out_extents, out.name())));
        query.back().set_min(p.out_mins);
    }
    pipeline.realize(RealizationArg(query));
    for (const Buffer<> &q : query) {
        std::vector<int> extents, mins;
        for (int d = 0; d < q.dimensions(); d++) {
            extents.push_back(q.dim(d).extent());
            mins.push_back(q.dim(d).min());
        }
        whole.emplace_back(q.type(), extents, q.name());
        whole.back().set_min(mins);
    }
    pipeline.realize(RealizationArg(whole));
    for (size_t i = 0; i < buffers.size(); i++) copy_region(whole[i], buffers[i]);
    auto done = std::chrono::steady_clock::now();
    if (timing) {
        timing->compile_ms += std::chrono::duration<double, std::milli>(compiled - start).count();
        timing->run_ms += std::chrono::duration<double, std::milli>(done - compiled).count();
    }
    return buffers;
}

}  // namespace loom_fuzz
