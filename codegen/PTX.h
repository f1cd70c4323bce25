// The NVPTX side of code generation: the TargetMachine kernels are compiled with, the kernel
// marking the CUDA driver looks for, and PTX text out of a module of kernels.
#pragma once

#include <memory>
#include <string>

namespace llvm {
class Function;
class Module;
class TargetMachine;
}  // namespace llvm

namespace loom {
namespace Internal {

/** A TargetMachine for 64-bit PTX. Kernels are compiled for sm_70 (Volta; PTX the driver
 * compiles for the GPU it runs on, any later one included). FP contraction is off, as on the
 * CPU: a kernel computes the same bits as the CPU's code for the same schedule's arithmetic. */
std::unique_ptr<llvm::TargetMachine> make_ptx_target_machine();

/** Marks f a kernel (an entry point the driver can launch) with threads_per_block threads. */
void mark_kernel(llvm::Function &f, int threads_per_block);

/** Optimizes m (a module of kernels) and returns its PTX text. */
std::string compile_to_ptx(llvm::Module &m, llvm::TargetMachine &tm);

}  // namespace Internal
}  // namespace loom
