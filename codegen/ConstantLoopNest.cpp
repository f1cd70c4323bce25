#include "codegen/ConstantLoopNest.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "lower/ConstantBounds.h"

namespace loom {
namespace Internal {
namespace {

using Ranges = std::map<std::string, ConstantRange>;

std::optional<ConstantRange> range_of(const Expr &e, const Ranges &ranges) {
    return constant_range_over(e, [&](const std::string &name) -> std::optional<ConstantRange> {
        auto it = ranges.find(name);
        if (it == ranges.end()) return std::nullopt;
        return it->second;
    });
}

class CountConstantIterations : public IRVisitor {
public:
    explicit CountConstantIterations(Ranges &ranges) : ranges(ranges) {}
    int64_t iterations = 1; // of the deepest nest seen so far; -1 once one is not constant

private:
    Ranges &ranges; // of the enclosing loops' variables and lets, where constant
    using IRVisitor::visit;

    // Binds `name` to `range` (if any) for the visit of `body`, then restores what it hid.
    template <typename Body>
    void with_range(const std::string &name, std::optional<ConstantRange> range, const Body &body) {
        auto it = ranges.find(name);
        std::optional<ConstantRange> hidden;
        if (it != ranges.end()) {
            hidden = it->second;
            ranges.erase(it);
        }
        if (range) ranges[name] = *range;
        body.accept(this);
        ranges.erase(name);
        if (hidden) ranges[name] = *hidden;
    }

    void visit(const LetStmt *op) override {
        op->value.accept(this);
        if (op->value.type() == Int(32)) {
            with_range(op->name, range_of(op->value, ranges), op->body);
        } else {
            with_range(op->name, std::nullopt, op->body);
        }
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
        inner.with_range(op->name, var, op->body);
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
