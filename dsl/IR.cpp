#include "dsl/IR.h"

#include <cstdlib>

#include "dsl/Error.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {

namespace {

// Rounds a double to the precision of the float type it will be stored as.
double round_to_float_type(Type t, double v) {
    if (t.bits() == 32) return (double)(float)v;
    return v;
}

// Sign- or zero-extends the low bits of v to 64 bits, which is how constants are stored.
int64_t wrap_signed(int bits, int64_t v) {
    if (bits >= 64) return v;
    uint64_t shift = 64 - bits;
    return (int64_t)((uint64_t)v << shift) >> shift;
}

uint64_t wrap_unsigned(int bits, uint64_t v) {
    if (bits >= 64) return v;
    return v & ((uint64_t(1) << bits) - 1);
}

void check_binary(const char *op, const Expr &a, const Expr &b) {
    internal_assert(a.defined() && b.defined()) << op << " of undefined Expr";
    internal_assert(a.type() == b.type())
        << op << " of mismatched types " << a.type() << " and " << b.type() << ": " << a << ", "
        << b;
}

}  // namespace

Expr IntImm::make(Type t, int64_t value) {
    internal_assert(t.is_int() && t.is_scalar()) << "IntImm of type " << t;
    auto *n = new IntImm(t);
    n->value = wrap_signed(t.bits(), value);
    return n;
}

Expr UIntImm::make(Type t, uint64_t value) {
    internal_assert(t.is_uint() && t.is_scalar()) << "UIntImm of type " << t;
    auto *n = new UIntImm(t);
    n->value = wrap_unsigned(t.bits(), value);
    return n;
}

Expr FloatImm::make(Type t, double value) {
    internal_assert(t.is_float() && t.is_scalar()) << "FloatImm of type " << t;
    auto *n = new FloatImm(t);
    n->value = round_to_float_type(t, value);
    return n;
}

Expr StringImm::make(const std::string &s) {
    auto *n = new StringImm(Handle());
    n->value = s;
    return n;
}

Expr Cast::make(Type t, Expr v) {
    internal_assert(v.defined()) << "Cast of undefined Expr";
    internal_assert(t.lanes() == v.type().lanes())
        << "Cast of " << v.type() << " to " << t << " changes the lane count";
    auto *n = new Cast(t);
    n->value = std::move(v);
    return n;
}

Expr Reinterpret::make(Type t, Expr v) {
    internal_assert(v.defined()) << "Reinterpret of undefined Expr";
    internal_assert(t.bits() * t.lanes() == v.type().bits() * v.type().lanes())
        << "Reinterpret of " << v.type() << " as " << t << " changes the width";
    auto *n = new Reinterpret(t);
    n->value = std::move(v);
    return n;
}

Expr Variable::make(Type t, const std::string &name, std::shared_ptr<ParameterContents> param,
                    RDomRef rdom) {
    internal_assert(!name.empty()) << "Variable with an empty name";
    auto *n = new Variable(t);
    n->name = name;
    n->param = std::move(param);
    n->rdom = std::move(rdom);
    return n;
}

