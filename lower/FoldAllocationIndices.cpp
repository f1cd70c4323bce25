#include "lower/FoldAllocationIndices.h"

#include <string>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
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

// Whether each allocation in scope has extents that are all constants (the innermost of a
// name decides: an inner allocation may take an outer one's name).
enum class Extents { Constant, Variable };
using ConstantSizeAllocations = Scope<Extents>;

bool has_constant_size(const ConstantSizeAllocations &allocations, const std::string &name) {
    const Extents *extents = allocations.find(name);
    return extents && *extents == Extents::Constant;
}

Extents extents_of(const Allocate *op) {
    for (const Expr &e : op->extents) {
        if (!is_const(e)) return Extents::Variable;
    }
    return Extents::Constant;
}

// The index of a tile's read-out is a few lets deep (matmul's: the consumer's row and column,
// the tile's mins).
constexpr int kMaxDepth = 16;
constexpr size_t kMaxNodes = 200;

class FoldAllocationIndices : public LetTrackingMutator {
    using LetTrackingMutator::visit;

    // The allocations in scope whose extents are all constants.
    ConstantSizeAllocations constant_size;

    Expr folded(const std::string &buffer, const Expr &index) {
        if (!has_constant_size(constant_size, buffer) || is_constant_index(index)) return index;
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
        ScopedBinding<Extents> in_scope(constant_size, op->name, extents_of(op));
        return IRMutator::visit(op);
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

// The names of the constant-size allocations a statement reads or writes at an index that
// uses `var`.
class IndexesTileBy : public IRVisitor {
public:
    IndexesTileBy(const ConstantSizeAllocations &constant_size, const std::string &var)
        : constant_size(constant_size), var(var) {}
    bool found = false;

private:
    const ConstantSizeAllocations &constant_size;
    const std::string &var;
    using IRVisitor::visit;
    void check(const std::string &buffer, const Expr &index) {
        found = found || (has_constant_size(constant_size, buffer) && !is_constant_index(index) &&
                          expr_uses_var(index, var));
    }
    void visit(const Load *op) override {
        check(op->name, op->index);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        check(op->name, op->index);
        IRVisitor::visit(op);
    }
};

// The indices of the constant-size allocations, simplified.
class SimplifyTileIndices : public IRMutator {
public:
    explicit SimplifyTileIndices(const ConstantSizeAllocations &constant_size)
        : constant_size(constant_size) {}

private:
    const ConstantSizeAllocations &constant_size;
    using IRMutator::visit;
    Expr visit(const Load *op) override {
        Expr index = mutate(op->index);
        if (has_constant_size(constant_size, op->name)) index = simplify(index);
        if (index.same_as(op->index)) return op;
        return Load::make(op->type, op->name, index);
    }
    Stmt visit(const Store *op) override {
        Expr value = mutate(op->value), index = mutate(op->index);
        if (has_constant_size(constant_size, op->name)) index = simplify(index);
        if (value.same_as(op->value) && index.same_as(op->index)) return op;
        return Store::make(op->name, value, index);
    }
};

// A loop of constant extent from a variable min whose body indexes a constant-size allocation
// by its variable (a Func computed per point of its consumer over a few points around it:
// `for (g.s0.x, f.s0.x - 1, 2)` storing g[(g.s0.x - f.s0.x) + 1]) runs from 0 instead, its
// variable plus the min substituted in the body, so that those indices simplify to the loop
// variables plus constants. Once LLVM unrolls the loop they are constants, and the tile
// becomes registers; with the min, each index stayed a sum of separately extended 32-bit
// terms, which LLVM cannot cancel, and the tile stayed on the stack (fuzz seed 2026 pair 219:
// an argmax over 2 x 2 points per pixel, 5x Halide's time).
class RebaseLoopsIndexingTiles : public IRMutator {
    using IRMutator::visit;

    ConstantSizeAllocations constant_size;

    Stmt visit(const Allocate *op) override {
        ScopedBinding<Extents> in_scope(constant_size, op->name, extents_of(op));
        return IRMutator::visit(op);
    }

    bool indexes_tile(const Stmt &body, const std::string &var) const {
        IndexesTileBy uses(constant_size, var);
        body.accept(&uses);
        return uses.found;
    }

    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        const bool rebase = !is_const(op->min) && is_const(op->extent) &&
                            op->for_type == ForType::Serial && indexes_tile(body, op->name);
        if (!rebase) {
            if (body.same_as(op->body)) return op;
            return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
        }
        Expr var = Variable::make(Int(32), op->name);
        body = SimplifyTileIndices(constant_size).mutate(substitute(op->name, var + op->min, body));
        return For::make(op->name, make_zero(Int(32)), op->extent, op->for_type, op->device_api,
                         body);
    }
};

} // namespace

Stmt fold_allocation_indices(const Stmt &s) {
    return FoldAllocationIndices().mutate(RebaseLoopsIndexingTiles().mutate(s));
}

} // namespace Internal
} // namespace loom
