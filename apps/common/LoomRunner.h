// Binds an app's pipeline, built from its .inc in a namespace that uses loom, to the app's
// buffers and compiles it with Loom's JIT.
#pragma once

#include <chrono>
#include <fstream>

#include "apps/common/App.h"

namespace loom_apps {

/** One step of a sum of products, acc = a * b + acc rounded once, as the apps that accumulate
 * products (matmul, conv_relu) write it in their .inc: Loom's fma here; in HalideRunner.h,
 * `c + a * b`, which Halide 14 (no fma of its own) contracts into the same instruction by
 * default. Both systems then compute the same bits. */
inline loom::Expr multiply_add(loom::Expr a, loom::Expr b, loom::Expr c) {
    return loom::fma(std::move(a), std::move(b), std::move(c));
}

/** The region a buffer covers, as estimates give it. */
inline loom::Region region_of(const loom::Buffer<> &b) {
    loom::Region r;
    for (int d = 0; d < b.dimensions(); d++)
        r.emplace_back(b.dim(d).min(), b.dim(d).extent());
    return r;
}

/** P is an app's pipeline struct: inputs() lists its ImageParams in the order of
 * app.inputs, outputs() its output Funcs in the order of app.outputs. */
template <typename P> Runner loom_runner(App &app, Variant variant) {
    auto start = std::chrono::steady_clock::now();
    auto pipeline_def = std::make_shared<P>(variant);
    std::vector<loom::ImageParam> params = pipeline_def->inputs();
    user_assert(params.size() == app.inputs.size())
        << app.name() << ": the pipeline has " << params.size() << " ImageParams but the app "
        << app.inputs.size() << " inputs";
    for (size_t i = 0; i < params.size(); i++)
        params[i].set(app.inputs[i]);
    auto pipeline = std::make_shared<loom::Pipeline>(pipeline_def->outputs());
    Runner r;
    const bool gpu = is_gpu(variant);
    user_assert(variant != Variant::GPU || app.has_gpu_schedule())
        << app.name() << " has no GPU schedule of its own (Variant::GPUAuto schedules any app)";
    const loom::Target target =
        gpu ? loom::get_host_target().with_feature(loom::Target::CUDA) : loom::Target();
    if (is_automatic(variant)) {
        user_assert(is_loom_automatic(variant))
            << app.name() << ": " << variant_name(variant)
            << " is one of Halide's auto-schedulers, for the Halide peer; Loom's are "
               "Variant::Auto, Search, Autotune, GPUAuto and GPUAutotune";
        // The estimates a user gives: the sizes the app runs at.
        for (size_t i = 0; i < params.size(); i++)
            params[i].set_estimates(region_of(app.inputs[i]));
        std::vector<loom::Func> outputs = pipeline->outputs();
        for (size_t i = 0; i < outputs.size(); i++)
            outputs[i].set_estimates(region_of(app.outputs[i]));
        auto scheduling = std::chrono::steady_clock::now();
        const bool tune = variant == Variant::Autotune || variant == Variant::GPUAutotune;
        r.schedule_source = pipeline
                                ->auto_schedule(tune                         ? "Autotune"
                                                : variant == Variant::Search ? "Search"
                                                                             : "Heuristic",
                                                target, loom::MachineParams::host())
                                .schedule_source;
        r.schedule_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - scheduling).count();
    }
    if (gpu) {
        loom::CompileOptions options = pipeline->options();
        options.copy_outputs_to_host = false;
        pipeline->set_options(options);
    }
    pipeline->compile_jit(target);
    r.compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    r.from_cache = pipeline->last_compile_from_cache();
    std::vector<loom::Buffer<>> outs = app.outputs;
    r.run = [pipeline_def, pipeline, outs, target]() {
        pipeline->realize(loom::RealizationArg(outs), target);
    };
    if (gpu) {
        r.sync = [outs]() {
            for (const loom::Buffer<> &b : outs) b.copy_to_host();
        };
    }
    r.write_code = [pipeline, target](const std::string &prefix) {
        auto write = [](const std::string &path, const std::string &text) {
            std::ofstream(path) << text;
        };
        write(prefix + ".stmt", pipeline->lowered_stmt(target));
        write(prefix + ".ll", pipeline->llvm_ir(target));
        write(prefix + ".s", pipeline->assembly(target));
    };
    return r;
}

} // namespace loom_apps
