#include "lower/InjectDeviceCopies.h"

#include <set>
#include <string>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {
namespace {

bool is_kernel(const Stmt &s) {
    const For *f = s.as<For>();
    return f && f->for_type == ForType::GPUBlock;
}

class ContainsKernel : public IRVisitor {
public:
    bool found = false;

private:
    void visit(const For *op) override {
        found = found || op->for_type == ForType::GPUBlock;
        if (!found) IRVisitor::visit(op);
    }
};

bool contains_kernel(const Stmt &s) {
    ContainsKernel c;
    s.accept(&c);
    return c.found;
}

// The buffers a statement reads and writes, other than those it allocates itself.
class BufferUses : public IRVisitor {
public:
    std::set<std::string> reads, writes;

private:
    Scope<int> inside;
    void visit(const Load *op) override {
        if (!inside.contains(op->name)) reads.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        if (!inside.contains(op->name)) writes.insert(op->name);
        IRVisitor::visit(op);
    }
    // A buffer handed to an extern stage on the host: its input read, its output written; a
    // memoized region copied from the cache (written) or into it (read).
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::memoize_lookup) || op->is_intrinsic(Call::memoize_store)) {
            const std::string &name = op->args[1].as<StringImm>()->value;
            if (!inside.contains(name))
                (op->is_intrinsic(Call::memoize_lookup) ? writes : reads).insert(name);
        }
        if (op->is_intrinsic(Call::make_buffer)) {
            const std::string &name = op->args[0].as<StringImm>()->value;
            if (!name.empty() && !inside.contains(name))
                (is_const_one(op->args[3]) ? writes : reads).insert(name);
        }
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) e.accept(this);
        ScopedBinding<int> b(inside, op->name, 0);
        op->body.accept(this);
    }
};

BufferUses buffer_uses(const Stmt &s) {
    BufferUses u;
    s.accept(&u);
    return u;
}

Expr buffer_variable(const std::string &name) { return Variable::make(Handle(), buffer_struct_name(name)); }

// `call` (returning an error code), then `rest` if it returned 0; else the pipeline returns it.
Stmt checked(const std::string &result_name, const Expr &call, const Stmt &rest) {
    Expr result = Variable::make(Int(32), result_name);
    return LetStmt::make(result_name, call,
                         Block::make(AssertStmt::make(result == 0, result), rest));
}

Stmt copied_before(const char *function, const std::string &suffix,
                   const std::set<std::string> &buffers, Stmt s) {
    for (auto it = buffers.rbegin(); it != buffers.rend(); ++it) {
        Expr call = Call::make(Int(32), function, {buffer_variable(*it), Expr(*it)}, Call::Extern);
        s = checked(*it + suffix, call, s);
    }
    return s;
}

Stmt marked_after(const char *function, const std::set<std::string> &buffers, Stmt s) {
    for (const std::string &b : buffers) {
        s = Block::make(s, Evaluate::make(Call::make(Int(32), function, {buffer_variable(b)},
                                                     Call::Extern)));
    }
    return s;
}

class InjectDeviceCopies : public IRMutator {
public:
    explicit InjectDeviceCopies(std::set<std::string> device_buffers)
        : device_buffers(std::move(device_buffers)) {}

    Stmt mutate(const Stmt &s) override {
        if (!s.defined()) return s;
        if (is_kernel(s)) return kernel(s);
        if (!contains_kernel(s)) return host_code(s);
        return IRMutator::mutate(s);
    }

private:
    const std::set<std::string> device_buffers;

    Stmt kernel(const Stmt &s) {
        BufferUses uses = buffer_uses(s);
        std::set<std::string> touched = uses.reads;
        touched.insert(uses.writes.begin(), uses.writes.end());
        return copied_before("loom_cuda_copy_to_device", ".to_device", touched,
                             marked_after("loom_cuda_mark_device_dirty", uses.writes, s));
    }

    Stmt host_code(const Stmt &s) {
        BufferUses uses = buffer_uses(s);
        std::set<std::string> touched, written;
        for (const std::string &b : uses.reads) {
            if (device_buffers.count(b)) touched.insert(b);
        }
        for (const std::string &b : uses.writes) {
            if (device_buffers.count(b)) touched.insert(b), written.insert(b);
        }
        if (touched.empty()) return s;
        return copied_before("loom_cuda_copy_to_host", ".to_host", touched,
                             marked_after("loom_cuda_mark_host_dirty", written, s));
    }
};

// Every buffer some kernel reads or writes.
class KernelBuffers : public IRVisitor {
public:
    std::set<std::string> buffers;

private:
    void visit(const For *op) override {
        if (op->for_type != ForType::GPUBlock) return IRVisitor::visit(op);
        BufferUses uses = buffer_uses(Stmt(op));
        buffers.insert(uses.reads.begin(), uses.reads.end());
        buffers.insert(uses.writes.begin(), uses.writes.end());
    }
};

} // namespace

std::string buffer_struct_name(const std::string &buffer) { return buffer + ".buffer"; }

Expr buffer_is_bounds_query(const std::string &buffer) {
    return Call::make(Int(32), "loom_buffer_is_bounds_query", {buffer_variable(buffer)},
                      Call::Extern);
}

Stmt bounds_query_answer(const std::string &buffer, int d, const Expr &min, const Expr &max) {
    return Evaluate::make(Call::make(Int(32), "loom_buffer_bounds_query",
                                     {buffer_variable(buffer), Expr(d), min, max}, Call::Extern));
}

Stmt inject_device_copies(const Stmt &s) {
    KernelBuffers k;
    s.accept(&k);
    if (k.buffers.empty()) return s;
    return InjectDeviceCopies(k.buffers).mutate(s);
}

} // namespace Internal
} // namespace loom
