#include "lower/StripAsserts.h"

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

class StripAsserts : public IRMutator {
    using IRMutator::visit;
    Stmt visit(const AssertStmt *) override { return make_no_op(); }
};

} // namespace

Stmt strip_asserts(const Stmt &s) { return StripAsserts().mutate(s); }

} // namespace Internal
} // namespace loom
