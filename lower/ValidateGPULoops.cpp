#include "lower/ValidateGPULoops.h"

#include <algorithm>
#include <string>
#include <vector>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

constexpr int kMaxGPUDimensions = 3;
constexpr int64_t kMaxThreadsPerBlock = 1024;

// What a kernel's nests of thread loops ask of its blocks: on each axis (x innermost), the
// most threads any nest uses there.
struct BlockThreads {
    int64_t extent[kMaxGPUDimensions] = {1, 1, 1};
    bool any_nest = false;
    /** Bytes of the storage its blocks share, and the buffers that take them. */
    int64_t shared_bytes = 0;
    std::string shared_buffers;
};

// The static shared memory a block may have (CUDA's limit without opting in to more).
constexpr int64_t kMaxSharedBytes = 48 << 10;

class KernelInterior : public IRVisitor {
public:
    explicit KernelInterior(std::string kernel) : kernel(std::move(kernel)) {}

private:
    std::string kernel;
    void visit(const For *op) override {
        user_assert(op->for_type != ForType::GPUBlock)
            << "Loop " << op->name << " is gpu_blocks but runs inside the gpu_threads loops of "
            << "kernel " << kernel << ". Block loops must be outside every thread loop: reorder "
            << "them.";
        user_assert(op->for_type != ForType::GPUThread)
            << "Loop " << op->name << " is gpu_threads inside a serial loop of kernel " << kernel
            << ", itself inside its thread loops. Thread loops must be nested directly in one "
               "another: reorder them so no other loop comes between.";
        user_assert(op->for_type != ForType::Parallel)
            << "Loop " << op->name << " is parallel inside kernel " << kernel
            << ", whose threads already run at once. Make it serial, or map it to gpu_threads.";
        IRVisitor::visit(op);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents) {
            user_assert(is_const(e))
                << "Buffer " << op->name << " is allocated inside kernel " << kernel
                << " with extent " << e << ", not a constant: a GPU thread can only hold "
                << "storage of a size known at compile time. Compute it at a loop outside the "
                   "kernel (compute_root), or bound its extent (Func::bound).";
        }
        IRVisitor::visit(op);
    }
};

// One nest of thread loops, from its outermost (threads: the thread loops outside s).
void check_thread_nest(const Stmt &s, const std::string &kernel, std::vector<const For *> &nest,
                       BlockThreads &block) {
    if (const LetStmt *l = s.as<LetStmt>()) return check_thread_nest(l->body, kernel, nest, block);
    const For *f = s.as<For>();
    if (f && f->for_type == ForType::GPUThread) {
        user_assert(nest.size() < (size_t)kMaxGPUDimensions)
            << "Kernel " << kernel << " has more than " << kMaxGPUDimensions
            << " nested gpu_threads loops (at " << f->name << "). Fuse some of them.";
        user_assert(is_const(f->extent))
            << "The gpu_threads loop " << f->name << " of kernel " << kernel << " has extent "
            << f->extent << ", not a constant. Split it by a constant (gpu_tile with a constant "
            << "size) so every block has the same number of threads.";
        nest.push_back(f);
        return check_thread_nest(f->body, kernel, nest, block);
    }
    // The nest's body: its innermost thread loop is axis x.
    int64_t threads = 1;
    for (size_t i = 0; i < nest.size(); i++) {
        const int64_t extent = *as_const_int(nest[nest.size() - 1 - i]->extent);
        block.extent[i] = std::max(block.extent[i], extent);
        threads *= extent;
    }
    block.any_nest = true;
    KernelInterior interior(kernel);
    s.accept(&interior);
}

// The name of the first gpu_blocks loop in s, or "".
std::string first_block_loop(const Stmt &s) {
    class Find : public IRVisitor {
    public:
        std::string name;

    private:
        void visit(const For *op) override {
            if (op->for_type == ForType::GPUBlock && name.empty()) name = op->name;
            IRVisitor::visit(op);
        }
    } find;
    s.accept(&find);
    return find.name;
}

