// The JIT: one small ORC LLJIT per compiled pipeline. Runtime entry points (loom_malloc,
// loom_error, ...) are given to it as absolute symbols, so compiled code finds them even in a
// statically linked binary that exports nothing; libm comes from the process.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/JITUserContext.h"
#include "dsl/Target.h"
#include "lower/Lower.h"

namespace loom {
namespace Internal {

/** The C functions Pipeline::set_jit_externs gives, by symbol name: linked in place of any
 * symbol of the same name in the process. */
using JITExternAddresses = std::map<std::string, void *>;

/** The error text of one JIT run (JITUserContext::error_buffer). */
struct JITErrorBuffer {
    std::string text;
};

/** Whether compiled code finds `name` in Loom's runtime (which a JIT extern can't replace). */
bool is_jit_runtime_function(const std::string &name);

/** A compiled pipeline that stays callable while this object lives. */
class JITModule {
public:
    using Entry = int32_t (*)(void *user_context, void **args);

    /** The machine code of the pipeline whose definition_key is `definition`
     * (codegen/JITCacheKey.h), loaded from the persistent cache (codegen/JITCache.h) and linked:
     * nothing is lowered and no LLVM pass runs. Null where the cache is off or holds no such
     * pipeline. `name` and `args` are what lowering the definition gives (its function name
     * and lower/InferArguments.h's list, which the caller binds when it runs the code); an
     * entry made for another name or argument list is deleted, never run. */
    static std::shared_ptr<JITModule>
    load_cached(const std::string &definition, const std::string &name,
                const std::vector<LoweredArgument> &args, const Target &target,
                const CompileOptions &options, const JITExternAddresses &externs = {});
    /** Lowered pipeline -> LLVM IR -> optimize_module -> machine code, its functions compiled on
     * options.compile_threads threads, or one per core where it is 0 (codegen/ParallelCompile).
     * With options.jit_cache and the definition_key of the pipeline `pipeline` was lowered
     * from, the machine code goes to the persistent cache, where load_cached finds it. */
    static std::shared_ptr<JITModule> compile(const LoweredPipeline &pipeline, const Target &target,
                                              const CompileOptions &options = CompileOptions(),
                                              const std::string &definition = std::string(),
                                              const JITExternAddresses &externs = {});
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
