#include "codegen/ConstantLoopNest.h"

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
#include "lower/ConstantBounds.h"

namespace loom {
namespace Internal {
namespace {

// The constant ranges of the enclosing loops' variables and lets (nullopt where unknown).
using Ranges = Scope<std::optional<ConstantRange>>;

std::optional<ConstantRange> range_of(const Expr &e, const Ranges &ranges) {
    return constant_range_over(e, [&](const std::string &name) -> std::optional<ConstantRange> {
        const std::optional<ConstantRange> *range = ranges.find(name);
        return range ? *range : std::nullopt;
    });
}

class CountConstantIterations : public IRVisitor {
public:
    explicit CountConstantIterations(Ranges &ranges) : ranges(ranges) {}
    int64_t iterations = 1; // of the deepest nest seen so far; -1 once one is not constant

private:
    Ranges &ranges;
    using IRVisitor::visit;

    void visit(const LetStmt *op) override {
        op->value.accept(this);
        ScopedBinding<std::optional<ConstantRange>> bind(
            ranges, op->name,
            op->value.type() == Int(32) ? range_of(op->value, ranges) : std::nullopt);
        op->body.accept(this);
    }

    void visit(const For *op) override {
        // The most iterations the loop can run: its extent's upper bound.
        std::optional<ConstantRange> extent = range_of(op->extent, ranges);
        if (iterations < 0 || !extent ||
            (op->for_type != ForType::Serial && op->for_type != ForType::Unrolled)) {
            iterations = -1;
            return;
        }
        const int64_t most = std::max<int64_t>(extent->max, 0);
        std::optional<ConstantRange> min = range_of(op->min, ranges);
        std::optional<ConstantRange> var;
        if (min && most > 0) var = ConstantRange{min->min, min->max + most - 1};
        CountConstantIterations inner(ranges);
        {
            ScopedBinding<std::optional<ConstantRange>> bind(ranges, op->name, var);
            op->body.accept(&inner);
        }
        if (inner.iterations < 0) {
            iterations = -1;
            return;
        }
        iterations = std::max(iterations, most * inner.iterations);
    }
};

} // namespace

int64_t constant_nest_iterations(const Stmt &s) {
    Ranges ranges;
    CountConstantIterations count(ranges);
    s.accept(&count);
    return count.iterations;
}

} // namespace Internal
} // namespace loom
