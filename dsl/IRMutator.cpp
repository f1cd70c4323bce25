#include "dsl/IRMutator.h"

namespace loom {
namespace Internal {


Expr IRMutator::mutate(const Expr &e) {
    if (!e.defined()) return e;
    switch (e.get()->node_type) {
#define LOOM_DISPATCH_EXPR(T)                                                                   \
    case IRNodeType::T: return visit(static_cast<const T *>(e.get()));
        LOOM_FOR_EACH_IR_EXPR(LOOM_DISPATCH_EXPR)
#undef LOOM_DISPATCH_EXPR
    default: return e;
    }
}

Stmt IRMutator::mutate(const Stmt &s) {
    if (!s.defined()) return s;
    switch (s.get()->node_type) {
#define LOOM_DISPATCH_STMT(T)                                                                   \
    case IRNodeType::T: return visit(static_cast<const T *>(s.get()));
        LOOM_FOR_EACH_IR_STMT(LOOM_DISPATCH_STMT)
#undef LOOM_DISPATCH_STMT
    default: return s;
    }
}

Expr IRMutator::visit(const IntImm *op) { return op; }
Expr IRMutator::visit(const UIntImm *op) { return op; }
Expr IRMutator::visit(const FloatImm *op) { return op; }
Expr IRMutator::visit(const StringImm *op) { return op; }
Expr IRMutator::visit(const Variable *op) { return op; }

Expr IRMutator::visit(const Cast *op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? Expr(op) : Cast::make(op->type, v);
}

Expr IRMutator::visit(const Reinterpret *op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? Expr(op) : Reinterpret::make(op->type, v);
}

#define LOOM_MUTATE_BINARY(T)                                                                   \
    Expr IRMutator::visit(const T *op) {                                                        \
        Expr a = mutate(op->a), b = mutate(op->b);                                              \
        if (a.same_as(op->a) && b.same_as(op->b)) return op;                                    \
        return T::make(a, b);                                                                   \
    }
LOOM_MUTATE_BINARY(Add)
LOOM_MUTATE_BINARY(Sub)
LOOM_MUTATE_BINARY(Mul)
LOOM_MUTATE_BINARY(Div)
LOOM_MUTATE_BINARY(Mod)
LOOM_MUTATE_BINARY(Min)
LOOM_MUTATE_BINARY(Max)
LOOM_MUTATE_BINARY(EQ)
LOOM_MUTATE_BINARY(NE)
LOOM_MUTATE_BINARY(LT)
LOOM_MUTATE_BINARY(LE)
LOOM_MUTATE_BINARY(GT)
LOOM_MUTATE_BINARY(GE)
LOOM_MUTATE_BINARY(And)
LOOM_MUTATE_BINARY(Or)
#undef LOOM_MUTATE_BINARY

Expr IRMutator::visit(const Not *op) {
    Expr a = mutate(op->a);
    return a.same_as(op->a) ? Expr(op) : Not::make(a);
}

Expr IRMutator::visit(const Select *op) {
    Expr c = mutate(op->condition), t = mutate(op->true_value), f = mutate(op->false_value);
    if (c.same_as(op->condition) && t.same_as(op->true_value) && f.same_as(op->false_value)) {
        return op;
    }
    return Select::make(c, t, f);
}

Expr IRMutator::visit(const Load *op) {
    Expr i = mutate(op->index);
    return i.same_as(op->index) ? Expr(op) : Load::make(op->type, op->name, i);
}

Expr IRMutator::visit(const Ramp *op) {
    Expr b = mutate(op->base), s = mutate(op->stride);
    if (b.same_as(op->base) && s.same_as(op->stride)) return op;
    return Ramp::make(b, s, op->lanes);
}

Expr IRMutator::visit(const Broadcast *op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? Expr(op) : Broadcast::make(v, op->lanes);
}

Expr IRMutator::visit(const Let *op) {
    Expr v = mutate(op->value), b = mutate(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return op;
    return Let::make(op->name, v, b);
}

Expr IRMutator::visit(const Call *op) {
    std::vector<Expr> args(op->args.size());
    bool changed = false;
    for (size_t i = 0; i < args.size(); i++) {
        args[i] = mutate(op->args[i]);
        changed |= !args[i].same_as(op->args[i]);
    }
    return changed ? Call::with_args(op, std::move(args)) : Expr(op);
}

Stmt IRMutator::visit(const LetStmt *op) {
    Expr v = mutate(op->value);
    Stmt b = mutate(op->body);
    if (v.same_as(op->value) && b.same_as(op->body)) return op;
    return LetStmt::make(op->name, v, b);
}

Stmt IRMutator::visit(const AssertStmt *op) {
    Expr c = mutate(op->condition), m = mutate(op->message);
    if (c.same_as(op->condition) && m.same_as(op->message)) return op;
    return AssertStmt::make(c, m);
}

Stmt IRMutator::visit(const ProducerConsumer *op) {
    Stmt b = mutate(op->body);
    return b.same_as(op->body) ? Stmt(op) : ProducerConsumer::make(op->name, op->is_producer, b);
}

Stmt IRMutator::visit(const For *op) {
    Expr mn = mutate(op->min), ext = mutate(op->extent);
    Stmt b = mutate(op->body);
    if (mn.same_as(op->min) && ext.same_as(op->extent) && b.same_as(op->body)) return op;
    return For::make(op->name, mn, ext, op->for_type, op->device_api, b);
}

Stmt IRMutator::visit(const Store *op) {
    Expr v = mutate(op->value), i = mutate(op->index);
    if (v.same_as(op->value) && i.same_as(op->index)) return op;
    return Store::make(op->name, v, i);
}

Stmt IRMutator::visit(const Provide *op) {
    bool changed = false;
    std::vector<Expr> values(op->values.size()), args(op->args.size());
    for (size_t i = 0; i < values.size(); i++) {
        values[i] = mutate(op->values[i]);
        changed |= !values[i].same_as(op->values[i]);
    }
    for (size_t i = 0; i < args.size(); i++) {
        args[i] = mutate(op->args[i]);
        changed |= !args[i].same_as(op->args[i]);
    }
    return changed ? Provide::make(op->name, std::move(values), std::move(args)) : Stmt(op);
}

Stmt IRMutator::visit(const Allocate *op) {
    bool changed = false;
    std::vector<Expr> extents(op->extents.size());
    for (size_t i = 0; i < extents.size(); i++) {
        extents[i] = mutate(op->extents[i]);
        changed |= !extents[i].same_as(op->extents[i]);
    }
    Stmt b = mutate(op->body);
    changed |= !b.same_as(op->body);
    return changed ? Allocate::make(op->name, op->type, std::move(extents), b, op->memory_type)
                   : Stmt(op);
}

Stmt IRMutator::visit(const Free *op) { return op; }

Stmt IRMutator::visit(const Realize *op) {
    bool changed = false;
    Region bounds(op->bounds.size());
    for (size_t i = 0; i < bounds.size(); i++) {
        bounds[i] = Range(mutate(op->bounds[i].min), mutate(op->bounds[i].extent));
        changed |= !bounds[i].min.same_as(op->bounds[i].min) ||
                   !bounds[i].extent.same_as(op->bounds[i].extent);
    }
    Stmt b = mutate(op->body);
    changed |= !b.same_as(op->body);
    return changed ? Realize::make(op->name, op->types, std::move(bounds), b) : Stmt(op);
}

Stmt IRMutator::visit(const Block *op) {
    Stmt f = mutate(op->first), r = mutate(op->rest);
    if (f.same_as(op->first) && r.same_as(op->rest)) return op;
    return Block::make(f, r);
}

Stmt IRMutator::visit(const IfThenElse *op) {
    Expr c = mutate(op->condition);
    Stmt t = mutate(op->then_case), e = mutate(op->else_case);
    if (c.same_as(op->condition) && t.same_as(op->then_case) && e.same_as(op->else_case)) {
        return op;
    }
    return IfThenElse::make(c, t, e);
}

Stmt IRMutator::visit(const Evaluate *op) {
    Expr v = mutate(op->value);
    return v.same_as(op->value) ? Stmt(op) : Evaluate::make(v);
}

}  // namespace Internal
}  // namespace loom
