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
    pipeline->compile_jit();
    Runner r;
    r.compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<loom::Buffer<>> outs = app.outputs;
    r.run = [pipeline_def, pipeline, outs]() { pipeline->realize(loom::RealizationArg(outs)); };
    r.write_code = [pipeline](const std::string &prefix) {
        auto write = [](const std::string &path, const std::string &text) {
            std::ofstream(path) << text;
        };
        write(prefix + ".stmt", pipeline->lowered_stmt());
        write(prefix + ".ll", pipeline->llvm_ir());
        write(prefix + ".s", pipeline->assembly());
    };
    return r;
}

} // namespace loom_apps
