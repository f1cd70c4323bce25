#include "lower/ConstantBounds.h"

#include <algorithm>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {

namespace {

// Only integers of at most 32 bits are reached: a cast from anything else gives its own
// type's range without looking inside, and every other node has its operands' type.
ConstantRange type_range(Type t) {
    internal_assert(t.is_int_or_uint() && t.bits() <= 32) << "constant_range reached " << t;
    if (t.is_uint()) return {0, (int64_t)((uint64_t(1) << t.bits()) - 1)};
    return {-(int64_t(1) << (t.bits() - 1)), (int64_t(1) << (t.bits() - 1)) - 1};
}

bool fits(const ConstantRange &r, Type t) {
    ConstantRange all = type_range(t);
    return r.min >= all.min && r.max <= all.max;
}

// The range of an exact result, or the type's where it may wrap.
ConstantRange within(Type t, int64_t lo, int64_t hi) {
    ConstantRange r{lo, hi};
    return fits(r, t) ? r : type_range(t);
}

class RangeOf {
public:
    ConstantRange of(const Expr &e) {
        const Type t = e.type();
        if (const int64_t *i = as_const_int(e)) return {*i, *i};
        if (const uint64_t *u = as_const_uint(e); u && *u <= (uint64_t)INT64_MAX) {
            return {(int64_t)*u, (int64_t)*u};
        }
        if (const Broadcast *b = e.as<Broadcast>()) return of(b->value);
        if (const Variable *v = e.as<Variable>()) {
            const ConstantRange *bound = lets.find(v->name);
            return bound ? *bound : type_range(t);
        }
        if (const Let *l = e.as<Let>()) {
            if (!l->value.type().is_int_or_uint() || l->value.type().bits() > 32)
                return of(l->body);
            ScopedBinding<ConstantRange> bind(lets, l->name, of(l->value));
            return of(l->body);
        }
        if (const Cast *c = e.as<Cast>()) {
            Type from = c->value.type();
            if (!from.is_int_or_uint() || from.bits() > 32) return type_range(t);
            ConstantRange v = of(c->value);
            return fits(v, t) ? v : type_range(t);
        }
        if (const Add *a = e.as<Add>()) {
            ConstantRange x = of(a->a), y = of(a->b);
            return within(t, x.min + y.min, x.max + y.max);
        }
        if (const Sub *s = e.as<Sub>()) {
            ConstantRange x = of(s->a), y = of(s->b);
            return within(t, x.min - y.max, x.max - y.min);
        }
        if (const Mul *m = e.as<Mul>()) {
            // 128-bit products: two 32-bit ranges' corners reach 2^64.
            ConstantRange x = of(m->a), y = of(m->b);
            __int128 p[4] = {(__int128)x.min * y.min, (__int128)x.min * y.max,
                             (__int128)x.max * y.min, (__int128)x.max * y.max};
            __int128 lo = *std::min_element(p, p + 4), hi = *std::max_element(p, p + 4);
            if (lo < INT64_MIN / 4 || hi > INT64_MAX / 4) return type_range(t);
            return within(t, (int64_t)lo, (int64_t)hi);
        }
        if (const Div *d = e.as<Div>()) {
            ConstantRange x = of(d->a), y = of(d->b);
            // A positive divisor: the quotient (floored, as Loom divides) grows with x.
            if (y.min > 0) {
                int64_t q[4] = {floor_div(x.min, y.min), floor_div(x.min, y.max),
                                floor_div(x.max, y.min), floor_div(x.max, y.max)};
                return within(t, *std::min_element(q, q + 4), *std::max_element(q, q + 4));
            }
            return type_range(t);
        }
        if (const Mod *m = e.as<Mod>()) {
            ConstantRange x = of(m->a), y = of(m->b);
            if (y.min > 0) {
                if (x.min >= 0 && x.max < y.min) return x;
                return {0, y.max - 1};
            }
            return type_range(t);
        }
        if (const Min *m = e.as<Min>()) {
            ConstantRange x = of(m->a), y = of(m->b);
            return {std::min(x.min, y.min), std::min(x.max, y.max)};
        }
        if (const Max *m = e.as<Max>()) {
            ConstantRange x = of(m->a), y = of(m->b);
            return {std::max(x.min, y.min), std::max(x.max, y.max)};
        }
        if (const Select *s = e.as<Select>()) {
            ConstantRange x = of(s->true_value), y = of(s->false_value);
            return {std::min(x.min, y.min), std::max(x.max, y.max)};
        }
        if (const Call *c = e.as<Call>()) {
            if (c->is_intrinsic(Call::likely) || c->is_intrinsic(Call::promise_clamped) ||
                c->is_intrinsic(Call::rounded_up) || c->is_intrinsic(Call::memoize_tag)) {
                return of(c->args[0]);
            }
            if (c->is_intrinsic(Call::bitwise_and)) {
                // Masking by a value that is never negative gives at most that value.
                ConstantRange x = of(c->args[0]), y = of(c->args[1]);
                if (x.min >= 0 && y.min >= 0) return {0, std::min(x.max, y.max)};
                if (y.min >= 0) return {0, y.max};
                if (x.min >= 0) return {0, x.max};
                return type_range(t);
            }
            if (c->is_intrinsic(Call::shift_right)) {
                ConstantRange x = of(c->args[0]), k = of(c->args[1]);
                if (x.min >= 0 && k.min == k.max && k.min >= 0 && k.min < 63) {
                    return {x.min >> k.min, x.max >> k.min};
                }
                return type_range(t);
            }
        }
        return type_range(t);
    }

private:
    Scope<ConstantRange> lets;
};

} // namespace

