#include "codegen/HoistStackReads.h"

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {

namespace {

class HoistConstantReads : public IRMutator {
public:
    HoistConstantReads(const std::set<std::string> &allocations,
                       std::vector<std::pair<std::string, Expr>> *reads)
        : allocations(allocations), reads(reads) {}

    // Cleared when the loop writes one of the allocations or reads one at a variable index.
    bool hoistable = true;
    using IRMutator::mutate;

private:
    const std::set<std::string> &allocations;
    std::vector<std::pair<std::string, Expr>> *reads;

    Expr visit(const Load *op) override {
        if (!allocations.count(op->name)) return IRMutator::visit(op);
        if (!is_constant_expr(op->index)) {
            hoistable = false;
            return op;
        }
        Expr load = op;
        for (const auto &[name, value] : *reads) {
            if (deep_equal(value, load)) return Variable::make(op->type, name);
        }
        std::string name = op->name + ".read" + std::to_string(reads->size());
        reads->emplace_back(name, load);
        return Variable::make(op->type, name);
    }

    Stmt visit(const Store *op) override {
        if (allocations.count(op->name)) hoistable = false;
        return IRMutator::visit(op);
    }
};

} // namespace

Stmt hoist_constant_reads(const Stmt &loop, const std::set<std::string> &allocations,
                          std::vector<std::pair<std::string, Expr>> *reads) {
    HoistConstantReads hoist(allocations, reads);
    Stmt result = hoist.mutate(loop);
    return hoist.hoistable ? result : Stmt();
}

} // namespace Internal
} // namespace loom
