#include "codegen/ConstantLoopNest.h"

#include <algorithm>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

class CountConstantIterations : public IRVisitor {
public:
    int64_t iterations = 1; // of the deepest nest seen so far; -1 once one is not constant

private:
    using IRVisitor::visit;
    void visit(const For *op) override {
        const int64_t *extent = as_const_int(op->extent);
        if (iterations < 0 || !extent ||
            (op->for_type != ForType::Serial && op->for_type != ForType::Unrolled)) {
            iterations = -1;
            return;
        }
        CountConstantIterations inner;
        op->body.accept(&inner);
        if (inner.iterations < 0) {
            iterations = -1;
            return;
        }
        iterations = std::max(iterations, std::max<int64_t>(*extent, 0) * inner.iterations);
    }
};

} // namespace

int64_t constant_nest_iterations(const Stmt &s) {
    CountConstantIterations count;
    s.accept(&count);
    return count.iterations;
}

} // namespace Internal
} // namespace loom
