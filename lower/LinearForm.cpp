#include "lower/LinearForm.h"

#include <utility>
#include <vector>

#include "dsl/IROperator.h"
#include "dsl/Parameter.h"
#include "lower/ConstantFold.h"

namespace loom {
namespace Internal {

void Linear::add(const Expr &e, uint64_t scale) {
    if (const Add *op = e.as<Add>()) {
        add(op->a, scale);
        add(op->b, scale);
    } else if (const Sub *op = e.as<Sub>()) {
        add(op->a, scale);
        add(op->b, 0 - scale);
    } else if (const Mul *op = e.as<Mul>()) {
        int64_t ci;
        uint64_t cu;
        if (const_int_value(op->b, &ci)) {
            add(op->a, scale * (uint64_t)ci);
        } else if (const_uint_value(op->b, &cu)) {
            add(op->a, scale * cu);
        } else {
            add_term(e, scale);
        }
    } else if (const IntImm *i = e.as<IntImm>()) {
        constant += scale * (uint64_t)i->value;
    } else if (const UIntImm *u = e.as<UIntImm>()) {
        constant += scale * u->value;
    } else {
        add_term(e, scale);
    }
}

bool Linear::is_constant() const {
    for (const auto &t : terms) {
        if (wrapped(t.second) != 0) return false;
    }
    return true;
}

int64_t Linear::wrapped(uint64_t v) const {
    int bits = type.bits();
    if (bits >= 64) return (int64_t)v;
    uint64_t shift = 64 - bits;
    return (int64_t)(v << shift) >> shift;
}

Expr Linear::rebuild() const {
    Expr result;
    std::vector<std::pair<Expr, int64_t>> negatives;
    for (const auto &t : terms) {
        int64_t c = wrapped(t.second);
        if (c == 0) continue;
        if (c < 0 && c != INT64_MIN) {
            negatives.push_back({t.first, -c});
            continue;
        }
        Expr term = c == 1 ? t.first : Mul::make(t.first, make_const(type, c));
        result = result.defined() ? Add::make(result, term) : term;
    }
    for (const auto &n : negatives) {
        Expr term = n.second == 1 ? n.first : Mul::make(n.first, make_const(type, n.second));
        result = result.defined() ? Sub::make(result, term) : Sub::make(make_zero(type), term);
    }
    int64_t c = wrapped(constant);
    if (!result.defined()) return make_const(type, c);
    if (c > 0) return Add::make(result, make_const(type, c));
    if (c < 0 && c != INT64_MIN) return Sub::make(result, make_const(type, -c));
    if (c != 0) return Add::make(result, make_const(type, c));
    return result;
}

bool is_linear_type(Type t) { return t.is_int_or_uint() && t.is_scalar() && !t.is_bool(); }

bool no_overflow_int(Type t) { return t.is_int() && t.bits() >= 32; }

bool constant_difference(const Expr &a, const Expr &b, int64_t *diff) {
    if (!is_linear_type(a.type())) return false;
    Linear l;
    l.type = a.type();
    l.add(a, 1);
    l.add(b, (uint64_t)-1);
    if (!l.is_constant()) return false;
    *diff = l.wrapped(l.constant);
    return true;
}

int nonnegative_difference_sign(const Expr &a, const Expr &b) {
    if (!no_overflow_int(a.type()) || !a.type().is_scalar()) return 0;
    Linear d;
    d.type = a.type();
    d.add(a, 1);
    d.add(b, (uint64_t)-1);
    bool all_non_negative = d.wrapped(d.constant) >= 0;
    bool all_non_positive = d.wrapped(d.constant) <= 0;
    for (const auto &[term, coefficient] : d.terms) {
        const int64_t c = d.wrapped(coefficient);
        if (c == 0) continue;
        if (!provably_non_negative(term)) return 0;
        all_non_negative = all_non_negative && c > 0;
        all_non_positive = all_non_positive && c < 0;
    }
    return all_non_negative ? 1 : all_non_positive ? -1 : 0;
}

int quotient_difference_sign(const Expr &a, const Expr &b) {
    if (!is_linear_type(a.type())) return 0;
    Linear l;
    l.type = a.type();
    l.add(b, 1);
    l.add(a, (uint64_t)-1);
    const Div *plus = nullptr, *minus = nullptr;
    int64_t m = 0;
    for (const auto &t : l.terms) {
        int64_t c = l.wrapped(t.second);
        if (c == 0) continue;
        const Div *d = t.first.as<Div>();
        if (!d || (c > 0 ? plus : minus)) return 0;
        (c > 0 ? plus : minus) = d;
        if (m != 0 && m != (c > 0 ? c : -c)) return 0;
        m = c > 0 ? c : -c;
    }
    int64_t kp, km, d;
    if (!plus || !minus || !const_int_value(plus->b, &kp) || !const_int_value(minus->b, &km) ||
        kp != km || kp <= 0 || !constant_difference(plus->a, minus->a, &d)) {
        return 0;
    }
    const int64_t c = l.wrapped(l.constant);
    const int64_t lo = m * euclid_div(d, kp) + c, hi = m * -euclid_div(-d, kp) + c;
    if (lo >= 0) return 1;
    if (hi <= 0) return -1;
    return 0;
}

bool provably_non_negative(const Expr &e) {
    int64_t v;
    if (const_int_value(e, &v)) return v >= 0;
    if (const Variable *var = e.as<Variable>()) {
        return var->param && var->param->is_buffer &&
               var->name.find(".extent.") != std::string::npos;
    }
    if (const Add *op = e.as<Add>()) {
        return provably_non_negative(op->a) && provably_non_negative(op->b);
    }
    if (const Mul *op = e.as<Mul>()) {
        return provably_non_negative(op->a) && provably_non_negative(op->b);
    }
    if (const Div *op = e.as<Div>()) {
        return provably_non_negative(op->a) && const_int_value(op->b, &v) && v > 0;
    }
    if (const Min *op = e.as<Min>()) {
        return provably_non_negative(op->a) && provably_non_negative(op->b);
    }
    if (const Max *op = e.as<Max>()) {
        return provably_non_negative(op->a) || provably_non_negative(op->b);
    }
    return false;
}

} // namespace Internal
} // namespace loom
