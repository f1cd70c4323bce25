#include "lower/RewindLoop.h"

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

// Whether s produces one of `funcs`.
bool produces_any(const Stmt &s, const std::set<std::string> &funcs) {
    class Find : public IRVisitor {
    public:
        explicit Find(const std::set<std::string> &funcs) : funcs(funcs) {}
        bool found = false;

    private:
        const std::set<std::string> &funcs;
        using IRVisitor::visit;
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer && funcs.count(op->name)) {
                found = true;
                return;
            }
            IRVisitor::visit(op);
        }
        void visit(const Call *) override {} // no statement inside
    } find(funcs);
    s.accept(&find);
    return find.found;
}

// Guards every statement of a rewound loop's body that neither produces a slid Func nor
// holds such a production: it runs from the original first iteration on. A statement that
// holds one (a loop inside, a Block, the consumption of a Func computed before it) is entered,
// and so is the consumption of a slid Func.
class GuardWarmUp : public IRMutator {
public:
    GuardWarmUp(const std::set<std::string> &slid, Expr from_original_start)
        : slid(slid), from_original_start(std::move(from_original_start)) {}
    using IRMutator::mutate;

    Stmt mutate(const Stmt &s) override {
        if (!s.defined() || is_no_op(s)) return s;
        // The consumption of a slid Func keeps its marker outside the guard: the semaphores a
        // producer computed asynchronously pairs with it go around the marker, and its
        // production runs in every iteration (as Halide 14 guards inside the marker).
        if (const ProducerConsumer *p = s.as<ProducerConsumer>();
            p && !p->is_producer && slid.count(p->name))
            return ProducerConsumer::make(p->name, false, mutate(p->body));
        if (!produces_any(s, slid)) return IfThenElse::make(from_original_start, s);
        if (const ProducerConsumer *p = s.as<ProducerConsumer>();
            p && p->is_producer && slid.count(p->name))
            return s;
        return IRMutator::mutate(s);
    }

private:
    const std::set<std::string> &slid;
    const Expr from_original_start;

    static bool is_no_op(const Stmt &s) {
        const Evaluate *e = s.as<Evaluate>();
        return e && is_const(e->value);
    }
};

} // namespace

bool can_rewind(const Stmt &body, const std::set<std::string> &slid, const Environment &env) {
    std::set<std::string> read;
    std::vector<std::string> pending(slid.begin(), slid.end());
    while (!pending.empty()) {
        const std::string f = pending.back();
        pending.pop_back();
        for (const FunctionPtr &callee : direct_callees(env.functions.at(f))) {
            if (read.insert(callee->name).second) pending.push_back(callee->name);
        }
    }
    for (const std::string &f : slid)
        read.erase(f);
    return !produces_any(body, read);
}

Stmt rewind_loop(const For *loop, int64_t iterations, const std::set<std::string> &slid) {
    const std::string name = loop->name + ".$w";
    const Expr original_start = loop->min;
    Stmt body = GuardWarmUp(slid, likely(Variable::make(Int(32), loop->name) >= original_start))
                    .mutate(loop->body);
    body = substitute(loop->name, Variable::make(Int(32), name), body);
    return For::make(name, loop->min - (int)iterations, loop->extent + (int)iterations,
                     loop->for_type, loop->device_api, body);
}

} // namespace Internal
} // namespace loom
