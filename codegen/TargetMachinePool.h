// LLVM TargetMachines kept for reuse from one compilation to the next. Making a machine, and
// the subtarget (instruction tables, legalization rules) its first module builds, costs about
// 0.7 ms; the JIT needs two or three per pipeline, on the path of every compile.
#pragma once

#include <memory>
#include <string>

#include <llvm/Support/CodeGen.h>

#include "dsl/Target.h"

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace loom {
namespace Internal {

/** Puts a borrowed machine back in the pool. */
struct ReturnTargetMachine {
    std::string key;
    void operator()(llvm::TargetMachine *tm) const;
};

/** A machine borrowed from the pool: one thread uses it at a time, until the handle dies. */
using PooledTargetMachine = std::unique_ptr<llvm::TargetMachine, ReturnTargetMachine>;

/** A machine for t (as make_target_machine makes it) whose code generation runs at `level`:
 * one the pool holds for t and level, or a new one. A machine keeps nothing of a module it
 * compiled that changes the code of the next (LLVM's own JIT reuses one for every module). */
PooledTargetMachine
borrow_target_machine(const Target &t,
                      llvm::CodeGenOptLevel level = llvm::CodeGenOptLevel::Aggressive);

} // namespace Internal
} // namespace loom
