// The Halide 14 peer: binds an app's pipeline, built from the same .inc in a namespace that
// uses Halide, to the memory of the app's Loom buffers, and compiles it with Halide's JIT for
// the host (all of its CPU features), so that both systems run the same algorithm and schedule
// on the same bytes.
#pragma once

// Halide.h before loom.h, and its assertion macros dropped: Loom's Error.h defines the same
// four names. A file that includes this header includes it first.
#include <Halide.h>
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <chrono>
#include <stdexcept>

#include "apps/common/App.h"

namespace loom_apps {

/** One step of a sum of products, as the apps write it (see LoomRunner.h): Halide 14 contracts
 * it into a fused multiply-add, as Loom's fma computes it. */
inline Halide::Expr multiply_add(const Halide::Expr &a, const Halide::Expr &b,
                                 const Halide::Expr &c) {
    return c + a * b;
}

/** A Halide buffer over the memory of a Loom buffer: same mins, extents and strides. */
Halide::Buffer<> halide_view(const loom::Buffer<> &b);

/** The peer's allocator: Loom's heap (loom_malloc / loom_free, with its cache of freed blocks),
 * plugged into Halide's JIT through its custom_malloc / custom_free handlers. Halide 14 keeps
 * no host memory between runs (halide_malloc is malloc, and a large block goes back to the
 * system at free), where Loom's heap does, as an eager framework's caching allocator does: on
 * its own allocator the peer would pay page faults on every run of a pipeline with a large
 * compute_root intermediate that Loom does not, and the comparison would measure allocators,
 * not compiled code. Both systems therefore allocate from the same heap (LOOM_MEMORY_CACHE_SIZE=0
 * turns its cache off for both). */
void *halide_peer_malloc(Halide::JITUserContext *user_context, size_t bytes);
void halide_peer_free(Halide::JITUserContext *user_context, void *ptr);

/** The host's features, less AVX512_SapphireRapids: Halide 14 reports it on CPUs that have
 * AVX512-BF16 and -VNNI but not AVX-VNNI (this project's machines), then emits instructions they
 * lack (SIGILL). Float math as Halide compiles it by default (it may contract a * b + c). */
const Halide::Target &halide_peer_target();

/** The MachineParams of this machine for Halide's auto-schedulers: its hardware threads, its
 * last-level cache, Halide's generic balance (as loom::MachineParams::host()). */
Halide::MachineParams halide_machine_params();

/** Loads Halide 14's plugin for `variant` (Mullapudi2016, Adams2019, Li2018) once per process,
 * from Debian's package. */
void load_halide_autoscheduler(Variant variant);

/** The region a buffer covers, as Halide's estimates take it. */
Halide::Region halide_region_of(const loom::Buffer<> &b);

template <typename P>
Runner halide_runner(App &app, Variant variant, const Halide::Target &target) {
    auto start = std::chrono::steady_clock::now();
    auto pipeline_def = std::make_shared<P>(variant);
    std::vector<Halide::ImageParam> params = pipeline_def->inputs();
    for (size_t i = 0; i < params.size(); i++)
        params[i].set(halide_view(app.inputs[i]));
    auto pipeline = std::make_shared<Halide::Pipeline>(pipeline_def->outputs());
    Runner r;
    if (is_automatic(variant)) {
        if (is_loom_automatic(variant)) {
            throw std::invalid_argument(app.name() + ": " + variant_name(variant) +
                                        " is Loom's auto-scheduler; "
                                        "the Halide peer takes Mullapudi2016, Adams2019 or Li2018");
        }
        load_halide_autoscheduler(variant);
        for (size_t i = 0; i < params.size(); i++)
            params[i].set_estimates(halide_region_of(app.inputs[i]));
        std::vector<Halide::Func> outputs = pipeline->outputs();
        for (size_t i = 0; i < outputs.size(); i++)
            outputs[i].set_estimates(halide_region_of(app.outputs[i]));
        auto scheduling = std::chrono::steady_clock::now();
        r.schedule_source =
            pipeline->auto_schedule(variant_name(variant), target, halide_machine_params())
                .schedule_source;
        r.schedule_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - scheduling).count();
    }
    pipeline->jit_handlers().custom_malloc = halide_peer_malloc;
    pipeline->jit_handlers().custom_free = halide_peer_free;
    pipeline->compile_jit(target);
    r.compile_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::vector<Halide::Buffer<>> outs;
    for (const auto &b : app.outputs)
        outs.push_back(halide_view(b));
    auto realization = std::make_shared<Halide::Realization>(outs);
    r.run = [pipeline_def, pipeline, realization]() { pipeline->realize(*realization); };
    return r;
}

/** The Halide peer of every app, by app name, compiled for `target` (the benchmark uses
 * halide_peer_target(); the peer test adds StrictFloat so that float results match Loom's). */
Runner compile_halide(App &app, Variant variant, const Halide::Target &target);

} // namespace loom_apps
