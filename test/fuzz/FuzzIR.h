// The schedule-invariance fuzzer's own description of a pipeline and of a schedule. Both are
// plain data, generated from a seed, from which the fuzzer builds Loom Funcs (FuzzBuild.cpp)
// and prints the same pipeline as C++ source (FuzzPrint.cpp): one walker (FuzzEmit.h) drives
// both, so that the printed reproducer is exactly what ran.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <loom.h>

namespace loom_fuzz {

// ---------------------------------------------------------------------------------------------
// Element types.

enum class ET : uint8_t { U8, U16, I16, I32, F32 };
constexpr int kNumTypes = 5;

// Points a Func may compute beyond the region its users need, in each dimension and on each
// side, through its schedule's rounding splits (RoundUp, ShiftInwards); inputs are allocated
// with this much more around every Func's region, and schedules stay within it.
constexpr int kRoundingMargin = 24;

bool is_float(ET t);
bool is_signed(ET t);
int bits_of(ET t);
loom::Type loom_type(ET t);
/** "uint8_t", "float", ... */
const char *cpp_name(ET t);
/** "UInt(8)", "Float(32)", ... */
const char *type_ctor(ET t);
/** The smallest and largest value of an integer type, as doubles. */
double type_lo(ET t);
double type_hi(ET t);

// ---------------------------------------------------------------------------------------------
// Expressions.

struct Node;
using NodeP = std::shared_ptr<const Node>;

/** One coordinate of a call. Affine: (var * mul) / div + off (+ rvar). Gather: clamp(cast<int>
 * (value), lo, hi) + off. var == -1 leaves the Var out. */
struct Index {
    bool gather = false;
    int var = -1, mul = 1, div = 1, off = 0;
    int rdom = -1, rdim = 0;  // an optional RVar term
    NodeP value;
    int lo = 0, hi = 0;
};

/** What a call reads: a Func of the pipeline, an input Buffer directly, or the Func that a
 * boundary condition wraps around an input. */
struct Callee {
    enum Kind { Func, Input, Bc } kind = Func;
    int index = 0;
};

enum class Op { Add, Sub, Mul, Div, Mod, Min, Max, And, Or, Xor, Absd };
enum class Cmp { LT, LE, EQ, NE, GT, GE };
enum class Unary { Abs, SqrtAbs, Floor, Round, Sin, Exp, Popcount };
enum class Red { Sum, Maximum, Minimum, Product, ArgMax, ArgMin };

struct Cond {
    Cmp cmp;
    NodeP a, b;
};

struct Node {
    enum Kind { Const, Var, RVar, Call, Bin, Shift, Cast, Un, Select, Clamp, Reduce } kind;
    ET type;
    double value = 0;             // Const
    int var = -1;                 // Var
    int rdom = -1, rdim = 0;      // RVar; Reduce: its RDom
    Callee callee;                // Call
    int value_index = 0;          // Call: Tuple element; Reduce(ArgMax/ArgMin): Tuple element
    std::vector<Index> args;      // Call
    Op op = Op::Add;              // Bin
    bool shift_left = false;      // Shift by the constant `var`
    Unary unary = Unary::Abs;     // Un
    std::vector<Cond> conds;      // Select: conds joined by && (or ||)
    bool join_or = false;
    double lo = 0, hi = 0;        // Clamp
    Red red = Red::Sum;           // Reduce
    std::vector<NodeP> kids;      // Bin: a, b; Shift, Cast, Un, Clamp, Reduce: a; Select: t, f
};

// ---------------------------------------------------------------------------------------------
// Pipelines.

/** An RDom: the box [mins[i], mins[i] + extents[i]), optionally with one where() condition:
 * kind 1: (r[a] + r[b]) % m != c;  kind 2: r[a] <= r[b] + c. */
struct RDomDesc {
    std::string name;
    std::vector<int> mins, extents;
    int where_kind = 0, wa = 0, wb = 0, wm = 2, wc = 0;
};

struct UpdateDesc {
    int rdom = -1;               // -1: an update without RVars
    std::vector<Index> lhs;      // one per dimension: a bare pure Var, an RVar (+ off), or a gather
    std::vector<NodeP> values;   // one per Tuple element; may read the Func itself
};

struct FuncDesc {
    std::string name;
    int dims = 2;
    std::vector<ET> types;       // more than one: a Tuple-valued Func
    std::vector<NodeP> init;     // the pure definition, one per Tuple element
    std::vector<UpdateDesc> updates;
    std::string kind;            // what the generator meant, for the reproducer's comments
    /** An extern stage: define_extern of loom_fuzz_extern (FuzzBuild.cpp), which computes
     * out(x, ...) = in(x + extern_dx, ...) * 3 + extern_k in in's type (a float: * 0.5) for its
     * one input `in`, the callee of init[0]: a call that states the same read for the
     * generators' analyses (regions, uses), never built. No updates. */
    bool is_extern = false;
    int extern_dx = 0, extern_k = 0;
};

enum class Boundary { None, RepeatEdge, ConstantExterior, MirrorImage, MirrorInterior };

struct InputDesc {
    std::string name;
    ET type = ET::U8;
    int dims = 2;
    std::vector<int> mins, extents;
    Boundary bc = Boundary::None;
    double exterior = 0;         // ConstantExterior's value
    uint32_t data_seed = 0;
};

struct PipelineDesc {
    std::vector<InputDesc> inputs;
    std::vector<RDomDesc> rdoms;
    std::vector<FuncDesc> funcs;     // producers before consumers
    std::vector<int> outputs;        // indices into funcs, in realization order
    std::vector<int> out_mins, out_extents;
};

// ---------------------------------------------------------------------------------------------
// Schedules.
//
// A schedule is a list of directives applied in order. Entities are the pipeline's Funcs
// (0 .. funcs.size() - 1) followed by the boundary-condition Funcs of the inputs
// (funcs.size() + input index). A loop is named as the user names it: a pure Var ("x"), an
// RVar ("r2$x", printed r2.x), a name made by a split ("xo3"), or "$k" for pure Var k of a
// boundary-condition Func (printed in0_bc.args()[k]).

enum class Tail { Auto, GuardWithIf, ShiftInwards, RoundUp };

struct Directive {
    enum Kind {
        Split,
        Fuse,
        Reorder,
        Tile,
        TileInPlace,
        Rename,
        Vectorize,
        VectorizeBy,
        Unroll,
        UnrollBy,
        Parallel,
        ParallelBy,
        ComputeRoot,
        ComputeInline,
        ComputeAt,
        StoreRoot,
        StoreAt,
        ReorderStorage,
        ComputeWith,
        Trace,      // factor's bits: 1 trace_loads, 2 trace_stores, 4 trace_realizations
        Atomic,     // Stage::atomic() of update stage `stage`
        Async,      // Func::async()
        Wrap,       // f.in(g).compute_root(): g (at_ent) reads a wrapper of f computed at the root
        StoreInHeap // Func::store_in(MemoryType::Heap)
    } kind;
    int ent = 0;
    int stage = 0;                   // loop directives: 0 pure, k > 0 update k - 1
    std::vector<std::string> names;  // loops (old, outer, inner / fused / the listed ones)
    int factor = 0, factor2 = 0;
    Tail tail = Tail::Auto;
    // ComputeAt / StoreAt / ComputeWith: a loop of a stage of another entity; "__outermost" for
    // Var::outermost().
    int at_ent = 0, at_stage = 0;
    std::string at_loop;
    std::vector<int> storage_order;  // ReorderStorage: pure Var indices, innermost first
    int align = 3;                   // ComputeWith: LoopAlignStrategy (AlignStart .. Auto)
};

/** The tolerance for outputs of a schedule that reorders a float reduction: a relative error of
 * 1e-3 of the larger magnitude (at least 1). A reordered sum of n terms rounds within about
 * n * 2^-24 of the terms' magnitude; the fuzzer's reductions have at most a few hundred terms,
 * and what reads their results (a division, a power) may magnify the difference. */
constexpr double kReorderedReductionTolerance = 1e-3;

struct Schedule {
    std::vector<Directive> directives;
    std::vector<std::string> notes;  // what the generator chose, for the reproducer
    /** A directive reorders the RVars of a float + or * reduction: the outputs may differ
     * from the unscheduled ones by rounding (README.md, "Schedules that reorder a float
     * reduction"), and are compared within a tolerance. */
    bool reorders_float_reduction = false;
};

// ---------------------------------------------------------------------------------------------
// Entry points.

/** What kind of random pipeline to generate. */
struct GenOptions {
    /** Outputs of about 1-16 MiB (inputs to match), so that running dominates compiling: the
     * performance fuzzer's pipelines. Otherwise tens to hundreds of points, for correctness. */
    bool large = false;
    /** No sin or exp, whose float results differ between Loom's and Halide's expansions in the
     * last bits: pipelines whose outputs must equal Halide 14's byte for byte. */
    bool halide_exact = false;
    /** Some Funcs are extern stages (FuncDesc::is_extern), found by the JIT in the executable
     * (it must export loom_fuzz_extern). */
    bool extern_stages = false;
};

/** A random pipeline: deterministic in seed and options. */
PipelineDesc generate_pipeline(uint32_t seed, const GenOptions &options = {});
/** A random legal schedule of p; with baseline, the one Loom needs to compile p at all
 * (compute_root of a Func with update definitions that has several users), nothing else.
 * `avoid` turns off constructs, to explore past a known bug: "nested-vectorize" (two
 * vectorized loops in one stage), "fuse", "guard-derived" (GuardWithIf splits of split, fused
 * or renamed loops of outputs, and rename). */
Schedule generate_schedule(const PipelineDesc &p, uint32_t seed, bool baseline,
                           const std::set<std::string> &avoid = {});

/** Which loop names of each directive of s are RVars (loops of an RDom, or split, fused or
 * renamed from one): Halide's scheduling calls must be given RVars for those and Vars for the
 * rest, where Loom takes names alone. */
struct LoopKinds {
    std::vector<std::vector<bool>> names;  // per directive, per entry of its names
    std::vector<bool> at_loop;             // per directive: its at_loop (ComputeAt, StoreAt)
};
LoopKinds loop_kinds(const PipelineDesc &p, const Schedule &s);

/** The C++ source of loom_fuzz_extern, the function extern stages call, as compiled into the
 * fuzzer (FuzzBuild.cpp): the reproducer prints it. */
const char *fuzz_extern_source();

/** The input Buffers of p, filled with deterministic values. */
std::vector<loom::Buffer<>> make_inputs(const PipelineDesc &p);
/** Builds p with schedule s, realizes it over p's output region and returns the output
 * buffers (one per Tuple element of each output). Throws what Loom throws. */
struct Timing {
    double compile_ms = 0, run_ms = 0;
};
/** Runs on the pipeline after s is applied, before it compiles (the auto-scheduler). */
using BeforeCompile = std::function<void(loom::Pipeline &)>;
/** `target`: where it runs (Target::CUDA for GPU schedules; the outputs come back to host
 * memory). */
std::vector<loom::Buffer<>> realize(const PipelineDesc &p, const Schedule &s,
                                    const std::vector<loom::Buffer<>> &inputs,
                                    Timing *timing = nullptr,
                                    const BeforeCompile &before_compile = {},
                                    const loom::Target &target = loom::Target());

/** p scheduled by s, compiled by one system, with output buffers over the region the schedule
 * writes (a bounds query first, as Halide's realize(sizes) does), ready to run again and again:
 * what the performance fuzzer times. */
struct PreparedRun {
    double compile_ms = 0;
    std::function<void()> run;            // one realization into `whole`
    std::vector<loom::Buffer<>> whole;    // per output and Tuple element
};
/** With stream_every_output, outputs stream however small (the fuzz test's coverage); without,
 * Loom's defaults, as a user gets them. */
PreparedRun prepare_loom(const PipelineDesc &p, const Schedule &s,
                         const std::vector<loom::Buffer<>> &inputs, bool stream_every_output,
                         const BeforeCompile &before_compile = {},
                         const loom::Target &target = loom::Target());
/** p's requested output region, copied out of a prepared run's buffers. */
std::vector<loom::Buffer<>> requested_outputs(const PipelineDesc &p,
                                              const std::vector<loom::Buffer<>> &whole);
/** p's output Funcs, defined and scheduled by s over `inputs`, in realization order (nothing
 * compiled). Throws what Loom's directives throw. */
std::vector<loom::Func> loom_outputs(const PipelineDesc &p, const Schedule &s,
                                     const std::vector<loom::Buffer<>> &inputs);
/** The loop nest Loom lowers p scheduled by s to, as text. */
std::string loom_lowered(const PipelineDesc &p, const Schedule &s,
                         const std::vector<loom::Buffer<>> &inputs);

/** A complete C++ program that builds p unscheduled (with `baseline`) and scheduled (with
 * `scheduled`), realizes both and compares them byte by byte. */
std::string reproducer(const PipelineDesc &p, const Schedule &baseline, const Schedule &scheduled,
                       const std::string &header_comment);

/** A complete C++ program that builds p scheduled by s with Halide 14, or with Loom when
 * compiled with -DLOOM (`namespace Halide = loom;`), realizes it over the region its schedule
 * writes as the performance fuzzer does, and prints the compile time, the best and median of
 * the timed runs and a hash of the requested output region (the same in both builds). */
std::string perf_program(const PipelineDesc &p, const Schedule &s, const std::string &header_comment);

/** Deterministic seeds of pipeline k and of its schedule j under a run seed. */
uint32_t pipeline_seed(uint32_t run_seed, int k);
uint32_t schedule_seed(uint32_t run_seed, int k, int j);

}  // namespace loom_fuzz
