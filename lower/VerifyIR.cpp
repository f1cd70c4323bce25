#include "lower/VerifyIR.h"

#include <set>
#include <string>

#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
#include "lower/InjectDeviceCopies.h"

namespace loom {
namespace Internal {
namespace {

// Buffer fields (name.min.0, name.stride.1, ...), Params and the user context are bound by the
// caller.
bool bound_by_caller(const Variable *op) {
    if (op->param || op->name == kUserContextName) return true;
    const std::string &n = op->name;
    for (const char *field : {".min.", ".extent.", ".stride."}) {
        if (n.find(field) != std::string::npos) return true;
    }
    return false;
}

// The names of the allocations a statement makes (Allocate after storage flattening).
class AllocationNames : public IRVisitor {
public:
    std::set<std::string> names;

private:
    void visit(const Allocate *op) override {
        names.insert(op->name);
        IRVisitor::visit(op);
    }
};

class Verify : public IRVisitor {
public:
    Verify(const char *pass, std::set<std::string> allocations)
        : pass(pass), allocations(std::move(allocations)) {}

private:
    const char *pass;
    Scope<int> bound;
    // `<buffer>.buffer`, the loom_buffer_t of a buffer, is bound by the caller for the
    // pipeline's own arguments and inside the Allocate of one of its allocations (codegen
    // builds it there).
    std::set<std::string> allocations;

    bool is_buffer_struct_of_argument(const std::string &name) const {
        const std::string suffix = buffer_struct_name("");
        if (name.size() <= suffix.size() ||
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
            return false;
        return !allocations.count(name.substr(0, name.size() - suffix.size()));
    }

    void visit(const Variable *op) override {
        internal_assert(bound.contains(op->name) || bound_by_caller(op) ||
                        is_buffer_struct_of_argument(op->name))
            << "After " << pass << ": variable " << op->name << " is used but not bound";
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) e.accept(this);
        ScopedBinding<int> b(bound, buffer_struct_name(op->name), 0);
        op->body.accept(this);
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
    AllocationNames allocations;
    s.accept(&allocations);
    Verify v(after_pass, std::move(allocations.names));
    s.accept(&v);
}

}  // namespace Internal
}  // namespace loom
