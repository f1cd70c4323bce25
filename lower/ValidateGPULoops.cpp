#include "lower/ValidateGPULoops.h"

#include <string>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace {

constexpr int kMaxGPUDimensions = 3;
constexpr int64_t kMaxThreadsPerBlock = 1024;

// The part of a kernel between its block loops and its thread loops: lets, block loops,
// one nest of thread loops. Anything else there would run once per thread where the user
// meant once per block.
void check_block_level(const Stmt &s, const std::string &kernel, int blocks);

void check_thread_nest(const Stmt &s, const std::string &kernel, int threads, int64_t block_size);

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

void check_thread_nest(const Stmt &s, const std::string &kernel, int threads, int64_t block_size) {
    if (const LetStmt *l = s.as<LetStmt>()) return check_thread_nest(l->body, kernel, threads, block_size);
    const For *f = s.as<For>();
    if (!f || f->for_type != ForType::GPUThread) {
        user_assert(threads > 0)
            << "Kernel " << kernel << " has gpu_blocks loops but no gpu_threads loop inside "
            << "them. Mark an inner loop gpu_threads (or schedule with gpu_tile).";
        KernelInterior interior(kernel);
        s.accept(&interior);
        return;
    }
    user_assert(threads < kMaxGPUDimensions)
        << "Kernel " << kernel << " has more than " << kMaxGPUDimensions
        << " gpu_threads loops (at " << f->name << "). Fuse some of them.";
    const int64_t *extent = as_const_int(f->extent);
    user_assert(extent)
        << "The gpu_threads loop " << f->name << " of kernel " << kernel << " has extent "
        << f->extent << ", not a constant. Split it by a constant (gpu_tile with a constant "
        << "size) so every block has the same number of threads.";
    user_assert(*extent * block_size <= kMaxThreadsPerBlock)
        << "Kernel " << kernel << " has " << *extent * block_size << " threads a block (at loop "
        << f->name << "); CUDA allows at most " << kMaxThreadsPerBlock
        << ". Use smaller gpu_tile sizes.";
    check_thread_nest(f->body, kernel, threads + 1, block_size * *extent);
}

void check_block_level(const Stmt &s, const std::string &kernel, int blocks) {
    if (const LetStmt *l = s.as<LetStmt>()) return check_block_level(l->body, kernel, blocks);
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUBlock) {
        user_assert(blocks < kMaxGPUDimensions)
            << "Kernel " << kernel << " has more than " << kMaxGPUDimensions
            << " gpu_blocks loops (at " << f->name << "). Fuse some of them.";
        return check_block_level(f->body, kernel, blocks + 1);
    }
    if (const For *f = s.as<For>(); f && f->for_type == ForType::GPUThread) {
        return check_thread_nest(s, kernel, 0, 1);
    }
    user_assert(false)
        << "Kernel " << kernel << " has code between its gpu_blocks and gpu_threads loops:\n"
        << s << "It would run once per thread where it is meant once per block (a producer "
        << "computed at a block loop needs shared memory, which Loom's CUDA backend does not "
           "have yet). Compute it at the thread loops, or at a loop outside the kernel.";
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
        check_block_level(Stmt(op), op->name, 0);
    }
};

} // namespace

void validate_gpu_loops(const Stmt &s, const Target &target) {
    ValidateGPULoops v(target);
    s.accept(&v);
}

} // namespace Internal
} // namespace loom
