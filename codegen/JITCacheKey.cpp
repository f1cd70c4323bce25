#include "codegen/JITCacheKey.h"

#include <map>

#include <llvm/Config/llvm-config.h>

#include "codegen/KeyWriter.h"
#include "dsl/Buffer.h"
#include "dsl/Parameter.h"
#include "dsl/RDom.h"

namespace loom {
namespace Internal {

namespace {

// Bump when the meaning of a key's bytes changes (what is written, or in what order).
constexpr const char *kKeyFormat = "loom-jit-cache-key 2";
// Definition and lowered 2: Call::memoize_tag and scatter_gather joined the intrinsics,
// renumbering those after them. Definition 4, lowered 3: names with a loop name of
// unique_loop_name written part by part (KeyWriter::name).
constexpr const char *kDefinitionFormat = "loom-definition 4";
constexpr const char *kLoweredFormat = "loom-lowered 3";

// Writes a definition. Each structure is taken apart with a structured binding that names all
// of its fields: a field added to one of them makes the binding fail to compile, so that it
// is written here, or the binding says why it need not be. The bindings are [[maybe_unused]]
// for the fields left out on purpose.
class DefinitionWriter : public KeyWriter {
public:
    std::vector<const void *> inputs;

    void function(const FunctionContents *f) {
        if (!first_meeting(f)) return;
        // wrapped_callees only keeps Funcs alive; the wrappers are keyed whether or not the
        // definitions were redirected to them yet.
        const auto &[name, args, output_types, init, updates, schedule, wrappers, wraps,
                     wrapped_callees, trace, output_constraints, output_host_alignment,
                     extern_stage] = *f;
        out += extern_stage ? 'x' : '-';
        if (extern_stage) {
            const auto &[function_name, extern_args] = *extern_stage;
            str(function_name);
            u64(extern_args.size());
            for (const ExternStage::Arg &a : extern_args) {
                const auto &[kind, arg_func, arg_buffer, arg_expr, arg_param] = a;
                u64((uint64_t)kind);
                function(arg_func.get());
                buffer(arg_buffer.get());
                expr(arg_expr);
                param(arg_param.get());
            }
        }
        (void)wrapped_callees;
        const auto &[trace_loads, trace_stores, trace_realizations, trace_tags] = trace;
        u64((uint64_t)trace_loads | (uint64_t)trace_stores << 1 |
            (uint64_t)trace_realizations << 2);
        strs(trace_tags);
        dim_constraints(output_constraints);
        u64((uint64_t)output_host_alignment);
        str(wraps);
        u64(wrappers.size());
        for (const auto &[caller, wrapper] : wrappers) {
            str(caller);
            function(wrapper.get());
        }
        str(name);
        strs(args);
        u64(output_types.size());
        for (Type t : output_types) type(t);
        definition(init);
        u64(updates.size());
        for (const Definition &d : updates) definition(d);
        func_schedule(schedule);
    }

    void target(const Target &t) {
        // A default Target ("host") is resolved by the machine part of jit_cache_key.
        const auto &[os, arch, bits, features] = t;
        u64((uint64_t)os);
        u64((uint64_t)arch);
        u64((uint64_t)bits);
        u64(features.size());
        for (Target::Feature f : features) u64((uint64_t)f);
    }

    void options(const CompileOptions &o) {
        // Only streaming_min_bytes changes the code lowering and codegen make. Logging and
        // verifying the passes check the same code; compile_threads is resolved to a count in
        // jit_cache_key; copying outputs to the host happens in realize(); the cache's own
        // settings say where code is kept.
        [[maybe_unused]] const auto &[log_passes, verify_ir, compile_threads, streaming_min_bytes,
                                      copy_outputs_to_host, jit_cache, jit_cache_dir,
                                      jit_cache_max_bytes] = o;
        u64((uint64_t)streaming_min_bytes);
    }

    void argument(const Argument &a) {
        const auto &[name, kind, arg_type, dimensions] = a;
        str(name);
        u64((uint64_t)kind);
        type(arg_type);
        u64((uint64_t)dimensions);
    }

protected:
    void references(const Variable *op) override {
        param(op->param.get());
        rdom(op->rdom.get());
    }
    void references(const Call *op) override {
        function(op->func.get());
        buffer(op->buffer.get());
        param(op->param.get());
    }

private:
    std::map<const void *, uint64_t> met;

