// Prints a PipelineDesc and two Schedules as a self-contained C++ program (the reproducer): the
// same Emitter walk as FuzzBuild.cpp, with a backend that writes each Loom call as text.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "FuzzData.h"
#include "FuzzEmit.h"
#include "FuzzIR.h"

namespace loom_fuzz {

namespace {

std::string join_list(const std::vector<std::string> &v, const char *sep = ", ") {
    std::string s;
    for (size_t i = 0; i < v.size(); i++) s += (i ? sep : "") + v[i];
    return s;
}

std::string ints(const std::vector<int> &v) {
    std::vector<std::string> s;
    for (int i : v) s.push_back(std::to_string(i));
    return "{" + join_list(s) + "}";
}

std::string float_literal(double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.9g", (float)v);
    std::string s = buf;
    if (s.find_first_of(".en") == std::string::npos) s += ".0";
    return s + "f";
}

const char *kVarNames[] = {"x", "y", "z"};
const char *kRVarNames[] = {"x", "y", "z", "w"};

std::string bc_name(const PipelineDesc &p, int input) { return p.inputs[input].name + "_bc"; }

struct PrintBackend {
    using E = std::string;
    const PipelineDesc &p;
    std::ostringstream out;
    explicit PrintBackend(const PipelineDesc &p) : p(p) {}

    E konst(ET t, double v) {
        if (t == ET::F32) return "Expr(" + float_literal(v) + ")";
        if (t == ET::I32) return "Expr(" + std::to_string((int64_t)v) + ")";
        return std::string("cast<") + cpp_name(t) + ">(" + std::to_string((int64_t)v) + ")";
    }
    E var(int i) { return kVarNames[i]; }
    E rvar(int r, int d) { return p.rdoms[r].name + "." + kRVarNames[d]; }
    E call(const Callee &c, int value_index, std::vector<E> args) {
        switch (c.kind) {
        case Callee::Func: {
            std::string s = p.funcs[c.index].name + "(" + join_list(args) + ")";
            if (p.funcs[c.index].types.size() > 1) return s + "[" + std::to_string(value_index) + "]";
            return "Expr(" + s + ")";
        }
        case Callee::Input: return p.inputs[c.index].name + "(" + join_list(args) + ")";
        case Callee::Bc: return "Expr(" + bc_name(p, c.index) + "(" + join_list(args) + "))";
        }
        return E();
    }
    E bin(Op op, ET t, E a, E b) {
        switch (op) {
        case Op::Add: return "(" + a + " + " + b + ")";
        case Op::Sub: return "(" + a + " - " + b + ")";
        case Op::Mul: return "(" + a + " * " + b + ")";
        case Op::Div: return "(" + a + " / " + b + ")";
        case Op::Mod: return "(" + a + " % " + b + ")";
        case Op::Min: return "min(" + a + ", " + b + ")";
        case Op::Max: return "max(" + a + ", " + b + ")";
        case Op::And: return "(" + a + " & " + b + ")";
        case Op::Or: return "(" + a + " | " + b + ")";
        case Op::Xor: return "(" + a + " ^ " + b + ")";
        case Op::Absd: return std::string("cast<") + cpp_name(t) + ">(absd(" + a + ", " + b + "))";
        }
        return E();
    }
    E shift(bool left, E a, int n) { return "(" + a + (left ? " << " : " >> ") + std::to_string(n) + ")"; }
    E cast(ET t, E a) { return std::string("cast<") + cpp_name(t) + ">(" + a + ")"; }
    E unary(Unary u, ET t, E a) {
        switch (u) {
        case Unary::Abs: return std::string("cast<") + cpp_name(t) + ">(abs(" + a + "))";
        case Unary::SqrtAbs: return "sqrt(abs(" + a + "))";
        case Unary::Floor: return "floor(" + a + ")";
        case Unary::Round: return "round(" + a + ")";
        case Unary::Sin: return "sin(" + a + ")";
        case Unary::Exp: return "exp(" + a + ")";
        case Unary::Popcount: return std::string("cast<") + cpp_name(t) + ">(popcount(" + a + "))";
        }
        return E();
    }
    E cmp(Cmp c, E a, E b) {
        static const char *ops[] = {" < ", " <= ", " == ", " != ", " > ", " >= "};
        return "(" + a + ops[(int)c] + b + ")";
    }
    E join(bool is_or, E a, E b) { return "(" + a + (is_or ? " || " : " && ") + b + ")"; }
    E select(E c, E t, E f) { return "select(" + c + ", " + t + ", " + f + ")"; }
    E clamp(E a, E lo, E hi) { return "clamp(" + a + ", " + lo + ", " + hi + ")"; }
    E reduce(Red r, int value_index, E body) {
        switch (r) {
        case Red::Sum: return "sum(" + body + ")";
        case Red::Maximum: return "maximum(" + body + ")";
        case Red::Minimum: return "minimum(" + body + ")";
        case Red::Product: return "product(" + body + ")";
        case Red::ArgMax: return "argmax(" + body + ")[" + std::to_string(value_index) + "]";
        case Red::ArgMin: return "argmin(" + body + ")[" + std::to_string(value_index) + "]";
        }
        return E();
    }
    E index_add(E e, int k) { return k < 0 ? e + " - " + std::to_string(-k) : e + " + " + std::to_string(k); }
    E index_mul(E e, int k) { return e + " * " + std::to_string(k); }
    E index_div(E e, int k) { return e + " / " + std::to_string(k); }
    E index_plus(E a, E b) { return a + " + " + b; }
    E index_const(int k) { return "Expr(" + std::to_string(k) + ")"; }
    E index_gather(E v, int lo, int hi) {
        return "clamp(cast<int32_t>(" + v + "), " + std::to_string(lo) + ", " + std::to_string(hi) + ")";
    }

