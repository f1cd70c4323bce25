// The handles every IR node is held through. Expr and Stmt are reference-counted pointers
// to immutable nodes: a node is never changed after make(), so subtrees are shared freely.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <utility>

#include "dsl/Type.h"

namespace loom {
namespace Internal {

// Every IR node kind, listed once. Adding a node is one edit here plus its struct in IR.h;
// the compiler then points at every visitor that must learn about it.
#define LOOM_FOR_EACH_IR_EXPR(X)                                                                \
    X(IntImm) X(UIntImm) X(FloatImm) X(StringImm) X(Cast) X(Reinterpret) X(Variable) X(Add)      \
    X(Sub) X(Mul) X(Div) X(Mod) X(Min) X(Max) X(EQ) X(NE) X(LT) X(LE) X(GT) X(GE) X(And) X(Or)   \
    X(Not) X(Select) X(Load) X(Ramp) X(Broadcast) X(Let) X(Call)

#define LOOM_FOR_EACH_IR_STMT(X)                                                                \
    X(LetStmt) X(AssertStmt) X(ProducerConsumer) X(For) X(Store) X(Provide) X(Allocate) X(Free) \
    X(Realize) X(Block) X(IfThenElse) X(Evaluate)

enum class IRNodeType : uint8_t {
#define LOOM_ENUM_ENTRY(T) T,
    LOOM_FOR_EACH_IR_EXPR(LOOM_ENUM_ENTRY) LOOM_FOR_EACH_IR_STMT(LOOM_ENUM_ENTRY)
#undef LOOM_ENUM_ENTRY
};

class IRVisitor;

/** Base of all nodes. The reference count is mutable because nodes are otherwise const. */
struct IRNode {
    explicit IRNode(IRNodeType t) : node_type(t) {}
    virtual ~IRNode() = default;
    virtual void accept(IRVisitor *v) const = 0;
    mutable std::atomic<int> ref_count{0};
    const IRNodeType node_type;
};

struct BaseExprNode : IRNode {
    BaseExprNode(IRNodeType t, Type type) : IRNode(t), type(type) {}
    const Type type;
};

struct BaseStmtNode : IRNode {
    using IRNode::IRNode;
};

template<typename T>
struct ExprNode : BaseExprNode {
    explicit ExprNode(Type type) : BaseExprNode(T::static_type, type) {}
    void accept(IRVisitor *v) const override;
};

template<typename T>
struct StmtNode : BaseStmtNode {
    StmtNode() : BaseStmtNode(T::static_type) {}
    void accept(IRVisitor *v) const override;
};

/** Intrusive reference-counted pointer to a const IR node. */
class IRHandle {
public:
    IRHandle() = default;
    IRHandle(const IRNode *n) : ptr(n) { retain(); }
    IRHandle(const IRHandle &o) : ptr(o.ptr) { retain(); }
    IRHandle(IRHandle &&o) noexcept : ptr(o.ptr) { o.ptr = nullptr; }
    IRHandle &operator=(const IRHandle &o) {
        // `o` may live inside the node released here (`e = e.as<Call>()->args[0]`): hold its
        // node before releasing, and read nothing of `o` after.
        if (o.ptr != ptr) {
            IRHandle kept(o);
            std::swap(ptr, kept.ptr);
        }
        return *this;
    }
    IRHandle &operator=(IRHandle &&o) noexcept {
        std::swap(ptr, o.ptr);
        return *this;
    }
    ~IRHandle() { release(); }

    bool defined() const { return ptr != nullptr; }
    const IRNode *get() const { return ptr; }
    bool same_as(const IRHandle &o) const { return ptr == o.ptr; }
    void accept(IRVisitor *v) const { ptr->accept(v); }

    /** Downcast: the node as a T, or nullptr if it is another kind. The pointer is valid while
     * this handle (or another one to the same node) lives, so it is taken from named handles
     * only: on a temporary (`simplify(e).as<IntImm>()`) the node may be freed at the end of the
     * statement, and the call does not compile. Name the result first (`Expr s = simplify(e);`).*/
    template<typename T>
    const T *as() const & {
        if (ptr && ptr->node_type == T::static_type) return static_cast<const T *>(ptr);
        return nullptr;
    }
    template<typename T>
    const T *as() const && = delete;

protected:
    void retain() const {
        if (ptr) ptr->ref_count.fetch_add(1, std::memory_order_relaxed);
    }
    void release() {
        if (ptr && ptr->ref_count.fetch_sub(1, std::memory_order_acq_rel) == 1) delete ptr;
        ptr = nullptr;
    }
    const IRNode *ptr = nullptr;
};

}  // namespace Internal

/** A value-producing expression in the Loom language. Plain C++ numbers convert implicitly:
 * int to Int(32), float to Float(32); other widths convert explicitly (Halide's rules). */
class Expr : public Internal::IRHandle {
public:
    Expr() = default;
    Expr(const Internal::BaseExprNode *n) : IRHandle(n) {}
    explicit Expr(int8_t x);
    explicit Expr(int16_t x);
    Expr(int32_t x);
    explicit Expr(int64_t x);
    explicit Expr(uint8_t x);
    explicit Expr(uint16_t x);
    explicit Expr(uint32_t x);
    explicit Expr(uint64_t x);
    Expr(float x);
    explicit Expr(double x);
    Expr(const std::string &s);

    Type type() const { return static_cast<const Internal::BaseExprNode *>(ptr)->type; }
    const Internal::BaseExprNode *get() const {
        return static_cast<const Internal::BaseExprNode *>(ptr);
    }
};

/** Orders Exprs by node identity, for maps keyed on shared subexpressions. */
struct ExprCompare {
    bool operator()(const Expr &a, const Expr &b) const { return a.get() < b.get(); }
};

namespace Internal {

/** A statement: the loop nests and memory operations that lowering produces. */
class Stmt : public IRHandle {
public:
    Stmt() = default;
    Stmt(const BaseStmtNode *n) : IRHandle(n) {}
    const BaseStmtNode *get() const { return static_cast<const BaseStmtNode *>(ptr); }
};

}  // namespace Internal
}  // namespace loom
