// Machine code for a module on several threads: its functions are dealt out to partitions,
// each optimized and compiled in an LLVM context of its own, so a pipeline's closures (the
// bodies of its parallel loops) compile at the same time as each other and as its entry.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Target.h"

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace loom {
namespace Internal {

/** Builds the pipeline's module in ctx for tm; the same module (function names and bodies)
 * on every call, so that LLVM's verifier need only check it once (`verify`: the first
 * build). Called on several threads at once, each with a context and machine of its own, and
 * only until compile_to_objects returns. */
using ModuleBuilder = std::function<std::unique_ptr<llvm::Module>(
    llvm::LLVMContext &ctx, llvm::TargetMachine &tm, bool verify)>;

/** Optimizes (optimize_module) and compiles the module `build` makes into relocatable objects on at
 * most max_threads threads: its optimized functions dealt out to at most max_threads objects, its
 * optnone functions (the entry, when it has no loops, and glue) into one more, which is
 * compiled with CodeGenOptLevel::None. Each thread builds the module itself, in a context of
 * its own (the other threads once the calling thread has built the one it deals the functions
 * from), and keeps in each object only the bodies that object compiles.
 * The calling thread compiles with tm (made for target), every other thread and the optnone
 * object with a machine made for it. Together the objects define every function the module
 * defines; functions of internal linkage become external so that the objects link with each
 * other, and no reference between objects assumes they lie within 2 GiB of each other (the JIT
 * may map them anywhere; see externalize_functions). The machine code of each optimized function is what compiling the module
 * as one gives, as no object sees another's bodies: Loom's functions call each other through
 * pointers (the closures a parallel loop passes to the runtime) or as outlined loops marked
 * noinline, which no inliner crosses. */
std::vector<std::string> compile_to_objects(const ModuleBuilder &build, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads);

} // namespace Internal
} // namespace loom
