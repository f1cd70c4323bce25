// Lowered Stmt -> LLVM IR for the host CPU. The pipeline becomes one function
//   int32_t name(void *user_context, void **args)
// where args[i] points at the i-th argument: a loom_buffer_t for buffers, the value for
// scalars. It returns 0, or the error code of the first failed check.
#pragma once

#include <memory>

#include "lower/Lower.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace loom {
namespace Internal {

/** With outline_loops, the large loop nests of a function go in functions of their own
 * (codegen/LoopOutlining.h), for the JIT to compile at the same time. */
std::unique_ptr<llvm::Module> codegen_llvm(const LoweredPipeline &pipeline,
                                           llvm::LLVMContext &context, llvm::TargetMachine &tm,
                                           bool outline_loops = false);

}  // namespace Internal
}  // namespace loom
