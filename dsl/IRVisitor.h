// Walks an IR tree. The default visit of each node visits its children; override the kinds
// a pass cares about and call the base to keep walking.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

class IRVisitor {
public:
    virtual ~IRVisitor() = default;
#define LOOM_VISIT_DECL(T) virtual void visit(const T *);
    LOOM_FOR_EACH_IR_EXPR(LOOM_VISIT_DECL)
    LOOM_FOR_EACH_IR_STMT(LOOM_VISIT_DECL)
#undef LOOM_VISIT_DECL
};

/** Whether e has more than `limit` nodes (counting stops there): for passes that substitute
 * lets into an expression and give up when it grows. */
bool expr_larger_than(const Expr &e, size_t limit);

template<typename T>
void ExprNode<T>::accept(IRVisitor *v) const {
    v->visit(static_cast<const T *>(this));
}

template<typename T>
void StmtNode<T>::accept(IRVisitor *v) const {
    v->visit(static_cast<const T *>(this));
}

}  // namespace Internal
}  // namespace loom
