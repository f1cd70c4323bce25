// The placeholder `_` and implicit Vars (Halide 14's): expanding `_` in a call, and counting the
// implicit Vars a definition's right-hand side uses. See Var::implicit.
#include <algorithm>

#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "dsl/Var.h"

namespace loom {
namespace Internal {

namespace {

bool is_placeholder(const Expr &e) {
    const Variable *v = e.as<Variable>();
    return v && !v->param && !v->rdom && Var::is_placeholder(v->name);
}

class CountImplicitVars : public IRVisitor {
public:
    int count = 0;

private:
    void visit(const Variable *op) override {
        if (!op->param && !op->rdom) count = std::max(count, Var::implicit_index(op->name) + 1);
    }
};

} // namespace

int expand_placeholder(std::vector<Expr> &args, int dimensions) {
    auto at = std::find_if(args.begin(), args.end(), is_placeholder);
    if (at == args.end()) return -1;
    const int position = (int)(at - args.begin());
    args.erase(at);
    std::vector<Expr> implicit;
    for (int i = 0; (int)(args.size() + implicit.size()) < dimensions; i++)
        implicit.push_back(Var::implicit(i));
    args.insert(args.begin() + position, implicit.begin(), implicit.end());
    for (const Expr &a : args) {
        user_assert(!is_placeholder(a))
            << "The placeholder _ appears twice in the arguments of a call; it may stand for "
               "the remaining dimensions once.";
    }
    return position;
}

int count_implicit_vars(const std::vector<Expr> &exprs) {
    CountImplicitVars count;
    for (const Expr &e : exprs) {
        if (e.defined()) e.accept(&count);
    }
    return count.count;
}

} // namespace Internal
} // namespace loom