    // Whether `p` is met for the first time (its contents are to be written next). Writes
    // which: '0' for none, 'r' and the number it got when first met, or 'n'.
    bool first_meeting(const void *p) {
        if (!p) {
            out += '0';
            return false;
        }
        auto it = met.find(p);
        if (it != met.end()) {
            out += 'r';
            u64(it->second);
            return false;
        }
        met.emplace(p, (uint64_t)met.size());
        out += 'n';
        return true;
    }

    void definition(const Definition &d) {
        const auto &[args, values, schedule, domain, predicate, specializations] = d;
        exprs(args);
        exprs(values);
        stage_schedule(schedule);
        rdom(domain.get());
        expr(predicate);
        u64(specializations.size());
        for (const Specialization &s : specializations) {
            const auto &[condition, specialized, failure, failure_message] = s;
            expr(condition);
            out += specialized ? '+' : '-';
            if (specialized) definition(*specialized);
            u64(failure);
            str(failure_message);
        }
    }

    void stage_schedule(const StageSchedule &s) {
        // touched only decides a warning.
        [[maybe_unused]] const auto &[splits, dims, prefetches, allow_race_conditions, atomic,
                                      fuse_level, touched] = s;
        u64(splits.size());
        for (const Split &sp : splits) {
            const auto &[kind, old_var, outer, inner, factor, tail] = sp;
            u64((uint64_t)kind);
            name(old_var);
            name(outer);
            name(inner);
            expr(factor);
            u64((uint64_t)tail);
        }
        u64(dims.size());
        for (const Dim &dim : dims) {
            const auto &[var, for_type, device_api, is_rvar] = dim;
            name(var);
            u64((uint64_t)for_type);
            u64((uint64_t)device_api);
            u64(is_rvar);
        }
        u64(prefetches.size());
        for (const PrefetchDirective &p : prefetches) {
            const auto &[image, func, at, from, offset, strategy] = p;
            param(image.get());
            function(func.get());
            name(at);
            name(from);
            expr(offset);
            u64((uint64_t)strategy);
        }
        // No effect on the code (only on which directives were accepted), keyed all the same.
        u64(allow_race_conditions);
        u64(atomic);
        loop_level(fuse_level.level);
        u64(fuse_level.align.size());
        for (const auto &[var, strategy] : fuse_level.align) {
            name(var);
            u64((uint64_t)strategy);
        }
    }

    // LoopLevel keeps its fields private; these accessors read all four (kind, Func, loop,
    // stage).
    void loop_level(const LoopLevel &l) {
        u64(!l.defined() ? 0 : l.is_root() ? 1 : l.is_inlined() ? 2 : 3);
        str(l.func());
        name(l.var());
        u64((uint64_t)(int64_t)l.stage_index());
    }

    void bounds(const std::vector<Bound> &list) {
        u64(list.size());
        for (const Bound &b : list) {
            const auto &[var, min, extent] = b;
            str(var);
            expr(min);
            expr(extent);
        }
    }

    void func_schedule(const FuncSchedule &s) {
        // Estimates change no code; they are written all the same, as hints an
        // auto-scheduler may one day turn into code before lowering.
        const auto &[compute_level, store_level, bound_list, estimates, storage_order, folds,
                     alignments, storage_alignments, storage_bounds, memory_type, memoized,
                     eviction_key, async, debug_file] = s;
        str(debug_file);
        u64((uint64_t)memory_type);
        u64(memoized);
        u64(async);
        expr(eviction_key);
        loop_level(compute_level);
        loop_level(store_level);
        bounds(bound_list);
        bounds(estimates);
        strs(storage_order);
        u64(folds.size());
        for (const StorageFold &fold : folds) {
            const auto &[var, extent] = fold;
            str(var);
            expr(extent);
        }
        u64(alignments.size());
        for (const BoundAlignment &a : alignments) {
            const auto &[var, modulus, remainder] = a;
            str(var);
            expr(modulus);
            expr(remainder);
        }
        u64(storage_alignments.size());
        for (const StorageAlignment &a : storage_alignments) {
            const auto &[var, alignment] = a;
            str(var);
            expr(alignment);
        }
        u64(storage_bounds.size());
        for (const StorageBound &b : storage_bounds) {
            const auto &[var, bound] = b;
            str(var);
            expr(bound);
        }
    }

    void rdom(const ReductionDomainContents *r) {
        if (!first_meeting(r)) return;
        const auto &[name, domain, predicate] = *r;
        str(name);
        u64(domain.size());
        for (const ReductionVariable &rv : domain) {
            const auto &[var, min, extent] = rv;
            str(var);
            expr(min);
            expr(extent);
        }
        expr(predicate);
    }

