#include "dsl/Substitute.h"

#include "dsl/IRMutator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {
namespace {

class Substitute : public IRMutator {
public:
    explicit Substitute(const std::map<std::string, Expr> &replacements)
        : replacements(replacements) {}
    using IRMutator::mutate;

private:
    const std::map<std::string, Expr> &replacements;
    Scope<int> shadowed;  // names rebound by an inner Let/LetStmt/For are not free there

    const Expr *find(const std::string &name) const {
        if (shadowed.contains(name)) return nullptr;
        auto it = replacements.find(name);
        return it == replacements.end() ? nullptr : &it->second;
    }

    Expr visit(const Variable *op) override {
        const Expr *r = find(op->name);
        return r ? *r : Expr(op);
    }
    Expr visit(const Let *op) override {
        Expr value = mutate(op->value);
        ScopedBinding<int> bind(shadowed, op->name, 0);
        Expr body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return Let::make(op->name, value, body);
    }
    Stmt visit(const LetStmt *op) override {
        Expr value = mutate(op->value);
        ScopedBinding<int> bind(shadowed, op->name, 0);
        Stmt body = mutate(op->body);
        if (value.same_as(op->value) && body.same_as(op->body)) return op;
        return LetStmt::make(op->name, value, body);
    }
    Stmt visit(const For *op) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        ScopedBinding<int> bind(shadowed, op->name, 0);
        Stmt body = mutate(op->body);
        if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return op;
        return For::make(op->name, mn, ext, op->for_type, op->device_api, body);
    }
};

class UsesVar : public IRVisitor {
public:
    explicit UsesVar(const std::string &name) : name(name) {}
    bool found = false;

private:
    const std::string &name;
    void visit(const Variable *op) override { found |= op->name == name; }
};

class CallsFunc : public IRVisitor {
public:
    explicit CallsFunc(const std::string &name) : name(name) {}
    bool found = false;

private:
    const std::string &name;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        found |= op->call_type == Call::Halide && op->name == name;
    }
};

}  // namespace

bool expr_calls_func(const Expr &e, const std::string &func) {
    CallsFunc c(func);
    if (e.defined()) e.accept(&c);
    return c.found;
}

Expr substitute(const std::map<std::string, Expr> &replacements, const Expr &e) {
    if (replacements.empty()) return e;
    return Substitute(replacements).mutate(e);
}

Stmt substitute(const std::map<std::string, Expr> &replacements, const Stmt &s) {
    if (replacements.empty()) return s;
    return Substitute(replacements).mutate(s);
}

Expr substitute(const std::string &name, const Expr &replacement, const Expr &e) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, e);
}

Expr substitute_lets(const Expr &e) {
    // Each Let's value is expanded once and shared by every use of its name in the result,
    // which is a DAG as small as e: expanding a name's value again at each use walks the tree
    // that Lets naming Lets stand for, exponential in their depth.
    class Expand : public IRMutator {
        Scope<Expr> values;
        using IRMutator::visit;
        Expr visit(const Variable *op) override {
            const Expr *value = values.find(op->name);
            return value ? *value : Expr(op);
        }
        Expr visit(const Let *op) override {
            values.push(op->name, mutate(op->value));
            Expr body = mutate(op->body);
            values.pop(op->name);
            return body;
        }
    };
    return Expand().mutate(e);
}

Stmt substitute(const std::string &name, const Expr &replacement, const Stmt &s) {
    return substitute(std::map<std::string, Expr>{{name, replacement}}, s);
}

bool expr_uses_var(const Expr &e, const std::string &name) {
    UsesVar v(name);
    if (e.defined()) e.accept(&v);
    return v.found;
}

bool stmt_uses_var(const Stmt &s, const std::string &name) {
    UsesVar v(name);
    if (s.defined()) s.accept(&v);
    return v.found;
}

}  // namespace Internal
}  // namespace loom
