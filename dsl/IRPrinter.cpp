#include "dsl/IRPrinter.h"

#include <iomanip>
#include <sstream>

#include "dsl/IRVisitor.h"

namespace loom {

std::ostream &operator<<(std::ostream &os, const Type &t) { return os << type_to_string(t); }

namespace Internal {
namespace {

class IRPrinter : public IRVisitor {
public:
    explicit IRPrinter(std::ostream &os) : os(os) {}

    void print(const Expr &e) {
        if (e.defined()) {
            e.accept(this);
        } else {
            os << "(undefined)";
        }
    }
    void print(const Stmt &s) {
        if (s.defined()) {
            s.accept(this);
        } else {
            indent();
            os << "(undefined)\n";
        }
    }

private:
    std::ostream &os;
    int depth = 0;

    void indent() { os << std::string(depth * 2, ' '); }

    void print_list(const std::vector<Expr> &exprs) {
        for (size_t i = 0; i < exprs.size(); i++) {
            if (i) os << ", ";
            print(exprs[i]);
        }
    }

    // As Halide 14 prints: "(a + b)", but "(a*b)" and "(a/b)" without spaces.
    void binary(const Expr &a, const char *op, const Expr &b, bool spaced = true) {
        os << "(";
        print(a);
        os << (spaced ? " " : "") << op << (spaced ? " " : "");
        print(b);
        os << ")";
    }

    void body(const Stmt &s) {
        depth++;
        print(s);
        depth--;
    }

    void visit(const IntImm *op) override {
        if (op->type == Int(32)) {
            os << op->value;
        } else {
            os << "(" << op->type << ")" << op->value;
        }
    }
    void visit(const UIntImm *op) override {
        if (op->type.is_bool()) {
            os << (op->value ? "true" : "false");
        } else {
            os << "(" << op->type << ")" << op->value;
        }
    }
    void visit(const FloatImm *op) override {
        std::ostringstream s;
        s << std::setprecision(op->type.bits() == 64 ? 17 : 9) << op->value;
        std::string text = s.str();
        if (text.find_first_of(".einf") == std::string::npos) text += ".0";
        os << text << (op->type.bits() == 32 ? "f" : "");
    }
    void visit(const StringImm *op) override { os << '"' << op->value << '"'; }
    void visit(const Cast *op) override {
        os << op->type << "(";
        print(op->value);
        os << ")";
    }
    void visit(const Reinterpret *op) override {
        os << "reinterpret<" << op->type << ">(";
        print(op->value);
        os << ")";
    }
    void visit(const Variable *op) override { os << op->name; }
    void visit(const Add *op) override { binary(op->a, "+", op->b); }
    void visit(const Sub *op) override { binary(op->a, "-", op->b); }
    void visit(const Mul *op) override { binary(op->a, "*", op->b, false); }
    void visit(const Div *op) override { binary(op->a, "/", op->b, false); }
    void visit(const Mod *op) override { binary(op->a, "%", op->b); }
    void visit(const Min *op) override {
        os << "min(";
        print(op->a);
        os << ", ";
        print(op->b);
        os << ")";
    }
    void visit(const Max *op) override {
        os << "max(";
        print(op->a);
        os << ", ";
        print(op->b);
        os << ")";
    }
    void visit(const EQ *op) override { binary(op->a, "==", op->b); }
    void visit(const NE *op) override { binary(op->a, "!=", op->b); }
    void visit(const LT *op) override { binary(op->a, "<", op->b); }
    void visit(const LE *op) override { binary(op->a, "<=", op->b); }
    void visit(const GT *op) override { binary(op->a, ">", op->b); }
    void visit(const GE *op) override { binary(op->a, ">=", op->b); }
    void visit(const And *op) override { binary(op->a, "&&", op->b); }
    void visit(const Or *op) override { binary(op->a, "||", op->b); }
    void visit(const Not *op) override {
        os << "!";
        print(op->a);
    }
    void visit(const Select *op) override {
        os << "select(";
        print(op->condition);
        os << ", ";
        print(op->true_value);
        os << ", ";
        print(op->false_value);
        os << ")";
    }
    void visit(const Load *op) override {
        os << op->name << "[";
        print(op->index);
        os << "]";
    }
    void visit(const Ramp *op) override {
        os << "ramp(";
        print(op->base);
        os << ", ";
        print(op->stride);
        os << ", " << op->lanes << ")";
    }
    void visit(const Broadcast *op) override {
        os << "x" << op->lanes << "(";
        print(op->value);
        os << ")";
    }
    void visit(const Let *op) override {
        os << "(let " << op->name << " = ";
        print(op->value);
        os << " in ";
        print(op->body);
        os << ")";
    }
    void visit(const Call *op) override {
        os << op->name;
        if (op->call_type == Call::Halide && op->func && op->value_index > 0) {
            os << "." << op->value_index;
        }
        os << "(";
        print_list(op->args);
        os << ")";
    }

