// Lowered Stmt -> LLVM IR for the host CPU. The pipeline becomes one function
//   int32_t name(void *user_context, void **args)
// where args[i] points at the i-th argument: a loom_buffer_t for buffers, the value for
// scalars. It returns 0, or the error code of the first failed check.
#pragma once

#include <memory>
#include <string>

#include "lower/Lower.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
}  // namespace llvm

namespace loom {
namespace Internal {

/** With outline_threads > 0, the large loop nests of a function go in functions of their own
 * (codegen/LoopOutlining.h), for the JIT to compile on that many threads at the same time; a
 * function left with only the scalar code around calls of such loops is marked optnone (no
 * optimization buys it anything at run time, see CodeGen_LLVM.cpp). With verify, LLVM's
 * verifier checks the module (an internal error names what it rejects). */
std::unique_ptr<llvm::Module> codegen_llvm(const LoweredPipeline &pipeline,
                                           llvm::LLVMContext &context, llvm::TargetMachine &tm,
                                           unsigned outline_threads = 0, bool verify = true);

/** Whether a kernel can call the math function `pure_extern` (a Call::PureExtern's name, such
 * as "sin_f32"): Loom's own exp_f32 and the exact ones CodeGen emits as LLVM intrinsics (sqrt,
 * floor, ceil, trunc, round, fma), which the NVPTX backend lowers to PTX instructions. The
 * others are the C library's, on the CPU only (CodeGen refuses them in a kernel). */
bool has_device_math(const std::string &pure_extern);

}  // namespace Internal
}  // namespace loom
