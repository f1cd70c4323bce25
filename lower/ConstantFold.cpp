#include "lower/ConstantFold.h"

#include <cmath>
#include <vector>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {

int64_t euclid_div(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);  // wraps for INT64_MIN
    int64_t q = a / b, r = a % b;
    if (r < 0) q = b > 0 ? q - 1 : q + 1;
    return q;
}

int64_t euclid_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r < 0) r += b > 0 ? b : -b;
    return r;
}

bool const_int_value(const Expr &e, int64_t *v) {
    if (const IntImm *i = e.as<IntImm>()) {
        *v = i->value;
        return true;
    }
    return false;
}

bool const_uint_value(const Expr &e, uint64_t *v) {
    if (const UIntImm *u = e.as<UIntImm>()) {
        *v = u->value;
        return true;
    }
    return false;
}

bool const_float_value(const Expr &e, double *v) {
    if (const FloatImm *f = e.as<FloatImm>()) {
        *v = f->value;
        return true;
    }
    return false;
}

namespace {

bool is_scalar_constant(const Expr &e) {
    return e.as<IntImm>() || e.as<UIntImm>() || e.as<FloatImm>();
}

// The bits of an integer constant of either signedness (an int's sign-extended, a uint's
// zero-extended: both as IntImm and UIntImm store them).
bool const_bits(const Expr &e, uint64_t *v) {
    int64_t i;
    if (const_int_value(e, &i)) {
        *v = (uint64_t)i;
        return true;
    }
    return const_uint_value(e, v);
}

// Sign-extends an int constant of a narrow type after wrapping arithmetic.
Expr int_const(Type t, uint64_t bits) { return make_const(t, (int64_t)bits); }

Expr fold_arith_constants(Arith op, const Expr &a, const Expr &b) {
    Type t = a.type();
    int64_t ia, ib;
    uint64_t ua, ub;
    double fa, fb;
    if (const_int_value(a, &ia) && const_int_value(b, &ib)) {
        uint64_t x = (uint64_t)ia, y = (uint64_t)ib;
        switch (op) {
        case Arith::Add: return int_const(t, x + y);
        case Arith::Sub: return int_const(t, x - y);
        case Arith::Mul: return int_const(t, x * y);
        case Arith::Div:
            // In a narrow type, INT_MIN / -1 wraps in that type, which int_const does.
            return int_const(t, (uint64_t)euclid_div(ia, ib));
        case Arith::Mod: return int_const(t, (uint64_t)euclid_mod(ia, ib));
        case Arith::Min: return ia < ib ? a : b;
        case Arith::Max: return ia > ib ? a : b;
        }
    }
    if (const_uint_value(a, &ua) && const_uint_value(b, &ub)) {
        switch (op) {
        case Arith::Add: return make_const(t, ua + ub);
        case Arith::Sub: return make_const(t, ua - ub);
        case Arith::Mul: return make_const(t, ua * ub);
        case Arith::Div: return make_const(t, ub == 0 ? (uint64_t)0 : ua / ub);
        case Arith::Mod: return make_const(t, ub == 0 ? (uint64_t)0 : ua % ub);
        case Arith::Min: return ua < ub ? a : b;
        case Arith::Max: return ua > ub ? a : b;
        }
    }
    if (const_float_value(a, &fa) && const_float_value(b, &fb)) {
        // Double arithmetic rounded to float32 equals float32 arithmetic for + - * / (double
        // has more than twice float's precision), so folding is exact in either width.
        switch (op) {
        case Arith::Add: return make_const(t, fa + fb);
        case Arith::Sub: return make_const(t, fa - fb);
        case Arith::Mul: return make_const(t, fa * fb);
        case Arith::Div: return make_const(t, fa / fb);
        case Arith::Mod: return Expr();  // a - b * floor(a / b) rounds in steps; leave it
        case Arith::Min: return fa < fb ? a : b;
        case Arith::Max: return fa > fb ? a : b;
        }
    }
    return Expr();
}

Expr fold_compare_constants(Compare op, const Expr &a, const Expr &b) {
    int64_t ia, ib;
    uint64_t ua, ub;
    double fa, fb;
    int c;  // -1, 0, 1; 2 means unordered (NaN)
    if (const_int_value(a, &ia) && const_int_value(b, &ib)) {
        c = ia < ib ? -1 : ia > ib ? 1 : 0;
    } else if (const_uint_value(a, &ua) && const_uint_value(b, &ub)) {
        c = ua < ub ? -1 : ua > ub ? 1 : 0;
    } else if (const_float_value(a, &fa) && const_float_value(b, &fb)) {
        c = fa < fb ? -1 : fa > fb ? 1 : fa == fb ? 0 : 2;
    } else {
        return Expr();
    }
    bool r = false;
    switch (op) {
    case Compare::EQ: r = c == 0; break;
    case Compare::NE: r = c != 0; break;
    case Compare::LT: r = c == -1; break;
    case Compare::LE: r = c == -1 || c == 0; break;
    case Compare::GT: r = c == 1; break;
    case Compare::GE: r = c == 1 || c == 0; break;
    }
    return make_bool(r);
}

Expr fold_cast_constant(Type t, const Expr &v) {
    if (!t.is_scalar()) return Expr();
    int64_t i;
    uint64_t u;
    double f;
    if (const_int_value(v, &i)) return t.is_bool() ? make_bool(i != 0) : make_const(t, i);
    if (const_uint_value(v, &u)) return t.is_bool() ? make_bool(u != 0) : make_const(t, u);
    if (const_float_value(v, &f)) {
        if (t.is_float()) return make_const(t, f);
        // Float to int folds only where the conversion is defined.
        if (t.is_int() && std::isfinite(f) && std::trunc(f) >= (double)t.min_int() &&
            std::trunc(f) <= (double)t.max_int()) {
            return make_const(t, (int64_t)std::trunc(f));
        }
        if (t.is_uint() && !t.is_bool() && std::isfinite(f) && std::trunc(f) >= 0 &&
            std::trunc(f) <= (double)t.max_uint()) {
            return make_const(t, (uint64_t)std::trunc(f));
        }
    }
    return Expr();
}

// Counts over the low `bits` bits of v.
int leading_zeros(uint64_t v, int bits) {
    int n = 0;
    for (int b = bits - 1; b >= 0 && !((v >> b) & 1); b--) n++;
    return n;
}

int trailing_zeros(uint64_t v, int bits) {
    int n = 0;
    for (int b = 0; b < bits && !((v >> b) & 1); b++) n++;
    return n;
}

Expr fold_intrinsic_constants(const Call *op, const std::vector<Expr> &args) {
    const Type t = op->type;
    if (!t.is_scalar() || args.empty() || !args[0].type().is_scalar()) return Expr();
    const Type at = args[0].type();
    const int bits = at.bits();
    const uint64_t mask = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1);
    uint64_t a = 0, b = 0;
    const bool int_a = at.is_int_or_uint() && const_bits(args[0], &a);
    const bool int_b = args.size() > 1 && args[1].type().is_int_or_uint() && const_bits(args[1], &b);
    switch (op->op) {
    case Call::bitwise_and:
        if (int_a && int_b) return make_const(t, a & b);
        return Expr();
    case Call::bitwise_or:
        if (int_a && int_b) return make_const(t, a | b);
        return Expr();
    case Call::bitwise_xor:
        if (int_a && int_b) return make_const(t, a ^ b);
        return Expr();
    case Call::bitwise_not:
        if (int_a) return make_const(t, ~a);
        return Expr();
    case Call::shift_left:
    case Call::shift_right: {
        if (!int_a || !int_b) return Expr();
        bool left = op->op == Call::shift_left;
        uint64_t amount = b;
        if (args[1].type().is_int() && (int64_t)b < 0) {
            left = !left;
            amount = 0 - b;
        }
        // A shift by the width or more has no defined value in the code generated for it.
        if (amount >= (uint64_t)bits) return Expr();
        if (left) return make_const(t, a << amount);
        if (at.is_int()) return make_const(t, (int64_t)a >> amount);  // a is sign-extended
        return make_const(t, (a & mask) >> amount);
    }
    case Call::abs: {
        double f;
        if (const_float_value(args[0], &f)) return make_const(t, std::fabs(f));
        if (!int_a) return Expr();
        if (at.is_int() && (int64_t)a < 0) return make_const(t, 0 - a);
        return make_const(t, a);
    }
    case Call::absd: {
        // Floats are left alone: |a - b| computed in double and rounded to float32 could
        // round twice.
        if (!int_a || !int_b) return Expr();
        const bool less = at.is_int() ? (int64_t)a < (int64_t)b : (a & mask) < (b & mask);
        return make_const(t, less ? b - a : a - b);
    }
    case Call::count_leading_zeros:
        if (int_a) return make_const(t, (int64_t)leading_zeros(a & mask, bits));
        return Expr();
    case Call::count_trailing_zeros:
        if (int_a) return make_const(t, (int64_t)trailing_zeros(a & mask, bits));
        return Expr();
    case Call::popcount:
        if (int_a) return make_const(t, (int64_t)__builtin_popcountll(a & mask));
        return Expr();
    default: return Expr();
    }
}

