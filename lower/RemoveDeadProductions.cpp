#include "lower/RemoveDeadProductions.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dsl/IRMutator.h"
#include "lower/BufferAccessVisitor.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

// Who stores into and reads each buffer, by the productions around each access.
class FindAccesses : public BufferAccessVisitor {
public:
    std::set<std::string> allocated;
    // The innermost production around each store into a buffer ("" where there is none).
    std::map<std::string, std::set<std::string>> writers;
    // The buffers each production stores into directly (not in a production inside it).
    std::map<std::string, std::set<std::string>> writes;
    // The stacks of productions met, outermost first, each once; reads name them by index.
    std::vector<std::vector<std::string>> stacks{{}};
    // The stacks of productions around the reads of each buffer.
    std::map<std::string, std::set<size_t>> reads;
    // The productions holding an assertion or a call with an effect.
    std::set<std::string> with_effects;

private:
    using BufferAccessVisitor::visit;
    std::vector<std::string> productions;  // enclosing productions, outermost first
    size_t stack = 0;                      // productions' index in stacks
    std::map<std::pair<size_t, std::string>, size_t> child_stacks;

    void visit(const ProducerConsumer *op) override {
        if (!op->is_producer) {
            IRVisitor::visit(op);
            return;
        }
        const size_t outer = stack;
        productions.push_back(op->name);
        auto [it, added] = child_stacks.emplace(std::make_pair(outer, op->name), stacks.size());
        if (added) stacks.push_back(productions);
        stack = it->second;
        IRVisitor::visit(op);
        stack = outer;
        productions.pop_back();
    }

    void visit(const Allocate *op) override {
        allocated.insert(op->name);
        IRVisitor::visit(op);
    }

    void stored(const std::string &buffer) override {
        const std::string innermost = productions.empty() ? std::string() : productions.back();
        writers[buffer].insert(innermost);
        if (!innermost.empty()) writes[innermost].insert(buffer);
    }

    void read(const std::string &buffer) override { reads[buffer].insert(stack); }

    void effect() override { with_effects.insert(productions.begin(), productions.end()); }
};

// The greatest set of productions that can go: each stores only into allocated buffers, holds
// no effect, and every read of its buffers lies in itself (or another writer of the buffer)
// or in a production of the set.
std::set<std::string> dead_productions(const FindAccesses &a) {
    std::set<std::string> dead;
    for (const auto &[production, buffers] : a.writes) {
        bool candidate = !a.with_effects.count(production);
        for (const std::string &b : buffers) candidate = candidate && a.allocated.count(b);
        if (candidate) dead.insert(production);
    }
    // Each pass finds a live read and keeps its buffer's writers; the set only shrinks.
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto &[buffer, stacks] : a.reads) {
            auto w = a.writers.find(buffer);
            if (w == a.writers.end()) continue;  // a let, a loop variable, an input
            for (size_t stack : stacks) {
                bool inside_dead_or_writer = false;
                for (const std::string &p : a.stacks[stack]) {
                    inside_dead_or_writer = inside_dead_or_writer || dead.count(p) || w->second.count(p);
                }
                if (inside_dead_or_writer) continue;
                for (const std::string &writer : w->second) changed = dead.erase(writer) || changed;
            }
        }
    }
    return dead;
}

class RemoveDeadProductions : public IRMutator {
public:
    RemoveDeadProductions(const FindAccesses &accesses, const std::set<std::string> &dead) {
        // A buffer goes when every production storing into it goes.
        for (const auto &[buffer, writers] : accesses.writers) {
            bool all_dead = true;
            for (const std::string &w : writers) all_dead = all_dead && dead.count(w);
            if (all_dead && accesses.allocated.count(buffer)) removed_buffers.insert(buffer);
        }
        this->dead = dead;
    }

private:
    std::set<std::string> dead, removed_buffers;

    Stmt visit(const ProducerConsumer *op) override {
        if (!dead.count(op->name)) return IRMutator::visit(op);
        return op->is_producer ? make_no_op() : mutate(op->body);
    }

    Stmt visit(const Allocate *op) override {
        if (removed_buffers.count(op->name)) return mutate(op->body);
        return IRMutator::visit(op);
    }

    Stmt visit(const Free *op) override {
        return removed_buffers.count(op->name) ? make_no_op() : Stmt(op);
    }
};

}  // namespace

Stmt remove_dead_productions(const Stmt &s) {
    // Only what a pipeline allocates can go.
    class HasAllocation : public IRVisitor {
    public:
        bool found = false;

    private:
        void visit(const Allocate *) override { found = true; }
        void visit(const Store *) override {}
        void visit(const Evaluate *) override {}
        void visit(const AssertStmt *) override {}
    } has_allocation;
    s.accept(&has_allocation);
    if (!has_allocation.found) return s;
    FindAccesses accesses;
    s.accept(&accesses);
    std::set<std::string> dead = dead_productions(accesses);
    if (dead.empty()) return s;
    return RemoveDeadProductions(accesses, dead).mutate(s);
}

Stmt remove_dead_productions_per_allocation(const Stmt &s) {
    class PerAllocation : public IRMutator {
        using IRMutator::visit;
        Stmt visit(const Allocate *op) override {
            return remove_dead_productions(IRMutator::visit(op));
        }
    };
    return PerAllocation().mutate(s);
}

}  // namespace Internal
}  // namespace loom