// The part of a kernel between its block loops and its thread loops: lets, block loops,
// storage shared by a block's threads (a Func computed at a block loop), and nests of thread
// loops run one after another (code of the block's alone became a nest of one thread).
void check_block_level(const Stmt &s, const std::string &kernel, int blocks, BlockThreads &block) {
    if (!s.defined()) return;
    if (const LetStmt *l = s.as<LetStmt>()) return check_block_level(l->body, kernel, blocks, block);
    if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
        return check_block_level(pc->body, kernel, blocks, block);
    }
    if (const Block *b = s.as<Block>()) {
        check_block_level(b->first, kernel, blocks, block);
        return check_block_level(b->rest, kernel, blocks, block);
    }
    if (s.as<Free>()) return;
    if (const Allocate *a = s.as<Allocate>()) {
        for (const Expr &e : a->extents) {
            user_assert(is_const(e))
                << "Buffer " << a->name << " is shared by the threads of a block of kernel "
                << kernel << " but has extent " << e << ", not a constant: shared memory is "
                << "sized when the kernel is compiled. Tile its consumer by constant sizes.";
        }
        int64_t bytes = a->type.bytes();
        for (const Expr &e : a->extents)
            bytes *= std::max<int64_t>(*as_const_int(e), 0);
        block.shared_bytes += bytes;
        block.shared_buffers +=
            (block.shared_buffers.empty() ? "" : ", ") + a->name + " " + std::to_string(bytes);
        return check_block_level(a->body, kernel, blocks, block);
    }
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUBlock) {
        user_assert(!block.any_nest)
            << "The gpu_blocks loop " << f->name << " of kernel " << kernel
            << " comes after thread loops at block level. Block loops must be outermost.";
        user_assert(blocks < kMaxGPUDimensions)
            << "Kernel " << kernel << " has more than " << kMaxGPUDimensions
            << " gpu_blocks loops (at " << f->name << "). Fuse some of them.";
        return check_block_level(f->body, kernel, blocks + 1, block);
    }
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUThread) {
        std::vector<const For *> nest;
        return check_thread_nest(s, kernel, nest, block);
    }
    // A serial loop or condition around thread loops: every thread runs it alike.
    if (const For *f = s.as<For>(); f && f->for_type == ForType::Serial) {
        const std::string inner = first_block_loop(f->body);
        user_assert(inner.empty()) << "The gpu_blocks loop " << inner << " of kernel " << kernel
                                   << " is inside the serial loop " << f->name
                                   << ". Block loops must be outermost: reorder them.";
        return check_block_level(f->body, kernel, blocks, block);
    }
    if (const IfThenElse *i = s.as<IfThenElse>()) {
        check_block_level(i->then_case, kernel, blocks, block);
        return check_block_level(i->else_case, kernel, blocks, block);
    }
    // Block-level code without GPU loops runs on one thread (lower/BlockLevelCode.h).
    user_assert(false) << "Kernel " << kernel
                       << " has a statement between its gpu_blocks and gpu_threads loops that "
                          "no thread can run:\n"
                       << s
                       << "Compute the Func at the thread loops, or at a loop outside the kernel.";
}

class ValidateGPULoops : public IRVisitor {
public:
    explicit ValidateGPULoops(const Target &target) : target(target) {}

private:
    const Target &target;
    void visit(const For *op) override {
        if (op->for_type == ForType::GPUThread) {
            user_assert(false) << "Loop " << op->name << " is gpu_threads but no gpu_blocks loop "
                               << "is around it. Mark an outer loop gpu_blocks (or schedule "
                                  "with gpu_tile).";
        }
        if (op->for_type != ForType::GPUBlock) return IRVisitor::visit(op);
        user_assert(target.has_feature(Target::CUDA))
            << "Loop " << op->name << " is mapped to the GPU (gpu_blocks), but the target "
            << target.to_string() << " has no GPU. Compile for "
            << "get_host_target().with_feature(Target::CUDA), or schedule the Func for the CPU.";
        BlockThreads block;
        check_block_level(Stmt(op), op->name, 0, block);
        user_assert(block.any_nest)
            << "Kernel " << op->name << " has gpu_blocks loops but no gpu_threads loop inside "
            << "them. Mark an inner loop gpu_threads (or schedule with gpu_tile).";
        const int64_t threads = block.extent[0] * block.extent[1] * block.extent[2];
        user_assert(threads <= kMaxThreadsPerBlock)
            << "Kernel " << op->name << " has " << threads << " threads a block ("
            << block.extent[0] << " x " << block.extent[1] << " x " << block.extent[2]
            << ", the most its thread loops use on each axis); CUDA allows at most "
            << kMaxThreadsPerBlock << ". Use smaller gpu_tile sizes.";
        user_assert(block.shared_bytes <= kMaxSharedBytes)
            << "Kernel " << op->name << " needs " << block.shared_bytes
            << " bytes of shared memory a block (" << block.shared_buffers << "); CUDA allows "
            << kMaxSharedBytes
            << ". Use smaller gpu_tile sizes, or compute some of these "
               "Funcs at root.";
    }
};

} // namespace

void validate_gpu_loops(const Stmt &s, const Target &target) {
    ValidateGPULoops v(target);
    s.accept(&v);
}

} // namespace Internal
} // namespace loom
