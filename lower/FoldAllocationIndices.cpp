#include "lower/FoldAllocationIndices.h"

#include <map>
#include <set>
#include <string>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

bool is_constant_index(const Expr &index) {
    if (is_const(index)) return true;
    const Ramp *ramp = index.as<Ramp>();
    return ramp && is_const(ramp->base) && is_const(ramp->stride);
}

// Whether e has more than `limit` nodes (counting stops there).
bool larger_than(const Expr &e, size_t limit) {
    class Count : public IRVisitor {
    public:
        explicit Count(size_t limit) : limit(limit) {}
        size_t nodes = 0;

    private:
        size_t limit;
        using IRVisitor::visit;
#define LOOM_COUNT_NODE(T)                                                                         \
    void visit(const T *op) override {                                                             \
        if (++nodes <= limit) IRVisitor::visit(op);                                                \
    }
        LOOM_FOR_EACH_IR_EXPR(LOOM_COUNT_NODE)
#undef LOOM_COUNT_NODE
    } count(limit);
    e.accept(&count);
    return count.nodes > limit;
}

// The index of a tile's read-out is a few lets deep (matmul's: the consumer's row and column,
// the tile's mins).
constexpr int kMaxDepth = 16;
constexpr size_t kMaxNodes = 200;

class FoldAllocationIndices : public IRMutator {
    using IRMutator::visit;

    // Name -> value of the enclosing lets that are safe to substitute (see hide_lets_using).
    std::map<std::string, Expr> lets;
    // The allocations in scope whose extents are all constants.
    std::multiset<std::string> constant_size;
    // The names the enclosing lets and loops bind.
    std::multiset<std::string> bound;

    Expr folded(const std::string &buffer, const Expr &index) {
        if (!constant_size.count(buffer) || is_constant_index(index)) return index;
        // One level of lets per round. Chains of lets that each use the one before several
        // times multiply in size when substituted (local_laplacian's pyramid indices): give up
        // on an index once it grows past kMaxNodes.
        Expr result = index;
        for (int depth = 0; depth < kMaxDepth && !is_constant_index(result); depth++) {
            Expr next = substitute(lets, result);
            if (next.same_as(result) || larger_than(next, kMaxNodes)) return index;
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

    // Substituting the map's values one level at a time is right only while every name in it
    // means what it meant where each value was bound. A let or loop that binds a name again
    // makes stale the let of that name and the enclosing lets whose values use it (directly or
    // through another let): they are taken out of the map for its body and returned, to be
    // put back after it.
    // Only a name an enclosing let or loop binds is looked for (lowering binds no let or loop
    // by the name of a pipeline parameter), so that the common case costs a lookup.
    std::vector<std::pair<std::string, Expr>> hide_lets_using(const std::string &rebound) {
        if (!bound.count(rebound)) return {};
        std::set<std::string> stale = {rebound};
        for (bool grew = true; grew;) {
            grew = false;
            for (const auto &[name, value] : lets) {
                if (stale.count(name)) continue;
                for (const std::string &s : stale) {
                    if (expr_uses_var(value, s)) {
                        stale.insert(name);
                        grew = true;
                        break;
                    }
                }
            }
        }
        std::vector<std::pair<std::string, Expr>> hidden;
        for (const std::string &name : stale) {
            auto it = lets.find(name);
            if (it == lets.end()) continue;
            hidden.emplace_back(name, it->second);
            lets.erase(it);
        }
        return hidden;
    }

    void put_back(std::vector<std::pair<std::string, Expr>> &hidden) {
        for (auto &[name, value] : hidden)
            lets[name] = std::move(value);
    }

    // A let whose value uses its own name (x = x + 1) is not entered at all.
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        std::vector<std::pair<std::string, Expr>> hidden = hide_lets_using(op->name);
        const bool entered = !expr_uses_var(op->value, op->name);
        if (entered) lets[op->name] = op->value;
        bound.insert(op->name);
        Stmt body = mutate(op->body);
        bound.erase(bound.find(op->name));
        if (entered) lets.erase(op->name);
        put_back(hidden);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }

    Stmt visit(const For *op) override {
        Expr min = mutate(op->min), extent = mutate(op->extent);
        std::vector<std::pair<std::string, Expr>> hidden = hide_lets_using(op->name);
        bound.insert(op->name);
        Stmt body = mutate(op->body);
        bound.erase(bound.find(op->name));
        put_back(hidden);
        if (min.same_as(op->min) && extent.same_as(op->extent) && body.same_as(op->body)) {
            return op;
        }
        return For::make(op->name, min, extent, op->for_type, op->device_api, body);
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