#define LOOM_ARITH_MAKE(T)                                                                      \
    Expr T::make(Expr a, Expr b) {                                                              \
        check_binary(#T, a, b);                                                                 \
        auto *n = new T(a.type());                                                              \
        n->a = std::move(a);                                                                    \
        n->b = std::move(b);                                                                    \
        return n;                                                                               \
    }
LOOM_ARITH_MAKE(Add)
LOOM_ARITH_MAKE(Sub)
LOOM_ARITH_MAKE(Mul)
LOOM_ARITH_MAKE(Div)
LOOM_ARITH_MAKE(Mod)
LOOM_ARITH_MAKE(Min)
LOOM_ARITH_MAKE(Max)
#undef LOOM_ARITH_MAKE

#define LOOM_COMPARE_MAKE(T)                                                                    \
    Expr T::make(Expr a, Expr b) {                                                              \
        check_binary(#T, a, b);                                                                 \
        auto *n = new T(Bool(a.type().lanes()));                                                \
        n->a = std::move(a);                                                                    \
        n->b = std::move(b);                                                                    \
        return n;                                                                               \
    }
LOOM_COMPARE_MAKE(EQ)
LOOM_COMPARE_MAKE(NE)
LOOM_COMPARE_MAKE(LT)
LOOM_COMPARE_MAKE(LE)
LOOM_COMPARE_MAKE(GT)
LOOM_COMPARE_MAKE(GE)
#undef LOOM_COMPARE_MAKE

#define LOOM_LOGICAL_MAKE(T)                                                                    \
    Expr T::make(Expr a, Expr b) {                                                              \
        check_binary(#T, a, b);                                                                 \
        internal_assert(a.type().is_bool()) << #T " of non-bool " << a.type();                 \
        auto *n = new T(a.type());                                                              \
        n->a = std::move(a);                                                                    \
        n->b = std::move(b);                                                                    \
        return n;                                                                               \
    }
LOOM_LOGICAL_MAKE(And)
LOOM_LOGICAL_MAKE(Or)
#undef LOOM_LOGICAL_MAKE

Expr Not::make(Expr a) {
    internal_assert(a.defined() && a.type().is_bool()) << "Not of non-bool";
    auto *n = new Not(a.type());
    n->a = std::move(a);
    return n;
}

Expr Select::make(Expr condition, Expr true_value, Expr false_value) {
    internal_assert(condition.defined() && true_value.defined() && false_value.defined())
        << "Select of undefined Expr";
    internal_assert(condition.type().is_bool()) << "Select condition is not bool";
    internal_assert(true_value.type() == false_value.type())
        << "Select of mismatched types " << true_value.type() << ", " << false_value.type();
    internal_assert(condition.type().is_scalar() ||
                    condition.type().lanes() == true_value.type().lanes())
        << "Select condition lanes differ from its values";
    auto *n = new Select(true_value.type());
    n->condition = std::move(condition);
    n->true_value = std::move(true_value);
    n->false_value = std::move(false_value);
    return n;
}

Expr Load::make(Type t, const std::string &name, Expr index) {
    internal_assert(index.defined() && index.type().is_int() &&
                    index.type().lanes() == t.lanes())
        << "Load of " << name << " with a bad index";
    auto *n = new Load(t);
    n->name = name;
    n->index = std::move(index);
    return n;
}

Expr Ramp::make(Expr base, Expr stride, int lanes) {
    internal_assert(base.defined() && stride.defined() && base.type() == stride.type() &&
                    base.type().is_scalar() && lanes > 1)
        << "Ramp with bad operands";
    auto *n = new Ramp(base.type().with_lanes(lanes));
    n->base = std::move(base);
    n->stride = std::move(stride);
    n->lanes = lanes;
    return n;
}

Expr Broadcast::make(Expr value, int lanes) {
    internal_assert(value.defined() && value.type().is_scalar() && lanes > 1)
        << "Broadcast with bad operands";
    auto *n = new Broadcast(value.type().with_lanes(lanes));
    n->value = std::move(value);
    n->lanes = lanes;
    return n;
}

Expr Let::make(const std::string &name, Expr value, Expr body) {
    internal_assert(value.defined() && body.defined()) << "Let of undefined Expr";
    auto *n = new Let(body.type());
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

void target_gone() {
    internal_error << "A reference inside a Func or RDom's own definition outlived it";
    std::abort(); // internal_error throws; this only tells the compiler so
}

Expr Call::make(Type t, const std::string &name, std::vector<Expr> args, CallType call_type,
                FunctionRef func, int value_index,
                std::shared_ptr<BufferContents> buffer,
                std::shared_ptr<ParameterContents> param) {
    for (const Expr &a : args) internal_assert(a.defined()) << "Call to " << name << " of undefined arg";
    auto *n = new Call(t);
    n->name = name;
    n->args = std::move(args);
    n->call_type = call_type;
    n->func = std::move(func);
    n->value_index = value_index;
    n->buffer = std::move(buffer);
    n->param = std::move(param);
    return n;
}

Expr Call::make_intrinsic(Type t, IntrinsicOp op, std::vector<Expr> args, CallType call_type) {
    Expr e = make(t, intrinsic_name(op), std::move(args), call_type);
    const_cast<Call *>(e.as<Call>())->op = op;  // set once, before the node is shared
    return e;
}

Expr Call::with_args(const Call *c, std::vector<Expr> args) {
    Expr e = make(c->type, c->name, std::move(args), c->call_type, c->func, c->value_index,
                  c->buffer, c->param);
    const_cast<Call *>(e.as<Call>())->op = c->op;
    return e;
}

const char *Call::intrinsic_name(IntrinsicOp op) {
    // clang-format off
    switch (op) {
    case NotIntrinsic: return "<not an intrinsic>";
    case bitwise_and: return "bitwise_and";
    case bitwise_or: return "bitwise_or";
    case bitwise_xor: return "bitwise_xor";
    case bitwise_not: return "bitwise_not";
    case shift_left: return "shift_left";
    case shift_right: return "shift_right";
    case abs: return "abs";
    case absd: return "absd";
    case count_leading_zeros: return "count_leading_zeros";
    case count_trailing_zeros: return "count_trailing_zeros";
    case popcount: return "popcount";
    case likely: return "likely";
    case buffer_host: return "buffer_host";
    case prefetch: return "prefetch";
    case promise_clamped: return "promise_clamped";
    case memoize_tag: return "memoize_tag";
    case scatter_gather: return "scatter_gather";
    case undef: return "undef";
    case rounded_up: return "rounded_up";
    case trace: return "trace";
    case print: return "print";
    case require: return "require";
    case stringify: return "stringify";
    case extern_stage: return "extern_stage";
    case extern_bounds_query: return "extern_bounds_query";
    case extern_input: return "extern_input";
    case extern_output: return "extern_output";
    case make_buffer: return "make_buffer";
    case semaphore_init: return "semaphore_init";
    case semaphore_release: return "semaphore_release";
    case semaphore_acquire: return "semaphore_acquire";
    case atomic_update: return "atomic_update";
    case memoize_lookup: return "memoize_lookup";
    case memoize_store: return "memoize_store";
    }
    // clang-format on
    return "<unknown intrinsic>";
}

Stmt LetStmt::make(const std::string &name, Expr value, Stmt body) {
    internal_assert(value.defined() && body.defined()) << "LetStmt " << name << " undefined";
    auto *n = new LetStmt;
    n->name = name;
    n->value = std::move(value);
    n->body = std::move(body);
    return n;
}

Stmt AssertStmt::make(Expr condition, Expr message) {
    internal_assert(condition.defined() && condition.type().is_bool() && message.defined())
        << "AssertStmt with bad operands";
    auto *n = new AssertStmt;
    n->condition = std::move(condition);
    n->message = std::move(message);
    return n;
}

Stmt ProducerConsumer::make(const std::string &name, bool is_producer, Stmt body) {
    internal_assert(body.defined()) << "ProducerConsumer " << name << " of undefined body";
    auto *n = new ProducerConsumer;
    n->name = name;
    n->is_producer = is_producer;
    n->body = std::move(body);
    return n;
}

const char *for_type_name(ForType t) {
    switch (t) {
    case ForType::Serial: return "for";
    case ForType::Parallel: return "parallel";
    case ForType::Vectorized: return "vectorized";
    case ForType::Unrolled: return "unrolled";
    case ForType::GPUBlock: return "gpu_block";
    case ForType::GPUThread: return "gpu_thread";
    }
    return "for";
}

Stmt For::make(const std::string &name, Expr min, Expr extent, ForType for_type,
               DeviceAPI device_api, Stmt body) {
    internal_assert(min.defined() && extent.defined() && body.defined())
        << "For " << name << " with undefined operands";
    internal_assert(min.type().is_scalar() && min.type().is_int() && extent.type() == min.type())
        << "For " << name << " bounds must be scalar ints";
    auto *n = new For;
    n->name = name;
    n->min = std::move(min);
    n->extent = std::move(extent);
    n->for_type = for_type;
    n->device_api = device_api;
    n->body = std::move(body);
    return n;
}

Stmt Store::make(const std::string &name, Expr value, Expr index) {
    internal_assert(value.defined() && index.defined() &&
                    value.type().lanes() == index.type().lanes())
        << "Store to " << name << " with bad operands";
    auto *n = new Store;
    n->name = name;
    n->value = std::move(value);
    n->index = std::move(index);
    return n;
}

Stmt Provide::make(const std::string &name, std::vector<Expr> values, std::vector<Expr> args) {
    internal_assert(!values.empty()) << "Provide to " << name << " of no values";
    auto *n = new Provide;
    n->name = name;
    n->values = std::move(values);
    n->args = std::move(args);
    return n;
}

Stmt Allocate::make(const std::string &name, Type type, std::vector<Expr> extents, Stmt body,
                    MemoryType memory_type) {
    internal_assert(body.defined()) << "Allocate " << name << " of undefined body";
    auto *n = new Allocate;
    n->name = name;
    n->type = type;
    n->extents = std::move(extents);
    n->body = std::move(body);
    n->memory_type = memory_type;
    return n;
}

const char *memory_type_name(MemoryType t) {
    switch (t) {
    case MemoryType::Auto:
        return "Auto";
    case MemoryType::Heap:
        return "Heap";
    case MemoryType::Stack:
        return "Stack";
    case MemoryType::Register:
        return "Register";
    case MemoryType::GPUShared:
        return "GPUShared";
    case MemoryType::GPUTexture:
        return "GPUTexture";
    case MemoryType::LockedCache:
        return "LockedCache";
    case MemoryType::VTCM:
        return "VTCM";
    case MemoryType::AMXTile:
        return "AMXTile";
    }
    return "?";
}

Stmt Free::make(const std::string &name) {
    auto *n = new Free;
    n->name = name;
    return n;
}

Stmt Realize::make(const std::string &name, std::vector<Type> types, Region bounds, Stmt body) {
    internal_assert(body.defined() && !types.empty()) << "Realize " << name << " malformed";
    auto *n = new Realize;
    n->name = name;
    n->types = std::move(types);
    n->bounds = std::move(bounds);
    n->body = std::move(body);
    return n;
}

Stmt Block::make(Stmt first, Stmt rest) {
    if (!first.defined()) return rest;
    if (!rest.defined()) return first;
    auto *n = new Block;
    n->first = std::move(first);
    n->rest = std::move(rest);
    return n;
}

Stmt Block::make(const std::vector<Stmt> &stmts) {
    Stmt result;
    for (auto it = stmts.rbegin(); it != stmts.rend(); ++it) result = make(*it, result);
    return result;
}

Stmt IfThenElse::make(Expr condition, Stmt then_case, Stmt else_case) {
    internal_assert(condition.defined() && condition.type().is_bool() && then_case.defined())
        << "IfThenElse with bad operands";
    auto *n = new IfThenElse;
    n->condition = std::move(condition);
    n->then_case = std::move(then_case);
    n->else_case = std::move(else_case);
    return n;
}

Stmt Evaluate::make(Expr value) {
    internal_assert(value.defined()) << "Evaluate of undefined Expr";
    auto *n = new Evaluate;
    n->value = std::move(value);
    return n;
}

}  // namespace Internal

// Constant constructors of Expr live here because they need the node types.
Expr::Expr(int8_t x) : IRHandle(Internal::IntImm::make(Int(8), x).get()) {}
Expr::Expr(int16_t x) : IRHandle(Internal::IntImm::make(Int(16), x).get()) {}
Expr::Expr(int32_t x) : IRHandle(Internal::IntImm::make(Int(32), x).get()) {}
Expr::Expr(int64_t x) : IRHandle(Internal::IntImm::make(Int(64), x).get()) {}
Expr::Expr(uint8_t x) : IRHandle(Internal::UIntImm::make(UInt(8), x).get()) {}
Expr::Expr(uint16_t x) : IRHandle(Internal::UIntImm::make(UInt(16), x).get()) {}
Expr::Expr(uint32_t x) : IRHandle(Internal::UIntImm::make(UInt(32), x).get()) {}
Expr::Expr(uint64_t x) : IRHandle(Internal::UIntImm::make(UInt(64), x).get()) {}
Expr::Expr(float x) : IRHandle(Internal::FloatImm::make(Float(32), x).get()) {}
Expr::Expr(double x) : IRHandle(Internal::FloatImm::make(Float(64), x).get()) {}
Expr::Expr(const std::string &s) : IRHandle(Internal::StringImm::make(s).get()) {}

}  // namespace loom