    void define_extern(int f) {
        const FuncDesc &fd = p.funcs[f];
        const Callee &in = fd.init[0]->callee;
        const std::string arg = in.kind == Callee::Func    ? p.funcs[in.index].name
                                : in.kind == Callee::Input ? p.inputs[in.index].name
                                                           : bc_name(p, in.index);
        out << "    // " << fd.name << ": extern stage, " << arg << "(x + " << fd.extern_dx
            << ", ...) * " << (is_float(fd.types[0]) ? "0.5" : "3") << " + " << fd.extern_k << "\n";
        out << "    " << fd.name << ".define_extern(\"loom_fuzz_extern\", {" << arg << ", Expr("
            << fd.extern_dx << "), Expr(" << fd.extern_k << ")}, " << type_ctor(fd.types[0]) << ", "
            << fd.dims << ");\n";
    }

    void define(int f, int update, std::vector<E> lhs, std::vector<E> values) {
        const FuncDesc &fd = p.funcs[f];
        if (update < 0) {
            for (int i = 0; i < fd.dims; i++) lhs.push_back(kVarNames[i]);
            out << "    // " << fd.name << ": " << fd.kind << "\n";
        }
        out << "    " << fd.name << "(" << join_list(lhs) << ") = ";
        if (values.size() == 1) {
            out << values[0] << ";\n";
        } else {
            out << "Tuple(" << join_list(values) << ");\n";
        }
    }
};

const char *tail_name(Tail t) {
    switch (t) {
    case Tail::GuardWithIf: return "TailStrategy::GuardWithIf";
    case Tail::ShiftInwards: return "TailStrategy::ShiftInwards";
    case Tail::RoundUp: return "TailStrategy::RoundUp";
    default: return "TailStrategy::Auto";
    }
}

std::string entity_name(const PipelineDesc &p, int ent) {
    return ent < (int)p.funcs.size() ? p.funcs[ent].name : bc_name(p, ent - (int)p.funcs.size());
}

std::string loop_ref(const PipelineDesc &p, int ent, const std::string &name, bool rvar) {
    if (name == "x" || name == "y" || name == "z") return name;
    if (name == "__outermost") return "Var::outermost()";
    if (name[0] == '$') return entity_name(p, ent) + ".args()[" + name.substr(1) + "]";
    size_t dollar = name.find('$');
    if (dollar != std::string::npos) return name.substr(0, dollar) + "." + name.substr(dollar + 1);
    return (rvar ? "RVar(\"" : "Var(\"") + name + "\")";
}

std::string stage_ref(const PipelineDesc &p, int ent, int stage) {
    std::string s = entity_name(p, ent);
    return stage == 0 ? s : s + ".update(" + std::to_string(stage - 1) + ")";
}

// A loop of an update is named through update_loop(), which each program defines: Loom says
// f.update(k).at(v); Halide 14 refuses a LoopLevel naming its stage and takes LoopLevel(f, v).
std::string level_ref(const PipelineDesc &p, const Directive &d, bool at_rvar) {
    std::string loop = loop_ref(p, d.at_ent, d.at_loop, at_rvar);
    if (d.at_stage == 0) return entity_name(p, d.at_ent) + ", " + loop;
    return "update_loop(" + entity_name(p, d.at_ent) + ", " + std::to_string(d.at_stage - 1) +
           ", " + loop + ")";
}

std::string directive_text(const PipelineDesc &p, const Directive &d, const std::vector<bool> &rvar,
                           bool at_rvar) {
    std::vector<std::string> n;
    for (size_t i = 0; i < d.names.size(); i++) n.push_back(loop_ref(p, d.ent, d.names[i], rvar[i]));
    std::string st = stage_ref(p, d.ent, d.stage), f = entity_name(p, d.ent);
    std::string tail = d.tail == Tail::Auto ? "" : std::string(", ") + tail_name(d.tail);
    std::string k = std::to_string(d.factor), k2 = std::to_string(d.factor2);
    switch (d.kind) {
    case Directive::Split: return st + ".split(" + join_list(n) + ", " + k + tail + ");";
    case Directive::Fuse: return st + ".fuse(" + join_list(n) + ");";
    case Directive::Reorder: return st + ".reorder(" + join_list(n) + ");";
    case Directive::Tile:
    case Directive::TileInPlace: return st + ".tile(" + join_list(n) + ", " + k + ", " + k2 + tail + ");";
    case Directive::Rename: return st + ".rename(" + join_list(n) + ");";
    case Directive::Vectorize: return st + ".vectorize(" + n[0] + ");";
    case Directive::VectorizeBy: return st + ".vectorize(" + n[0] + ", " + k + tail + ");";
    case Directive::Unroll: return st + ".unroll(" + n[0] + ");";
    case Directive::UnrollBy: return st + ".unroll(" + n[0] + ", " + k + tail + ");";
    case Directive::Parallel: return st + ".parallel(" + n[0] + ");";
    case Directive::ParallelBy: return st + ".parallel(" + n[0] + ", " + k + tail + ");";
    case Directive::ComputeRoot: return f + ".compute_root();";
    case Directive::ComputeInline: return f + ".compute_inline();";
    case Directive::ComputeAt: return f + ".compute_at(" + level_ref(p, d, at_rvar) + ");";
    case Directive::StoreRoot: return f + ".store_root();";
    case Directive::StoreAt: return f + ".store_at(" + level_ref(p, d, at_rvar) + ");";
    case Directive::ComputeWith: {
        const char *align[] = {"AlignStart", "AlignEnd", "NoAlign", "Auto"};
        return st + ".compute_with(" + stage_ref(p, d.at_ent, d.at_stage) + ", " +
               loop_ref(p, d.at_ent, d.at_loop, at_rvar) + ", LoopAlignStrategy::" +
               align[d.align] + ");";
    }
    case Directive::Trace: {
        std::string calls = f;
        if (d.factor & 1) calls += ".trace_loads()";
        if (d.factor & 2) calls += ".trace_stores()";
        if (d.factor & 4) calls += ".trace_realizations()";
        return calls + ";";
    }
    case Directive::Atomic:
        return st + ".atomic();";
    case Directive::Async:
        return f + ".async();";
    case Directive::Wrap:
        return f + ".in(" + entity_name(p, d.at_ent) + ").compute_root();";
    case Directive::StoreInHeap:
        return f + ".store_in(MemoryType::Heap);";
    case Directive::ReorderStorage: {
        std::vector<std::string> v;
        for (int i : d.storage_order) {
            v.push_back(d.ent < (int)p.funcs.size() ? std::string(kVarNames[i])
                                                    : f + ".args()[" + std::to_string(i) + "]");
        }
        return f + ".reorder_storage(" + join_list(v) + ");";
    }
    }
    return "";
}

void print_schedule(std::ostream &out, const PipelineDesc &p, const Schedule &s, const char *indent) {
    const LoopKinds kinds = loop_kinds(p, s);
    for (const std::string &note : s.notes) out << indent << "// " << note << "\n";
    for (size_t i = 0; i < s.directives.size(); i++) {
        out << indent << directive_text(p, s.directives[i], kinds.names[i], kinds.at_loop[i]) << "\n";
    }
}

const char *bc_call(Boundary b) {
    switch (b) {
    case Boundary::RepeatEdge: return "repeat_edge";
    case Boundary::ConstantExterior: return "constant_exterior";
    case Boundary::MirrorImage: return "mirror_image";
    case Boundary::MirrorInterior: return "mirror_interior";
    default: return "";
    }
}

/** The body of a program's pipeline() up to its schedule: the inputs (from `inputs`), their
 * boundary conditions, the RDoms and every Func's definitions. */
void print_definitions(std::ostream &out, const PipelineDesc &p) {
    out << "    Var x(\"x\"), y(\"y\"), z(\"z\");\n";
    for (size_t i = 0; i < p.inputs.size(); i++) {
        const InputDesc &id = p.inputs[i];
        out << "    Buffer<> " << id.name << " = inputs[" << i << "];\n";
        if (id.bc == Boundary::ConstantExterior) {
            PrintBackend pb(p);
            out << "    Func " << bc_name(p, (int)i) << " = BoundaryConditions::constant_exterior("
                << id.name << ", " << pb.konst(id.type, id.exterior) << ");\n";
        } else if (id.bc != Boundary::None) {
            out << "    Func " << bc_name(p, (int)i) << " = BoundaryConditions::" << bc_call(id.bc)
                << "(" << id.name << ");\n";
        }
    }
    for (const RDomDesc &rd : p.rdoms) {
        out << "    RDom " << rd.name << "(";
        for (size_t i = 0; i < rd.mins.size(); i++) out << rd.mins[i] << ", " << rd.extents[i] << ", ";
        out << "\"" << rd.name << "\");\n";
        std::string a = rd.name + "." + kRVarNames[rd.wa], b = rd.name + "." + kRVarNames[rd.wb];
        if (rd.where_kind == 1) {
            out << "    " << rd.name << ".where(" << (rd.wa == rd.wb ? a : "(" + a + " + " + b + ")")
                << " % " << rd.wm << " != " << rd.wc << ");\n";
        } else if (rd.where_kind == 2) {
            out << "    " << rd.name << ".where(" << a << " <= " << b << " + " << rd.wc << ");\n";
        }
    }
    out << "    Func";
    for (size_t f = 0; f < p.funcs.size(); f++) {
        out << (f ? ", " : " ") << p.funcs[f].name << "(\"" << p.funcs[f].name << "\")";
    }
    out << ";\n";
    PrintBackend pb(p);
    Emitter<PrintBackend>(p, pb).definitions();
    out << pb.out.str();
}

}  // namespace

std::string reproducer(const PipelineDesc &p, const Schedule &baseline, const Schedule &scheduled,
                       const std::string &header_comment) {
    std::ostringstream out;
    out << header_comment;
    const bool has_extern = std::any_of(p.funcs.begin(), p.funcs.end(),
                                        [](const FuncDesc &fd) { return fd.is_extern; });
    // (-rdynamic: the JIT finds the extern stages' function in the executable.)
    out << "// Build: g++ -std=c++17 repro.cpp -I<loom>/dsl -I<loom> -L<build> -lloom"
        << (has_extern ? " -rdynamic" : "") << " -o repro\n";
    out << "#include <loom.h>\n\n#include <algorithm>\n#include <cmath>\n#include "
           "<cstdint>\n#include <cstdio>\n#include <cstring>\n"
           "#include <type_traits>\n#include <vector>\n\nusing namespace loom;\n\n";
    out << "static LoopLevel update_loop(const Func &f, int k, const VarOrRVar &v) {\n"
           "    return f.update(k).at(v);\n}\n\n";
    out << kFuzzValueSource << "\n" << kFuzzFillSource << "\n\n";
    if (has_extern) out << fuzz_extern_source() << "\n\n";
    out << "static std::vector<Func> pipeline(const std::vector<Buffer<>> &inputs, bool scheduled) {\n";
    print_definitions(out, p);
    out << "    if (scheduled) {\n";
    print_schedule(out, p, scheduled, "        ");
    out << "    } else {\n";
    print_schedule(out, p, baseline, "        ");
    out << "    }\n    return {";
    for (size_t i = 0; i < p.outputs.size(); i++) out << (i ? ", " : "") << p.funcs[p.outputs[i]].name;
    out << "};\n}\n\n";

    out << "int main() {\n    std::vector<Buffer<>> inputs;\n";
    for (const InputDesc &id : p.inputs) {
        out << "    {\n        Buffer<> b(" << type_ctor(id.type) << ", " << ints(id.extents) << ", \""
            << id.name << "\");\n        b.set_min(" << ints(id.mins) << ");\n        fuzz_fill_any(b, "
            << id.data_seed << "u);\n        inputs.push_back(b);\n    }\n";
    }
    out << "    std::vector<Buffer<>> results[2];\n";
    out << "    for (int scheduled = 0; scheduled < 2; scheduled++) {\n";
    for (int o : p.outputs) {
        for (size_t k = 0; k < p.funcs[o].types.size(); k++) {
            out << "        results[scheduled].push_back(Buffer<>(" << type_ctor(p.funcs[o].types[k])
                << ", " << ints(p.out_extents) << ", \"" << p.funcs[o].name << "_out" << k
                << "\"));\n        results[scheduled].back().set_min(" << ints(p.out_mins) << ");\n";
        }
    }
    out << "        try {\n"
           "            Pipeline compiled(pipeline(inputs, scheduled));\n"
           "            CompileOptions options;  // as the fuzz test compiles: every output "
           "streams\n"
           "            options.streaming_min_bytes = 0;\n"
           "            compiled.set_options(options);\n"
           "            // As the fuzz test realizes: a bounds query first (outputs without memory),\n"
           "            // then a run over the region the schedule writes; its requested part is kept.\n"
           "            std::vector<Buffer<>> query, whole;\n"
           "            for (const Buffer<> &b : results[scheduled]) {\n"
           "                std::vector<int> sizes, mins;\n"
           "                for (int d = 0; d < b.dimensions(); d++) {\n"
           "                    sizes.push_back(b.dim(d).extent());\n"
           "                    mins.push_back(b.dim(d).min());\n"
           "                }\n"
           "                query.push_back(Buffer<>::from_contents(\n"
           "                    Internal::BufferContents::bounds_query(b.type(), sizes, b.name())));\n"
           "                query.back().set_min(mins);\n"
           "            }\n"
           "            compiled.realize(RealizationArg(query));\n"
           "            for (const Buffer<> &q : query) {\n"
           "                std::vector<int> sizes, mins;\n"
           "                for (int d = 0; d < q.dimensions(); d++) {\n"
           "                    sizes.push_back(q.dim(d).extent());\n"
           "                    mins.push_back(q.dim(d).min());\n"
           "                }\n"
           "                whole.emplace_back(q.type(), sizes, q.name());\n"
           "                whole.back().set_min(mins);\n"
           "            }\n"
           "            compiled.realize(RealizationArg(whole));\n"
           "            for (size_t i = 0; i < whole.size(); i++) {\n"
           "                Buffer<> &to = results[scheduled][i];\n"
           "                const int bytes = to.type().bytes();\n"
           "                to.for_each_position([&](const std::vector<int> &pos) {\n"
           "                    int64_t src = 0, dst = 0;\n"
           "                    for (size_t d = 0; d < pos.size(); d++) {\n"
           "                        src += int64_t(pos[d] - whole[i].dim(int(d)).min()) * whole[i].dim(int(d)).stride();\n"
           "                        dst += int64_t(pos[d] - to.dim(int(d)).min()) * to.dim(int(d)).stride();\n"
           "                    }\n"
           "                    std::memcpy((char *)to.raw_data() + dst * bytes,\n"
           "                                (const char *)whole[i].raw_data() + src * bytes, bytes);\n"
           "                });\n"
           "            }\n"
           "        } catch (const std::exception &e) {\n"
           "            std::printf(\"the %s pipeline threw: %s\\n\", scheduled ? \"scheduled\" : "
           "\"unscheduled\", e.what());\n"
           "            return 2;\n"
           "        }\n"
           "    }\n";
    // A schedule that reorders a float reduction is compared as the fuzzer compares it.
    out << "    // "
        << (scheduled.reorders_float_reduction
                ? "The schedule reorders a float reduction: floats compare within a tolerance."
                : "Every schedule gives the same bits.")
        << "\n    const bool tolerant = " << (scheduled.reorders_float_reduction ? "true" : "false")
        << ";\n    const double tolerance = " << kReorderedReductionTolerance << ";\n";
    out << R"(    int mismatches = 0;
    for (size_t i = 0; i < results[0].size(); i++) {
        const Buffer<> &a = results[0][i], &b = results[1][i];
        const int bytes = a.type().bytes();
        const char *pa = (const char *)a.raw_data(), *pb = (const char *)b.raw_data();
        for (int64_t e = 0; e < a.number_of_elements(); e++) {
            if (std::memcmp(pa + e * bytes, pb + e * bytes, bytes) == 0) continue;
            if (tolerant && a.type().is_float()) {
                const double fa = ((const float *)pa)[e], fb = ((const float *)pb)[e];
                const double scale = std::max(1.0, std::max(std::fabs(fa), std::fabs(fb)));
                if (std::fabs(fa - fb) <= tolerance * scale) continue;
            }
            if (mismatches++ < 10) {
                std::printf("%s differs at (", a.name().c_str());
                int64_t rest = e;
                for (int d = 0; d < a.dimensions(); d++) {
                    std::printf("%s%d", d ? ", " : "", (int)(a.dim(d).min() + rest % a.dim(d).extent()));
                    rest /= a.dim(d).extent();
                }
                double va = 0, vb = 0;
                if (a.type().is_float()) { va = ((const float *)pa)[e]; vb = ((const float *)pb)[e]; }
                else if (a.type() == UInt(8)) { va = ((const uint8_t *)pa)[e]; vb = ((const uint8_t *)pb)[e]; }
                else if (a.type() == UInt(16)) { va = ((const uint16_t *)pa)[e]; vb = ((const uint16_t *)pb)[e]; }
                else if (a.type() == Int(16)) { va = ((const int16_t *)pa)[e]; vb = ((const int16_t *)pb)[e]; }
                else { va = ((const int32_t *)pa)[e]; vb = ((const int32_t *)pb)[e]; }
                std::printf("): unscheduled %.9g, scheduled %.9g\n", va, vb);
            }
        }
    }
    std::printf(mismatches ? "MISMATCH: %d elements differ\n" : "OK: identical\n", mismatches);
    return mismatches != 0;
}
)";
    return out.str();
}

