#include "lower/Monotonic.h"

#include <map>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

Monotonic flip(Monotonic m) {
    if (m == Monotonic::Increasing) return Monotonic::Decreasing;
    if (m == Monotonic::Decreasing) return Monotonic::Increasing;
    return m;
}

// The direction of an expression that moves the same way as each of two operands: a + b,
// min, max, either branch of a select on a fixed condition.
Monotonic combine(Monotonic a, Monotonic b) {
    if (a == Monotonic::Constant) return b;
    if (b == Monotonic::Constant) return a;
    return a == b ? a : Monotonic::Unknown;
}

class MonotonicIn : public IRVisitor {
public:
    explicit MonotonicIn(const std::string &var) : var(var) {}

    Monotonic of(const Expr &e) {
        e.accept(this);
        return result;
    }

private:
    const std::string &var;
    std::map<std::string, Monotonic> lets; // directions of the Lets in scope
    Monotonic result = Monotonic::Unknown;

    // Constant when every operand is, Unknown otherwise: for operators that are not monotonic
    // in their operands (%, comparisons, bit operations).
    Monotonic constant_if_all(const std::vector<Expr> &operands) {
        for (const Expr &e : operands) {
            if (of(e) != Monotonic::Constant) return Monotonic::Unknown;
        }
        return Monotonic::Constant;
    }

    void visit(const IntImm *) override { result = Monotonic::Constant; }
    void visit(const UIntImm *) override { result = Monotonic::Constant; }
    void visit(const FloatImm *) override { result = Monotonic::Constant; }
    void visit(const StringImm *) override { result = Monotonic::Constant; }

    void visit(const Variable *op) override {
        auto let = lets.find(op->name);
        if (let != lets.end()) {
            result = let->second;
        } else {
            result = op->name == var ? Monotonic::Increasing : Monotonic::Constant;
        }
    }

    void visit(const Cast *op) override {
        Monotonic m = of(op->value);
        // A narrowing cast wraps; one that keeps every value keeps the order.
        result = (m == Monotonic::Constant || op->type.can_represent(op->value.type()))
                     ? m
                     : Monotonic::Unknown;
    }
    void visit(const Reinterpret *op) override { result = constant_if_all({op->value}); }

    void visit(const Add *op) override { result = combine(of(op->a), of(op->b)); }
    void visit(const Sub *op) override { result = combine(of(op->a), flip(of(op->b))); }

    void visit(const Mul *op) override {
        Monotonic a = of(op->a), b = of(op->b);
        if (a == Monotonic::Constant && b == Monotonic::Constant) {
            result = Monotonic::Constant;
        } else if (const int64_t *c = as_const_int(op->b)) {
            result = *c > 0 ? a : *c < 0 ? flip(a) : Monotonic::Constant;
        } else if (const int64_t *c = as_const_int(op->a)) {
            result = *c > 0 ? b : *c < 0 ? flip(b) : Monotonic::Constant;
        } else {
            result = Monotonic::Unknown; // the sign of the factor is not known
        }
    }

    void visit(const Div *op) override {
        Monotonic a = of(op->a), b = of(op->b);
        const int64_t *c = as_const_int(op->b);
        if (a == Monotonic::Constant && b == Monotonic::Constant) {
            result = Monotonic::Constant;
        } else if (c && *c != 0 && b == Monotonic::Constant) {
            // Floor division by a fixed positive value keeps the order; by a negative one it
            // reverses it.
            result = *c > 0 ? a : flip(a);
        } else {
            result = Monotonic::Unknown;
        }
    }

    void visit(const Mod *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const Min *op) override { result = combine(of(op->a), of(op->b)); }
    void visit(const Max *op) override { result = combine(of(op->a), of(op->b)); }
    void visit(const EQ *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const NE *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const LT *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const LE *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const GT *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const GE *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const And *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const Or *op) override { result = constant_if_all({op->a, op->b}); }
    void visit(const Not *op) override { result = constant_if_all({op->a}); }

    void visit(const Select *op) override {
        if (of(op->condition) != Monotonic::Constant) {
            result = Monotonic::Unknown; // the branch taken may change as var grows
            return;
        }
        result = combine(of(op->true_value), of(op->false_value));
    }

    // Memory may be written between two values of var, so even an index that does not move
    // says nothing about the value loaded.
    void visit(const Load *) override { result = Monotonic::Unknown; }
    void visit(const Ramp *op) override { result = constant_if_all({op->base, op->stride}); }
    void visit(const Broadcast *op) override { result = of(op->value); }

    void visit(const Let *op) override {
        Monotonic value = of(op->value);
        auto shadowed = lets.find(op->name);
        bool had = shadowed != lets.end();
        Monotonic saved = had ? shadowed->second : Monotonic::Unknown;
        lets[op->name] = value;
        result = of(op->body);
        if (had) {
            lets[op->name] = saved;
        } else {
            lets.erase(op->name);
        }
    }

    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::likely) || op->is_intrinsic(Call::promise_clamped) ||
            op->is_intrinsic(Call::rounded_up) || op->is_intrinsic(Call::memoize_tag)) {
            result = of(op->args[0]);
        } else if (op->is_pure()) {
            result = constant_if_all(op->args);
        } else {
            result = Monotonic::Unknown; // an impure call may give another value each time
        }
    }
};

} // namespace

Monotonic is_monotonic(const Expr &e, const std::string &var) { return MonotonicIn(var).of(e); }

} // namespace Internal
} // namespace loom
