#include "codegen/LaneOffsets.h"

#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace {

using Offsets = LaneOffsets;

// Divisors (and moduli) up to this one get one table row per residue.
constexpr int64_t kMaxModulus = 8;

int64_t floor_div(int64_t a, int64_t k) {
    int64_t q = a / k;
    return (a % k != 0 && a < 0) ? q - 1 : q;
}

int64_t floor_mod(int64_t a, int64_t k) { return a - floor_div(a, k) * k; }

// The constant a vector operand multiplies or divides by, or nullptr.
const int64_t *constant_factor(const Expr &e) { return as_const_int(e); }

Expr add_scalar(const Expr &a, const Expr &b) {
    if (is_const_zero(b)) return a;
    if (is_const_zero(a)) return b;
    return Add::make(a, b);
}

// a + sign * b, with at most one of them depending on a residue.
std::optional<Offsets> combine(const Offsets &a, const Offsets &b, int64_t sign) {
    if (a.modulus > 1 && b.modulus > 1) return std::nullopt;
    const Offsets &rows = a.modulus > 1 ? a : b;
    Offsets r;
    r.base = sign > 0 ? add_scalar(a.base, b.base)
                      : (is_const_zero(b.base) ? a.base : Sub::make(a.base, b.base));
    r.residue = rows.residue;
    r.modulus = rows.modulus;
    for (int m = 0; m < rows.modulus; m++) {
        const std::vector<int64_t> &oa = a.offsets[a.modulus > 1 ? m : 0];
        const std::vector<int64_t> &ob = b.offsets[b.modulus > 1 ? m : 0];
        std::vector<int64_t> row(oa.size());
        for (size_t i = 0; i < oa.size(); i++) row[i] = oa[i] + sign * ob[i];
        r.offsets.push_back(std::move(row));
    }
    return r;
}

std::optional<Offsets> analyze(const Expr &e) {
    Type t = e.type();
    if (!t.is_int() || t.is_scalar()) return std::nullopt;
    int lanes = t.lanes();
    if (const Ramp *ramp = e.as<Ramp>()) {
        const int64_t *stride = as_const_int(ramp->stride);
        if (!stride) return std::nullopt;
        Offsets r;
        r.base = ramp->base;
        r.offsets.emplace_back(lanes);
        for (int i = 0; i < lanes; i++) r.offsets[0][i] = *stride * i;
        return r;
    }
    if (const Broadcast *b = e.as<Broadcast>()) {
        Offsets r;
        r.base = b->value;
        r.offsets.emplace_back(lanes, 0);
        return r;
    }
    if (const Add *add = e.as<Add>()) {
        auto a = analyze(add->a), b = analyze(add->b);
        if (!a || !b) return std::nullopt;
        return combine(*a, *b, 1);
    }
    if (const Sub *sub = e.as<Sub>()) {
        auto a = analyze(sub->a), b = analyze(sub->b);
        if (!a || !b) return std::nullopt;
        return combine(*a, *b, -1);
    }
    if (const Mul *mul = e.as<Mul>()) {
        Expr v = mul->a;
        const int64_t *c = constant_factor(mul->b);
        if (!c) {
            v = mul->b;
            c = constant_factor(mul->a);
        }
        if (!c) return std::nullopt;
        auto a = analyze(v);
        if (!a) return std::nullopt;
        a->base = Mul::make(a->base, make_const(a->base.type(), *c));
        for (auto &row : a->offsets) {
            for (int64_t &o : row) o *= *c;
        }
        return a;
    }
    const Div *div = e.as<Div>();
    const Mod *mod = e.as<Mod>();
    if (div || mod) {
        const int64_t *k = constant_factor(div ? div->b : mod->b);
        if (!k || *k < 2 || *k > kMaxModulus) return std::nullopt;
        auto a = analyze(div ? div->a : mod->a);
        if (!a || a->modulus > 1) return std::nullopt;
        // base = q*k + r: lane i is q + floor((r + o_i) / k), or (r + o_i) mod k.
        Offsets r;
        Expr kc = make_const(a->base.type(), *k);
        r.base = div ? Div::make(a->base, kc) : make_zero(a->base.type());
        r.residue = Mod::make(a->base, kc);
        r.modulus = (int)*k;
        for (int64_t res = 0; res < *k; res++) {
            std::vector<int64_t> row;
            for (int64_t o : a->offsets[0]) {
                row.push_back(div ? floor_div(res + o, *k) : floor_mod(res + o, *k));
            }
            r.offsets.push_back(std::move(row));
        }
        return r;
    }
    return std::nullopt;
}

}  // namespace

std::optional<LaneOffsets> lane_offsets(const Expr &index) { return analyze(index); }

}  // namespace Internal
}  // namespace loom
