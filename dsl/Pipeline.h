// Pipeline: one or more output Funcs compiled and run together. realize() lowers the Funcs,
// compiles them through LLVM's JIT and runs the code; the compiled code is reused until an
// algorithm, a schedule or the target changes.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/AutoScheduler.h"
#include "dsl/Func.h"
#include "dsl/JITUserContext.h"
#include "dsl/ParamMap.h"
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
    /** Threads the JIT compiles the pipeline's functions on (its entry and the bodies of its
     * parallel loops compile at the same time); 0 means one per core. */
    int compile_threads = 0;
    /** On x86 with AVX-512, an output the pipeline never reads back that spans at least this
     * many bytes is written with streaming stores, past the cache (codegen/StreamingStores.h):
     * a smaller one may still be in the cache when the caller reads it. 0 streams every output
     * that can be (tests use it to run those stores on small buffers). */
    int64_t streaming_min_bytes = int64_t(16) << 20;
    /** After a run of a pipeline with GPU kernels (Target::CUDA), realize() copies each output
     * a kernel wrote back to host memory. false leaves them on the device, marked
     * device-dirty, as Halide's realize into a Buffer does: for a caller that feeds them to
     * another GPU pipeline, or times the kernels. Call Buffer::copy_to_host() before reading
     * such an output on the host. It changes no compiled code. */
    bool copy_outputs_to_host = true;
    /** Keep the machine code of each JIT compile in a persistent cache on disk, and load it from
     * there when a later compile (in this process or another) has the same definition (every
     * Func's algorithm and schedule, the inputs' names, types and dimensions), target, options,
     * Loom build and LLVM version: a hit links the code without lowering the pipeline or running
     * LLVM (codegen/JITCache.h, codegen/JITCacheKey.h). LOOM_JIT_CACHE=0 in the environment
     * turns it off for every pipeline. It changes no compiled code; last_compile_from_cache()
     * says whether it was used. */
    bool jit_cache = true;
    /** The cache's directory; empty: $LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else
     * $HOME/.cache/loom. It is created when first written; deleting it clears the cache. */
    std::string jit_cache_dir;
    /** The most bytes the cache's entries may take: beyond it, the least recently used are
     * deleted. 0: $LOOM_JIT_CACHE_MAX_BYTES, else 256 MiB. */
    int64_t jit_cache_max_bytes = 0;
};

class JITExtern;

class Pipeline {
public:
    /** Halide's nested name for the buffers realize fills. */
    using RealizationArg = loom::RealizationArg;

    Pipeline();
    Pipeline(const Func &output);
    Pipeline(const std::vector<Func> &outputs);

    std::vector<Func> outputs() const;
    /** Whether the Pipeline has outputs (a default-constructed one has none). */
    bool defined() const;
    /** Halide's invalidate_cache: Loom keys its compiled code by the algorithm, schedule,
     * target and options (codegen/JITCacheKey.h), so a change recompiles by itself; this
     * drops the code this Pipeline holds, so the next run compiles (or loads from the JIT
     * cache) again. */
    void invalidate_cache();
    /** The index-th Func the outputs read (themselves included), each after the Funcs it reads
     * (Halide's get_func): how a schedule written by a program reaches Funcs that have no name in
     * the user's code, such as a boundary condition's. */
    Func get_func(size_t index) const;
    void set_options(const CompileOptions &options);
    const CompileOptions &options() const;

