// The IR node types. Each is a plain struct built through a checking make(); its semantics
// are written on its declaration so that no pass has to guess them.
//
// Arithmetic rules shared by every pass and backend:
// - Integer arithmetic wraps modulo 2^bits, for every width (no undefined overflow).
// - Div on signed integers rounds toward negative infinity when the divisor is positive and
//   toward positive infinity when it is negative (Euclidean: the remainder is never negative);
//   Mod returns that non-negative remainder. x / 0 == 0 and x % 0 == 0 for integers.
//   INT_MIN / -1 wraps to INT_MIN.
// - Float arithmetic is IEEE-754 in the value's own width, evaluated exactly as written: no
//   contraction into fused multiply-add, no reassociation. That is what makes the result of a
//   pipeline independent of its schedule.
// - Operands of binary nodes have identical types (the front end inserts the casts).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dsl/Expr.h"

namespace loom {
namespace Internal {

struct FunctionContents;
struct BufferContents;
struct ParameterContents;
struct ReductionDomainContents;

/** Throws the internal error of a weak MaybeOwnedPtr whose target is gone. */
[[noreturn]] void target_gone();

/** A reference from inside the IR to a Func or an RDom, which owns its target (keeps it alive)
 * unless weakened. An owning reference from inside a target's own contents would make the target
 * own itself, a cycle no reference count frees: a Func's update that reads the Func
 * (f(x) += f(x - 1)), an RDom's where() condition that uses its own RVars. Those references are
 * weak (weakened()): the target is alive whenever its contents are reachable, and reaching a
 * target that is gone through one is an internal error, never a dangling pointer. */
template<typename T>
class MaybeOwnedPtr {
public:
    MaybeOwnedPtr() = default;
    MaybeOwnedPtr(std::nullptr_t) {}
    MaybeOwnedPtr(std::shared_ptr<T> target)
        : strong(std::move(target)), weak(strong), raw(strong.get()) {}

    /** The same target, not owned. */
    MaybeOwnedPtr weakened() const {
        MaybeOwnedPtr r;
        r.weak = weak;
        r.raw = raw;
        return r;
    }
    bool is_weak() const { return raw && !strong; }
    bool defined() const { return raw != nullptr; }
    explicit operator bool() const { return defined(); }
    /** Whether this refers to t (identity, owning or not). */
    bool refers_to(const T *t) const { return raw == t; }
    bool operator==(const MaybeOwnedPtr &o) const { return raw == o.raw; }
    bool operator!=(const MaybeOwnedPtr &o) const { return raw != o.raw; }
    friend bool operator==(const std::shared_ptr<T> &a, const MaybeOwnedPtr &b) { return a.get() == b.raw; }
    friend bool operator==(const MaybeOwnedPtr &a, const std::shared_ptr<T> &b) { return a.raw == b.get(); }
    friend bool operator!=(const std::shared_ptr<T> &a, const MaybeOwnedPtr &b) { return a.get() != b.raw; }
    friend bool operator!=(const MaybeOwnedPtr &a, const std::shared_ptr<T> &b) { return a.raw != b.get(); }

