// Code generation of Func::memoize's cache calls (lower/Memoize.h): the key as an array of
// 64-bit values on the stack, and the runtime's lookup and store (runtime/loom_memoize.c).
#include "codegen/CodeGen_LLVM_Internal.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

// The key's values as int64s in an array on the stack: integers widened, floats and handles
// by their bits, a string the host address of the input buffer it names.
llvm::Value *CodeGen::memoization_key(const std::vector<Expr> &key) {
    llvm::Type *i64 = builder.getInt64Ty();
    llvm::Type *array = llvm::ArrayType::get(i64, std::max<size_t>(key.size(), 1));
    llvm::Value *slots = create_entry_alloca(array, "memoization_key");
    for (size_t i = 0; i < key.size(); i++) {
        llvm::Value *v;
        const Type t = key[i].type();
        if (const StringImm *image = key[i].as<StringImm>()) {
            v = builder.CreatePtrToInt(buffer_host(image->value), i64);
        } else if (t.is_handle()) {
            v = builder.CreatePtrToInt(codegen(key[i]), i64);
        } else if (t.is_float()) {
            v = builder.CreateZExt(
                builder.CreateBitCast(codegen(key[i]), builder.getIntNTy(t.bits())), i64);
        } else if (t.is_int()) {
            v = builder.CreateSExt(codegen(key[i]), i64);
        } else {
            v = builder.CreateZExt(codegen(key[i]), i64);
        }
        builder.CreateStore(v, builder.CreateConstInBoundsGEP2_32(array, slots, 0, (unsigned)i));
    }
    return slots;
}

void CodeGen::memoize_call(const Call *op) {
    user_assert(!is_nvptx) << "A memoized Func is computed in a GPU kernel: compute it on the CPU.";
    const bool store = op->is_intrinsic(Call::memoize_store);
    const size_t first_key = store ? 5 : 3;
    const std::vector<Expr> key(op->args.begin() + first_key, op->args.end());
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::Type *i32 = builder.getInt32Ty(), *i64 = builder.getInt64Ty();
    const std::string &func = op->args[0].as<StringImm>()->value;
    llvm::Value *host = buffer_host(op->args[1].as<StringImm>()->value);
    std::vector<llvm::Value *> args{user_context,
                                    builder.CreateGlobalString(func),
                                    memoization_key(key),
                                    builder.getInt32((int)key.size()),
                                    host,
                                    builder.CreateSExt(codegen(op->args[2]), i64)};
    std::vector<llvm::Type *> params{ptr, ptr, ptr, i32, ptr, i64};
    if (store) {
        llvm::Value *eviction = codegen(op->args[3]);
        eviction = eviction->getType()->isPointerTy() ? builder.CreatePtrToInt(eviction, i64)
                                                      : builder.CreateZExtOrTrunc(eviction, i64);
        args.push_back(eviction);
        args.push_back(codegen(op->args[4]));
        params.push_back(i64);
        params.push_back(i32);
    }
    value = builder.CreateCall(
        runtime_function(store ? "loom_memoization_cache_store" : "loom_memoization_cache_lookup",
                         i32, params),
        args);
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
