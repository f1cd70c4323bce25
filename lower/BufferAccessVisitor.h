// An IRVisitor that reports the buffer accesses and the effects of the statements it visits,
// for the passes that move or remove productions (RemoveDeadProductions,
// HoistInvariantProductions): one definition of what counts as a read and as an effect.
#pragma once

#include <string>

#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

class BufferAccessVisitor : public IRVisitor {
protected:
    using IRVisitor::visit;

    /** A Store into `buffer`. */
    virtual void stored(const std::string &buffer) = 0;
    /** A Load of `buffer`, or `buffer` named as a value: a buffer's host pointer handed to a
     * call may be read through it. */
    virtual void read(const std::string &buffer) = 0;
    /** An assertion, or a call with an effect: anything but a pure call or a prefetch (which
     * only hints, and may run any number of times). */
    virtual void effect() = 0;

    void visit(const Store *op) override {
        stored(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Load *op) override {
        read(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Variable *op) override {
        if (op->type.is_handle()) read(op->name);
    }
    void visit(const AssertStmt *op) override {
        effect();
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (!op->is_pure() && !op->is_intrinsic(Call::prefetch)) effect();
        // A buffer handed to an extern stage (its call is an effect): an input is read, an
        // output written.
        if (op->is_intrinsic(Call::make_buffer)) {
            const std::string &buffer = op->args[0].as<StringImm>()->value;
            if (!buffer.empty()) {
                if (is_const_one(op->args[3])) {
                    stored(buffer);
                } else {
                    read(buffer);
                }
            }
        }
        IRVisitor::visit(op);
    }
};

/** Whether e reads `buffer` (loads it, or hands its host pointer on). */
inline bool reads_buffer(const Expr &e, const std::string &buffer) {
    class Reads : public BufferAccessVisitor {
    public:
        Reads(const std::string &buffer) : buffer(buffer) {}
        bool found = false;

    private:
        const std::string &buffer;
        void stored(const std::string &) override {}
        void read(const std::string &b) override { found = found || b == buffer; }
        void effect() override {}
    } reads(buffer);
    e.accept(&reads);
    return reads.found;
}

} // namespace Internal
} // namespace loom
