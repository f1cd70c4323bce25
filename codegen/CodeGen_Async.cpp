// Code generation of Func::async's semaphore operations (lower/AsyncProducers.h): calls of the
// runtime's loom_semaphore_* on the semaphore's memory. A fork loop itself is a parallel loop
// run by loom_do_fork (CodeGen::parallel_for).
#include "codegen/CodeGen_LLVM_Internal.h"
#include "dsl/Error.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

void CodeGen::semaphore_call(const Call *op) {
    internal_assert(!is_nvptx) << "A semaphore operation inside a GPU kernel";
    const char *runtime_name = op->is_intrinsic(Call::semaphore_init) ? "loom_semaphore_init"
                               : op->is_intrinsic(Call::semaphore_release)
                                   ? "loom_semaphore_release"
                                   : "loom_semaphore_acquire";
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::Type *i32 = builder.getInt32Ty();
    value = builder.CreateCall(
        runtime_function(runtime_name, i32, {ptr, ptr, i32}),
        {user_context, buffer_host(op->args[0].as<StringImm>()->value), codegen(op->args[1])});
    // A wait ends with an error code where the task it waits for failed: this task stops too.
    if (op->is_intrinsic(Call::semaphore_acquire)) return_if_failed(value, "acquire");
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
