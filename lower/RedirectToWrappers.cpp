#include "lower/RedirectToWrappers.h"

#include <algorithm>

#include "dsl/IRMutator.h"
#include "dsl/Parameter.h"

namespace loom {
namespace Internal {
namespace {

class Redirect : public IRMutator {
public:
    explicit Redirect(const FunctionPtr &caller) : caller(caller) {}

private:
    const FunctionPtr &caller;

    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        op = e.as<Call>();
        if (op->call_type == Call::Image && op->param) return image_wrapper(op, e);
        if (op->call_type != Call::Halide || !op->func) return e;
        FunctionContents *callee = op->func.get();
        if (callee == caller.get() || callee->wrappers.empty() || caller->wraps == callee->name)
            return e;
        auto it = callee->wrappers.find(caller->name);
        if (it == callee->wrappers.end()) it = callee->wrappers.find("");
        if (it == callee->wrappers.end() || it->second == caller) return e;
        const FunctionPtr callee_alive = op->func.shared();
        if (std::find(caller->wrapped_callees.begin(), caller->wrapped_callees.end(),
                      callee_alive) == caller->wrapped_callees.end()) {
            caller->wrapped_callees.push_back(callee_alive);
        }
        const FunctionPtr &wrapper = it->second;
        return Call::make(op->type, wrapper->name, op->args, Call::Halide, wrapper,
                          op->value_index);
    }

    // A call of an ImageParam that has wrappers (ImageParam::in): to the caller's wrapper, or
    // the global one. The caller owns the wrapper from here on (the ImageParam holds it weakly).
    Expr image_wrapper(const Call *op, const Expr &e) {
        const ParameterContents &image = *op->param;
        if (image.wrappers.empty() || caller->wraps == image.name) return e;
        auto it = image.wrappers.find(caller->name);
        if (it == image.wrappers.end()) it = image.wrappers.find("");
        if (it == image.wrappers.end()) return e;
        const FunctionPtr wrapper = it->second.lock();
        if (!wrapper || wrapper == caller) return e;
        return Call::make(op->type, wrapper->name, op->args, Call::Halide, wrapper);
    }
};

} // namespace

void redirect_to_wrappers(const FunctionPtr &caller) {
    Redirect r(caller);
    mutate_definition(r, caller->init);
    for (Definition &d : caller->updates)
        mutate_definition(r, d);
}

} // namespace Internal
} // namespace loom
