// The one place where the front end calls down into lowering and code generation.
#include "dsl/Pipeline.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "codegen/AOT.h"
#include "codegen/JIT.h"
#include "codegen/JITCacheKey.h"
#include "dsl/Error.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/RuntimeErrors.h"
#include "dsl/ScheduleSource.h"
#include "lower/FindEnvironment.h"
#include "lower/Lower.h"
#include "lower/PrintLoopNest.h"
#include "lower/StmtHtml.h"
#include "runtime/loom_runtime.h"

namespace loom {

namespace Internal {

/** One compilation of a pipeline's definition. */
struct CompiledDefinition {
    std::shared_ptr<JITModule> module;
    std::string definition;              // module's definition key; empty: compile anew
    std::vector<const void *> inputs;    // the identities of args' inputs
    std::vector<LoweredArgument> args;   // what module's entry point takes, in order
    std::string compiled_for;            // the target of module, as text
    std::string lowered;                 // lowered_key of module's code; empty: not lowered here
};

struct PipelineContents {
    std::vector<FunctionPtr> outputs;
    CompileOptions options;
    // The last compilation, reused while the definition (codegen/JITCacheKey.h's
    // definition_key: algorithm, schedule, target, options) is unchanged; its arguments are
    // inferred again when the Params and Buffers the definition reads are other objects.
    CompiledDefinition current;
    // The compilation before it, taken back where the definition returns to it: a program
    // that alternates two schedules (the autotuner's races, run by run) compiles each once,
    // also without the persistent JIT cache.
    CompiledDefinition previous;
    double last_compile_seconds = 0;
    bool last_compile_from_cache = false;
    bool trace_pipeline = false; // Pipeline::trace_pipeline: Target::TracePipeline always
    // Pipeline::add_requirement: each the condition, then the message's values.
    std::vector<std::vector<Expr>> requirements;
    std::map<std::string, JITExtern> jit_externs; // Pipeline::set_jit_externs
    JITHandlers jit_handlers;                     // Pipeline::jit_handlers
    // The context realize(JITUserContext *, ...) gives the run under way (null: none).
    JITUserContext *call_context = nullptr;
};

}  // namespace Internal

using namespace Internal;

namespace {

// Sets `context` as the run's context for as long as it lives.
class CallContextScope {
public:
    CallContextScope(PipelineContents &p, JITUserContext *context) : p(p) {
        p.call_context = context;
    }
    ~CallContextScope() { p.call_context = nullptr; }

private:
    PipelineContents &p;
};

// The addresses set_jit_externs gave, each checked against the extern stages that call it: a
// stage calls its C function with an int32 result and, in order, a scalar of each Expr
// argument's type and a pointer per buffer (one per Tuple element of an input Func, then one
// per output).
JITExternAddresses jit_extern_addresses(const PipelineContents &p, const Environment &env) {
    JITExternAddresses addresses;
    for (const auto &[name, ext] : p.jit_externs)
        addresses[name] = ext.extern_c_function().address();
    for (const auto &[func_name, f] : env.functions) {
        if (!f->is_extern()) continue;
        auto it = p.jit_externs.find(f->extern_stage->function_name);
        if (it == p.jit_externs.end()) continue;
        std::vector<Type> expected;
        for (const ExternStage::Arg &a : f->extern_stage->args) {
            if (a.kind == ExternStage::Arg::Scalar) {
                expected.push_back(a.expr.type());
            } else {
                const int buffers = a.kind == ExternStage::Arg::Func ? a.func->outputs() : 1;
                expected.insert(expected.end(), buffers, Handle());
            }
        }
        expected.insert(expected.end(), f->outputs(), Handle());
        const ExternSignature &given = it->second.extern_c_function().signature();
        user_assert(!given.is_void_return() && given.ret_type() == Int(32) &&
                    given.arg_types() == expected)
            << "set_jit_externs: " << it->first << " is " << given << ", but Func " << func_name
            << " calls it as " << ExternSignature(Int(32), false, expected)
            << " (define_extern's arguments, then a buffer per output). Give a function of that "
               "signature.";
    }
    return addresses;
}

// Halide's populate_jit_handlers: the context's unset hooks take the pipeline's.
void fill_unset_handlers(JITHandlers &h, const JITHandlers &pipeline) {
    auto fill = [](auto &mine, auto theirs) {
        if (!mine) mine = theirs;
    };
    fill(h.custom_print, pipeline.custom_print);
    fill(h.custom_malloc, pipeline.custom_malloc);
    fill(h.custom_free, pipeline.custom_free);
    fill(h.custom_do_task, pipeline.custom_do_task);
    fill(h.custom_do_par_for, pipeline.custom_do_par_for);
    fill(h.custom_error, pipeline.custom_error);
    fill(h.custom_trace, pipeline.custom_trace);
    fill(h.custom_get_symbol, pipeline.custom_get_symbol);
    fill(h.custom_load_library, pipeline.custom_load_library);
    fill(h.custom_get_library_symbol, pipeline.custom_get_library_symbol);
    fill(h.custom_cuda_acquire_context, pipeline.custom_cuda_acquire_context);
    fill(h.custom_cuda_release_context, pipeline.custom_cuda_release_context);
    fill(h.custom_cuda_get_stream, pipeline.custom_cuda_get_stream);
}

// The hooks Loom's JIT has no place for are refused rather than ignored.
void check_handlers_loom_runs(const JITHandlers &h) {
    user_assert(!h.custom_get_symbol && !h.custom_load_library && !h.custom_get_library_symbol)
        << "JITHandlers: custom_get_symbol, custom_load_library and custom_get_library_symbol "
           "have no counterpart in Loom's JIT; give the C functions extern stages call with "
           "Pipeline::set_jit_externs";
    user_assert(!h.custom_cuda_acquire_context && !h.custom_cuda_release_context)
        << "JITHandlers: custom_cuda_acquire_context and custom_cuda_release_context have no "
           "counterpart in Loom's JIT, whose runtime uses the device's primary context (the one "
           "the CUDA runtime and other libraries share); to order a run with your own work, "
           "give its stream with custom_cuda_get_stream";
}

std::string function_name(const std::vector<FunctionPtr> &outputs) {
    std::string name = "loom_pipeline";
    for (char c : outputs[0]->name) name += std::isalnum((unsigned char)c) ? c : '_';
    return name;
}

// The target a compilation of p is for: `target` with the features the pipeline itself asks
// for (trace_pipeline).
Target pipeline_target(const PipelineContents &p, const Target &target) {
    return p.trace_pipeline ? target.with_feature(Target::TracePipeline) : target;
}

LoweredPipeline lower_pipeline(const PipelineContents &p, const Target &target,
                               const std::vector<Argument> &args = {}) {
    return lower(p.outputs, function_name(p.outputs), pipeline_target(p, target), p.options, args,
                 std::cerr, p.requirements);
}

/** Writes text or bytes (object files) as they are. */
void write_file(const std::string &filename, const std::string &contents) {
    std::ofstream out(filename, std::ios::binary);
    user_assert(out.good()) << "Can't open " << filename << " for writing";
    out.write(contents.data(), (std::streamsize)contents.size());
    user_assert(out.good()) << "Failed writing " << filename;
}

}  // namespace

Pipeline::Pipeline() : contents(std::make_shared<PipelineContents>()) {}

Pipeline::Pipeline(const Func &output) : Pipeline(std::vector<Func>{output}) {}

Pipeline::Pipeline(const std::vector<Func> &outputs) : Pipeline() {
    for (const Func &f : outputs) contents->outputs.push_back(f.function());
}

std::vector<Func> Pipeline::outputs() const {
    std::vector<Func> result;
    for (const FunctionPtr &f : contents->outputs) result.emplace_back(f);
    return result;
}

bool Pipeline::defined() const { return contents && !contents->outputs.empty(); }

void Pipeline::set_jit_externs(const std::map<std::string, JITExtern> &externs) {
    for (const auto &[name, ext] : externs) {
        user_assert(ext.extern_c_function().address())
            << "set_jit_externs: the extern " << name << " has no address (a null function)";
        user_assert(!is_jit_runtime_function(name))
            << "set_jit_externs: " << name << " is a function of Loom's runtime, which compiled "
            << "code calls; give the extern C function another name";
    }
    contents->jit_externs = externs;
    invalidate_cache();
}

const std::map<std::string, JITExtern> &Pipeline::get_jit_externs() const {
    return contents->jit_externs;
}

std::ostream &operator<<(std::ostream &out, const ExternSignature &signature) {
    out << (signature.is_void_return() ? std::string("void") : type_to_string(signature.ret_type()))
        << " (*)(";
    for (size_t i = 0; i < signature.arg_types().size(); i++)
        out << (i ? ", " : "") << type_to_string(signature.arg_types()[i]);
    return out << ")";
}

void Pipeline::invalidate_cache() {
    contents->current = CompiledDefinition();
    contents->previous = CompiledDefinition();
}

Func Pipeline::get_func(size_t index) const {
    Environment env = find_environment(contents->outputs);
    user_assert(index < env.order.size())
        << "Pipeline::get_func(" << index << "): the pipeline has " << env.order.size()
        << " Funcs, so give an index below " << env.order.size() << ".";
    return Func(env.functions.at(env.order[index]));
}

void Pipeline::trace_pipeline() {
    contents->trace_pipeline = true;
    invalidate_cache();
}

void Pipeline::add_requirement(const Expr &condition, const std::vector<Expr> &error) {
    user_assert(defined()) << "add_requirement on a Pipeline with no outputs";
    user_assert(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
        << "add_requirement's condition must be a boolean Expr (a comparison of Params, say)";
    // What a requirement may read: a run checks it before computing anything.
    class Check : public IRVisitor {
    public:
        explicit Check(const Expr &condition) : condition(condition) {}

    private:
        const Expr &condition;
        using IRVisitor::visit;
        void visit(const Variable *op) override {
            user_assert(op->param != nullptr)
                << "Requirement " << condition << " refers to the Var or RVar " << op->name
                << ": a requirement is checked before any Func is computed, so it may read "
                   "Params and input image sizes only.";
        }
        void visit(const Call *op) override {
            user_assert(op->call_type != Call::Halide && op->call_type != Call::Image)
                << "Requirement " << condition << " calls " << op->name
                << ": a requirement is checked before any Func is computed, so it may read "
                   "Params and input image sizes only.";
            IRVisitor::visit(op);
        }
    } check(condition);
    condition.accept(&check);
    std::vector<Expr> requirement{condition};
    for (const Expr &e : error) {
        user_assert(e.defined()) << "add_requirement with an undefined Expr in its message";
        e.accept(&check);
        requirement.push_back(e);
    }
    contents->requirements.push_back(std::move(requirement));
    invalidate_cache();
}

std::vector<Argument> Pipeline::infer_arguments() const {
    std::vector<Argument> buffers, scalars;
    for (const LoweredArgument &a : Internal::infer_arguments(
             contents->outputs, find_environment(contents->outputs), {}, contents->requirements)) {
        if (a.kind == Argument::OutputBuffer || is_embedded(a)) continue;
        (a.kind == Argument::InputBuffer ? buffers : scalars)
            .emplace_back(a.name, a.kind, a.type, a.dimensions);
    }
    auto by_name = [](const Argument &x, const Argument &y) { return x.name < y.name; };
    std::sort(buffers.begin(), buffers.end(), by_name);
    std::sort(scalars.begin(), scalars.end(), by_name);
    buffers.insert(buffers.end(), scalars.begin(), scalars.end());
    return buffers;
}

void Pipeline::set_options(const CompileOptions &options) {
    user_assert(options.compile_threads >= 0)
        << "CompileOptions::compile_threads is " << options.compile_threads
        << ": give a number of threads, or 0 for one per core.";
    user_assert(options.streaming_min_bytes >= 0)
        << "CompileOptions::streaming_min_bytes is " << options.streaming_min_bytes
        << ": give a size in bytes, or 0 to stream every output that can be.";
    user_assert(options.jit_cache_max_bytes >= 0)
        << "CompileOptions::jit_cache_max_bytes is " << options.jit_cache_max_bytes
        << ": give a size in bytes, or 0 for $LOOM_JIT_CACHE_MAX_BYTES or the default (256 MiB).";
    contents->options = options;
    contents->current.definition.clear();
    contents->previous.definition.clear();
}

const CompileOptions &Pipeline::options() const { return contents->options; }

std::string Pipeline::schedule_source() const {
    Environment env = find_environment(contents->outputs);
    std::vector<FunctionPtr> funcs;
    for (const std::string &name : env.order)
        funcs.push_back(env.functions.at(name));
    return schedules_to_cpp(funcs);
}

double Pipeline::last_compile_seconds() const { return contents->last_compile_seconds; }

bool Pipeline::last_compile_from_cache() const { return contents->last_compile_from_cache; }

namespace {

// Compiles (or reuses) the pipeline and returns the arguments its entry point takes.
//
// The persistent JIT cache is looked up by the pipeline's definition, before lowering: a hit
// lowers nothing. Lowering still runs first where the options ask for its log or its checks.
const std::vector<LoweredArgument> &prepare(PipelineContents &p, const Target &requested_target) {
    user_assert(!p.outputs.empty()) << "Can't realize a Pipeline with no outputs";
    const Target target = pipeline_target(p, requested_target);
    auto start = std::chrono::steady_clock::now();
    // Throws the user's mistakes in the pipeline's structure (an undefined Func), which a
    // cached entry's definition cannot have. The levels are locked before the cache is asked:
    // a cached compile locks them as a new one does.
    const Environment env = find_environment(p.outputs);
    lock_loop_levels(env);
    const std::string name = function_name(p.outputs);
    DefinitionKey definition =
        definition_key(p.outputs, name, target, p.options, {}, p.requirements);
    p.last_compile_from_cache = false;
    if (p.previous.module && definition.bytes == p.previous.definition)
        std::swap(p.current, p.previous);
    CompiledDefinition &c = p.current;
    if (c.module && definition.bytes == c.definition) {
        if (definition.inputs != c.inputs) {
            // Other Params or Buffers of the same names, types and dimensions: the same code,
            // bound to them.
            c.args = infer_arguments(p.outputs, env, {}, p.requirements);
            c.inputs = std::move(definition.inputs);
        }
        p.last_compile_seconds = 0;
        return c.args;
    }
    // Throws on two inputs of one name, which a cached entry's definition cannot have.
    std::vector<LoweredArgument> args = infer_arguments(p.outputs, env, {}, p.requirements);
    const JITExternAddresses externs = jit_extern_addresses(p, env);
    LoweredPipeline lowered;
    if (p.options.log_passes || p.options.verify_ir) lowered = lower_pipeline(p, target);
    std::shared_ptr<JITModule> module =
        JITModule::load_cached(definition.bytes, name, args, target, p.options, externs);
    std::string lowered_bytes;
    if (module && lowered.body.defined()) lowered_bytes = lowered_key(lowered);
    if (!module) {
        if (!lowered.body.defined()) lowered = lower_pipeline(p, target);
        lowered_bytes = lowered_key(lowered);
        // Another definition that lowers to the same code (a schedule directive with no effect
        // here, say) runs the code compiled for the last one.
        const bool same_code =
            c.module && c.compiled_for == target.to_string() && lowered_bytes == c.lowered;
        module = same_code
                     ? c.module
                     : JITModule::compile(lowered, target, p.options, definition.bytes, externs);
        args = std::move(lowered.args);
    }
    const bool reused = module == c.module;
    if (!reused) p.previous = std::move(c);
    c.module = std::move(module);
    c.definition = std::move(definition.bytes);
    c.inputs = std::move(definition.inputs);
    c.args = std::move(args);
    c.compiled_for = target.to_string();
    c.lowered = std::move(lowered_bytes);
    p.last_compile_from_cache = !reused && c.module->loaded_from_cache();
    p.last_compile_seconds =
        reused ? 0 : std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return c.args;
}

// The buffer an input argument reads: an embedded Buffer's, the ParamMap's for its ImageParam,
// else the one the ImageParam was set to.
loom_buffer_t *bind_input(const LoweredArgument &a, const ParamMap &param_map) {
    std::shared_ptr<BufferContents> b = a.buffer;
    if (!b && a.param) {
        if (const ParamMap::ParamMapping *m = param_map.find(a.param.get())) {
            const Buffer<> mapped = m->image();
            user_assert(mapped.defined())
                << "The ParamMap maps ImageParam " << a.name
                << " to an undefined Buffer. Give it a buffer, or call infer_input_bounds with "
                   "the map to make one.";
            b = mapped.contents_ptr();
        } else {
            b = a.param->buffer;
        }
        user_assert(b) << "ImageParam " << a.name << " is not bound to a buffer. Call "
                       << a.name << ".set(buffer) before realizing the pipeline.";
    }
    internal_assert(b) << "Input " << a.name << " has no buffer";
    user_assert(b->type() == a.type)
        << "Input " << a.name << " has type " << type_to_string(a.type)
        << " but is bound to a buffer of type " << type_to_string(b->type());
    user_assert((int)b->dims.size() == a.dimensions)
        << "Input " << a.name << " is read with " << a.dimensions
        << " coordinates but its buffer has " << b->dims.size() << " dimensions";
    b->sync_raw();
    return &b->raw;
}

}  // namespace

void Pipeline::compile_jit(const Target &target) { prepare(*contents, target); }

JITHandlers &Pipeline::jit_handlers() { return contents->jit_handlers; }

Realization Pipeline::realize(JITUserContext *context, std::vector<int32_t> sizes,
                              const Target &target, const ParamMap &param_map) {
    CallContextScope scope(*contents, context);
    return realize(std::move(sizes), target, param_map);
}

void Pipeline::realize(JITUserContext *context, RealizationArg outputs, const Target &target,
                       const ParamMap &param_map) {
    CallContextScope scope(*contents, context);
    realize(std::move(outputs), target, param_map);
}

void Pipeline::infer_input_bounds(JITUserContext *context, RealizationArg outputs,
                                  const Target &target, const ParamMap &param_map) {
    CallContextScope scope(*contents, context);
    infer_input_bounds(std::move(outputs), target, param_map);
}

void Pipeline::infer_input_bounds(JITUserContext *context, const std::vector<int32_t> &sizes,
                                  const Target &target, const ParamMap &param_map) {
    CallContextScope scope(*contents, context);
    infer_input_bounds(sizes, target, param_map);
}

void Pipeline::realize(RealizationArg outputs, const Target &target, const ParamMap &param_map) {
    install_runtime_error_handler();
    const std::vector<LoweredArgument> &arguments = prepare(*contents, target);

    std::vector<void *> args;
    size_t next_output = 0;
    const std::vector<Buffer<>> &out = outputs.buffers;
    size_t expected_outputs = 0;
    for (const LoweredArgument &a : arguments) expected_outputs += a.kind == Argument::OutputBuffer;
    user_assert(out.size() == expected_outputs)
        << "The pipeline has " << expected_outputs << " outputs but realize was given "
        << out.size() << " buffers";
    for (const LoweredArgument &a : arguments) {
        switch (a.kind) {
        case Argument::InputScalar: {
            user_assert(a.param) << "Scalar argument " << a.name << " is not a Param of this pipeline";
            const ParamMap::ParamMapping *m = param_map.find(a.param.get());
            args.push_back(const_cast<uint64_t *>(m ? &m->scalar_bits : &a.param->scalar_bits));
            break;
        }
        case Argument::InputBuffer:
            args.push_back(bind_input(a, param_map));
            break;
        case Argument::OutputBuffer: {
            const Buffer<> &b = out[next_output++];
            user_assert(b.defined()) << "Output buffer for Func " << a.output->name << " is undefined";
            user_assert(b.type() == a.type)
                << "Output buffer " << b.name() << " has type " << type_to_string(b.type())
                << " but Func " << a.output->name << " produces " << type_to_string(a.type)
                << ". Realize into a Buffer<" << type_to_string(a.type) << ">.";
            user_assert(b.dimensions() == a.dimensions)
                << "Output buffer " << b.name() << " has " << b.dimensions()
                << " dimensions but Func " << a.output->name << " has " << a.dimensions;
            if (a.value_index > 0) {
                const Buffer<> &first = out[next_output - 1 - a.value_index];
                for (int d = 0; d < a.dimensions; d++) {
                    user_assert(b.dim(d).min() == first.dim(d).min() &&
                                b.dim(d).extent() == first.dim(d).extent())
                        << "The buffers realizing the Tuple elements of Func " << a.output->name
                        << " must cover the same region; dimension " << d << " differs";
                }
            }
            b.contents_ptr()->sync_raw();
            args.push_back(b.raw_buffer());
            break;
        }
        }
    }
    // The run's context: the caller's, its unset handlers filled from jit_handlers() (as
    // Halide's), or one of this run's own.
    JITUserContext own_context;
    JITUserContext *context = contents->call_context ? contents->call_context : &own_context;
    fill_unset_handlers(context->handlers, contents->jit_handlers);
    check_handlers_loom_runs(context->handlers);
    auto run = [&] {
        JITErrorBuffer error;
        context->error_buffer = &error;
        int32_t code = contents->current.module->entry()(context, args.data());
        context->error_buffer = nullptr;
        // With a custom_error handler the message went to it, and the run just returns.
        if (code != 0 && !context->handlers.custom_error) {
            throw RuntimeError(error.text.empty()
                                   ? "Pipeline failed with error code " + std::to_string(code)
                                   : error.text);
        }
    };
    auto regions = [&] {
        std::vector<std::vector<loom_dimension_t>> r;
        for (const Buffer<> &b : out) r.push_back(b.contents_ptr()->dims);
        return r;
    };
    const bool bounds_query = !out.empty() && out[0].raw_data() == nullptr;
    if (!bounds_query) {
        run();
    } else {
        // A bounds query: the outputs' regions grow to what the schedule writes. One output's
        // larger region can make a stage that reads it need more of another output, so the
        // query runs again on the grown regions until they hold still.
        for (int round = 0;; round++) {
            auto before = regions();
            run();
            auto after = regions();
            bool same = true;
            for (size_t i = 0; i < before.size(); i++)
                for (size_t d = 0; d < before[i].size(); d++)
                    same &= before[i][d].min == after[i][d].min &&
                            before[i][d].extent == after[i][d].extent;
            if (same) break;
            internal_assert(round < 64) << "The bounds query of the pipeline of " << contents->outputs[0]->name
                                        << " does not settle";
        }
    }
    // Outputs a kernel wrote come back to the host, where the caller reads them.
    if (contents->options.copy_outputs_to_host) {
        for (const Buffer<> &b : out) b.copy_to_host();
    }
}

namespace {

// A view of `whole`'s memory over [0, size) in each dimension (which `whole` contains).
Buffer<> crop_to_sizes(const Buffer<> &whole, const std::vector<int32_t> &sizes) {
    const BufferContents &w = *whole.contents_ptr();
    auto c = std::make_shared<BufferContents>();
    c->name = w.name;
    c->storage = w.storage;
    c->raw.type = w.raw.type;
    int64_t offset = 0;
    for (size_t d = 0; d < sizes.size(); d++) {
        offset += (int64_t)(0 - w.dims[d].min) * w.dims[d].stride;
        c->dims.push_back(loom_dimension_t{0, sizes[d], w.dims[d].stride, 0});
    }
    c->raw.host = w.raw.host + offset * whole.type().bytes();
    c->sync_raw();
    return Buffer<>::from_contents(c);
}

// Bounds-query buffers (no memory) over [0, sizes[i]) for every output of `outputs`.
std::vector<Buffer<>> output_queries(const std::vector<FunctionPtr> &outputs,
                                     const std::vector<int32_t> &sizes, const char *what) {
    std::vector<Buffer<>> query;
    for (const FunctionPtr &f : outputs) {
        user_assert(f->defined()) << "Can't " << what << " Func " << f->name
                                  << " because it has no definition";
        user_assert((int)sizes.size() == f->dimensions())
            << "Func " << f->name << " has " << f->dimensions() << " dimensions but " << what
            << " was given " << sizes.size() << " sizes. Pass one size per dimension.";
        for (int i = 0; i < f->outputs(); i++) {
            query.push_back(Buffer<>::from_contents(BufferContents::bounds_query(
                f->output_types[i], std::vector<int>(sizes.begin(), sizes.end()), f->buffer_name(i))));
        }
    }
    return query;
}

} // namespace

void Pipeline::infer_input_bounds(RealizationArg outputs, const Target &target,
                                  const ParamMap &param_map) {
    const std::vector<LoweredArgument> &arguments = prepare(*contents, target);
    // Each ImageParam without a buffer gets a buffer without memory: the run writes the region
    // it reads into it (lower/AddImageChecks) and computes nothing. The query buffers go in a
    // map of this run's own; the inferred ones then to the ImageParam, or to the Buffer the
    // caller's map points it to.
    ParamMap query_map = param_map;
    struct Queried {
        const LoweredArgument *argument;
        const ParamMap::ParamMapping *caller_mapping;
        Buffer<> query;
    };
    std::vector<Queried> queried;
    for (const LoweredArgument &a : arguments) {
        if (a.kind != Argument::InputBuffer || a.buffer || !a.param) continue;
        const ParamMap::ParamMapping *m = param_map.find(a.param.get());
        const bool bound = m ? m->image().defined() : a.param->buffer != nullptr;
        if (bound) continue;
        Buffer<> query = Buffer<>::from_contents(
            BufferContents::bounds_query(a.type, std::vector<int>(a.dimensions, 0), a.name));
        query_map.set(a.param, query);
        queried.push_back(Queried{&a, m, query});
    }
    if (queried.empty()) return;
    realize(std::move(outputs), target, query_map);
    for (const Queried &q : queried) {
        const BufferContents &region = *q.query.contents_ptr();
        std::vector<int> extents;
        for (const loom_dimension_t &d : region.dims)
            extents.push_back(d.extent);
        std::shared_ptr<BufferContents> b =
            BufferContents::allocate(region.type(), extents, region.name);
        for (size_t d = 0; d < region.dims.size(); d++)
            b->dims[d].min = region.dims[d].min;
        b->sync_raw();
        if (q.caller_mapping && q.caller_mapping->write_out) {
            q.caller_mapping->write_out(Buffer<>::from_contents(b));
        } else {
            q.argument->param->buffer = b;
        }
    }
}

void Pipeline::infer_input_bounds(const std::vector<int32_t> &sizes, const Target &target,
                                  const ParamMap &param_map) {
    infer_input_bounds(
        RealizationArg(output_queries(contents->outputs, sizes, "infer_input_bounds")), target,
        param_map);
}

Realization Pipeline::realize(std::vector<int32_t> sizes, const Target &target,
                              const ParamMap &param_map) {
    std::vector<Buffer<>> query = output_queries(contents->outputs, sizes, "realize");
    // As Halide's realize: a bounds query first, for a schedule that writes more than the
    // requested region (a split that rounds up); then a run on buffers of the region it writes,
    // and the requested region of those is the result.
    realize(RealizationArg(query), target, param_map);
    std::vector<Buffer<>> whole;
    bool enlarged = false;
    for (const Buffer<> &q : query) {
        std::vector<int> extents;
        std::vector<int> mins;
        for (int d = 0; d < q.dimensions(); d++) {
            extents.push_back(q.dim(d).extent());
            mins.push_back(q.dim(d).min());
            enlarged |= q.dim(d).min() != 0 || q.dim(d).extent() != sizes[d];
        }
        Buffer<> b(q.type(), extents, q.name());
        b.set_min(mins);
        whole.push_back(b);
    }
    realize(RealizationArg(whole), target, param_map);
    if (!enlarged) return Realization(whole);
    std::vector<Buffer<>> requested;
    for (const Buffer<> &b : whole) requested.push_back(crop_to_sizes(b, sizes));
    return Realization(requested);
}

std::string Pipeline::lowered_stmt(const Target &target) {
    return to_string(lower_pipeline(*contents, target).body);
}

// (To standard error, where Halide 14 writes it.)
void Pipeline::print_loop_nest() { std::cerr << loop_nest(); }

std::string Pipeline::loop_nest() { return Internal::print_loop_nest(contents->outputs); }

std::string Pipeline::llvm_ir(const Target &target) {
    return compile_to_llvm_ir(lower_pipeline(*contents, target), target,
                              contents->options.compile_threads);
}

std::string Pipeline::assembly(const Target &target) {
    return compile_to_assembly_text(lower_pipeline(*contents, target), target,
                                    contents->options.compile_threads);
}

void Pipeline::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                       const Target &target) {
    compile_to_lowered_stmt(filename, args, StmtOutputFormat::Text, target);
}

void Pipeline::compile_to_lowered_stmt(const std::string &filename,
                                       const std::vector<Argument> &args, StmtOutputFormat format,
                                       const Target &target) {
    const LoweredPipeline lowered = lower_pipeline(*contents, target, args);
    write_file(filename, format == StmtOutputFormat::HTML
                             ? stmt_to_html(lowered.body, contents->outputs[0]->name)
                             : to_string(lowered.body));
}

void Pipeline::compile_to_llvm_assembly(const std::string &filename,
                                        const std::vector<Argument> &args, const Target &target) {
    write_file(filename, compile_to_llvm_ir(lower_pipeline(*contents, target, args), target,
                                            contents->options.compile_threads));
}

void Pipeline::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                                   const Target &target) {
    write_file(filename, compile_to_assembly_text(lower_pipeline(*contents, target, args), target,
                                                  contents->options.compile_threads));
}

