#include "lower/FindEnvironment.h"

#include <functional>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "lower/RedirectToWrappers.h"

namespace loom {
namespace Internal {
namespace {

class FindCalls : public IRVisitor {
public:
    std::vector<FunctionPtr> callees;

private:
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide && op->func) callees.push_back(op->func);
    }
};

}  // namespace

std::vector<FunctionPtr> direct_callees(const FunctionPtr &f) {
    FindCalls finder;
    // Values, arguments, where() conditions (an update's RDom may be restricted by a
    // condition that reads another Func), and the same in each specialization.
    for (int k = 0; k < f->stages(); k++)
        visit_definition(finder, f->stage(k));
    // An extern stage reads the Funcs it is given, and the Funcs its scalar arguments call.
    if (f->is_extern()) {
        for (const ExternStage::Arg &a : f->extern_stage->args) {
            if (a.kind == ExternStage::Arg::Func) finder.callees.push_back(a.func);
            if (a.kind == ExternStage::Arg::Scalar) a.expr.accept(&finder);
        }
    }
    // An update reading the Func itself is not a dependency on another stage.
    std::vector<FunctionPtr> others;
    for (const FunctionPtr &c : finder.callees) {
        if (c != f) others.push_back(c);
    }
    return others;
}

namespace {

class Collector {
public:
    Environment env;

    void visit(const FunctionPtr &f) {
        auto it = env.functions.find(f->name);
        if (it != env.functions.end()) {
            user_assert(it->second == f)
                << "Two different Funcs are named " << f->name
                << " in one pipeline. Give each Func a distinct name.";
            internal_assert(done.count(f->name) || in_progress.count(f->name));
            return;
        }
        user_assert(f->defined()) << "Func " << f->name << " is used but has no definition";
        redirect_to_wrappers(f);
        env.functions[f->name] = f;
        in_progress.insert(f->name);
        for (const FunctionPtr &callee : direct_callees(f)) {
            user_assert(!in_progress.count(callee->name) || callee == f)
                << "Func " << f->name << " and Func " << callee->name
                << " call each other in their pure definitions; a pipeline must be acyclic.";
            visit(callee);
        }
        in_progress.erase(f->name);
        done.insert(f->name);
        env.order.push_back(f->name);  // post-order: every callee is already listed
    }

private:
    std::set<std::string> in_progress, done;
};

}  // namespace

Environment find_environment(const std::vector<FunctionPtr> &outputs) {
    user_assert(!outputs.empty()) << "A Pipeline needs at least one output Func";
    Collector c;
    for (const FunctionPtr &f : outputs) {
        user_assert(f && f->defined())
            << "Can't compile Func " << (f ? f->name : std::string("<null>"))
            << " because it has no definition. Define it before realizing it.";
        c.visit(f);
    }
    return c.env;
}

}  // namespace Internal
}  // namespace loom
