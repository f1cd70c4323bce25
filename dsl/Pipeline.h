// Pipeline: one or more output Funcs compiled and run together. realize() lowers the Funcs,
// compiles them through LLVM's JIT and runs the code; the compiled code is reused until an
// algorithm, a schedule or the target changes.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Func.h"
#include "dsl/Realization.h"
#include "dsl/Target.h"

namespace loom {

namespace Internal {
struct PipelineContents;
}

/** Options of one compilation. Defaults suit a user; tests and debugging turn on the rest. */
struct CompileOptions {
    /** Print the IR after each lowering pass that changed it, with the pass's time. */
    bool log_passes = false;
    /** Check IR invariants between passes (always on in debug builds). */
    bool verify_ir = false;
};

class Pipeline {
public:
    Pipeline();
    Pipeline(const Func &output);
    Pipeline(const std::vector<Func> &outputs);

    std::vector<Func> outputs() const;
    void set_options(const CompileOptions &options);
    const CompileOptions &options() const;

    Realization realize(std::vector<int32_t> sizes = {}, const Target &target = Target());
    void realize(RealizationArg outputs, const Target &target = Target());
    void compile_jit(const Target &target = Target());

    /** The lowered loop nest, as text. */
    std::string lowered_stmt(const Target &target = Target());
    /** The optimized LLVM IR of the compiled pipeline. */
    std::string llvm_ir(const Target &target = Target());
    /** The machine code of the compiled pipeline, as assembly text. */
    std::string assembly(const Target &target = Target());
    /** The schedule of every Func of the pipeline as the C++ directives that recreate it. */
    std::string schedule_source() const;
    /** Seconds the last compilation spent lowering and in LLVM (0 when served from cache). */
    double last_compile_seconds() const;

    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args = {},
                                 const Target &target = Target());
    void compile_to_llvm_assembly(const std::string &filename,
                                  const std::vector<Argument> &args = {},
                                  const Target &target = Target());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args = {},
                             const Target &target = Target());

private:
    std::shared_ptr<Internal::PipelineContents> contents;
};

}  // namespace loom
