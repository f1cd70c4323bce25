#include "lower/UnrollLoops.h"

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "lower/LetTrackingMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/Simplify.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

class UnrollLoops : public LetTrackingMutator {
public:
    using IRMutator::mutate;

private:
    static bool is_one_prefetch(const Stmt &s) {
        const Evaluate *e = s.as<Evaluate>();
        const Call *c = e ? e->value.as<Call>() : nullptr;
        return c && c->is_intrinsic(Call::prefetch);
    }

    Stmt visit(const For *op) override {
        const bool prefetch_loop = op->for_type == ForType::Serial && is_one_prefetch(op->body);
        if (op->for_type != ForType::Unrolled && !prefetch_loop)
            return LetTrackingMutator::visit(op);
        Expr extent = simplify_to_constant(op->extent, lets);
        const int64_t *n = as_const_int(extent);
        if (prefetch_loop && !(n && *n >= 1 && *n <= kMaxUnrolledPrefetches))
            return LetTrackingMutator::visit(op);
        user_assert(n) << "Can't unroll loop " << op->name << ": its extent " << extent
                       << " is not a constant. Split it by a constant factor and unroll the inner "
                          "loop (unroll(x, 4)).";
        Stmt body;
        {
            Rebinding rebinding(*this, op->name);
            body = mutate(op->body);
        }
        std::vector<Stmt> copies;
        for (int64_t i = 0; i < *n; i++) {
            copies.push_back(LetStmt::make(op->name, simplify(op->min + (int)i), body));
        }
        return copies.empty() ? make_no_op() : Block::make(copies);
    }
};

}  // namespace

Stmt unroll_loops(const Stmt &s) { return UnrollLoops().mutate(s); }

}  // namespace Internal
}  // namespace loom
