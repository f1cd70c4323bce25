#include "lower/UnrollLoops.h"

#include <memory>
#include <vector>

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

    // Inside `if (v == k && ...)`, v is k: an unrolled loop's extent may be known only there
    // (a specialization on an output's extent, as Halide's tutorial lesson 16 writes).
    Stmt visit(const IfThenElse *op) override {
        const std::map<std::string, Expr> known = equalities_in(op->condition);
        if (known.empty()) return IRMutator::visit(op);
        Stmt then_case;
        {
            std::vector<std::unique_ptr<Rebinding>> scopes;
            for (const auto &[name, value] : known) {
                scopes.push_back(std::make_unique<Rebinding>(*this, name));
                lets[name] = value;
            }
            then_case = mutate(op->then_case);
            for (const auto &kv : known)
                lets.erase(kv.first);
        }
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        return IfThenElse::make(op->condition, then_case, else_case);
    }
};

}  // namespace

Stmt unroll_loops(const Stmt &s) { return UnrollLoops().mutate(s); }

}  // namespace Internal
}  // namespace loom
