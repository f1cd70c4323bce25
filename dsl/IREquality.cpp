#include "dsl/IREquality.h"

#include <cstring>

#include "dsl/IR.h"

namespace loom {
namespace Internal {
namespace {

template <typename T> int three_way(const T &a, const T &b) { return a < b ? -1 : b < a ? 1 : 0; }

int compare_types(Type a, Type b) {
    if (int c = three_way((int)a.code, (int)b.code)) return c;
    if (int c = three_way(a.bits(), b.bits())) return c;
    return three_way(a.lanes(), b.lanes());
}

int compare_operands(const Expr &a1, const Expr &b1, const Expr &a2, const Expr &b2) {
    if (int c = compare_exprs(a1, a2)) return c;
    return compare_exprs(b1, b2);
}

// Both nodes have the same kind and type.
int compare_same_kind(const BaseExprNode *a, const BaseExprNode *b) {
    switch (a->node_type) {
    case IRNodeType::IntImm:
        return three_way(static_cast<const IntImm *>(a)->value,
                         static_cast<const IntImm *>(b)->value);
    case IRNodeType::UIntImm:
        return three_way(static_cast<const UIntImm *>(a)->value,
                         static_cast<const UIntImm *>(b)->value);
    case IRNodeType::FloatImm: {
        // By bits: -0.0 and 0.0 differ, and a NaN equals itself.
        uint64_t x, y;
        double dx = static_cast<const FloatImm *>(a)->value,
               dy = static_cast<const FloatImm *>(b)->value;
        std::memcpy(&x, &dx, sizeof x);
        std::memcpy(&y, &dy, sizeof y);
        return three_way(x, y);
    }
    case IRNodeType::StringImm:
        return static_cast<const StringImm *>(a)->value.compare(
            static_cast<const StringImm *>(b)->value);
    case IRNodeType::Cast:
        return compare_exprs(static_cast<const Cast *>(a)->value,
                             static_cast<const Cast *>(b)->value);
    case IRNodeType::Reinterpret:
        return compare_exprs(static_cast<const Reinterpret *>(a)->value,
                             static_cast<const Reinterpret *>(b)->value);
    case IRNodeType::Variable:
        return static_cast<const Variable *>(a)->name.compare(
            static_cast<const Variable *>(b)->name);
#define LOOM_COMPARE_BINARY(T)                                                                     \
    case IRNodeType::T: {                                                                          \
        const T *x = static_cast<const T *>(a), *y = static_cast<const T *>(b);                    \
        return compare_operands(x->a, x->b, y->a, y->b);                                           \
    }
        LOOM_COMPARE_BINARY(Add)
        LOOM_COMPARE_BINARY(Sub)
        LOOM_COMPARE_BINARY(Mul)
        LOOM_COMPARE_BINARY(Div)
        LOOM_COMPARE_BINARY(Mod)
        LOOM_COMPARE_BINARY(Min)
        LOOM_COMPARE_BINARY(Max)
        LOOM_COMPARE_BINARY(EQ)
        LOOM_COMPARE_BINARY(NE)
        LOOM_COMPARE_BINARY(LT)
        LOOM_COMPARE_BINARY(LE)
        LOOM_COMPARE_BINARY(GT)
        LOOM_COMPARE_BINARY(GE)
        LOOM_COMPARE_BINARY(And)
        LOOM_COMPARE_BINARY(Or)
#undef LOOM_COMPARE_BINARY
    case IRNodeType::Not:
        return compare_exprs(static_cast<const Not *>(a)->a, static_cast<const Not *>(b)->a);
    case IRNodeType::Select: {
        const Select *x = static_cast<const Select *>(a), *y = static_cast<const Select *>(b);
        if (int c = compare_exprs(x->condition, y->condition)) return c;
        return compare_operands(x->true_value, x->false_value, y->true_value, y->false_value);
    }
    case IRNodeType::Load: {
        const Load *x = static_cast<const Load *>(a), *y = static_cast<const Load *>(b);
        if (int c = x->name.compare(y->name)) return c;
        return compare_exprs(x->index, y->index);
    }
    case IRNodeType::Ramp: {
        const Ramp *x = static_cast<const Ramp *>(a), *y = static_cast<const Ramp *>(b);
        if (int c = three_way(x->lanes, y->lanes)) return c;
        return compare_operands(x->base, x->stride, y->base, y->stride);
    }
    case IRNodeType::Broadcast: {
        const Broadcast *x = static_cast<const Broadcast *>(a),
                        *y = static_cast<const Broadcast *>(b);
        if (int c = three_way(x->lanes, y->lanes)) return c;
        return compare_exprs(x->value, y->value);
    }
    case IRNodeType::Let: {
        const Let *x = static_cast<const Let *>(a), *y = static_cast<const Let *>(b);
        if (int c = x->name.compare(y->name)) return c;
        return compare_operands(x->value, x->body, y->value, y->body);
    }
    case IRNodeType::Call: {
        const Call *x = static_cast<const Call *>(a), *y = static_cast<const Call *>(b);
        if (int c = x->name.compare(y->name)) return c;
        if (int c = three_way((int)x->call_type, (int)y->call_type)) return c;
        if (int c = three_way((int)x->op, (int)y->op)) return c;
        if (int c = three_way(x->value_index, y->value_index)) return c;
        if (int c = three_way(x->args.size(), y->args.size())) return c;
        for (size_t i = 0; i < x->args.size(); i++) {
            if (int c = compare_exprs(x->args[i], y->args[i])) return c;
        }
        return 0;
    }
    default:
        break;
    }
    return 0; // statements never reach here: Exprs hold expression nodes only
}

} // namespace

int compare_exprs(const Expr &a, const Expr &b) {
    if (a.same_as(b)) return 0;
    if (!a.defined()) return -1;
    if (!b.defined()) return 1;
    const BaseExprNode *x = a.get(), *y = b.get();
    if (int c = three_way((int)x->node_type, (int)y->node_type)) return c;
    if (int c = compare_types(x->type, y->type)) return c;
    return compare_same_kind(x, y);
}

} // namespace Internal
} // namespace loom
