// The keys of the persistent JIT cache (codegen/JITCache.h): every input that determines the
// machine code JITModule::compile makes for a pipeline, written out as bytes (the node-by-node
// writer of codegen/KeyWriter.h, never IRPrinter's text).
//
// The cache is looked up by the pipeline's *definition* (definition_key), before lowering, so
// that a hit costs neither lowering nor LLVM. Its soundness rests on two properties:
//   - lowering is a function of what definition_key writes: nothing else it reads (no global
//     counter, no environment variable, no value of a Param or of a Buffer's memory) changes
//     the code. test/jit/jit_cache_key_test.cpp checks it over the fuzzer's random pipelines
//     and schedules: equal definition keys give equal lowered keys (lowered_key);
//   - every field lowering reads is written: the structures are taken apart with structured
//     bindings, so a field added to any of them does not compile here until it is written
//     (or said here why not); the same test changes each directive and field in turn and
//     checks the key changes.
#pragma once

#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Function.h"
#include "codegen/LLVMTarget.h"
#include "dsl/Target.h"
#include "lower/Lower.h"

namespace loom {
namespace Internal {

/** A pipeline's definition as bytes: the function name, the Target, the CompileOptions that
 * change code, the requested arguments, the outputs, and, reached from the outputs through
 * every Call, prefetch and RDom, each Func (pure and update definitions, RDoms with their
 * bounds and where() predicates, specializations, the complete schedule of every stage and of
 * the Func), each Param and ImageParam (name, type, dimensions) and each embedded Buffer
 * (name, type, dimensions), then the requirements (Pipeline::add_requirement). Objects are
 * written in full where first met and by their number after that, so that the bytes describe
 * the graph, shared nodes and cycles included. */
struct DefinitionKey {
    std::string bytes;
    /** The Params, ImageParams and Buffers the definition reads, in the order the bytes meet
     * them: their identities in this process, which the bytes leave out (the compiled code
     * reads their values and shapes from its arguments, so another Buffer of the same name,
     * type and dimensions runs the same code). */
    std::vector<const void *> inputs;
};

DefinitionKey definition_key(const std::vector<FunctionPtr> &outputs, const std::string &name,
                             const Target &target, const CompileOptions &options,
                             const std::vector<Argument> &requested_args,
                             const std::vector<std::vector<Expr>> &requirements = {});

/** A lowered pipeline as bytes: its name, arguments, CompileOptions::streaming_min_bytes and
 * the loop nest node by node (every field, every type). Pointers in the IR (a Call's Buffer, a
 * Variable's Param) are left out: code generation reads only their names, which are in. */
std::string lowered_key(const LoweredPipeline &pipeline);

/** The cache's key of a pipeline whose definition_key (or lowered_key) is `pipeline`: those
 * bytes behind what compiling them depends on besides, the machine's triple, CPU and
 * features (a default Target means "this host's"), the number of threads the functions are
 * dealt to (codegen/ParallelCompile), the LLVM version, and Loom's version together with a
 * digest of the compiler's own sources taken at build time (so that a rebuilt compiler never
 * loads code its previous build made). */
std::string jit_cache_key(const std::string &pipeline, const Target &target,
                          const MachineSpec &machine, unsigned compile_threads);

/** Loom's version and the digest of its sources (generated at build time). */
const char *loom_build_id();

}  // namespace Internal
}  // namespace loom
