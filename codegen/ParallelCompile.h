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

/** Optimizes (O3) and compiles m into relocatable objects on at most max_threads threads:
 * its optimized functions dealt out to at most max_threads objects, its optnone functions (the
 * entry, when it has no loops) into one more, which is compiled with CodeGenOptLevel::None.
 * The calling thread compiles with tm (m's machine, made for target), every other thread and
 * the optnone object with a machine made for it. Together the objects define every function m
 * defines; functions of internal linkage become external (hidden) so that the objects link
 * with each other. The machine code of each optimized function is what compiling m as one
 * module gives, as no object sees another's bodies: Loom's functions call each other only
 * through pointers (the closures a parallel loop passes to the runtime), which no inliner
 * crosses. m is used up: the calling thread compiles the heaviest object in m itself (no copy
 * to read back), which leaves m with that object's function bodies only, optimized. */
std::vector<std::string> compile_to_objects(llvm::Module &m, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads);

} // namespace Internal
} // namespace loom
