#include "codegen/JITCacheKey.h"

#include <cstring>

#include <llvm/Config/llvm-config.h>
#include <llvm/Target/TargetMachine.h>

#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

namespace {

// Bump when the meaning of the key's bytes changes (what is written, or in what order).
constexpr const char *kKeyFormat = "loom-jit-cache-key 1";

// Writes the key. Every value is written so that the bytes read back in only one way:
// numbers at a fixed width, strings and lists behind their length, an absent child as a byte
// of its own, and every node behind its kind (and, for an Expr, its type).
class KeyWriter : public IRVisitor {
public:
    std::string out;

    void u64(uint64_t v) {
        char bytes[8];
        std::memcpy(bytes, &v, 8);
        out.append(bytes, 8);
    }
    void str(const std::string &s) {
        u64(s.size());
        out += s;
    }
    void type(Type t) {
        u64(t.code);
        u64(t.bits());
        u64(t.lanes());
    }
    void expr(const Expr &e) {
        if (!e.defined()) {
            out += '-';
            return;
        }
        out += '+';
        e.accept(this);
    }
    void stmt(const Stmt &s) {
        if (!s.defined()) {
            out += '-';
            return;
        }
        out += '+';
        s.accept(this);
    }
    void exprs(const std::vector<Expr> &list) {
        u64(list.size());
        for (const Expr &e : list) expr(e);
    }

private:
    // One `fields` per node kind, written after the node's kind (and type): a node kind added
    // to IR.h without one here does not compile (the visit below calls it for every kind).
    void fields(const IntImm *op) { u64((uint64_t)op->value); }
    void fields(const UIntImm *op) { u64(op->value); }
    void fields(const FloatImm *op) {
        uint64_t bits;
        std::memcpy(&bits, &op->value, 8);
        u64(bits);
    }
    void fields(const StringImm *op) { str(op->value); }
    void fields(const Cast *op) { expr(op->value); }
    void fields(const Reinterpret *op) { expr(op->value); }
    void fields(const Variable *op) { str(op->name); }
#define LOOM_KEY_BINARY(T)                                                                         \
    void fields(const T *op) {                                                                     \
        expr(op->a);                                                                               \
        expr(op->b);                                                                               \
    }
    LOOM_KEY_BINARY(Add)
    LOOM_KEY_BINARY(Sub)
    LOOM_KEY_BINARY(Mul)
    LOOM_KEY_BINARY(Div)
    LOOM_KEY_BINARY(Mod)
    LOOM_KEY_BINARY(Min)
    LOOM_KEY_BINARY(Max)
    LOOM_KEY_BINARY(EQ)
    LOOM_KEY_BINARY(NE)
    LOOM_KEY_BINARY(LT)
    LOOM_KEY_BINARY(LE)
    LOOM_KEY_BINARY(GT)
    LOOM_KEY_BINARY(GE)
    LOOM_KEY_BINARY(And)
    LOOM_KEY_BINARY(Or)
#undef LOOM_KEY_BINARY
    void fields(const Not *op) { expr(op->a); }
    void fields(const Select *op) {
        expr(op->condition);
        expr(op->true_value);
        expr(op->false_value);
    }
    void fields(const Load *op) {
        str(op->name);
        expr(op->index);
    }
    void fields(const Ramp *op) {
        expr(op->base);
        expr(op->stride);
        u64((uint64_t)op->lanes);
    }
    void fields(const Broadcast *op) {
        expr(op->value);
        u64((uint64_t)op->lanes);
    }
    void fields(const Let *op) {
        str(op->name);
        expr(op->value);
        expr(op->body);
    }
    void fields(const Call *op) {
        str(op->name);
        exprs(op->args);
        u64(op->call_type);
        u64(op->op);
        u64((uint64_t)op->value_index);
    }
    void fields(const LetStmt *op) {
        str(op->name);
        expr(op->value);
        stmt(op->body);
    }
    void fields(const AssertStmt *op) {
        expr(op->condition);
        expr(op->message);
    }
    void fields(const ProducerConsumer *op) {
        str(op->name);
        u64(op->is_producer);
        stmt(op->body);
    }
    void fields(const For *op) {
        str(op->name);
        expr(op->min);
        expr(op->extent);
        u64((uint64_t)op->for_type);
        u64((uint64_t)op->device_api);
        stmt(op->body);
    }
    void fields(const Store *op) {
        str(op->name);
        expr(op->value);
        expr(op->index);
    }
    void fields(const Provide *op) {
        str(op->name);
        exprs(op->values);
        exprs(op->args);
    }
    void fields(const Allocate *op) {
        str(op->name);
        type(op->type);
        exprs(op->extents);
        stmt(op->body);
    }
    void fields(const Free *op) { str(op->name); }
    void fields(const Realize *op) {
        str(op->name);
        u64(op->types.size());
        for (Type t : op->types) type(t);
        u64(op->bounds.size());
        for (const Range &r : op->bounds) {
            expr(r.min);
            expr(r.extent);
        }
        stmt(op->body);
    }
    void fields(const Block *op) {
        stmt(op->first);
        stmt(op->rest);
    }
    void fields(const IfThenElse *op) {
        expr(op->condition);
        stmt(op->then_case);
        stmt(op->else_case);
    }
    void fields(const Evaluate *op) { expr(op->value); }

#define LOOM_KEY_EXPR(T)                                                                           \
    void visit(const T *op) override {                                                             \
        u64((uint64_t)op->node_type);                                                              \
        type(op->type);                                                                            \
        fields(op);                                                                                \
    }
#define LOOM_KEY_STMT(T)                                                                           \
    void visit(const T *op) override {                                                             \
        u64((uint64_t)op->node_type);                                                              \
        fields(op);                                                                                \
    }
    LOOM_FOR_EACH_IR_EXPR(LOOM_KEY_EXPR)
    LOOM_FOR_EACH_IR_STMT(LOOM_KEY_STMT)
#undef LOOM_KEY_EXPR
#undef LOOM_KEY_STMT
};

}  // namespace

std::string jit_cache_key(const LoweredPipeline &pipeline, const Target &target,
                          const llvm::TargetMachine &tm, unsigned compile_threads) {
    KeyWriter w;
    w.str(kKeyFormat);
    w.str(loom_build_id());
    w.str(LLVM_VERSION_STRING);
    w.str(target.to_string());
    w.str(tm.getTargetTriple().str());
    w.str(tm.getTargetCPU().str());
    w.str(tm.getTargetFeatureString().str());
    w.u64(compile_threads);
    w.u64((uint64_t)pipeline.streaming_min_bytes);
    w.str(pipeline.name);
    w.u64(pipeline.args.size());
    for (const LoweredArgument &a : pipeline.args) {
        w.str(a.name);
        w.u64(a.kind);
        w.type(a.type);
        w.u64((uint64_t)a.dimensions);
        w.u64((uint64_t)a.value_index);
    }
    w.stmt(pipeline.body);
    return std::move(w.out);
}

}  // namespace Internal
}  // namespace loom
