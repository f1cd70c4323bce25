#include "dsl/Associativity.h"

#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

namespace {

bool calls(const Expr &e, const std::string &name) { return expr_calls_func(e, name); }

}  // namespace

// value == op(self, other) or op(other, self), with self the Func at the left-hand side.
bool match_reduction(const Expr &value, const Expr &self, const std::string &name, Reduction *r) {
    Expr a, b;
    Reduction::Op op;
    if (const auto *n = value.as<Internal::Add>()) { a = n->a; b = n->b; op = Reduction::Add; }
    else if (const auto *n = value.as<Internal::Mul>()) { a = n->a; b = n->b; op = Reduction::Mul; }
    else if (const auto *n = value.as<Internal::Min>()) { a = n->a; b = n->b; op = Reduction::Min; }
    else if (const auto *n = value.as<Internal::Max>()) { a = n->a; b = n->b; op = Reduction::Max; }
    else if (const auto *c = value.as<Call>(); c && c->args.size() == 2 &&
             (c->is_intrinsic(Call::bitwise_and) || c->is_intrinsic(Call::bitwise_or) ||
              c->is_intrinsic(Call::bitwise_xor))) {
        a = c->args[0];
        b = c->args[1];
        op = c->is_intrinsic(Call::bitwise_and) ? Reduction::And
             : c->is_intrinsic(Call::bitwise_or) ? Reduction::Or : Reduction::Xor;
    } else {
        return false;
    }
    std::string s = to_string(self);
    if (to_string(a) == s && !calls(b, name)) {
        *r = Reduction{op, b};
        return true;
    }
    if (to_string(b) == s && !calls(a, name)) {
        *r = Reduction{op, a};
        return true;
    }
    return false;
}

Expr combine(Reduction::Op op, const Expr &a, const Expr &b) {
    switch (op) {
    case Reduction::Add: return a + b;
    case Reduction::Mul: return a * b;
    case Reduction::Min: return min(a, b);
    case Reduction::Max: return max(a, b);
    case Reduction::And: return a & b;
    case Reduction::Or: return a | b;
    case Reduction::Xor: return a ^ b;
    }
    return Expr();
}

Expr reduction_identity(Reduction::Op op, Type t) {
    switch (op) {
    case Reduction::Add:
    case Reduction::Or:
    case Reduction::Xor: return make_zero(t);
    case Reduction::Mul: return make_one(t);
    case Reduction::Min: return type_max(t);
    case Reduction::Max: return type_min(t);
    case Reduction::And: return make_const(t, (int64_t)-1);
    }
    return Expr();
}

namespace {

class UsesRVar : public IRVisitor {
public:
    bool found = false;

private:
    void visit(const Variable *op) override { found |= (bool)op->rdom; }
};

bool uses_rvar(const Expr &e) {
    UsesRVar u;
    e.accept(&u);
    return u.found;
}

/** d writes values that neither read f nor vary with the RVars: f(g(r)) = h(x), say. */
bool is_constant_assignment(const FunctionPtr &f, const Definition &d) {
    for (const Expr &a : d.args) {
        if (calls(a, f->name)) return false;
    }
    for (const Expr &v : d.values) {
        if (calls(v, f->name) || uses_rvar(v)) return false;
    }
    return true;
}

bool matches_single_reduction(const FunctionPtr &f, const Definition &d, Reduction *r) {
    if (d.values.size() != 1) return false;
    Expr self = Call::make(d.values[0].type(), f->name, d.args, Call::Halide, f, 0);
    return match_reduction(d.values[0], self, f->name, r);
}

} // namespace

bool is_order_independent_reduction(const FunctionPtr &f, const Definition &d) {
    Reduction r;
    return is_constant_assignment(f, d) || matches_single_reduction(f, d, &r);
}

bool reordering_changes_rounding(const FunctionPtr &f, const Definition &d) {
    Reduction r;
    return matches_single_reduction(f, d, &r) && d.values[0].type().is_float() &&
           (r.op == Reduction::Add || r.op == Reduction::Mul);
}

}  // namespace Internal
}  // namespace loom
