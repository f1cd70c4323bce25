// CodeGen's allocations (the class: CodeGen_LLVM_Internal.h): small ones of constant size on
// the stack, others from the runtime's heap, each padded; the loom_buffer_t of one a kernel
// uses; and their release, at their Free or, for all those held, at an error return.
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>

#include "codegen/CodeGen_LLVM_Internal.h"
#include "codegen/DeviceGlue.h"
#include "dsl/Error.h"
#include "lower/InjectDeviceCopies.h"
#include "lower/StorageFlattening.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

void CodeGen::visit(const Allocate *op) {
    const MemoryType memory = op->memory_type;
    const std::string asked = std::string("store_in(MemoryType::") + memory_type_name(memory) + ")";
    if (is_nvptx && thread_loop_depth == 0) {
        user_assert(memory == MemoryType::Auto || memory == MemoryType::GPUShared)
            << "Func " << op->name << " is stored " << asked << " but allocated at the block "
            << "level of a GPU kernel, where its storage is the block's shared memory. Use "
               "MemoryType::GPUShared or Auto, or compute it inside the thread loops.";
        return shared_allocation(op);
    }
    user_assert(memory != MemoryType::GPUShared)
        << "Func " << op->name << " is stored " << asked << " but allocated "
        << (is_nvptx ? "inside the thread loops of a GPU kernel (per thread)"
                     : "outside any GPU kernel")
        << ". Compute it at the gpu_blocks loop of a GPU kernel (compute_at(consumer, block "
           "Var)), or store it in Auto memory.";
    llvm::Value *count = builder.getInt64(1);
    for (const Expr &e : op->extents) {
        llvm::Value *ext = builder.CreateSExt(codegen(e), builder.getInt64Ty());
        // A negative extent (an empty region) allocates nothing.
        ext = builder.CreateSelect(builder.CreateICmpSLT(ext, builder.getInt64(0)),
                                   builder.getInt64(0), ext);
        count = builder.CreateMul(count, ext);
    }
    check_allocation_size(op->name, count);
    llvm::Value *bytes =
        builder.CreateAdd(builder.CreateMul(count, builder.getInt64(std::max(op->type.bytes(), 1))),
                          builder.getInt64(2 * kAllocationPaddingBytes));
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    // A small allocation of constant size (a tile of accumulators, a few rows) lives on the
    // stack, in the function's entry block so that a loop around it does not grow the
    // stack: LLVM then knows it aliases nothing and can keep it in registers.
    // store_in(Stack or Register) asks for the stack whatever the size (a GPU thread's own
    // memory stays limited); store_in(Heap) for the heap.
    const bool on_stack_asked = memory == MemoryType::Stack || memory == MemoryType::Register;
    auto *constant = llvm::dyn_cast<llvm::ConstantInt>(bytes);
    user_assert(!on_stack_asked || constant)
        << "Func " << op->name << " is stored " << asked << ", which needs a size known at "
        << "compile time, but its allocation's size depends on the region computed at run "
           "time. Fix its region with bound() (or compute it at a loop where the region is a "
           "constant), or store it in Heap or Auto memory.";
    if (constant && memory != MemoryType::Heap) {
        if (constant->getZExtValue() <= kMaxStackAllocationBytes || (on_stack_asked && !is_nvptx)) {
            llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
            // Of array type, not `alloca i8, n`: SROA splits only the former.
            llvm::AllocaInst *slot = entry.CreateAlloca(
                llvm::ArrayType::get(builder.getInt8Ty(), constant->getZExtValue()), nullptr,
                op->name);
            slot->setAlignment(llvm::Align(64));
            stack_allocations.push(op->name, constant->getZExtValue());
            buffers.push(op->name, first_element(slot));
            with_live_allocation(
                op->name, [&] { with_buffer_struct(op, count, [&] { codegen(op->body); }); });
            buffers.pop(op->name);
            stack_allocations.pop(op->name);
            return;
        }
    }
    user_assert(!is_nvptx)
        << "Buffer " << op->name << " is allocated inside a GPU kernel with "
        << kMaxStackAllocationBytes << " bytes or more; a GPU thread holds at most that "
        << "much. Compute it at a loop outside the kernel (compute_root), or in smaller parts.";
    llvm::FunctionCallee malloc_fn =
        runtime_function("loom_malloc", ptr, {ptr, builder.getInt64Ty()});
    // Fresh memory: no other pointer the pipeline holds points into it.
    if (auto *f = llvm::dyn_cast<llvm::Function>(malloc_fn.getCallee())) {
        f->addRetAttr(llvm::Attribute::NoAlias);
    }
    llvm::Value *mem = builder.CreateCall(malloc_fn, {user_context, bytes}, op->name);
    llvm::Value *is_null =
        builder.CreateICmpEQ(mem, llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0)));
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "alloc_failed", function);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "alloc_ok", function);
    builder.CreateCondBr(is_null, fail, ok);
    builder.SetInsertPoint(fail);
    llvm::Value *code =
        builder.CreateCall(runtime_function("loom_error_out_of_memory", builder.getInt32Ty(),
                                            {ptr, ptr, builder.getInt64Ty()}),
                           {user_context, builder.CreateGlobalStringPtr(op->name), bytes});
    return_error(code);
    builder.SetInsertPoint(ok);
    buffers.push(op->name, first_element(mem));
    with_live_allocation(op->name,
                         [&] { with_buffer_struct(op, count, [&] { codegen(op->body); }); });
    buffers.pop(op->name);
}

