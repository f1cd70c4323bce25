#include "lower/PruneEmptyLoops.h"

#include "dsl/IROperator.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

// A tail's extent is a few lets deep (the loop's extent, the dimension's, the region's min and
// max), ~100 nodes with them all substituted.
constexpr size_t kMaxNodes = 200;

class PruneEmptyLoops : public LetTrackingMutator {
public:
    explicit PruneEmptyLoops(const std::map<std::string, Expr> &region_lets)
        : LetTrackingMutator(region_lets) {}

private:
    using LetTrackingMutator::visit;

    bool never_runs(const Expr &extent) {
        std::optional<int64_t> c = const_int_value(simplify_to_constant(extent, lets, kMaxNodes));
        return c && *c <= 0;
    }

    // A production nested in this one had its empty loops dropped when its own region was
    // found, and walking it again at every level around it would be quadratic in the depth.
    Stmt visit(const ProducerConsumer *op) override {
        if (op->is_producer && nested_production) return op;
        nested_production = nested_production || op->is_producer;
        return IRMutator::visit(op);
    }
    bool nested_production = false;

    // Only a clamped extent is tried (a GuardWithIf split's tails: min(what the outer loop has
    // left, 1), min(factor, what the dimension has left)); a loop over a whole dimension of the
    // region runs wherever the region is not empty (interpolate's 79 such loops, tried: its
    // lowering +2%).
    Stmt visit(const For *op) override {
        if (op->extent.as<Min>() && never_runs(op->extent)) return Evaluate::make(0);
        return LetTrackingMutator::visit(op);
    }
};

} // namespace

Stmt prune_empty_loops(const Stmt &s, const std::map<std::string, Expr> &region_lets) {
    return PruneEmptyLoops(region_lets).mutate(s);
}

} // namespace Internal
} // namespace loom
