#include "lower/VerifyIR.h"

#include <string>

#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {
namespace {

// Buffer fields (name.min.0, name.stride.1, ...) and Params are bound by the caller.
bool bound_by_caller(const Variable *op) {
    if (op->param) return true;
    const std::string &n = op->name;
    for (const char *field : {".min.", ".extent.", ".stride."}) {
        if (n.find(field) != std::string::npos) return true;
    }
    return false;
}

class Verify : public IRVisitor {
public:
    explicit Verify(const char *pass) : pass(pass) {}

private:
    const char *pass;
    Scope<int> bound;

    void visit(const Variable *op) override {
        internal_assert(bound.contains(op->name) || bound_by_caller(op))
            << "After " << pass << ": variable " << op->name << " is used but not bound";
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        ScopedBinding<int> b(bound, op->name, 0);
        op->body.accept(this);
    }
    void visit(const LetStmt *op) override {
        op->value.accept(this);
        ScopedBinding<int> b(bound, op->name, 0);
        op->body.accept(this);
    }
    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        ScopedBinding<int> b(bound, op->name, 0);
        op->body.accept(this);
    }
};

}  // namespace

void verify_ir(const Stmt &s, const char *after_pass) {
    if (!s.defined()) return;
    Verify v(after_pass);
    s.accept(&v);
}

}  // namespace Internal
}  // namespace loom
