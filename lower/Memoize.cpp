#include "lower/Memoize.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"
#include "lower/ExternStages.h"

namespace loom {
namespace Internal {
namespace {

// The scalar Params and the input images an expression reads.
class FindInputs : public IRVisitor {
public:
    std::map<std::string, Expr> params; // by name: the Variable
    std::map<std::string, int> images;  // name -> dimensions
    std::vector<Expr> tags;             // memoize_tag's key values, in the order met

private:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param && !op->param->is_buffer) params.emplace(op->name, Expr(op));
    }
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::memoize_tag)) {
            // Halide's rule: the key holds the tags instead of what the value reads, or the
            // value itself where it has no tags.
            if (op->args.size() == 1) {
                tags.push_back(op->args[0]);
            } else {
                tags.insert(tags.end(), op->args.begin() + 1, op->args.end());
            }
            return;
        }
        if (op->call_type == Call::Image) images.emplace(op->name, (int)op->args.size());
        IRVisitor::visit(op);
    }
};

// Every Param and image f depends on, through the Funcs it reads.
FindInputs inputs_of(const FunctionPtr &f, const Environment &env) {
    FindInputs found;
    std::set<std::string> seen;
    std::function<void(const FunctionPtr &)> walk = [&](const FunctionPtr &g) {
        if (!seen.insert(g->name).second) return;
        for (int k = 0; k < g->stages(); k++)
            visit_definition(found, g->stage(k));
        if (g->is_extern()) {
            for (const ExternStage::Arg &a : g->extern_stage->args) {
                if (a.kind == ExternStage::Arg::Scalar) a.expr.accept(&found);
                if (a.kind == ExternStage::Arg::Buffer || a.kind == ExternStage::Arg::Image)
                    found.images.emplace(a.buffer ? a.buffer->name : a.param->name,
                                         extern_input_dimensions(a));
            }
        }
        for (const FunctionPtr &callee : direct_callees(g)) {
            auto it = env.functions.find(callee->name);
            if (it != env.functions.end()) walk(it->second);
        }
    };
    walk(f);
    return found;
}

// FNV-1a of the production's text: the same code keys the same entries.
uint64_t hash_of(const Stmt &s) {
    std::ostringstream text;
    text << s;
    uint64_t h = 14695981039346656037ull;
    for (char c : text.str())
        h = (h ^ (uint8_t)c) * 1099511628211ull;
    return h;
}

class InjectMemoization : public IRMutator {
public:
    explicit InjectMemoization(const Environment &env) : env(env) {}

private:
    const Environment &env;
    std::map<std::string, const Allocate *> allocations;
    using IRMutator::visit;

    Stmt visit(const Allocate *op) override {
        allocations[op->name] = op;
        Stmt s = IRMutator::visit(op);
        allocations.erase(op->name);
        return s;
    }

    Stmt visit(const ProducerConsumer *op) override {
        Stmt s = IRMutator::visit(op);
        auto found = env.functions.find(op->name);
        if (!op->is_producer || found == env.functions.end()) return s;
        const FunctionPtr &f = found->second;
        if (!f->schedule.memoized) return s;
        const FindInputs inputs = inputs_of(f, env);
        std::vector<Expr> key{make_const(UInt(64), hash_of(s))};
        for (const auto &[name, variable] : inputs.params)
            key.push_back(variable);
        for (const auto &[image, dims] : inputs.images) {
            key.push_back(StringImm::make(image)); // its host address (codegen)
            for (int d = 0; d < dims; d++) {
                const std::string ds = std::to_string(d);
                key.push_back(int_var(image + ".min." + ds));
                key.push_back(int_var(image + ".extent." + ds));
                key.push_back(int_var(image + ".stride." + ds));
            }
        }
        key.insert(key.end(), inputs.tags.begin(), inputs.tags.end());
        Expr hit;
        std::vector<Stmt> stores;
        for (int i = 0; i < f->outputs(); i++) {
            const std::string buffer = f->buffer_name(i);
            auto alloc = allocations.find(buffer);
            internal_assert(alloc != allocations.end())
                << "memoized " << buffer << " not allocated";
            std::vector<Expr> region = key;
            region.push_back(Expr(i));
            Expr bytes = cast<int64_t>(alloc->second->type.bytes());
            for (size_t d = 0; d < alloc->second->extents.size(); d++) {
                region.push_back(int_var(buffer + ".min." + std::to_string(d)));
                region.push_back(alloc->second->extents[d]);
                bytes = bytes * cast<int64_t>(alloc->second->extents[d]);
            }
            std::vector<Expr> lookup{StringImm::make(f->name), StringImm::make(buffer), bytes};
            lookup.insert(lookup.end(), region.begin(), region.end());
            Expr one = Call::make_intrinsic(Int(32), Call::memoize_lookup, lookup, Call::Intrinsic);
            hit = hit.defined() ? (hit && one != 0) : (one != 0);
            const Expr &eviction = f->schedule.eviction_key;
            std::vector<Expr> store{StringImm::make(f->name), StringImm::make(buffer), bytes,
                                    eviction.defined() ? eviction : make_zero(UInt(64)),
                                    Expr((int)eviction.defined())};
            store.insert(store.end(), region.begin(), region.end());
            stores.push_back(Evaluate::make(
                Call::make_intrinsic(Int(32), Call::memoize_store, store, Call::Intrinsic)));
        }
        const std::string hit_name = memoization_hit_name(f->name);
        Stmt compute = Block::make(s, Block::make(stores));
        return LetStmt::make(hit_name, cast<int32_t>(hit),
                             IfThenElse::make(int_var(hit_name) == 0, compute));
    }
};

} // namespace

std::string memoization_hit_name(const std::string &func) { return func + ".memoized"; }

Stmt inject_memoization(const Stmt &s, const Environment &env,
                        const std::vector<FunctionPtr> &outputs) {
    bool any = false;
    for (const auto &[name, f] : env.functions) {
        if (!f->schedule.memoized) continue;
        any = true;
        user_assert(std::find(outputs.begin(), outputs.end(), f) == outputs.end())
            << "Func " << f->name
            << " is memoized and is an output of the pipeline: Loom "
               "memoizes the Funcs an output reads. Memoize the Func it is computed from.";
        user_assert(f->schedule.compute_level.is_root())
            << "Func " << f->name
            << " is memoized but not computed at the root: a memoized "
               "Func keeps its whole region between runs. Schedule it with compute_root().";
        user_assert(f->schedule.folds.empty())
            << "Func " << f->name
            << " is memoized and folded (fold_storage): its storage "
               "does not hold its whole region. Drop the fold_storage.";
    }
    if (!any) return s;
    return InjectMemoization(env).mutate(s);
}

} // namespace Internal
} // namespace loom