namespace {

std::vector<AOTVariant> lower_for_targets(const PipelineContents &p,
                                          const std::vector<Argument> &args,
                                          const std::vector<Target> &targets) {
    user_assert(!p.outputs.empty()) << "Can't compile a Pipeline with no outputs";
    user_assert(!targets.empty()) << "Ahead-of-time compilation of " << p.outputs[0]->name
                                  << " needs at least one Target";
    std::vector<AOTVariant> variants;
    for (const Target &t : targets) variants.push_back({lower_pipeline(p, t, args), t});
    return variants;
}

std::string default_fn_name(const std::string &filename_prefix, const std::string &fn_name) {
    if (!fn_name.empty()) return fn_name;
    size_t slash = filename_prefix.find_last_of('/');
    return slash == std::string::npos ? filename_prefix : filename_prefix.substr(slash + 1);
}

}  // namespace

void Pipeline::compile_to_static_library(const std::string &filename_prefix,
                                         const std::vector<Argument> &args,
                                         const std::string &fn_name, const Target &target) {
    compile_to_multitarget_static_library(filename_prefix, args, fn_name, {target});
}

void Pipeline::compile_to_multitarget_static_library(const std::string &filename_prefix,
                                                     const std::vector<Argument> &args,
                                                     const std::string &fn_name,
                                                     const std::vector<Target> &targets) {
    const std::string name = default_fn_name(filename_prefix, fn_name);
    std::vector<AOTVariant> variants = lower_for_targets(*contents, args, targets);
    std::string object = compile_aot(variants, name, AOTOutput::Object);
    write_static_library(filename_prefix + ".a", object, name, targets.front());
    write_file(filename_prefix + ".h", c_header(variants.front().lowered.args, name, targets));
}