std::string perf_program(const PipelineDesc &p, const Schedule &s, const std::string &header_comment) {
    std::ostringstream out;
    out << header_comment;
    out << R"(// Builds against Halide 14, or against Loom with -DLOOM: the CMakeLists.txt beside this file
// makes <name>_halide and <name>_loom of every program here:
//   cmake -S . -B build -DCMAKE_PREFIX_PATH=<where Loom is installed> && cmake --build build
// Run: build/<name>_loom [timed runs, default 10]; build/<name>_halide likewise.
#ifdef LOOM
#include <loom.h>
namespace Halide = loom;
static Halide::Target perf_target() { return Halide::Target(); }
static Halide::LoopLevel update_loop(const Halide::Func &f, int k, const Halide::VarOrRVar &v) {
    return f.update(k).at(v);
}
#else
#include "Halide.h"
// Halide 14 reports AVX512_SapphireRapids on CPUs that lack some of it; StrictFloat: Loom
// never contracts or reassociates float math either.
static Halide::Target perf_target() {
    return Halide::get_host_target()
        .without_feature(Halide::Target::AVX512_SapphireRapids)
        .with_feature(Halide::Target::StrictFloat);
}
// Halide 14 refuses a LoopLevel that names its stage; LoopLevel(f, v) finds the loop v of the
// stage that uses the producer.
static Halide::LoopLevel update_loop(const Halide::Func &f, int, const Halide::VarOrRVar &v) {
    return Halide::LoopLevel(f, v);
}
#endif

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

using namespace Halide;

)";
    out << kFuzzValueSource << "\n";
    out << R"(
