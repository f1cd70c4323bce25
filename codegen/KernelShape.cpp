#include "codegen/KernelShape.h"

#include <algorithm>

#include "dsl/Error.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace {

// One nest of thread loops, outermost first (lets may sit between them).
std::vector<const For *> thread_nest(const For *outermost) {
    std::vector<const For *> loops;
    Stmt s = outermost;
    while (true) {
        if (const LetStmt *l = s.as<LetStmt>()) {
            s = l->body;
        } else if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUThread) {
            loops.push_back(f);
            s = f->body;
        } else {
            return loops;
        }
    }
}

// The statements at block level: lets, block-level storage, productions, sequences, serial
// loops and conditions that every thread runs alike, and the thread nests they hold.
void find_nests(const Stmt &s, KernelShape &shape) {
    if (!s.defined()) return;
    if (const LetStmt *l = s.as<LetStmt>()) return find_nests(l->body, shape);
    if (const Allocate *a = s.as<Allocate>()) return find_nests(a->body, shape);
    if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) return find_nests(pc->body, shape);
    if (const Block *b = s.as<Block>()) {
        find_nests(b->first, shape);
        return find_nests(b->rest, shape);
    }
    if (const IfThenElse *i = s.as<IfThenElse>()) {
        find_nests(i->then_case, shape);
        return find_nests(i->else_case, shape);
    }
    const For *f = s.as<For>();
    if (f && f->for_type == ForType::Serial) return find_nests(f->body, shape);
    if (!f || f->for_type != ForType::GPUThread) return;  // a Free, or nothing of the GPU's
    std::vector<const For *> nest = thread_nest(f);
    const int axes = (int)nest.size();
    shape.nests[f->name] = axes;
    for (int i = 0; i < axes; i++) {
        const For *loop = nest[axes - 1 - i];
        const int64_t *extent = as_const_int(loop->extent);
        internal_assert(extent) << "Thread loop " << loop->name << " of non-constant extent";
        shape.thread_loops[loop->name] = {i, *extent};
        shape.block_extent[i] = std::max(shape.block_extent[i], *extent);
    }
}

}  // namespace

KernelShape kernel_shape(const For *kernel) {
    KernelShape shape;
    Stmt s = kernel;
    while (true) {
        if (const LetStmt *l = s.as<LetStmt>()) {
            s = l->body;
        } else if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUBlock) {
            shape.blocks.push_back(f);
            s = f->body;
        } else {
            break;
        }
    }
    for (size_t i = 0; i < shape.blocks.size(); i++) {
        shape.block_axis[shape.blocks[i]->name] = int(shape.blocks.size() - 1 - i);
    }
    find_nests(s, shape);
    return shape;
}

}  // namespace Internal
}  // namespace loom
