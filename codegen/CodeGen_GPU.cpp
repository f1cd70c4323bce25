// CodeGen's GPU side (the class: CodeGen_LLVM_Internal.h): on the host, each kernel compiled
// to PTX in a module of its own and launched over its grid, and the allocations with device
// copies; in a kernel's module, its block and thread loops (indices from the special
// registers) and its storage shared by a block's threads.
#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/GlobalVariable.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/CodeGen_LLVM_Internal.h"
#include "codegen/DeviceGlue.h"
#include "codegen/KernelShape.h"
#include "codegen/KernelVectorAlignment.h"
#include "codegen/PTX.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/InjectDeviceCopies.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

namespace {

// The buffers whose loom_buffer_t the code refers to (`<name>.buffer` variables: the
// device-copy calls of lower/InjectDeviceCopies).
class BufferStructUses : public IRVisitor {
public:
    std::set<std::string> names;

private:
    void visit(const Variable *op) override {
        static const std::string suffix = buffer_struct_name("");
        const std::string &n = op->name;
        if (op->type.is_handle() && n.size() > suffix.size() &&
            n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
            names.insert(n.substr(0, n.size() - suffix.size()));
        }
    }
};

// The PTX special register a GPU loop's index comes from: the innermost block (thread) loop
// is x, the next y, then z, so that consecutive threads of a warp take consecutive x.
llvm::Intrinsic::ID gpu_index_register(bool block, int dim) {
    static const llvm::Intrinsic::ID blocks[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    static const llvm::Intrinsic::ID threads[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
    return block ? blocks[dim] : threads[dim];
}

} // namespace

std::set<std::string> buffers_with_device_copies(const Stmt &s) {
    BufferStructUses u;
    s.accept(&u);
    return u.names;
}

std::unique_ptr<llvm::Module> CodeGen::compile_kernel(const std::string &name, const For *kernel,
                                                      const std::vector<KernelParam> &params,
                                                      const std::map<const IRNode *, int> &wide) {
    internal_assert(is_nvptx) << "compile_kernel needs an NVPTX target";
    wide_accesses = wide;
    std::vector<llvm::Type *> types;
    for (const KernelParam &p : params)
        types.push_back(p.type);
    auto *fn_type = llvm::FunctionType::get(builder.getVoidTy(), types, false);
    function = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, name, module.get());
    function->addFnAttr(llvm::Attribute::NoUnwind);
    entry_function = function;
    user_context = llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0));
    builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", function));
    for (size_t i = 0; i < params.size(); i++) {
        llvm::Argument *arg = function->getArg(i);
        arg->setName(params[i].name);
        if (params[i].is_buffer) {
            buffers.push(params[i].name, arg);
            // Any two may be views of the same memory, as a pipeline's inputs and outputs.
            external_buffers.insert(params[i].name);
        } else {
            symbols.push(params[i].name, arg);
        }
    }
    shape = kernel_shape(kernel);
    codegen(Stmt(kernel));
    builder.CreateRetVoid();
    mark_kernel(*function, (int)shape.threads_per_block());
    if (verify) {
        std::string errors;
        llvm::raw_string_ostream es(errors);
        internal_assert(!llvm::verifyModule(*module, &es))
            << "LLVM rejected the generated kernel " << name << ": " << es.str();
    }
    return std::move(module);
}

