#include "codegen/ShiftedOffsets.h"

#include <vector>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

bool sum_clamps_var(const Expr &e, const std::string &var) {
    if (const Add *op = e.as<Add>()) return sum_clamps_var(op->a, var) || sum_clamps_var(op->b, var);
    if (const Sub *op = e.as<Sub>()) return sum_clamps_var(op->a, var) || sum_clamps_var(op->b, var);
    if (e.as<Min>() || e.as<Max>()) return expr_uses_var(e, var);
    return false;
}

namespace {

// e with its clamps of var replaced by zero.
Expr without_clamps(const Expr &e, const std::string &var) {
    if (const Add *op = e.as<Add>())
        return Add::make(without_clamps(op->a, var), without_clamps(op->b, var));
    if (const Sub *op = e.as<Sub>())
        return Sub::make(without_clamps(op->a, var), without_clamps(op->b, var));
    if ((e.as<Min>() || e.as<Max>()) && expr_uses_var(e, var)) return make_zero(e.type());
    return e;
}

class ClampedBases : public IRVisitor {
public:
    explicit ClampedBases(const std::string &var) : var(var) {}
    std::vector<Expr> bases;

private:
    const std::string &var;

    void note(const Expr &index) {
        const Ramp *r = index.as<Ramp>();
        const Expr &scalar = r ? r->base : index;
        if (scalar.type() != Int(32) || !sum_clamps_var(scalar, var)) return;
        Expr base = without_clamps(scalar, var);
        for (const Expr &seen : bases) {
            if (deep_equal(seen, base)) return;
        }
        bases.push_back(base);
    }
    void visit(const Load *op) override {
        note(op->index);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        note(op->index);
        IRVisitor::visit(op);
    }
    void visit(const For *) override {} // its accesses belong to the inner loop
};

} // namespace

size_t distinct_clamped_bases(const Stmt &loop_body, const std::string &var) {
    ClampedBases c(var);
    loop_body.accept(&c);
    return c.bases.size();
}

} // namespace Internal
} // namespace loom
