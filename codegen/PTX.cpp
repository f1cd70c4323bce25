#include "codegen/PTX.h"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/Metadata.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include "codegen/LLVMTarget.h"
#include "dsl/Error.h"

namespace loom {
namespace Internal {

namespace {
constexpr const char *kPTXTriple = "nvptx64-nvidia-cuda";
constexpr const char *kPTXCPU = "sm_70";
}  // namespace

std::unique_ptr<llvm::TargetMachine> make_ptx_target_machine() {
    initialize_llvm();
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(kPTXTriple, error);
    internal_assert(target) << "LLVM has no NVPTX target (" << error
                            << "): Loom must be linked with LLVM's NVPTX backend.";
    llvm::TargetOptions options;
    options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
    std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
        kPTXTriple, kPTXCPU, "", options, std::nullopt, std::nullopt,
        llvm::CodeGenOptLevel::Aggressive));
    internal_assert(tm) << "Could not create an LLVM TargetMachine for " << kPTXTriple;
    return tm;
}

void mark_kernel(llvm::Function &f, int threads_per_block) {
    llvm::LLVMContext &ctx = f.getContext();
    llvm::Module &m = *f.getParent();
    llvm::NamedMDNode *annotations = m.getOrInsertNamedMetadata("nvvm.annotations");
    auto i32 = [&](int v) {
        return llvm::ConstantAsMetadata::get(llvm::ConstantInt::get(llvm::Type::getInt32Ty(ctx), v));
    };
    llvm::Metadata *fn = llvm::ValueAsMetadata::get(&f);
    annotations->addOperand(llvm::MDNode::get(ctx, {fn, llvm::MDString::get(ctx, "kernel"), i32(1)}));
    // The block size is fixed per kernel: the backend may assume it in register allocation.
    annotations->addOperand(
        llvm::MDNode::get(ctx, {fn, llvm::MDString::get(ctx, "maxntidx"), i32(threads_per_block)}));
}

std::string compile_to_ptx(llvm::Module &m, llvm::TargetMachine &tm) {
    optimize_module(m, tm);
    return module_to_assembly(m, tm);
}

}  // namespace Internal
}  // namespace loom