    Realization realize(std::vector<int32_t> sizes = {}, const Target &target = Target(),
                        const ParamMap &param_map = ParamMap::empty_map());
    void realize(RealizationArg outputs, const Target &target = Target(),
                 const ParamMap &param_map = ParamMap::empty_map());
    /** Halide's infer_input_bounds: binds each ImageParam that has no buffer to a new buffer
     * (zeroed) covering the region the pipeline reads from it to compute `outputs` (or the
     * region [0, sizes[i]) of each output), computing nothing. ImageParams bound already keep
     * their buffers. A ParamMap gives the values of some Params and buffers of some
     * ImageParams for this run alone (an ImageParam mapped to a Buffer pointer gets the inferred
     * buffer there). */
    void infer_input_bounds(RealizationArg outputs, const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(const std::vector<int32_t> &sizes, const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    /** The same, with a context for this run alone (dsl/JITUserContext.h): its handlers take
     * precedence over jit_handlers(), each receives it, and with a custom_error handler an
     * error goes to the handler instead of becoming an exception. */
    Realization realize(JITUserContext *context, std::vector<int32_t> sizes = {},
                        const Target &target = Target(),
                        const ParamMap &param_map = ParamMap::empty_map());
    void realize(JITUserContext *context, RealizationArg outputs, const Target &target = Target(),
                 const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(JITUserContext *context, RealizationArg outputs,
                            const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(JITUserContext *context, const std::vector<int32_t> &sizes,
                            const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    /** Halide's jit_handlers: the hooks of every JIT run of this pipeline (those a run's
     * JITUserContext leaves unset). */
    JITHandlers &jit_handlers();
    /** Halide's infer_arguments: the inputs the pipeline reads, as the arguments of a compiled
     * function would take them: ImageParams by name, then scalar Params by name (Buffers read
     * directly are embedded, not arguments). For compile_to_* without listing them by hand. */
    std::vector<Argument> infer_arguments() const;
    /** Halide's trace_pipeline: every compilation of the pipeline traces its begin and end (as
     * Target::TracePipeline does) to the trace handler (loom_set_trace_handler), with the
     * events of the Funcs traced otherwise. */
    void trace_pipeline();
    /** Halide's set_jit_externs: the C functions the pipeline's extern stages (define_extern)
     * call, by name, linked by every JIT compile in place of the process's symbols of those
     * names. Each signature is checked against the stages that call it at the next compile.
     * Replaces the map given before; the compiled code is relinked. */
    void set_jit_externs(const std::map<std::string, JITExtern> &externs);
    const std::map<std::string, JITExtern> &get_jit_externs() const;
    /** Halide's add_requirement: a precondition every run checks first, before any Func is
     * computed. `condition` may read Params and the sizes of input images only (no Func, no
     * Var); where it is false the run stops with "Requirement Failed: (false) " and the
     * `error` values (text and Exprs, as print() takes them) separated by spaces, and returns
     * loom_code_requirement_failed (a JIT run throws it). Checked in the order added. */
    void add_requirement(const Expr &condition, const std::vector<Expr> &error);
    template <typename... Args> void add_requirement(const Expr &condition, const Args &...error) {
        std::vector<Expr> values;
        Internal::collect_print_args(values, error...);
        add_requirement(condition, values);
    }
    void compile_jit(const Target &target = Target());

    /** The lowered loop nest, as text. */
    std::string lowered_stmt(const Target &target = Target());
    /** Prints (to standard error, as Halide 14 does) the loop nest the schedules make: each Func's
     * production, its loops by kind and name, its storage where outside its computation. */
    void print_loop_nest();
    /** What print_loop_nest prints. */
    std::string loop_nest();
    /** The optimized LLVM IR of the compiled pipeline. */
    std::string llvm_ir(const Target &target = Target());
    /** The machine code of the compiled pipeline, as assembly text. */
    std::string assembly(const Target &target = Target());
    /** Schedules every Func of the pipeline with the default auto-scheduler ("Heuristic" unless
     * set_default_autoscheduler_name chose another), replacing their schedules (bounds and
     * estimates are kept), for `target` and the machine `params` describes. A dimension of an
     * output, Param or image with no estimate gets a warning on stderr and the default the
     * warning states. */
    AutoSchedulerResults auto_schedule(const Target &target,
                                       const MachineParams &params = MachineParams::generic());
    /** The same with a scheduler named: one of Loom's ("Heuristic") or one a program added. */
    AutoSchedulerResults auto_schedule(const std::string &autoscheduler_name, const Target &target,
                                       const MachineParams &params = MachineParams::generic());
    /** Adds a scheduler under a name no other has (Halide's). */
    static void add_autoscheduler(const std::string &autoscheduler_name, const AutoSchedulerFn &fn);
    /** The scheduler auto_schedule(target, params) runs, for the whole process (Halide's). */
    static void set_default_autoscheduler_name(const std::string &autoscheduler_name);

    /** The schedule of every Func of the pipeline as the C++ directives that recreate it. */
    std::string schedule_source() const;
    /** Seconds the last compilation spent lowering and in LLVM, or loading from the JIT cache
     * (0 when the compiled code of the previous call was reused). */
    double last_compile_seconds() const;
    /** Whether the last compilation loaded its machine code from the persistent JIT cache
     * (CompileOptions::jit_cache) instead of running LLVM's optimizer and code generator. */
    bool last_compile_from_cache() const;

    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args = {},
                                 const Target &target = Target());
    /** As Halide's: the loop nest as text, or as a web page (StmtOutputFormat::HTML). */
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                 StmtOutputFormat format, const Target &target = Target());
    void compile_to_llvm_assembly(const std::string &filename,
                                  const std::vector<Argument> &args = {},
                                  const Target &target = Target());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args = {},
                             const Target &target = Target());

    // Ahead-of-time compilation. `args` lists the inputs (ImageParams, Params, or Buffers
    // the pipeline reads) in the order the C function takes them; the outputs follow. The C
    // function is int32_t fn_name(loom_buffer_t *..., <scalars>..., loom_buffer_t *out...),
    // returning 0 or a loom_error_code_t (see the header it comes with).

    /** Writes filename_prefix.a (the pipeline and the runtime: a C program links it with
     * only -lm -lpthread) and filename_prefix.h. fn_name defaults to the prefix's file name. */
    void compile_to_static_library(const std::string &filename_prefix,
                                   const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = Target());
    /** One library holding a version per target; at run time the entry point runs the first
     * the CPU supports, so list the most capable first and a baseline last. */
    void compile_to_multitarget_static_library(const std::string &filename_prefix,
                                               const std::vector<Argument> &args,
                                               const std::string &fn_name,
                                               const std::vector<Target> &targets);
    /** The object file alone (it calls the runtime, which compile_to_static_library adds). */
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target());
    /** The assembly / LLVM IR of the ahead-of-time object, C entry point included. */
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target);
    void compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target);
    /** The same module as LLVM bitcode (a .bc file). */
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target());
    /** Halide's compile_to_file: filename_prefix.o (the object, as compile_to_object) and
     * filename_prefix.h; link the object with a library from compile_to_static_library or
     * with libloom_runtime or compile_standalone_runtime's object, which hold the runtime it
     * calls. */
    void compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                         const std::string &fn_name = "", const Target &target = Target());

