// Machine code for a module on several threads: its functions are dealt out to partitions,
// each optimized and compiled in an LLVM context of its own, so a pipeline's closures (the
// bodies of its parallel loops) compile at the same time as each other and as its entry.
#pragma once

#include <string>
#include <vector>

#include "dsl/Target.h"

namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace loom {
namespace Internal {

/** Optimizes (O3) and compiles m into at most max_threads relocatable objects, one per
 * partition, compiled in parallel: the calling thread's with tm (m's machine, made for target),
 * each other thread's with a machine it makes for target. Together they define every function m
 * defines; functions of internal linkage become external (hidden) so that the objects link with
 * each other. The machine code of each function is what compiling m as one module gives, as no
 * partition sees another's bodies: Loom's functions call each other only through pointers
 * (the closures a parallel loop passes to the runtime), which no inliner crosses. */
std::vector<std::string> compile_to_objects(llvm::Module &m, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads);

} // namespace Internal
} // namespace loom
