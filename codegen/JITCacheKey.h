// The key of the persistent JIT cache (codegen/JITCache.h): every input that determines the
// machine code JITModule::compile makes for a pipeline, written out as bytes.
#pragma once

#include <string>

#include "dsl/Target.h"
#include "lower/Lower.h"

namespace llvm {
class TargetMachine;
}  // namespace llvm

namespace loom {
namespace Internal {

/** The inputs of JITModule::compile, serialized so that two keys are equal only where the
 * objects are: the lowered pipeline node by node (every field, every type: unlike IRPrinter's
 * text, which leaves out types a reader infers, two different Stmts never write the same
 * key), its arguments, CompileOptions::streaming_min_bytes, the Target, the machine's triple,
 * CPU and features (a default Target means "this host's"), the number of threads the
 * functions are dealt to (codegen/ParallelCompile), the LLVM version, and Loom's version
 * together with a digest of the compiler's own sources taken at build time (so that a
 * rebuilt compiler never loads code its previous build made). Pointers in the IR (a Call's
 * Buffer, a Variable's Param) are identities within one process and are left out: code
 * generation reads only their names, which are in. */
std::string jit_cache_key(const LoweredPipeline &pipeline, const Target &target,
                          const llvm::TargetMachine &tm, unsigned compile_threads);

/** Loom's version and the digest of its sources (generated at build time). */
const char *loom_build_id();

}  // namespace Internal
}  // namespace loom
