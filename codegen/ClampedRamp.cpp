#include "codegen/ClampedRamp.h"

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// The scalar value of a Broadcast, or undefined.
Expr broadcast_value(const Expr &e) {
    const Broadcast *b = e.as<Broadcast>();
    return b ? b->value : Expr();
}

// A Ramp with a constant, nonzero stride, or null.
const Ramp *constant_stride_ramp(const Expr &e) {
    const Ramp *r = e.as<Ramp>();
    if (!r) return nullptr;
    const int64_t *stride = as_const_int(r->stride);
    return stride && *stride != 0 ? r : nullptr;
}

// Replaces the first clamp of a ramp it meets (in the order Add, Sub, Mul visit their
// operands) with the ramp, and records its bounds. Later clamps are left as they are: each
// load tests one edge condition, and the dense path of the rewritten index is searched again.
class ReplaceFirstClamp : public IRMutator {
public:
    /** What the clamp becomes: its ramp, or its lower or upper bound in every lane. */
    enum class By { Ramp, Lo, Hi };
    explicit ReplaceFirstClamp(By by) : by(by) {}

    const Ramp *ramp = nullptr;
    Expr lo, hi;

private:
    using IRMutator::visit;

    // outer(inner(ramp, a), b) with inner, outer one of min/max each: returns the ramp and
    // sets lo/hi when the pair is a clamp.
    template <typename Outer, typename Inner> Expr match(const Outer *op) {
        for (const Expr *inner_side : {&op->a, &op->b}) {
            const Expr &other = inner_side == &op->a ? op->b : op->a;
            const Inner *inner = inner_side->template as<Inner>();
            Expr outer_bound = broadcast_value(other);
            if (!inner || !outer_bound.defined()) continue;
            for (const Expr *ramp_side : {&inner->a, &inner->b}) {
                const Expr &bound = ramp_side == &inner->a ? inner->b : inner->a;
                const Ramp *r = constant_stride_ramp(*ramp_side);
                Expr inner_bound = broadcast_value(bound);
                if (!r || !inner_bound.defined()) continue;
                ramp = r;
                // max(min(r, hi), lo) and min(max(r, lo), hi).
                bool min_inside = std::is_same<Inner, Min>::value;
                lo = min_inside ? outer_bound : inner_bound;
                hi = min_inside ? inner_bound : outer_bound;
                if (by == By::Lo) return Broadcast::make(lo, r->lanes);
                if (by == By::Hi) return Broadcast::make(hi, r->lanes);
                return *ramp_side;
            }
        }
        return Expr();
    }

    Expr visit(const Max *op) override {
        if (ramp) return op;
        Expr r = match<Max, Min>(op);
        return r.defined() ? r : IRMutator::visit(op);
    }
    Expr visit(const Min *op) override {
        if (ramp) return op;
        Expr r = match<Min, Max>(op);
        return r.defined() ? r : IRMutator::visit(op);
    }
    // Only through index arithmetic: a clamp under a Load, Select or Call is not the index's.
    Expr visit(const Load *op) override { return op; }
    Expr visit(const Select *op) override { return op; }
    Expr visit(const Call *op) override { return op; }
    Expr visit(const Let *op) override { return op; }

    By by;
};

} // namespace

namespace {

// Replaces every clamped ramp of every vector load's index with its ramp, collecting the
// conditions (without repeats) under which that leaves the load as it is.
class UnclampLoads : public IRMutator {
public:
    std::vector<Expr> conditions;
    bool has_let = false;

private:
    using IRMutator::visit;
    Expr visit(const Let *op) override {
        has_let = true;
        return op;
    }
    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        if (!index.type().is_vector()) return index.same_as(op->index) ? Expr(op) : Load::make(op->type, op->name, index);
        while (std::optional<ClampedRamp> c = find_clamped_ramp(index)) {
            Expr condition = simplify(c->all_lanes_inside);
            bool seen = false;
            for (const Expr &e : conditions) seen = seen || deep_equal(e, condition);
            if (!seen) conditions.push_back(condition);
            index = c->unclamped_index;
        }
        return Load::make(op->type, op->name, index);
    }
};

} // namespace

std::optional<UnclampedStore> unclamp_loads(const Store *store) {
    if (!store->value.type().is_vector()) return std::nullopt;
    UnclampLoads unclamp;
    Expr value = unclamp.mutate(store->value);
    if (unclamp.has_let || unclamp.conditions.size() < 2) return std::nullopt;
    Expr all_inside = unclamp.conditions[0];
    for (size_t i = 1; i < unclamp.conditions.size(); i++)
        all_inside = all_inside && unclamp.conditions[i];
    return UnclampedStore{all_inside, Store::make(store->name, value, store->index)};
}

std::optional<ClampedRamp> find_clamped_ramp(const Expr &index) {
    if (!index.type().is_vector()) return std::nullopt;
    ReplaceFirstClamp replace(ReplaceFirstClamp::By::Ramp);
    Expr unclamped = replace.mutate(index);
    if (!replace.ramp) return std::nullopt;
    const Ramp *r = replace.ramp;
    const int64_t span = *as_const_int(r->stride) * (r->lanes - 1);
    Expr first = r->base;
    Expr last = r->base + make_const(r->base.type(), span);
    if (span < 0) std::swap(first, last);
    const Expr &lo = replace.lo, &hi = replace.hi;
    ClampedRamp result{lo <= first && last <= hi, unclamped, Expr(), Expr()};
    // With lo <= hi, a lane at or below lo clamps to lo whichever of min and max is outside,
    // and one at or above hi to hi. Where the rest of the index is a broadcast too, a vector
    // all on one side reads one element.
    Expr lo_index = simplify(ReplaceFirstClamp(ReplaceFirstClamp::By::Lo).mutate(index));
    Expr hi_index = simplify(ReplaceFirstClamp(ReplaceFirstClamp::By::Hi).mutate(index));
    const Broadcast *lo_element = lo_index.as<Broadcast>(), *hi_element = hi_index.as<Broadcast>();
    if (lo_element && hi_element) {
        Expr below = last <= lo;
        result.all_lanes_outside = lo <= hi && (below || hi <= first);
        result.outside_index =
            Broadcast::make(select(below, lo_element->value, hi_element->value), r->lanes);
    }
    return result;
}

} // namespace Internal
} // namespace loom
