// Ahead-of-time compilation: a pipeline, lowered once per target, becomes one object file
// holding a version for each target and the C entry point that picks among them at run time
// (see CEntryPoint.h); a static library adds the runtime's objects; the C header declares the
// entry point and carries the runtime's types, so a C program needs nothing else from Loom.
#pragma once

#include <string>
#include <vector>

#include "dsl/Target.h"
#include "lower/Lower.h"

namespace loom {
namespace Internal {

/** The pipeline lowered for one target. Variants are tried in order at run time: list the
 * most capable first. All variants have the same arguments. */
struct AOTVariant {
    LoweredPipeline lowered;
    Target target;
};

/** What to emit for a set of variants. */
enum class AOTOutput { Object, Assembly, LLVMAssembly, Bitcode };

/** The object file (bytes), assembly, LLVM IR text or bitcode of the pipeline with its C entry
 * point named fn_name. */
std::string compile_aot(const std::vector<AOTVariant> &variants, const std::string &fn_name,
                        AOTOutput output);

/** Writes a static library (GNU ar, with a symbol index) holding `object` as fn_name.o and,
 * unless the target has Target::NoRuntime, the runtime's object. */
void write_static_library(const std::string &path, const std::string &object,
                          const std::string &fn_name, const Target &target);

/** The runtime alone, for `target` (an error unless it is x86-64 Linux, which is all the
 * runtime is built for: baseline x86-64, choosing CPU paths at run time): its object file (all
 * of the runtime's C files), a static library of it, and a C header of its types and functions. */
std::string runtime_object(const Target &target);
void write_runtime_static_library(const std::string &path, const Target &target);
std::string runtime_c_header();

/** The C header of the entry point: the runtime's types and functions, then the declaration
 * of fn_name with one parameter per argument, documented. */
std::string c_header(const std::vector<LoweredArgument> &args, const std::string &fn_name,
                     const std::vector<Target> &targets);

} // namespace Internal
} // namespace loom
