#include "lower/BoundGPUExtents.h"

#include <algorithm>
#include <vector>

#include "dsl/IROperator.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// How many bounding expressions each subexpression keeps: the choices multiply at sums, and
// an extent holds a few mins (one per GuardWithIf split and clamp on its way).
constexpr size_t kMaxChoices = 32;

void add_choice(std::vector<Expr> &choices, const Expr &e) {
    if (choices.size() < kMaxChoices) choices.push_back(e);
}

// Expressions each at least (upper) or at most (!upper) e: e itself first, then those with
// mins (maxes) replaced by one of their operands where the direction allows. The direction
// passes unchanged through sums, flips through a subtrahend or a negative factor; anything
// else is kept whole.
std::vector<Expr> bounding_choices(const Expr &e, bool upper) {
    std::vector<Expr> out{e};
    auto combine = [&](const std::vector<Expr> &as, const std::vector<Expr> &bs, auto make) {
        for (const Expr &a : as)
            for (const Expr &b : bs) {
                if (a.same_as(as[0]) && b.same_as(bs[0])) continue; // e itself, already there
                add_choice(out, make(a, b));
            }
    };
    if (const Add *op = e.as<Add>()) {
        combine(bounding_choices(op->a, upper), bounding_choices(op->b, upper),
                [](const Expr &a, const Expr &b) { return a + b; });
    } else if (const Sub *op = e.as<Sub>()) {
        combine(bounding_choices(op->a, upper), bounding_choices(op->b, !upper),
                [](const Expr &a, const Expr &b) { return a - b; });
    } else if (const Mul *op = e.as<Mul>()) {
        if (auto c = as_const_int(op->b)) {
            for (const Expr &a : bounding_choices(op->a, *c >= 0 ? upper : !upper))
                if (!a.same_as(op->a)) add_choice(out, a * op->b);
        }
    } else if (const Div *op = e.as<Div>()) {
        // Euclidean division by a positive constant keeps order.
        if (auto c = as_const_int(op->b); c && *c > 0) {
            for (const Expr &a : bounding_choices(op->a, upper))
                if (!a.same_as(op->a)) add_choice(out, a / op->b);
        }
    } else if (const Min *op = e.as<Min>()) {
        if (upper) {
            for (const Expr &a : bounding_choices(op->a, true))
                add_choice(out, a);
            for (const Expr &b : bounding_choices(op->b, true))
                add_choice(out, b);
        } else {
            combine(bounding_choices(op->a, false), bounding_choices(op->b, false),
                    [](const Expr &a, const Expr &b) { return min(a, b); });
        }
    } else if (const Max *op = e.as<Max>()) {
        if (!upper) {
            for (const Expr &a : bounding_choices(op->a, false))
                add_choice(out, a);
            for (const Expr &b : bounding_choices(op->b, false))
                add_choice(out, b);
        } else {
            combine(bounding_choices(op->a, true), bounding_choices(op->b, true),
                    [](const Expr &a, const Expr &b) { return max(a, b); });
        }
    }
    return out;
}

// `s` with `condition` guarding it inside the thread loops and lets it starts with: the
// thread loops of a nest are nested directly in one another (lower/ValidateGPULoops).
Stmt guard_inside_nest(const Stmt &s, const Expr &condition) {
    if (const LetStmt *l = s.as<LetStmt>()) {
        return LetStmt::make(l->name, l->value, guard_inside_nest(l->body, condition));
    }
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUThread) {
        return For::make(f->name, f->min, f->extent, f->for_type, f->device_api,
                         guard_inside_nest(f->body, condition));
    }
    return IfThenElse::make(condition, s, Stmt());
}

class BoundGPUExtents : public LetTrackingMutator {
    using LetTrackingMutator::visit;
    int kernel_depth = 0;

    std::optional<int64_t> bound_if_varying(const Expr &extent) {
        if (is_const(simplify_to_constant(extent, lets))) return std::nullopt;
        return constant_upper_bound(extent, lets);
    }

    Stmt visit(const For *op) override {
        const bool gpu = op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread;
        kernel_depth += gpu;
        Stmt s = LetTrackingMutator::visit(op);
        kernel_depth -= gpu;
        if (op->for_type != ForType::GPUThread) return s;
        const For *f = s.as<For>();
        std::optional<int64_t> bound = bound_if_varying(f->extent);
        if (!bound) return s;
        Stmt body =
            guard_inside_nest(f->body, Variable::make(Int(32), f->name) < f->min + f->extent);
        return For::make(f->name, f->min, make_const(Int(32), std::max<int64_t>(*bound, 1)),
                         f->for_type, f->device_api, body);
    }

    Stmt visit(const Realize *op) override {
        Stmt s = IRMutator::visit(op);
        if (kernel_depth == 0) return s;
        const Realize *r = s.as<Realize>();
        Region bounds = r->bounds;
        bool changed = false;
        for (Range &range : bounds) {
            if (std::optional<int64_t> bound = bound_if_varying(range.extent)) {
                range.extent = make_const(Int(32), std::max<int64_t>(*bound, 0));
                changed = true;
            }
        }
        return changed ? Realize::make(r->name, r->types, bounds, r->body) : s;
    }
};

} // namespace

std::optional<int64_t> constant_upper_bound(const Expr &e,
                                            const std::map<std::string, Expr> &lets) {
    // The lets substituted first: the mins to bound are often inside their values (a
    // consumer's tile end, clamped to the image).
    Expr whole = simplify_to_constant(e, lets);
    if (const int64_t *c = as_const_int(whole)) return *c;
    std::optional<int64_t> best;
    for (const Expr &choice : bounding_choices(whole, true)) {
        const Expr simplified = simplify(choice);
        if (const int64_t *c = as_const_int(simplified)) best = best ? std::min(*best, *c) : *c;
    }
    return best;
}

Stmt bound_gpu_extents(const Stmt &s) { return BoundGPUExtents().mutate(s); }

} // namespace Internal
} // namespace loom