// A block or thread loop inside a kernel: one iteration per block (thread), its index
// from a special register. A thread loop shorter than the block's threads on its axis runs
// on the first of them only; the outermost loop of a nest also leaves out the threads past
// the first on the axes its nest does not use. Where a kernel has several nests (a
// producer staged in shared storage, then its consumer), every thread waits at a barrier
// after each, so that the next reads what the last wrote.
void CodeGen::gpu_loop(const For *op) {
    if (op->for_type == ForType::GPUBlock) {
        auto it = shape.block_axis.find(op->name);
        internal_assert(it != shape.block_axis.end())
            << "Block loop " << op->name << " is not among its kernel's block loops";
        llvm::Value *index = builder.CreateIntrinsic(gpu_index_register(true, it->second), {}, {});
        symbols.push(op->name, builder.CreateAdd(codegen(op->min), index, op->name, false, true));
        codegen(op->body);
        symbols.pop(op->name);
        return;
    }
    auto it = shape.thread_loops.find(op->name);
    internal_assert(it != shape.thread_loops.end())
        << "Thread loop " << op->name << " is not in one of its kernel's nests";
    const KernelShape::ThreadLoop &loop = it->second;
    auto thread_index = [&](int axis) {
        return builder.CreateIntrinsic(gpu_index_register(false, axis), {}, {});
    };
    llvm::Value *index = thread_index(loop.axis);
    llvm::Value *active = builder.getTrue();
    if (loop.extent < shape.block_extent[loop.axis]) {
        active = builder.CreateICmpSLT(index, builder.getInt32((int32_t)loop.extent));
    }
    auto nest = shape.nests.find(op->name);
    if (nest != shape.nests.end()) {
        for (int axis = nest->second; axis < 3; axis++) {
            if (shape.block_extent[axis] == 1) continue;
            active = builder.CreateAnd(
                active, builder.CreateICmpEQ(thread_index(axis), builder.getInt32(0)));
        }
    }
    llvm::BasicBlock *after = nullptr;
    if (!llvm::isa<llvm::ConstantInt>(active)) {
        llvm::BasicBlock *body = llvm::BasicBlock::Create(ctx, op->name + ".active", function);
        after = llvm::BasicBlock::Create(ctx, op->name + ".after", function);
        builder.CreateCondBr(active, body, after);
        builder.SetInsertPoint(body);
    }
    symbols.push(op->name, builder.CreateAdd(codegen(op->min), index, op->name, false, true));
    thread_loop_depth++;
    codegen(op->body);
    thread_loop_depth--;
    symbols.pop(op->name);
    if (after) {
        builder.CreateBr(after);
        builder.SetInsertPoint(after);
    }
    if (nest != shape.nests.end() && shape.nests.size() > 1) {
        builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
    }
}