    // Checked at entry, and the strides index the buffer.
    void dim_constraints(const std::vector<DimConstraint> &constraints) {
        u64(constraints.size());
        for (const DimConstraint &c : constraints) {
            const auto &[min, extent, stride] = c;
            expr(min);
            expr(extent);
            expr(stride);
        }
    }

    void param(const ParameterContents *p) {
        if (!first_meeting(p)) return;
        inputs.push_back(p);
        // The value of a scalar Param and the Buffer bound to an ImageParam are read by the
        // compiled code from its arguments when it runs; lowering never reads them. Estimates
        // are for auto-schedulers and change no code.
        [[maybe_unused]] const auto &[name, param_type, is_buffer, dimensions, scalar_bits,
                                      scalar_set, bound_buffer, scalar_estimate, buffer_estimates,
                                      min_value, max_value, wrappers, constraints, host_alignment,
                                      trace_loads, trace_tags] = *p;
        str(name);
        type(param_type);
        u64(is_buffer);
        u64((uint64_t)dimensions);
        // The wrappers the image's calls will be redirected to (as a Func's are keyed).
        u64(wrappers.size());
        for (const auto &[caller, wrapper] : wrappers) {
            str(caller);
            const FunctionPtr alive = wrapper.lock();
            u64(alive != nullptr);
            if (alive) function(alive.get());
        }
        // The range is checked by the compiled code.
        expr(min_value);
        expr(max_value);
        dim_constraints(constraints);
        // Checked at entry, and traced.
        u64((uint64_t)host_alignment);
        u64(trace_loads);
        strs(trace_tags);
    }

    void buffer(const BufferContents *b) {
        if (!first_meeting(b)) return;
        inputs.push_back(b);
        // An embedded Buffer is an argument of the compiled code like an ImageParam: its shape
        // (mins, extents, strides: AddImageChecks binds name.min.0 ... from the argument) and
        // its memory are read when the pipeline runs, never by lowering. Its element type is
        // raw.type, written through type().
        [[maybe_unused]] const auto &[name, dims, raw, storage] = *b;
        str(name);
        type(b->type());
        u64(dims.size());
    }
};

}  // namespace

DefinitionKey definition_key(const std::vector<FunctionPtr> &outputs, const std::string &name,
                             const Target &target, const CompileOptions &options,
                             const std::vector<Argument> &requested_args,
                             const std::vector<std::vector<Expr>> &requirements) {
    DefinitionWriter w;
    w.str(kDefinitionFormat);
    w.str(name);
    w.target(target);
    w.options(options);
    w.u64(requested_args.size());
    for (const Argument &a : requested_args) w.argument(a);
    w.u64(outputs.size());
    for (const FunctionPtr &f : outputs) w.function(f.get());
    w.u64(requirements.size());
    for (const std::vector<Expr> &r : requirements)
        w.exprs(r);
    return DefinitionKey{std::move(w.out), std::move(w.inputs)};
}

std::string lowered_key(const LoweredPipeline &pipeline) {
    KeyWriter w;
    const auto &[name, body, args, streaming_min_bytes, max_allocation_elements] = pipeline;
    w.str(kLoweredFormat);
    w.u64((uint64_t)streaming_min_bytes);
    w.u64((uint64_t)max_allocation_elements);
    w.str(name);
    w.u64(args.size());
    for (const LoweredArgument &a : args) {
        // What an argument is bound to (a Buffer, a Param, an output Func) is this process's.
        [[maybe_unused]] const auto &[arg_name, kind, type, dimensions, buffer, param, output,
                                      value_index] = a;
        w.str(arg_name);
        w.u64(kind);
        w.type(type);
        w.u64((uint64_t)dimensions);
        w.u64((uint64_t)value_index);
    }
    w.stmt(body);
    return std::move(w.out);
}

std::string jit_cache_key(const std::string &pipeline, const Target &target,
                          const MachineSpec &machine, unsigned compile_threads) {
    KeyWriter w;
    w.str(kKeyFormat);
    w.str(loom_build_id());
    w.str(LLVM_VERSION_STRING);
    w.str(target.to_string());
    w.str(machine.triple);
    w.str(machine.cpu);
    w.str(machine.features);
    w.u64(compile_threads);
    w.str(pipeline);
    return std::move(w.out);
}

}  // namespace Internal
}  // namespace loom