    void visit(const LetStmt *op) override {
        indent();
        os << "let " << op->name << " = ";
        print(op->value);
        os << "\n";
        print(op->body);
    }
    void visit(const AssertStmt *op) override {
        indent();
        os << "assert(";
        print(op->condition);
        os << ", ";
        print(op->message);
        os << ")\n";
    }
    void visit(const ProducerConsumer *op) override {
        indent();
        os << (op->is_producer ? "produce " : "consume ") << op->name << " {\n";
        body(op->body);
        indent();
        os << "}\n";
    }
    void visit(const For *op) override {
        indent();
        os << for_type_name(op->for_type);
        if (op->device_api == DeviceAPI::CUDA) os << "<cuda>";
        os << " (" << op->name << ", ";
        print(op->min);
        os << ", ";
        print(op->extent);
        os << ") {\n";
        body(op->body);
        indent();
        os << "}\n";
    }
    void visit(const Store *op) override {
        indent();
        os << op->name << "[";
        print(op->index);
        os << "] = ";
        print(op->value);
        os << "\n";
    }
    void visit(const Provide *op) override {
        indent();
        os << op->name << "(";
        print_list(op->args);
        os << ") = ";
        if (op->values.size() > 1) os << "{";
        print_list(op->values);
        if (op->values.size() > 1) os << "}";
        os << "\n";
    }
    void visit(const Allocate *op) override {
        indent();
        os << "allocate " << op->name << "[" << op->type;
        for (const Expr &e : op->extents) {
            os << " * ";
            print(e);
        }
        os << "]";
        if (op->memory_type != MemoryType::Auto) os << " in " << memory_type_name(op->memory_type);
        os << "\n";
        print(op->body);
    }
    void visit(const Free *op) override {
        indent();
        os << "free " << op->name << "\n";
    }
    void visit(const Realize *op) override {
        indent();
        os << "realize " << op->name << "(";
        for (size_t i = 0; i < op->bounds.size(); i++) {
            if (i) os << ", ";
            os << "[";
            print(op->bounds[i].min);
            os << ", ";
            print(op->bounds[i].extent);
            os << "]";
        }
        os << ") {\n";
        body(op->body);
        indent();
        os << "}\n";
    }
    void visit(const Block *op) override {
        print(op->first);
        print(op->rest);
    }
    void visit(const IfThenElse *op) override {
        indent();
        os << "if (";
        print(op->condition);
        os << ") {\n";
        body(op->then_case);
        if (op->else_case.defined()) {
            indent();
            os << "} else {\n";
            body(op->else_case);
        }
        indent();
        os << "}\n";
    }
    void visit(const Evaluate *op) override {
        indent();
        print(op->value);
        os << "\n";
    }
};

}  // namespace

std::ostream &operator<<(std::ostream &os, const Stmt &s) {
    IRPrinter(os).print(s);
    return os;
}

std::string to_string(const Expr &e) {
    std::ostringstream s;
    s << e;
    return s.str();
}

std::string to_string(const Stmt &s) {
    std::ostringstream o;
    o << s;
    return o.str();
}

}  // namespace Internal

std::ostream &operator<<(std::ostream &os, const Expr &e) {
    Internal::IRPrinter(os).print(e);
    return os;
}

}  // namespace loom