// An allocation's elements, `count`, must be at most max_allocation_elements, so that its
// flat offsets are exact in their type (32 bits without LargeBuffers; lower/StorageFlattening
// refuses a constant size past it, and checks the strides in 64 bits). Checked at run time
// where the size is known only then: the run stops with a message naming the Func, the same
// as the one here (loom_error_buffer_allocation_too_large, runtime/loom_runtime.c).
void CodeGen::check_allocation_size(const std::string &name, llvm::Value *count) {
    if (max_allocation_elements == INT64_MAX) return;
    if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(count)) {
        user_assert(constant->getSExtValue() <= max_allocation_elements)
            << "Func " << name << "'s storage holds " << constant->getSExtValue()
            << " elements, more than the " << max_allocation_elements
            << " that 32-bit offsets address. " << kLargeBuffersAdvice
            << ", or compute it over a smaller region.";
        return;
    }
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "allocation_too_large", function);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "allocation_size_ok", function);
    llvm::Value *most = builder.getInt64(max_allocation_elements);
    builder.CreateCondBr(builder.CreateICmpSGT(count, most), fail, ok);
    builder.SetInsertPoint(fail);
    llvm::Value *code = builder.CreateCall(
        runtime_function("loom_error_buffer_allocation_too_large", builder.getInt32Ty(),
                         {ptr, ptr, builder.getInt64Ty(), builder.getInt64Ty()}),
        {user_context, builder.CreateGlobalStringPtr(name), count, most});
    return_error(code);
    builder.SetInsertPoint(ok);
}

// Runs `body` with the allocation `name` held (see return_error); its Free, at the end of
// the body, lets go of it.
template <typename Body> void CodeGen::with_live_allocation(const std::string &name, Body body) {
    const size_t depth = live_allocations.size();
    live_allocations.push_back(name);
    body();
    live_allocations.resize(std::min(live_allocations.size(), depth));
}

// Runs `body` with `<name>.buffer` defined, where a kernel uses the allocation: a
// loom_buffer_t (on the stack) over its host memory as one dimension of `count` elements,
// with no device copy yet (lower/InjectDeviceCopies makes one where a kernel needs it;
// visit(Free) releases it).
template <typename Body>
void CodeGen::with_buffer_struct(const Allocate *op, llvm::Value *count, Body body) {
    if (!allocations_with_device_copies.count(op->name)) return body();
    llvm::Value *raw =
        emit_buffer_struct(builder, buffers.get(op->name), op->type, count, op->name);
    symbols.push(buffer_struct_name(op->name), raw);
    body();
    symbols.pop(buffer_struct_name(op->name));
}

// An allocation's elements start after its leading padding.
llvm::Value *CodeGen::first_element(llvm::Value *memory) {
    return builder.CreateInBoundsGEP(builder.getInt8Ty(), memory,
                                     builder.getInt64(kAllocationPaddingBytes));
}

// The start of an allocation's memory: its leading padding.
llvm::Value *CodeGen::allocation_start(const std::string &name) {
    return builder.CreateInBoundsGEP(builder.getInt8Ty(), buffer_host(name),
                                     builder.getInt64(-(int64_t)kAllocationPaddingBytes));
}

// The bytes of a stack allocation's elements, its padding left out.
uint64_t CodeGen::element_bytes(const std::string &name) const {
    return *stack_allocations.find(name) - 2 * kAllocationPaddingBytes;
}

void CodeGen::visit(const Free *op) {
    release_allocation(op->name);
    auto live = std::find(live_allocations.rbegin(), live_allocations.rend(), op->name);
    if (live != live_allocations.rend()) live_allocations.erase(std::next(live).base());
}

// What a Free does: the device copy of the allocation, if a kernel made one, and its
// memory, unless it is on the stack (released when the function returns).
void CodeGen::release_allocation(const std::string &name) {
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    if (symbols.contains(buffer_struct_name(name)) && allocations_with_device_copies.count(name)) {
        builder.CreateCall(
            runtime_function("loom_cuda_device_free", builder.getInt32Ty(), {ptr, ptr}),
            {user_context, symbols.get(buffer_struct_name(name))});
    }
    if (stack_allocations.contains(name)) return;
    builder.CreateCall(runtime_function("loom_free", builder.getVoidTy(), {ptr, ptr}),
                       {user_context, allocation_start(name)});
}

// Returns the error `code` from the function being generated, releasing first what its
// Frees would have released: every allocation it holds at this point, innermost first.
// (A task's caller releases its own allocations when the task's error reaches it.)
void CodeGen::return_error(llvm::Value *code) {
    for (auto it = live_allocations.rbegin(); it != live_allocations.rend(); ++it)
        release_allocation(*it);
    builder.CreateRet(code);
}

// After a call that returns an error code: return it from the function if it is not 0.
void CodeGen::return_if_failed(llvm::Value *result, const std::string &what) {
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, what + "_failed", function);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, what + "_ok", function);
    builder.CreateCondBr(builder.CreateICmpNE(result, builder.getInt32(0)), fail, ok);
    builder.SetInsertPoint(fail);
    return_error(result);
    builder.SetInsertPoint(ok);
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