void Pipeline::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    write_file(filename, compile_aot(lower_for_targets(*contents, args, {target}), fn_name,
                                            AOTOutput::Object));
}

void Pipeline::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                                 const std::string &fn_name, const Target &target) {
    LoweredPipeline lowered = lower_pipeline(*contents, target, args);
    write_file(filename, c_header(lowered.args, fn_name, {target}));
}

void Pipeline::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                                   const std::string &fn_name, const Target &target) {
    write_file(filename, compile_aot(lower_for_targets(*contents, args, {target}), fn_name,
                                     AOTOutput::Assembly));
}

void Pipeline::compile_to_llvm_assembly(const std::string &filename,
                                        const std::vector<Argument> &args,
                                        const std::string &fn_name, const Target &target) {
    write_file(filename, compile_aot(lower_for_targets(*contents, args, {target}), fn_name,
                                     AOTOutput::LLVMAssembly));
}

void Pipeline::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target) {
    write_file(filename, compile_aot(lower_for_targets(*contents, args, {target}), fn_name,
                                     AOTOutput::Bitcode));
}

void compile_standalone_runtime(const std::string &object_filename, const Target &target) {
    write_file(object_filename, runtime_object(target));
}

void Pipeline::compile_to_file(const std::string &filename_prefix,
                               const std::vector<Argument> &args, const std::string &fn_name,
                               const Target &target) {
    const std::string name = default_fn_name(filename_prefix, fn_name);
    compile_to_object(filename_prefix + ".o", args, name, target);
    compile_to_header(filename_prefix + ".h", args, name, target);
}

}  // namespace loom
