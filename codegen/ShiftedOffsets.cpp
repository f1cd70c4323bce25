#include "codegen/ShiftedOffsets.h"

#include <vector>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {

bool is_clamp_of(const Expr &e, const std::string &var) {
    return (e.as<Min>() || e.as<Max>()) && expr_uses_var(e, var);
}

bool sum_clamps_var(const Expr &e, const std::string &var) {
    if (const Add *op = e.as<Add>()) return sum_clamps_var(op->a, var) || sum_clamps_var(op->b, var);
    if (const Sub *op = e.as<Sub>()) return sum_clamps_var(op->a, var) || sum_clamps_var(op->b, var);
    return is_clamp_of(e, var);
}

namespace {

void split_terms(const Expr &e, bool added, const std::string &var, ClampedSum &sum) {
    if (const Add *op = e.as<Add>()) {
        split_terms(op->a, added, var, sum);
        split_terms(op->b, added, var, sum);
    } else if (const Sub *op = e.as<Sub>()) {
        split_terms(op->a, added, var, sum);
        split_terms(op->b, !added, var, sum);
    } else if (is_clamp_of(e, var)) {
        sum.clamps.push_back({e, added});
    } else if (!sum.rest.defined()) {
        sum.rest = added ? e : make_zero(e.type()) - e;
    } else {
        sum.rest = added ? sum.rest + e : sum.rest - e;
    }
}

} // namespace

ClampedSum split_clamps(const Expr &e, const std::string &var) {
    ClampedSum sum;
    split_terms(e, true, var, sum);
    return sum;
}

namespace {

// e with its clamps of var replaced by zero.
Expr without_clamps(const Expr &e, const std::string &var) {
    if (const Add *op = e.as<Add>())
        return Add::make(without_clamps(op->a, var), without_clamps(op->b, var));
    if (const Sub *op = e.as<Sub>())
        return Sub::make(without_clamps(op->a, var), without_clamps(op->b, var));
    if (is_clamp_of(e, var)) return make_zero(e.type());
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