ConstantRange constant_range(const Expr &e) {
    internal_assert(e.type().is_int_or_uint() && e.type().bits() <= 32)
        << "constant_range of " << e.type() << ", which is not an integer of at most 32 bits";
    return RangeOf().of(e);
}

namespace {

using VariableRange = std::function<std::optional<ConstantRange>(const std::string &)>;

std::optional<ConstantRange> range_over(const Expr &e, const VariableRange &variable_range,
                                        int depth) {
    if (e.type() != Int(32)) return std::nullopt;
    if (const int64_t *c = as_const_int(e)) return ConstantRange{*c, *c};
    if (const Variable *v = e.as<Variable>()) return variable_range(v->name);
    if (depth > 6) return std::nullopt;
    auto of = [&](const Expr &x) { return range_over(x, variable_range, depth + 1); };
    auto in_int32 = [](int64_t lo, int64_t hi) -> std::optional<ConstantRange> {
        if (lo < INT32_MIN || hi > INT32_MAX) return std::nullopt;
        return ConstantRange{lo, hi};
    };
    // Integer division rounds down (Halide's semantics): monotonic for a positive divisor.
    auto floor_div = [](int64_t a, int64_t b) { return a / b - (a % b != 0 && a < 0); };
    const Expr *a = nullptr, *b = nullptr;
    if (const Add *op = e.as<Add>()) a = &op->a, b = &op->b;
    if (const Sub *op = e.as<Sub>()) a = &op->a, b = &op->b;
    if (const Min *op = e.as<Min>()) a = &op->a, b = &op->b;
    if (const Max *op = e.as<Max>()) a = &op->a, b = &op->b;
    if (a) {
        std::optional<ConstantRange> ra = of(*a);
        std::optional<ConstantRange> rb = ra ? of(*b) : std::nullopt;
        if (!rb) return std::nullopt;
        if (e.as<Add>()) return in_int32(ra->min + rb->min, ra->max + rb->max);
        if (e.as<Sub>()) return in_int32(ra->min - rb->max, ra->max - rb->min);
        if (e.as<Min>())
            return ConstantRange{std::min(ra->min, rb->min), std::min(ra->max, rb->max)};
        return ConstantRange{std::max(ra->min, rb->min), std::max(ra->max, rb->max)};
    }
    if (const Mul *op = e.as<Mul>()) {
        const int64_t *c = as_const_int(op->b);
        std::optional<ConstantRange> r = c ? of(op->a) : std::nullopt;
        if (r)
            return in_int32(std::min(r->min * *c, r->max * *c), std::max(r->min * *c, r->max * *c));
    } else if (const Div *op = e.as<Div>()) {
        const int64_t *c = as_const_int(op->b);
        std::optional<ConstantRange> r = c && *c > 0 ? of(op->a) : std::nullopt;
        if (r) return ConstantRange{floor_div(r->min, *c), floor_div(r->max, *c)};
    } else if (const Mod *op = e.as<Mod>()) {
        const int64_t *c = as_const_int(op->b);
        if (c && *c > 0) return ConstantRange{0, *c - 1};
    }
    return std::nullopt;
}

} // namespace

std::optional<ConstantRange> constant_range_over(const Expr &e,
                                                 const VariableRange &variable_range) {
    return range_over(e, variable_range, 0);
}

} // namespace Internal
} // namespace loom