    /** The target, owned for as long as the result lives. */
    std::shared_ptr<T> shared() const {
        if (strong || !raw) return strong;
        std::shared_ptr<T> alive = weak.lock();
        if (!alive) target_gone();
        return alive;
    }
    operator std::shared_ptr<T>() const { return shared(); }
    T *get() const {
        if (raw && !strong && weak.expired()) target_gone();
        return raw;
    }
    T *operator->() const { return get(); }
    T &operator*() const { return *get(); }

private:
    std::shared_ptr<T> strong;
    std::weak_ptr<T> weak;
    T *raw = nullptr;
};

using FunctionRef = MaybeOwnedPtr<FunctionContents>;
using RDomRef = MaybeOwnedPtr<ReductionDomainContents>;

#define LOOM_DECLARE_NODE(T) static const IRNodeType static_type = IRNodeType::T;

/** Signed integer constant, stored sign-extended. */
struct IntImm : ExprNode<IntImm> {
    LOOM_DECLARE_NODE(IntImm)
    int64_t value;
    static Expr make(Type t, int64_t value);
    using ExprNode::ExprNode;
};

/** Unsigned integer or bool constant, stored zero-extended. */
struct UIntImm : ExprNode<UIntImm> {
    LOOM_DECLARE_NODE(UIntImm)
    uint64_t value;
    static Expr make(Type t, uint64_t value);
    using ExprNode::ExprNode;
};

/** Float constant, stored as a double already rounded to the type's precision. */
struct FloatImm : ExprNode<FloatImm> {
    LOOM_DECLARE_NODE(FloatImm)
    double value;
    static Expr make(Type t, double value);
    using ExprNode::ExprNode;
};

/** A string constant: only in error messages and extern call arguments. */
struct StringImm : ExprNode<StringImm> {
    LOOM_DECLARE_NODE(StringImm)
    std::string value;
    static Expr make(const std::string &s);
    using ExprNode::ExprNode;
};

/** Value conversion. int->int truncates or extends (sign per the source type); float->int
 * rounds toward zero (out-of-range values are unspecified); to bool means != 0. */
struct Cast : ExprNode<Cast> {
    LOOM_DECLARE_NODE(Cast)
    Expr value;
    static Expr make(Type t, Expr v);
    using ExprNode::ExprNode;
};

/** Same bits viewed as another type of equal total width. */
struct Reinterpret : ExprNode<Reinterpret> {
    LOOM_DECLARE_NODE(Reinterpret)
    Expr value;
    static Expr make(Type t, Expr v);
    using ExprNode::ExprNode;
};

/** A named value: a loop variable, a let binding, a buffer field (name.min.0, name.stride.1,
 * name.extent.2), a scalar Param (then `param` is set) or a reduction variable of an RDom
 * (then `rdom` is set). */
/** The Variable that stands for the run's user context (Param::user_context_value): bound by
 * codegen to the user context of the function or task it is in. */
constexpr const char *kUserContextName = "__user_context";

struct Variable : ExprNode<Variable> {
    LOOM_DECLARE_NODE(Variable)
    std::string name;
    std::shared_ptr<ParameterContents> param;
    RDomRef rdom;
    static Expr make(Type t, const std::string &name,
                     std::shared_ptr<ParameterContents> param = nullptr,
                     RDomRef rdom = nullptr);
    using ExprNode::ExprNode;
};

#define LOOM_BINARY_NODE(T)                                                                     \
    struct T : ExprNode<T> {                                                                    \
        LOOM_DECLARE_NODE(T)                                                                    \
        Expr a, b;                                                                              \
        static Expr make(Expr a, Expr b);                                                       \
        using ExprNode::ExprNode;                                                               \
    };
LOOM_BINARY_NODE(Add)
LOOM_BINARY_NODE(Sub)
LOOM_BINARY_NODE(Mul)
LOOM_BINARY_NODE(Div)  // Euclidean for signed ints, see the top of this file
LOOM_BINARY_NODE(Mod)  // never negative for ints; a - b * floor(a / b) for floats
LOOM_BINARY_NODE(Min)  // floats: a < b ? a : b
LOOM_BINARY_NODE(Max)  // floats: a > b ? a : b
// Comparisons give bool with the operands' lane count.
LOOM_BINARY_NODE(EQ)
LOOM_BINARY_NODE(NE)
LOOM_BINARY_NODE(LT)
LOOM_BINARY_NODE(LE)
LOOM_BINARY_NODE(GT)
LOOM_BINARY_NODE(GE)
// Logical operators on bools; both operands are evaluated.
LOOM_BINARY_NODE(And)
LOOM_BINARY_NODE(Or)
#undef LOOM_BINARY_NODE

struct Not : ExprNode<Not> {
    LOOM_DECLARE_NODE(Not)
    Expr a;
    static Expr make(Expr a);
    using ExprNode::ExprNode;
};

/** Both values are evaluated; a scalar condition may pick between vectors. */
struct Select : ExprNode<Select> {
    LOOM_DECLARE_NODE(Select)
    Expr condition, true_value, false_value;
    static Expr make(Expr condition, Expr true_value, Expr false_value);
    using ExprNode::ExprNode;
};

/** Load of element `index` (flat, in elements, relative to the buffer's host pointer) from the
 * named buffer or allocation. A vector index loads a vector (a Ramp with stride 1 is dense). */
struct Load : ExprNode<Load> {
    LOOM_DECLARE_NODE(Load)
    std::string name;
    Expr index;
    static Expr make(Type t, const std::string &name, Expr index);
    using ExprNode::ExprNode;
};

/** The vector base, base + stride, ..., base + (lanes - 1) * stride. */
struct Ramp : ExprNode<Ramp> {
    LOOM_DECLARE_NODE(Ramp)
    Expr base, stride;
    int lanes;
    static Expr make(Expr base, Expr stride, int lanes);
    using ExprNode::ExprNode;
};

/** A scalar repeated across lanes. */
struct Broadcast : ExprNode<Broadcast> {
    LOOM_DECLARE_NODE(Broadcast)
    Expr value;
    int lanes;
    static Expr make(Expr value, int lanes);
    using ExprNode::ExprNode;
};

/** `name` is bound to `value` within `body`. */
struct Let : ExprNode<Let> {
    LOOM_DECLARE_NODE(Let)
    std::string name;
    Expr value, body;
    static Expr make(const std::string &name, Expr value, Expr body);
    using ExprNode::ExprNode;
};

/** A call. Halide calls read a Func (value_index picks a Tuple element) and are removed by
 * storage flattening; Image calls read an input Buffer or ImageParam; Extern calls name a C
 * function of the runtime or libm; Intrinsic calls are the operators listed below. */
struct Call : ExprNode<Call> {
    LOOM_DECLARE_NODE(Call)
    enum CallType { Image, Halide, Extern, PureExtern, Intrinsic, PureIntrinsic };
    // clang-format off
    enum IntrinsicOp {
        NotIntrinsic,
        bitwise_and, bitwise_or, bitwise_xor, bitwise_not,
        shift_left, shift_right,  // the shift amount has the value's type; negative reverses
        abs,                      // returns the unsigned type for ints: abs(INT_MIN) is exact
        absd,                     // |a - b| without overflow, unsigned for ints
        count_leading_zeros, count_trailing_zeros, popcount,
        likely,                   // a hint for loop partitioning; evaluates to its argument
        buffer_host,              // the host pointer of the named buffer: a handle, or its
                                  // address where the Call's type is UInt(64)
        prefetch,                 // brings the line holding its argument (a Load) into the cache
        promise_clamped,          // (v, lo, hi): v, which the compiler proved lies in [lo, hi];
                                  // bounds read the range; stripped before code generation
        memoize_tag,              // (v, tags...): v; a memoized Func's cache key holds the tags
                                  // (or v itself, alone) instead of the Params v reads
                                  // (lower/Memoize.h); stripped from the loop nest at once
        scatter_gather,           // (e0, e1, ...): Halide's scatter and gather, a bundle of
                                  // values in a definition; its Provide becomes one Provide
                                  // per element, all values computed before the first store
                                  // (lower/ScatterGather.h)
        undef,                    // (): Halide's undef, a value never stored: an update's
                                  // becomes the element's own (dsl/Undef.h), a pure
                                  // definition's stores nothing (storage flattening)
        rounded_up,               // (v, last, loop): v, a RoundUp split's old variable, past
                                  // `last` only in the block the split rounds up, whose points
                                  // nothing needs (lower/ScheduleFunctions.cpp)
        // Effects (call_type Intrinsic), for Halide's tracing and print (lower/InjectTracing.h):
        trace,      // (func, event, parent_id, value_index, tag, value, coords...): reports one
                    // event to the runtime's trace handler. Loads and stores (events 0 and 1)
                    // return `value` and have its type, which may be a vector (one event with
                    // every lane); the other events return the new event's id (Int(32)).
        print,      // (condition, value, pieces...): where condition holds, prints the pieces
                    // (strings and scalars) as one line; returns value. Lane by lane in vectors.
        stringify,  // (pieces...): the pieces as one string (a Handle), for a trace's tag.
        require,    // (condition, value, pieces...): value where condition holds; where it
                    // does not, the pipeline stops with an error whose message is the pieces
                    // (loom_error_requirement_failed). Lane by lane in vectors.
        // Extern stages (Func::define_extern, lower/ExternStages.h):
        extern_stage,        // (function, args...): calls the C function once (Intrinsic);
                             // args are scalars and make_buffer handles; a nonzero result
                             // stops the pipeline (loom_error_extern_stage_failed)
        extern_bounds_query, // (function, position, dimension, is_max, args...): calls the
                             // function in bounds-query mode (buffers without host memory,
                             // the output ones describing the region to compute) and returns
                             // the min or max the buffer at `position` of args got
        extern_input,        // (call at the region's mins, call at its maxs): before storage
                             // flattening, the storage of the Func or image both calls read,
                             // the region between them what the stage reads of it
        extern_output,       // (call at the region's mins, call at its maxs): before storage
                             // flattening, the region of an extern stage's own Func it
                             // computes (the calls are not reads)
        memoize_lookup,      // (func, buffer, bytes, key...): 1 where the memoization cache
                             // holds the key's region, copied into the buffer, else 0 (a key
                             // that is a string is the host address of that input buffer)
        memoize_store,       // (func, buffer, bytes, eviction key, has eviction key, key...):
                             // puts the buffer's region in the cache under the key
        atomic_update,       // (value): the value a Store of an atomic stage (Stage::atomic)
                             // writes, computed from the element's current value (a Load of
                             // the same element in it) and stored only where the element did
                             // not change meanwhile (a compare-and-swap loop)
        make_buffer,         // (buffer or "", zero of the element type, element offset,
                             // written (1 for an extern stage's output, else 0), (min,
                             // extent, stride) per dimension): a loom_buffer_t on the
                             // stack over the named buffer's memory from the offset (null
                             // host for ""), valid until the pipeline returns
        // Func::async (lower/AsyncProducers.h); the semaphore is the named buffer's memory
        // (two int32: the count, and the failure code a producer that stopped left):
        semaphore_init,    // (buffer, count): the semaphore starts at count
        semaphore_release, // (buffer, count): adds count, waking a waiting acquire
        semaphore_acquire, // (buffer, count): waits until the semaphore holds count and takes
                           // it; where the producer it waits for failed instead, the pipeline
                           // stops with that producer's error code
    };
    // clang-format on
    std::string name;
    std::vector<Expr> args;
    CallType call_type;
    IntrinsicOp op = NotIntrinsic;
    int value_index = 0;
    FunctionRef func;                           // Halide calls
    std::shared_ptr<BufferContents> buffer;     // Image calls to a concrete Buffer
    std::shared_ptr<ParameterContents> param;   // Image calls to an ImageParam

