#include "codegen/DeviceGlue.h"

#include <cctype>

#include <llvm/IR/Function.h>
#include <llvm/IR/Module.h>

#include "runtime/loom_runtime.h"

namespace loom {
namespace Internal {
namespace {

constexpr int kBufferTypeOffset = 8;
constexpr int kBufferDimensionsOffset = 12;
constexpr int kBufferDeviceOffset = 24;
constexpr int kBufferFlagsOffset = 32;
constexpr int kBufferStructSize = 40;
constexpr int kDimensionSize = 16;

// Allocas go in the entry block, so that a loop around the code does not grow the stack.
llvm::Value *entry_alloca(llvm::IRBuilderBase &b, llvm::Type *t, const std::string &name) {
    llvm::Function *f = b.GetInsertBlock()->getParent();
    llvm::IRBuilder<> entry(&f->getEntryBlock(), f->getEntryBlock().begin());
    return entry.CreateAlloca(t, nullptr, name);
}

constexpr const char *kKernelPrefix = "loom_kernel_";

}  // namespace

std::string kernel_name(const std::string &loop, int index) {
    std::string name = kKernelPrefix + std::to_string(index) + "_";
    for (char c : loop)
        name += std::isalnum((unsigned char)c) ? c : '_';
    return name;
}

const char *kernel_module_section() { return "loom_cuda_modules"; }

llvm::Value *emit_buffer_struct(llvm::IRBuilderBase &b, llvm::Value *host, Type type,
                                llvm::Value *count, const std::string &name) {
    llvm::Type *i8 = b.getInt8Ty();
    llvm::Value *raw = entry_alloca(b, llvm::ArrayType::get(i8, kBufferStructSize), name + ".buffer");
    llvm::Value *dim = entry_alloca(b, llvm::ArrayType::get(i8, kDimensionSize), name + ".dim");
    auto field = [&](llvm::Value *base, int offset) { return b.CreateConstGEP1_64(i8, base, offset); };
    b.CreateMemSet(raw, b.getInt8(0), kBufferStructSize, llvm::Align(8));
    b.CreateStore(host, field(raw, kBufferHostOffset));
    b.CreateStore(b.getInt8(uint8_t(type.code)), field(raw, kBufferTypeOffset));
    b.CreateStore(b.getInt8(uint8_t(type.bits())), field(raw, kBufferTypeOffset + 1));
    b.CreateStore(b.getInt16(uint16_t(type.lanes())), field(raw, kBufferTypeOffset + 2));
    b.CreateStore(b.getInt32(1), field(raw, kBufferDimensionsOffset));
    b.CreateStore(dim, field(raw, kBufferDimOffset));
    // A fresh allocation: its first device copy needs none of its (undefined) host bytes.
    b.CreateStore(b.getInt32(loom_buffer_host_unwritten), field(raw, kBufferFlagsOffset));
    // min 0, extent count, stride 1, flags 0
    b.CreateStore(b.getInt32(0), field(dim, 0));
    b.CreateStore(b.CreateTrunc(count, b.getInt32Ty()), field(dim, 4));
    b.CreateStore(b.getInt32(1), field(dim, 8));
    b.CreateStore(b.getInt32(0), field(dim, 12));
    return raw;
}

llvm::Value *emit_device_pointer(llvm::IRBuilderBase &b, llvm::Value *buffer,
                                 const std::string &name) {
    llvm::Value *device = b.CreateLoad(
        b.getInt64Ty(), b.CreateConstGEP1_64(b.getInt8Ty(), buffer, kBufferDeviceOffset),
        name + ".device");
    return b.CreateIntToPtr(device, b.getPtrTy());
}

llvm::Value *emit_kernel_launch(llvm::IRBuilderBase &b, llvm::Value *user_context,
                                const std::string &name, const std::string &ptx,
                                const std::array<llvm::Value *, 3> &grid,
                                const std::array<llvm::Value *, 3> &block,
                                const std::vector<llvm::Value *> &values) {
    llvm::PointerType *ptr = b.getPtrTy();
    llvm::Module &m = *b.GetInsertBlock()->getModule();
    // One more slot than parameters: a kernel without any still gets an array.
    llvm::ArrayType *args_type = llvm::ArrayType::get(ptr, values.size() + 1);
    llvm::Value *args = entry_alloca(b, args_type, name + ".args");
    for (size_t i = 0; i < values.size(); i++) {
        llvm::Value *slot = entry_alloca(b, values[i]->getType(), name + ".param");
        b.CreateStore(values[i], slot);
        b.CreateStore(slot, b.CreateConstGEP2_64(args_type, args, 0, i));
    }
    // The loaded module, which the runtime keeps here per kernel. Internal, so that pipelines
    // linked into one program keep theirs apart; in a section of slots, where the JIT finds it.
    auto *cache = new llvm::GlobalVariable(m, ptr, false, llvm::GlobalValue::InternalLinkage,
                                           llvm::ConstantPointerNull::get(ptr), name + ".module");
    cache->setSection(kernel_module_section());
    cache->setAlignment(llvm::Align(sizeof(void *)));
    llvm::Type *i32 = b.getInt32Ty();
    llvm::FunctionCallee launch = m.getOrInsertFunction(
        "loom_cuda_launch",
        llvm::FunctionType::get(i32, {ptr, ptr, ptr, ptr, i32, i32, i32, i32, i32, i32, ptr}, false));
    return b.CreateCall(launch, {user_context, cache, b.CreateGlobalStringPtr(ptx, name + ".ptx"),
                                 b.CreateGlobalStringPtr(name, name + ".name"), grid[0], grid[1],
                                 grid[2], block[0], block[1], block[2], args});
}

}  // namespace Internal
}  // namespace loom