template<typename T>
static Buffer<> input(const std::vector<int> &sizes, const std::vector<int> &mins, uint32_t seed,
                      const char *name) {
    Buffer<T> b(sizes, name);
    b.set_min(mins);  // a vector: Halide's set_min also takes coordinates one by one
    T *data = b.data();  // dense: memory order is dimension 0 fastest
    for (int64_t i = 0; i < (int64_t)b.number_of_elements(); i++) data[i] = fuzz_value<T>(seed, (uint32_t)i);
    return b;
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
    for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ull;
    return h;
}

)";
    out << "static std::vector<Func> pipeline(const std::vector<Buffer<>> &inputs) {\n";
    print_definitions(out, p);
    print_schedule(out, p, s, "    ");
    out << "    return {";
    for (size_t i = 0; i < p.outputs.size(); i++) out << (i ? ", " : "") << p.funcs[p.outputs[i]].name;
    out << "};\n}\n\n";

    out << "int main(int argc, char **argv) {\n"
           "    const int runs = argc > 1 ? std::atoi(argv[1]) : 10;\n"
           "    std::vector<Buffer<>> inputs;\n";
    for (const InputDesc &id : p.inputs) {
        out << "    inputs.push_back(input<" << cpp_name(id.type) << ">(" << ints(id.extents) << ", "
            << ints(id.mins) << ", " << id.data_seed << "u, \"" << id.name << "\"));\n";
    }
    out << "    Pipeline pl(pipeline(inputs));\n"
           "    auto t0 = std::chrono::steady_clock::now();\n"
           "    pl.compile_jit(perf_target());\n"
           "    auto t1 = std::chrono::steady_clock::now();\n"
           "    // As realize(sizes) does: a bounds query (outputs without memory), then runs over the\n"
           "    // region the schedule writes.\n"
           "    std::vector<Buffer<>> outs;\n";
    for (int o : p.outputs) {
        for (ET t : p.funcs[o].types) {
            out << "    outs.emplace_back(" << type_ctor(t) << ", nullptr, std::vector<int>" << ints(p.out_extents)
                << ");\n    outs.back().set_min(std::vector<int>" << ints(p.out_mins) << ");\n";
        }
    }
    out << R"(    Realization r(outs);
    pl.realize(r, perf_target());
    for (size_t i = 0; i < r.size(); i++) r[i].allocate();
    pl.realize(r, perf_target());  // warm-up
    std::vector<double> ms;
    for (int k = 0; k < runs; k++) {
        auto a = std::chrono::steady_clock::now();
        pl.realize(r, perf_target());
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count());
    }
    std::sort(ms.begin(), ms.end());
    uint64_t h = 1469598103934665603ull;
)";
    // The hash covers the requested region only (the schedule may write more), element by
    // element through typed views, so that both builds hash the same values.
    const char *coord[] = {"x", "y", "z"};
    size_t index = 0;
    for (int o : p.outputs) {
        for (ET t : p.funcs[o].types) {
            out << "    {\n        Buffer<" << cpp_name(t) << "> b = r[" << index++ << "];\n";
            std::string indent = "        ";
            for (int d = (int)p.out_extents.size() - 1; d >= 0; d--) {
                out << indent << "for (int " << coord[d] << " = " << p.out_mins[d] << "; " << coord[d]
                    << " < " << p.out_mins[d] + p.out_extents[d] << "; " << coord[d] << "++)\n";
                indent += "    ";
            }
            std::vector<std::string> args(coord, coord + p.out_extents.size());
            out << indent << "{ " << cpp_name(t) << " v = b(" << join_list(args)
                << "); h = hash_bytes(h, &v, sizeof(v)); }\n    }\n";
        }
    }
    out << R"(    std::printf("compile %.1f ms, best %.3f ms, median %.3f ms, output hash %016llx\n",
                std::chrono::duration<double, std::milli>(t1 - t0).count(), ms.empty() ? 0.0 : ms[0],
                ms.empty() ? 0.0 : ms[ms.size() / 2], (unsigned long long)h);
    return 0;
}
)";
    return out.str();
}

}  // namespace loom_fuzz
