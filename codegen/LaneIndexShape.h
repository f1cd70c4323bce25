// The shapes of a vector index that codegen reads as per-lane constant offsets: one walk,
// shared by LaneOffsets (a base and a residue) and LaneClasses (a base per residue class).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dsl/IR.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {

/** a + sign * b for scalar bases, without adding a constant 0. */
inline Expr lane_base_sum(const Expr &a, const Expr &b, int64_t sign) {
    if (is_const_zero(b)) return a;
    if (sign > 0) return is_const_zero(a) ? b : Add::make(a, b);
    return Sub::make(a, b);
}

/** Divisors (and moduli) a lane index may use: up to this one, a row or class per residue. */
constexpr int64_t kMaxLaneDivisor = 8;

/** Walks an integer vector index built from Ramp (constant stride), Broadcast, Add, Sub,
 * multiplication by a constant and division or modulo by a constant in [2, kMaxLaneDivisor],
 * building a `Rep` bottom-up with `ops`:
 *   ops.leaf(scalar base, offsets per lane) -> Rep
 *   ops.combine(Rep a, Rep b, sign) -> optional<Rep>   (a + sign * b)
 *   ops.scale(Rep a, constant) -> Rep
 *   ops.divide(Rep a, divisor, is_modulo) -> optional<Rep>
 * Nothing for any other shape (a variable stride, a Select, a lookup...). */
template <typename Rep, typename Ops>
std::optional<Rep> walk_lane_index(const Expr &e, const Ops &ops) {
    Type t = e.type();
    if (!t.is_int() || t.is_scalar()) return std::nullopt;
    const int lanes = t.lanes();
    if (const Ramp *ramp = e.as<Ramp>()) {
        const int64_t *stride = as_const_int(ramp->stride);
        if (!stride) return std::nullopt;
        std::vector<int64_t> offsets(lanes);
        for (int i = 0; i < lanes; i++)
            offsets[i] = *stride * i;
        return ops.leaf(ramp->base, std::move(offsets));
    }
    if (const Broadcast *b = e.as<Broadcast>())
        return ops.leaf(b->value, std::vector<int64_t>(lanes, 0));
    const Add *add = e.as<Add>();
    const Sub *sub = e.as<Sub>();
    if (add || sub) {
        auto a = walk_lane_index<Rep>(add ? add->a : sub->a, ops);
        auto b = walk_lane_index<Rep>(add ? add->b : sub->b, ops);
        if (!a || !b) return std::nullopt;
        return ops.combine(*a, *b, add ? 1 : -1);
    }
    if (const Mul *mul = e.as<Mul>()) {
        const int64_t *c = as_const_int(mul->b);
        const Expr &v = c ? mul->a : mul->b;
        if (!c) c = as_const_int(mul->a);
        if (!c) return std::nullopt;
        auto a = walk_lane_index<Rep>(v, ops);
        if (!a) return std::nullopt;
        return ops.scale(*a, *c);
    }
    const Div *div = e.as<Div>();
    const Mod *mod = e.as<Mod>();
    if (div || mod) {
        const int64_t *k = as_const_int(div ? div->b : mod->b);
        if (!k || *k < 2 || *k > kMaxLaneDivisor) return std::nullopt;
        auto a = walk_lane_index<Rep>(div ? div->a : mod->a, ops);
        if (!a) return std::nullopt;
        return ops.divide(*a, *k, mod != nullptr);
    }
    return std::nullopt;
}

} // namespace Internal
} // namespace loom
