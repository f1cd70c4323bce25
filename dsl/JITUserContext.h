// Halide 14's JITUserContext and JITHandlers: runtime hooks for JIT runs. A Pipeline's
// jit_handlers() apply to each of its runs; a JITUserContext passed to realize() (or
// infer_input_bounds) applies to that run alone, its handlers taking precedence, and is the
// context each handler receives (a program derives from it to carry its own state).
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/loom_runtime.h"

namespace loom {

struct JITUserContext;

/** The hooks, each unset (nullptr) by default. Every one has Halide 14's signature; the run
 * calls: custom_print for print() and, where custom_trace is unset, for the default trace
 * printing (in place of a process-wide loom_set_trace_handler), custom_error for each error
 * message (the run then returns without an exception), custom_trace for each trace event,
 * custom_malloc / custom_free for the heap allocations of the compiled code, custom_do_par_for
 * for each parallel loop and custom_do_task for each of its iterations (the tasks then run one
 * after another, on the calling thread, unless custom_do_par_for spreads them), and
 * custom_cuda_get_stream for the CUDA stream of each kernel launch and device copy (given the
 * CUcontext Loom uses, the device's primary context; NULL or unset: the default stream, else
 * the process's loom_cuda_set_stream_handler). The symbol lookups and the CUDA context hooks
 * have no counterpart in Loom's JIT (extern functions are given by Pipeline::set_jit_externs;
 * the CUDA context is the runtime's): a run given one is refused. */
struct JITHandlers {
    void (*custom_print)(JITUserContext *, const char *){nullptr};
    void *(*custom_malloc)(JITUserContext *, size_t){nullptr};
    void (*custom_free)(JITUserContext *, void *){nullptr};
    int (*custom_do_task)(JITUserContext *, int (*)(JITUserContext *, int, uint8_t *), int,
                          uint8_t *){nullptr};
    int (*custom_do_par_for)(JITUserContext *, int (*)(JITUserContext *, int, uint8_t *), int, int,
                             uint8_t *){nullptr};
    void (*custom_error)(JITUserContext *, const char *){nullptr};
    int32_t (*custom_trace)(JITUserContext *, const loom_trace_event_t *){nullptr};
    void *(*custom_get_symbol)(const char *name){nullptr};
    void *(*custom_load_library)(const char *name){nullptr};
    void *(*custom_get_library_symbol)(void *lib, const char *name){nullptr};
    int32_t (*custom_cuda_acquire_context)(JITUserContext *user_context, void **cuda_context_ptr,
                                           bool create){nullptr};
    int32_t (*custom_cuda_release_context)(JITUserContext *user_context){nullptr};
    int32_t (*custom_cuda_get_stream)(JITUserContext *user_context, void *cuda_context,
                                      void **stream_ptr){nullptr};
};

namespace Internal {
/** The error text of one run, where no custom_error handler takes it. */
struct JITErrorBuffer;
} // namespace Internal

/** The context of a JIT run: the compiled code passes it to every runtime call as its user
 * context. */
struct JITUserContext {
    Internal::JITErrorBuffer *error_buffer{nullptr}; // set by the run, for its duration
    JITHandlers handlers;
};

} // namespace loom