private:
    std::shared_ptr<Internal::PipelineContents> contents;
};

/** The C signature of an extern function: its return type (none for void) and argument types
 * (a pointer is a Handle), as Halide's ExternSignature. */
class ExternSignature {
public:
    ExternSignature() = default;
    ExternSignature(const Type &ret_type, bool is_void_return, const std::vector<Type> &arg_types)
        : return_type(ret_type), void_return(is_void_return), args(arg_types) {}
    template <typename RT, typename... Args>
    explicit ExternSignature(RT (*)(Args...))
        : return_type(type_or_none<RT>()), void_return(std::is_void<RT>::value),
          args({type_of<Args>()...}) {}
    /** The return type; Type() for void. */
    const Type &ret_type() const { return return_type; }
    bool is_void_return() const { return void_return; }
    const std::vector<Type> &arg_types() const { return args; }

private:
    Type return_type;
    bool void_return = false;
    std::vector<Type> args;
    template <typename T> static Type type_or_none() {
        if constexpr (std::is_void<T>::value) {
            return Type();
        } else {
            return type_of<T>();
        }
    }
};
std::ostream &operator<<(std::ostream &out, const ExternSignature &signature);

/** A C function's address and signature (Halide's ExternCFunction). */
class ExternCFunction {
public:
    ExternCFunction() = default;
    ExternCFunction(void *address, const ExternSignature &signature)
        : fn(address), sig(signature) {}
    template <typename RT, typename... Args>
    ExternCFunction(RT (*f)(Args...)) : ExternCFunction((void *)f, ExternSignature(f)) {}
    void *address() const { return fn; }
    const ExternSignature &signature() const { return sig; }

private:
    void *fn = nullptr;
    ExternSignature sig;
};

/** What Pipeline::set_jit_externs links for a name: a C function. (Halide's JITExtern also
 * takes a Pipeline or Func, called through the C interface its AOT function has; Loom's JIT
 * entry points take their arguments packed, so an extern stage is a C function here.) */
class JITExtern {
public:
    explicit JITExtern(const ExternCFunction &extern_c_function) : c_function(extern_c_function) {}
    template <typename RT, typename... Args>
    explicit JITExtern(RT (*f)(Args...)) : JITExtern(ExternCFunction(f)) {}
    const ExternCFunction &extern_c_function() const { return c_function; }

private:
    ExternCFunction c_function;
};

/** Writes Loom's runtime alone as an object file (Halide's compile_standalone_runtime): for a
 * program that links objects from compile_to_object / compile_to_file, or several static
 * libraries compiled with Target::NoRuntime, and needs one copy of the runtime beside them.
 * The runtime is the same for every x86-64 Linux target (it picks CPU paths at run time);
 * another target is an error. */
void compile_standalone_runtime(const std::string &object_filename, const Target &target);

}  // namespace loom
