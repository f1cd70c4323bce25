#include "lower/FoldAllocationIndices.h"

#include <set>
#include <string>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

bool is_constant_index(const Expr &index) {
    if (is_const(index)) return true;
    const Ramp *ramp = index.as<Ramp>();
    return ramp && is_const(ramp->base) && is_const(ramp->stride);
}

// The index of a tile's read-out is a few lets deep (matmul's: the consumer's row and column,
// the tile's mins).
constexpr int kMaxDepth = 16;
constexpr size_t kMaxNodes = 200;

class FoldAllocationIndices : public LetTrackingMutator {
    using LetTrackingMutator::visit;

    // The allocations in scope whose extents are all constants.
    std::multiset<std::string> constant_size;

    Expr folded(const std::string &buffer, const Expr &index) {
        if (!constant_size.count(buffer) || is_constant_index(index)) return index;
        // One level of lets per round. Chains of lets that each use the one before several
        // times multiply in size when substituted (local_laplacian's pyramid indices): give up
        // on an index once it grows past kMaxNodes.
        Expr result = index;
        for (int depth = 0; depth < kMaxDepth && !is_constant_index(result); depth++) {
            Expr next = substitute(lets, result);
            if (next.same_as(result) || expr_larger_than(next, kMaxNodes)) return index;
            result = simplify(next);
        }
        return is_constant_index(result) ? result : index;
    }

    Stmt visit(const Allocate *op) override {
        bool constant = true;
        for (const Expr &e : op->extents)
            constant = constant && is_const(e);
        if (!constant) return IRMutator::visit(op);
        constant_size.insert(op->name);
        Stmt result = IRMutator::visit(op);
        constant_size.erase(constant_size.find(op->name));
        return result;
    }

    Expr visit(const Load *op) override {
        Expr index = folded(op->name, mutate(op->index));
        if (index.same_as(op->index)) return op;
        return Load::make(op->type, op->name, index);
    }

    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value);
        Expr index = folded(op->name, mutate(op->index));
        if (value.same_as(op->value) && index.same_as(op->index)) return op;
        return Store::make(op->name, value, index);
    }
};

} // namespace

Stmt fold_allocation_indices(const Stmt &s) { return FoldAllocationIndices().mutate(s); }

} // namespace Internal
} // namespace loom
