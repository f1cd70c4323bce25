// The LLVM side of a Target: a TargetMachine for the CPU (with the host's features when the
// Target is the default), the optimization passes Loom's IR gets, and text and object emission.
#pragma once

#include <memory>
#include <string>

#include "dsl/Target.h"

namespace llvm {
class Module;
class TargetMachine;
}  // namespace llvm

namespace loom {
namespace Internal {

/** Registers the x86 (and NVPTX) backends once per process. */
void initialize_llvm();

/** What LLVM is told of the machine a Target names: its triple, CPU and features (for a
 * default Target, this host's CPU and features). Needs no registered target. */
struct MachineSpec {
    std::string triple, cpu, features;
};
MachineSpec machine_spec(const Target &t);

/** Whether LLVM's tuning for the CPU (by name, e.g. "sapphirerapids", "znver4") says its
 * gathers are fast (Intel's cores from Skylake on; not AMD's): only there are LLVM's
 * vectorizers left to choose gathers (see optimize_module). */
bool cpu_has_fast_gathers(const std::string &triple, const std::string &cpu);

/** A TargetMachine for t (of machine_spec(t)). FP contraction is off: Loom's results never
 * depend on it. */
std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target &t);

/** Optimizes every function of m that is not optnone, with the passes Loom's scheduled
 * loops need (see kLoomFunctionPipeline), for the machine's costs. */
void optimize_module(llvm::Module &m, llvm::TargetMachine &tm);

std::string module_to_llvm_ir(const llvm::Module &m);
/** The module as LLVM bitcode (the bytes of a .bc file). */
std::string module_to_bitcode(const llvm::Module &m);
std::string module_to_assembly(llvm::Module &m, llvm::TargetMachine &tm);
/** The module's machine code as a relocatable object file (ELF on Linux). */
std::string module_to_object(llvm::Module &m, llvm::TargetMachine &tm);

}  // namespace Internal
}  // namespace loom
