#include "codegen/LaneClasses.h"

#include <map>

#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace {

constexpr int64_t kMaxDivisor = 8;

int64_t floor_mod(int64_t a, int64_t k) {
    int64_t m = a % k;
    return m < 0 ? m + k : m;
}

Expr add_scalar(const Expr &a, const Expr &b, int64_t sign) {
    if (is_const_zero(b)) return a;
    if (sign > 0) return is_const_zero(a) ? b : Add::make(a, b);
    return Sub::make(a, b);
}

struct Analysis {
    LaneClasses classes;
    bool divided = false; // a division made the classes
};

// a + sign * b, with at most one of them divided into several classes.
std::optional<Analysis> combine(const Analysis &a, const Analysis &b, int64_t sign) {
    if (a.classes.bases.size() > 1 && b.classes.bases.size() > 1) return std::nullopt;
    const bool a_rows = a.classes.bases.size() > 1;
    const LaneClasses &many = a_rows ? a.classes : b.classes, &one = a_rows ? b.classes : a.classes;
    Analysis r;
    r.divided = a.divided || b.divided;
    for (const Expr &base : many.bases) {
        r.classes.bases.push_back(a_rows ? add_scalar(base, one.bases[0], sign)
                                         : add_scalar(one.bases[0], base, sign));
    }
    r.classes.lane_class = many.lane_class;
    for (size_t i = 0; i < many.offsets.size(); i++) {
        const int64_t oa = a.classes.offsets[i], ob = b.classes.offsets[i];
        r.classes.offsets.push_back(oa + sign * ob);
    }
    return r;
}

Analysis single(const Expr &base, std::vector<int64_t> offsets) {
    Analysis r;
    r.classes.bases = {base};
    r.classes.lane_class.assign(offsets.size(), 0);
    r.classes.offsets = std::move(offsets);
    return r;
}

std::optional<Analysis> analyze(const Expr &e) {
    Type t = e.type();
    if (!t.is_int() || t.is_scalar()) return std::nullopt;
    const int lanes = t.lanes();
    if (const Ramp *ramp = e.as<Ramp>()) {
        const int64_t *stride = as_const_int(ramp->stride);
        if (!stride) return std::nullopt;
        std::vector<int64_t> offsets(lanes);
        for (int i = 0; i < lanes; i++)
            offsets[i] = *stride * i;
        return single(ramp->base, offsets);
    }
    if (const Broadcast *b = e.as<Broadcast>())
        return single(b->value, std::vector<int64_t>(lanes, 0));
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
        const int64_t *c = as_const_int(mul->b);
        Expr v = c ? mul->a : mul->b;
        if (!c) c = as_const_int(mul->a);
        if (!c) return std::nullopt;
        auto a = analyze(v);
        if (!a) return std::nullopt;
        for (Expr &base : a->classes.bases)
            base = Mul::make(base, make_const(base.type(), *c));
        for (int64_t &o : a->classes.offsets)
            o *= *c;
        return a;
    }
    if (const Div *div = e.as<Div>()) {
        const int64_t *k = as_const_int(div->b);
        if (!k || *k < 2 || *k > kMaxDivisor) return std::nullopt;
        auto a = analyze(div->a);
        if (!a || a->classes.bases.size() > 1) return std::nullopt;
        const Expr &b = a->classes.bases[0];
        Expr kc = make_const(b.type(), *k);
        Analysis r;
        r.divided = true;
        std::map<int64_t, int> class_of_residue;
        for (int64_t o : a->classes.offsets) {
            const int64_t s = floor_mod(o, *k);
            auto [it, fresh] = class_of_residue.emplace(s, (int)r.classes.bases.size());
            if (fresh)
                r.classes.bases.push_back(Div::make(add_scalar(b, make_const(b.type(), s), 1), kc));
            r.classes.lane_class.push_back(it->second);
            r.classes.offsets.push_back((o - s) / *k);
        }
        return r;
    }
    return std::nullopt;
}

} // namespace

std::optional<LaneClasses> lane_classes(const Expr &index) {
    std::optional<Analysis> a = analyze(index);
    if (!a || !a->divided) return std::nullopt;
    return a->classes;
}

} // namespace Internal
} // namespace loom
