#include "codegen/ConstantLoopNest.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

// The constant range of an integer expression over the constant ranges of the variables in
// it: enough for the trip counts of an RDom's loops trimmed by its where() (`max(4 - max(r.y +
// 1, 0), 0)` for r.y in [0, 3]). Undefined where a term's range is unknown.
struct Range {
    int64_t lo, hi;
};
using Ranges = std::map<std::string, Range>;

std::optional<Range> range_of(const Expr &e, const Ranges &ranges) {
    if (const int64_t *c = as_const_int(e)) return Range{*c, *c};
    if (const Variable *v = e.as<Variable>()) {
        auto it = ranges.find(v->name);
        if (it == ranges.end()) return std::nullopt;
        return it->second;
    }
    auto both = [&](const Expr &a, const Expr &b) -> std::optional<std::pair<Range, Range>> {
        std::optional<Range> ra = range_of(a, ranges), rb = range_of(b, ranges);
        if (!ra || !rb) return std::nullopt;
        return std::make_pair(*ra, *rb);
    };
    // Every bound stays far inside int64 (loop extents and small constants), so none of
    // these overflows.
    constexpr int64_t kLimit = int64_t(1) << 40;
    auto bounded = [&](Range r) -> std::optional<Range> {
        if (r.lo < -kLimit || r.hi > kLimit) return std::nullopt;
        return r;
    };
    if (const Add *op = e.as<Add>()) {
        if (auto r = both(op->a, op->b))
            return bounded({r->first.lo + r->second.lo, r->first.hi + r->second.hi});
    } else if (const Sub *op = e.as<Sub>()) {
        if (auto r = both(op->a, op->b))
            return bounded({r->first.lo - r->second.hi, r->first.hi - r->second.lo});
    } else if (const Min *op = e.as<Min>()) {
        if (auto r = both(op->a, op->b)) {
            return Range{std::min(r->first.lo, r->second.lo), std::min(r->first.hi, r->second.hi)};
        }
    } else if (const Max *op = e.as<Max>()) {
        if (auto r = both(op->a, op->b)) {
            return Range{std::max(r->first.lo, r->second.lo), std::max(r->first.hi, r->second.hi)};
        }
    } else if (const Mul *op = e.as<Mul>()) {
        const int64_t *c = as_const_int(op->b);
        std::optional<Range> ra = range_of(op->a, ranges);
        if (c && ra) {
            return bounded(
                {std::min(ra->lo * *c, ra->hi * *c), std::max(ra->lo * *c, ra->hi * *c)});
        }
    }
    return std::nullopt;
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
    void with_range(const std::string &name, std::optional<Range> range, const Body &body) {
        auto it = ranges.find(name);
        std::optional<Range> hidden;
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
        std::optional<Range> extent = range_of(op->extent, ranges);
        if (iterations < 0 || !extent ||
            (op->for_type != ForType::Serial && op->for_type != ForType::Unrolled)) {
            iterations = -1;
            return;
        }
        const int64_t most = std::max<int64_t>(extent->hi, 0);
        std::optional<Range> min = range_of(op->min, ranges);
        std::optional<Range> var;
        if (min && most > 0) var = Range{min->lo, min->hi + most - 1};
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