    static Expr make(Type t, const std::string &name, std::vector<Expr> args, CallType call_type,
                     FunctionRef func = nullptr, int value_index = 0,
                     std::shared_ptr<BufferContents> buffer = nullptr,
                     std::shared_ptr<ParameterContents> param = nullptr);
    /** call_type Intrinsic for an operator with an effect (prefetch), which no pass may drop,
     * merge or move. */
    static Expr make_intrinsic(Type t, IntrinsicOp op, std::vector<Expr> args,
                               CallType call_type = PureIntrinsic);
    /** Rebuilds a call with new arguments, keeping everything else. */
    static Expr with_args(const Call *c, std::vector<Expr> args);
    static const char *intrinsic_name(IntrinsicOp op);

    bool is_intrinsic(IntrinsicOp o) const {
        return (call_type == Intrinsic || call_type == PureIntrinsic) && op == o;
    }
    bool is_pure() const { return call_type != Extern && call_type != Intrinsic; }
    using ExprNode::ExprNode;
};

// ---------------------------------------------------------------------------------------------
// Statements

struct LetStmt : StmtNode<LetStmt> {
    LOOM_DECLARE_NODE(LetStmt)
    std::string name;
    Expr value;
    Stmt body;
    static Stmt make(const std::string &name, Expr value, Stmt body);
};

/** If `condition` is false, evaluates `message` (an Extern call that reports the error and
 * returns a nonzero code) and the pipeline returns that code. */
struct AssertStmt : StmtNode<AssertStmt> {
    LOOM_DECLARE_NODE(AssertStmt)
    Expr condition, message;
    static Stmt make(Expr condition, Expr message);
};

/** Marks the production (is_producer) or the consumption of a Func: documentation for the
 * reader of the IR and anchors for passes; codegen ignores it. */
struct ProducerConsumer : StmtNode<ProducerConsumer> {
    LOOM_DECLARE_NODE(ProducerConsumer)
    std::string name;
    bool is_producer;
    Stmt body;
    static Stmt make(const std::string &name, bool is_producer, Stmt body);
};

/** How a loop runs. GPU kinds are mapped to blocks and threads by the CUDA backend. */
enum class ForType : uint8_t { Serial, Parallel, Vectorized, Unrolled, GPUBlock, GPUThread };
const char *for_type_name(ForType t);

/** Where a loop's body runs. Default_GPU is what a schedule asks for when it names no GPU API
 * (Halide's name): the directives resolve it to the one GPU API Loom has, CUDA, so a lowered
 * loop is never Default_GPU. The APIs after it are Halide's names for devices Loom has no
 * backend for: a directive naming one is refused, so no loop ever has one. */
enum class DeviceAPI : uint8_t {
    Host,
    CUDA,
    Default_GPU,
    None,
    OpenCL,
    OpenGLCompute,
    Metal,
    Hexagon,
    HexagonDma,
    D3D12Compute
};

/** Where a Func's storage lives (Func::store_in; Halide's names). Auto: Loom chooses (a small
 * allocation of constant size on the stack, others on the heap; at the block level of a GPU
 * kernel, shared memory). Heap: loom_malloc, whatever the size. Stack and Register: on the
 * stack (registers where every access is at a constant index), which needs a size known at
 * compile time. GPUShared: a GPU kernel's shared memory. The others name memories of targets
 * Loom has no backend for, and store_in refuses them. */
enum class MemoryType : uint8_t {
    Auto,
    Heap,
    Stack,
    Register,
    GPUShared,
    GPUTexture,
    LockedCache,
    VTCM,
    AMXTile
};
const char *memory_type_name(MemoryType t);

/** for (name = min; name < min + extent; name++) body. min and extent are evaluated once,
 * before the first iteration; an extent <= 0 runs no iteration. */
struct For : StmtNode<For> {
    LOOM_DECLARE_NODE(For)
    std::string name;
    Expr min, extent;
    ForType for_type;
    DeviceAPI device_api;
    Stmt body;
    static Stmt make(const std::string &name, Expr min, Expr extent, ForType for_type,
                     DeviceAPI device_api, Stmt body);
};

/** Store of `value` at flat element `index` of the named buffer (see Load). */
struct Store : StmtNode<Store> {
    LOOM_DECLARE_NODE(Store)
    std::string name;
    Expr value, index;
    static Stmt make(const std::string &name, Expr value, Expr index);
};

/** Multi-dimensional store of a Func's values (one per Tuple element) at `args`. Removed by
 * storage flattening. */
struct Provide : StmtNode<Provide> {
    LOOM_DECLARE_NODE(Provide)
    std::string name;
    std::vector<Expr> values;
    std::vector<Expr> args;
    static Stmt make(const std::string &name, std::vector<Expr> values, std::vector<Expr> args);
};

/** Heap or stack memory of `type` x product(extents) elements, named `name` within body. */
struct Allocate : StmtNode<Allocate> {
    LOOM_DECLARE_NODE(Allocate)
    std::string name;
    Type type;
    std::vector<Expr> extents;
    Stmt body;
    MemoryType memory_type = MemoryType::Auto; // from the Func's store_in
    static Stmt make(const std::string &name, Type type, std::vector<Expr> extents, Stmt body,
                     MemoryType memory_type = MemoryType::Auto);
};

/** Releases an Allocate's memory; emitted by storage flattening at the end of its body. */
struct Free : StmtNode<Free> {
    LOOM_DECLARE_NODE(Free)
    std::string name;
    static Stmt make(const std::string &name);
};

/** One dimension of a region: [min, min + extent). */
struct Range {
    Expr min, extent;
    Range() = default;
    Range(Expr min, Expr extent) : min(std::move(min)), extent(std::move(extent)) {}
};
using Region = std::vector<Range>;

/** Storage for a Func over `bounds` (one buffer per Tuple element, of `types`) within body.
 * Becomes Allocate after storage flattening. */
struct Realize : StmtNode<Realize> {
    LOOM_DECLARE_NODE(Realize)
    std::string name;
    std::vector<Type> types;
    Region bounds;
    Stmt body;
    static Stmt make(const std::string &name, std::vector<Type> types, Region bounds, Stmt body);
};

/** first, then rest. */
struct Block : StmtNode<Block> {
    LOOM_DECLARE_NODE(Block)
    Stmt first, rest;
    static Stmt make(Stmt first, Stmt rest);
    /** Chains a list into nested Blocks, skipping undefined entries. */
    static Stmt make(const std::vector<Stmt> &stmts);
};

struct IfThenElse : StmtNode<IfThenElse> {
    LOOM_DECLARE_NODE(IfThenElse)
    Expr condition;
    Stmt then_case, else_case;  // else_case may be undefined
    static Stmt make(Expr condition, Stmt then_case, Stmt else_case = Stmt());
};

/** Evaluates an Expr for its side effects (an Extern call). */
struct Evaluate : StmtNode<Evaluate> {
    LOOM_DECLARE_NODE(Evaluate)
    Expr value;
    static Stmt make(Expr value);
};

#undef LOOM_DECLARE_NODE

}  // namespace Internal
}  // namespace loom
