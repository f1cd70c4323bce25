// The host side of the CUDA backend in LLVM IR: a loom_buffer_t for an allocation a kernel
// uses, a buffer's device pointer, and the call that launches a kernel.
#pragma once

#include <array>
#include <string>
#include <vector>

#include <llvm/IR/IRBuilder.h>

#include "dsl/Type.h"

namespace loom {
namespace Internal {

/** Byte offsets of loom_buffer_t's fields (runtime/loom_runtime.h). */
constexpr int kBufferHostOffset = 0;
constexpr int kBufferDimOffset = 16;

/** A loom_buffer_t (in the entry block of the function being emitted), filled in at the
 * builder's insertion point: `count` elements of `type` at `host` as one dense dimension, with
 * no device copy yet and host_unwritten (a fresh allocation holds nothing to copy). */
llvm::Value *emit_buffer_struct(llvm::IRBuilderBase &b, llvm::Value *host, Type type,
                                llvm::Value *count, const std::string &name);

/** The device copy of the loom_buffer_t at `buffer` (its `device` field), as a pointer. */
llvm::Value *emit_device_pointer(llvm::IRBuilderBase &b, llvm::Value *buffer,
                                 const std::string &name);

/** The symbol of the kernel compiled from GPU block loop `loop`, the index-th kernel of its
 * pipeline: `loom_kernel_<index>_<loop, each character other than a letter or digit as _>`. */
std::string kernel_name(const std::string &loop, int index);

/** The section that holds the kernels' loaded CUDA modules (the module cache slots
 * emit_kernel_launch passes, one pointer each, and nothing else): the JIT finds the slots in a
 * pipeline's objects there and unloads their modules when it frees the code. */
const char *kernel_module_section();

/** loom_cuda_launch(user_context, <a module cache of its own>, ptx, name, grid, block, args)
 * at the builder's insertion point, args pointing at `values` (each in a slot of the entry
 * block): runs kernel `name` of the PTX text `ptx`. Returns the call's error code. */
llvm::Value *emit_kernel_launch(llvm::IRBuilderBase &b, llvm::Value *user_context,
                                const std::string &name, const std::string &ptx,
                                const std::array<llvm::Value *, 3> &grid,
                                const std::array<llvm::Value *, 3> &block,
                                const std::vector<llvm::Value *> &values);

}  // namespace Internal
}  // namespace loom
