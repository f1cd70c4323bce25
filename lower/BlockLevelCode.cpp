#include "lower/BlockLevelCode.h"

#include <string>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

class HasGPULoop : public IRVisitor {
public:
    bool found = false;

private:
    void visit(const For *op) override {
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) {
            found = true;
            return;
        }
        IRVisitor::visit(op);
    }
};

bool has_gpu_loop(const Stmt &s) {
    HasGPULoop v;
    s.accept(&v);
    return v.found;
}

class OneThreadForBlockCode : public IRMutator {
    using IRMutator::visit;

    // Outside kernels: a kernel starts at an outermost block loop.
    Stmt visit(const For *op) override {
        if (op->for_type != ForType::GPUBlock) return IRMutator::visit(op);
        kernel = op->name;
        singles = 0;
        return at_block_level(Stmt(op));
    }

    std::string kernel;
    int singles = 0;

    Stmt at_block_level(const Stmt &s) {
        if (!s.defined()) return s;
        if (const LetStmt *l = s.as<LetStmt>()) {
            return LetStmt::make(l->name, l->value, at_block_level(l->body));
        }
        if (const Allocate *a = s.as<Allocate>()) {
            return Allocate::make(a->name, a->type, a->extents, at_block_level(a->body),
                                  a->memory_type);
        }
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            return ProducerConsumer::make(pc->name, pc->is_producer, at_block_level(pc->body));
        }
        if (const Block *b = s.as<Block>()) {
            return Block::make(at_block_level(b->first), at_block_level(b->rest));
        }
        if (s.as<Free>()) return s;
        const For *f = s.as<For>();
        if (f && f->for_type == ForType::GPUBlock) {
            return For::make(f->name, f->min, f->extent, f->for_type, f->device_api,
                             at_block_level(f->body));
        }
        if (f && f->for_type == ForType::GPUThread) return s;
        if (const Evaluate *e = s.as<Evaluate>(); e && is_const(e->value)) return s;
        if (!has_gpu_loop(s)) {
            const std::string name = kernel + ".block_code" + std::to_string(singles++);
            return For::make(name, 0, 1, ForType::GPUThread, DeviceAPI::CUDA, s);
        }
        // A serial loop or a condition around thread loops: every thread of the block runs it
        // alike (nothing at block level depends on a thread index), so its body is block level.
        if (f) {
            return For::make(f->name, f->min, f->extent, f->for_type, f->device_api,
                             at_block_level(f->body));
        }
        if (const IfThenElse *i = s.as<IfThenElse>()) {
            return IfThenElse::make(i->condition, at_block_level(i->then_case),
                                    at_block_level(i->else_case));
        }
        return s; // for lower/ValidateGPULoops to judge
    }
};

} // namespace

Stmt run_block_level_code_on_one_thread(const Stmt &s) { return OneThreadForBlockCode().mutate(s); }

} // namespace Internal
} // namespace loom