// fold(operands) where every operand is a constant; where some are selects between two
// constants under one condition (and the rest constants), the select of the folds of each
// side, or the one constant both sides fold to.
template<typename Fold>
Expr fold_through_selects(const std::vector<Expr> &operands, const Fold &fold) {
    bool all_constant = true;
    for (const Expr &e : operands) all_constant = all_constant && is_scalar_constant(e);
    if (all_constant) return fold(operands);
    Expr condition;
    std::vector<Expr> when_true, when_false;
    for (const Expr &e : operands) {
        if (is_scalar_constant(e)) {
            when_true.push_back(e);
            when_false.push_back(e);
            continue;
        }
        const Select *s = e.as<Select>();
        if (!s || !is_scalar_constant(s->true_value) || !is_scalar_constant(s->false_value)) {
            return Expr();
        }
        if (condition.defined() && !deep_equal(condition, s->condition)) return Expr();
        condition = s->condition;
        when_true.push_back(s->true_value);
        when_false.push_back(s->false_value);
    }
    Expr t = fold(when_true), f = fold(when_false);
    if (!t.defined() || !f.defined()) return Expr();
    return deep_equal(t, f) ? t : Select::make(condition, t, f);
}

}  // namespace

Expr fold_arith(Arith op, const Expr &a, const Expr &b) {
    return fold_through_selects(
        {a, b}, [op](const std::vector<Expr> &v) { return fold_arith_constants(op, v[0], v[1]); });
}

Expr fold_compare(Compare op, const Expr &a, const Expr &b) {
    return fold_through_selects(
        {a, b}, [op](const std::vector<Expr> &v) { return fold_compare_constants(op, v[0], v[1]); });
}

Expr fold_cast(Type t, const Expr &v) {
    return fold_through_selects({v},
                                [t](const std::vector<Expr> &v) { return fold_cast_constant(t, v[0]); });
}

Expr fold_intrinsic(const Call *op) {
    if (op->call_type != Call::PureIntrinsic) return Expr();
    return fold_through_selects(
        op->args, [op](const std::vector<Expr> &v) { return fold_intrinsic_constants(op, v); });
}

}  // namespace Internal
}  // namespace loom
