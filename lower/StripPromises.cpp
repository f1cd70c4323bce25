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

} // namespace

Stmt strip_promises(const Stmt &s) { return StripPromises().mutate(s); }

} // namespace Internal
} // namespace loom