// A kernel (the loop nest from an outermost block loop in), on the host: compiles it to PTX
// in a module of its own, and launches it over a grid of the block loops' extents with
// blocks of the thread loops' (lower/ValidateGPULoops checked the nest's shape). Its
// parameters are the buffers it uses (their device copies, which lower/InjectDeviceCopies
// made current) and the scalars its body reads.
void CodeGen::launch_kernel(const For *op) {
    internal_assert(op->for_type == ForType::GPUBlock)
        << "Thread loop " << op->name << " outside a kernel reached code generation";
    const KernelShape shape = kernel_shape(op);
    FreeNames free;
    op->accept(&free);
    std::vector<KernelParam> params;
    std::vector<llvm::Value *> values;
    llvm::PointerType *ptr = llvm::PointerType::get(ctx, 0);
    for (const std::string &b : free.buffers) {
        internal_assert(symbols.contains(buffer_struct_name(b)))
            << "Kernel " << op->name << " uses buffer " << b << ", which has no loom_buffer_t";
        params.push_back({b, true, ptr});
        values.push_back(emit_device_pointer(builder, symbols.get(buffer_struct_name(b)), b));
    }
    for (const std::string &v : free.vars) {
        internal_assert(symbols.contains(v))
            << "Kernel " << op->name << " reads " << v << ", which is not defined where it runs";
        llvm::Value *host_value = symbols.get(v);
        params.push_back({v, false, host_value->getType()});
        values.push_back(host_value);
    }
    const std::string name = kernel_name(op->name, kernels_emitted++);
    if (!ptx_target) ptx_target = make_ptx_target_machine();
    auto compile = [&](const std::string &kernel, const std::map<const IRNode *, int> &wide) {
        std::unique_ptr<llvm::Module> m =
            CodeGen(ctx, *ptx_target, kernel, 0, verify).compile_kernel(kernel, op, params, wide);
        return compile_to_ptx(*m, *ptx_target);
    };
    const std::string ptx = compile(name, {});
    // Where some dense vector access can be made 8 or 16 bytes wide, a second kernel has them
    // so, launched where the launch-time checks pass (codegen/KernelVectorAlignment.h).
    std::set<std::string> scalar_names(free.vars.begin(), free.vars.end());
    std::set<std::string> buffer_names(free.buffers.begin(), free.buffers.end());
    const KernelVectorAlignment wide = plan_kernel_vector_alignment(op, scalar_names, buffer_names);
    const std::string wide_name = name + "_wide";
    const std::string wide_ptx =
        wide.empty() ? std::string() : compile(wide_name, wide.access_alignment);

    // The grid: block loops' extents, innermost first (x). Block loop extents are
    // evaluated here, on the host, so they may use only what is defined outside the kernel.
    std::array<llvm::Value *, 3> grid, block;
    grid.fill(builder.getInt32(1));
    llvm::Value *any_empty = builder.getFalse();
    for (size_t i = 0; i < shape.blocks.size(); i++) {
        const For *b = shape.blocks[shape.blocks.size() - 1 - i];
        FreeNames extent_names;
        b->extent.accept(&extent_names);
        for (const std::string &v : extent_names.vars) {
            user_assert(symbols.contains(v))
                << "The gpu_blocks loop " << b->name << " has extent " << b->extent
                << ", which depends on " << v << ", defined inside kernel " << op->name
                << ". The grid's size must be known before the kernel starts: reorder the "
                   "block loops so that this one does not depend on an outer one.";
        }
        grid[i] = codegen(b->extent);
        any_empty =
            builder.CreateOr(any_empty, builder.CreateICmpSLE(grid[i], builder.getInt32(0)));
    }
    for (int i = 0; i < 3; i++)
        block[i] = builder.getInt32((int32_t)shape.block_extent[i]);
    llvm::BasicBlock *launch = llvm::BasicBlock::Create(ctx, name + ".launch", function);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, name + ".after", function);
    builder.CreateCondBr(any_empty, after, launch);
    builder.SetInsertPoint(launch);
    if (!wide.empty()) {
        llvm::Value *checks = builder.getTrue();
        for (const auto &[scalar, multiple] : wide.multiple_of) {
            llvm::Value *v = symbols.get(scalar);
            llvm::Value *low_bits =
                builder.CreateAnd(v, llvm::ConstantInt::get(v->getType(), multiple - 1));
            checks = builder.CreateAnd(checks, builder.CreateIsNull(low_bits));
        }
        for (size_t i = 0; i < free.buffers.size(); i++) {
            auto it = wide.pointer_alignment.find(free.buffers[i]);
            if (it == wide.pointer_alignment.end()) continue;
            llvm::Value *address = builder.CreatePtrToInt(values[i], builder.getInt64Ty());
            checks = builder.CreateAnd(
                checks, builder.CreateIsNull(builder.CreateAnd(address, it->second - 1)));
        }
        llvm::BasicBlock *launch_wide =
            llvm::BasicBlock::Create(ctx, wide_name + ".launch", function);
        llvm::BasicBlock *launch_narrow = llvm::BasicBlock::Create(ctx, name + ".narrow", function);
        builder.CreateCondBr(checks, launch_wide, launch_narrow);
        builder.SetInsertPoint(launch_wide);
        llvm::Value *result =
            emit_kernel_launch(builder, user_context, wide_name, wide_ptx, grid, block, values);
        return_if_failed(result, wide_name);
        builder.CreateBr(after);
        builder.SetInsertPoint(launch_narrow);
    }
    llvm::Value *result = emit_kernel_launch(builder, user_context, name, ptx, grid, block, values);
    return_if_failed(result, name);
    builder.CreateBr(after);
    builder.SetInsertPoint(after);
}

llvm::Align CodeGen::access_alignment(const IRNode *access, Type t) const {
    auto it = wide_accesses.find(access);
    if (it != wide_accesses.end()) return llvm::Align(it->second);
    return llvm::Align(t.element_of().bytes() ? t.element_of().bytes() : 1);
}

// Storage of a kernel outside its thread loops: shared by the threads of a block (CUDA's
// shared memory), sized at compile time (lower/ValidateGPULoops checked the extents).
void CodeGen::shared_allocation(const Allocate *op) {
    int64_t bytes = std::max(op->type.bytes(), 1);
    for (const Expr &e : op->extents)
        bytes *= std::max<int64_t>(*as_const_int(e), 0);
    constexpr unsigned kSharedAddressSpace = 3;
    auto *type = llvm::ArrayType::get(builder.getInt8Ty(), std::max<int64_t>(bytes, 1));
    auto *storage = new llvm::GlobalVariable(
        *module, type, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(type),
        op->name, nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
    storage->setAlignment(llvm::Align(16));
    stack_allocations.push(op->name, bytes); // nothing for its Free to release
    buffers.push(op->name, builder.CreateAddrSpaceCast(storage, llvm::PointerType::get(ctx, 0)));
    codegen(op->body);
    buffers.pop(op->name);
    stack_allocations.pop(op->name);
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
