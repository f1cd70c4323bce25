#include "lower/StripPromises.h"

#include "dsl/IRMutator.h"

namespace loom {
namespace Internal {

namespace {

class StripPromises : public IRMutator {
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::promise_clamped) || op->is_intrinsic(Call::rounded_up))
            return mutate(op->args[0]);
        return IRMutator::visit(op);
    }
};

class StripMemoizeTags : public IRMutator {
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::memoize_tag)) return mutate(op->args[0]);
        return IRMutator::visit(op);
    }
};

} // namespace

Stmt strip_promises(const Stmt &s) { return StripPromises().mutate(s); }

Stmt strip_memoize_tags(const Stmt &s) { return StripMemoizeTags().mutate(s); }

} // namespace Internal
} // namespace loom
