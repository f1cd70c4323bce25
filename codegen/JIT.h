// The JIT: one small ORC LLJIT per compiled pipeline. Runtime entry points (loom_malloc,
// loom_error, ...) are given to it as absolute symbols, so compiled code finds them even in a
// statically linked binary that exports nothing; libm comes from the process.
#pragma once

#include <memory>
#include <string>

#include "dsl/Target.h"
#include "lower/Lower.h"

namespace loom {
namespace Internal {

/** A compiled pipeline that stays callable while this object lives. */
class JITModule {
public:
    using Entry = int32_t (*)(void *user_context, void **args);

    /** Lowered pipeline -> LLVM IR -> optimize_module -> machine code, its functions compiled on
     * options.compile_threads threads, or one per core where it is 0 (codegen/ParallelCompile).
     * With options.jit_cache, the machine code comes from the persistent cache where it holds
     * the pipeline's (codegen/JITCache.h), and goes there after a compile. */
    static std::shared_ptr<JITModule> compile(const LoweredPipeline &pipeline, const Target &target,
                                              const CompileOptions &options = CompileOptions());
    ~JITModule();

    Entry entry() const { return entry_point; }
    /** Whether the machine code was loaded from the persistent cache rather than compiled. */
    bool loaded_from_cache() const { return from_cache; }

private:
    JITModule() = default;
    struct Impl;
    std::unique_ptr<Impl> impl;
    Entry entry_point = nullptr;
    bool from_cache = false;

    friend struct JITLinker;
};

/** The optimized LLVM IR / assembly the JIT would run when compiling on compile_threads
 * threads (0: one per core), as text. */
std::string compile_to_llvm_ir(const LoweredPipeline &pipeline, const Target &target,
                               int compile_threads = 0);
std::string compile_to_assembly_text(const LoweredPipeline &pipeline, const Target &target,
                                     int compile_threads = 0);

}  // namespace Internal
}  // namespace loom
