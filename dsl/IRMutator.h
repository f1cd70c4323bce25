// Rebuilds an IR tree. The default visit of each node mutates its children and returns the
// original node when none changed, so unchanged subtrees stay shared.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

class IRMutator {
public:
    virtual ~IRMutator() = default;
    virtual Expr mutate(const Expr &e);
    virtual Stmt mutate(const Stmt &s);

protected:
#define LOOM_MUTATE_EXPR_DECL(T) virtual Expr visit(const T *);
#define LOOM_MUTATE_STMT_DECL(T) virtual Stmt visit(const T *);
    LOOM_FOR_EACH_IR_EXPR(LOOM_MUTATE_EXPR_DECL)
    LOOM_FOR_EACH_IR_STMT(LOOM_MUTATE_STMT_DECL)
#undef LOOM_MUTATE_EXPR_DECL
#undef LOOM_MUTATE_STMT_DECL
};

}  // namespace Internal
}  // namespace loom
