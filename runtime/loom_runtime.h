/* The C ABI that compiled Loom pipelines and their callers share. No LLVM, no C++:
 * a program that links an ahead-of-time pipeline includes only this header. */
#ifndef LOOM_RUNTIME_H
#define LOOM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element type of a buffer: code is one of loom_type_code_t, bits the width of one lane. */
typedef enum loom_type_code_t {
    loom_type_int = 0,
    loom_type_uint = 1,
    loom_type_float = 2,
    loom_type_handle = 3
} loom_type_code_t;

typedef struct loom_type_t {
    uint8_t code; /* loom_type_code_t */
    uint8_t bits;
    uint16_t lanes;
} loom_type_t;

/* One dimension of a buffer. Element (x0, x1, ...) lives at
 * host + sum_i (x_i - dim[i].min) * dim[i].stride elements. */
typedef struct loom_dimension_t {
    int32_t min, extent, stride, flags;
} loom_dimension_t;

/* Which copy of a buffer is newer, for a buffer that has both a host and a device copy.
 * host_dirty: the host copy is newer than the device copy. The caller sets it after writing
 * the host memory of a buffer that already has a device copy (as Halide's set_host_dirty), so
 * that the next pipeline run copies it over. device_dirty: the device copy is newer (a kernel
 * wrote it); loom_cuda_copy_to_host brings it back. Never both at once. host_unwritten: the
 * host memory holds nothing yet (a pipeline's own allocation before any code wrote it), so a
 * new device copy needs no data from it; writing the host (mark_host_dirty) clears it. */
typedef enum loom_buffer_flags_t {
    loom_buffer_host_dirty = 1,
    loom_buffer_device_dirty = 2,
    loom_buffer_host_unwritten = 4
} loom_buffer_flags_t;

/* A view of memory a pipeline reads or writes. The caller owns host and dim; the CUDA
 * functions below own device. The fields after dim were appended so that the offsets compiled
 * code uses (host 0, type 8, dimensions 12, dim 16) did not move; on 64-bit targets device is
 * at 24 and flags at 32. A buffer initialized with only its first four fields has no device
 * copy. */
typedef struct loom_buffer_t {
    uint8_t *host;
    loom_type_t type;
    int32_t dimensions;
    loom_dimension_t *dim;
    uint64_t device; /* CUdeviceptr of the device copy (element at the mins, like host); 0: none */
    uint32_t flags;  /* loom_buffer_flags_t */
    uint32_t device_reserved; /* padding, zero */
#ifdef __cplusplus
    /* Halide's test in an extern stage (Func::define_extern): a buffer without memory asks
     * for a region, which the stage writes into dim[]. */
    bool is_bounds_query() const { return host == 0 && device == 0; }
#endif
} loom_buffer_t;

/* Tracing (Func::trace_loads / trace_stores / trace_realizations, Halide's events and their
 * order). A compiled pipeline reports each event to loom_trace, which passes it to the
 * handler; the default handler prints one line per event to stdout, as Halide 14's does:
 * "Store f.0(3, 2) = 5", "Begin pipeline f.0()", "Tag f.0() tag = \"...\"". */
typedef enum loom_trace_event_code_t {
    loom_trace_load = 0,
    loom_trace_store = 1,
    loom_trace_begin_realization = 2,
    loom_trace_end_realization = 3,
    loom_trace_produce = 4,
    loom_trace_end_produce = 5,
    loom_trace_consume = 6,
    loom_trace_end_consume = 7,
    loom_trace_begin_pipeline = 8,
    loom_trace_end_pipeline = 9,
    loom_trace_tag = 10
} loom_trace_event_code_t;

/* One event. Loads and stores carry `type.lanes` values (one per lane of a vector access) and
 * `dimensions` coordinates: for a vector access, lane i of coordinate d is coordinates[d *
 * lanes + i] (dimensions counts every lane). Realization, produce and consume events carry
 * (min, extent) pairs of the region; the pipeline and tag events no coordinates. parent_id is
 * the id loom_trace returned for the enclosing event (begin pipeline, begin realization or
 * produce). */
typedef struct loom_trace_event_t {
    const char *func;
    const void *value;
    const int32_t *coordinates;
    const char *trace_tag; /* tag events only, else NULL */
    loom_type_t type;
    int32_t event; /* loom_trace_event_code_t */
    int32_t parent_id;
    int32_t value_index;
    int32_t dimensions;
} loom_trace_event_t;

typedef int32_t (*loom_trace_handler_t)(void *user_context, const loom_trace_event_t *event);
/* Replaces the trace handler for every pipeline (NULL restores the default); returns the old
 * one. The handler returns the event's id (positive), which later events name as parent. */
loom_trace_handler_t loom_set_trace_handler(loom_trace_handler_t handler);
int32_t loom_trace(void *user_context, const loom_trace_event_t *event);
/* The default handler's line for an event, without the newline, into dst (size bytes). */
void loom_trace_event_to_string(const loom_trace_event_t *event, char *dst, size_t size);

/* print() and print_when(): each message is one line, newline included. The default handler
 * writes it to stdout. */
typedef void (*loom_print_handler_t)(void *user_context, const char *message);
loom_print_handler_t loom_set_print_handler(loom_print_handler_t handler);
void loom_print(void *user_context, const char *message);
/* Append a value's text at dst, never past end - 1 (always terminated); return the new end of
 * the text. Floats as Halide prints them: fixed with 6 decimals (scientific for doubles). */
char *loom_append_string(char *dst, char *end, const char *s);
char *loom_append_int64(char *dst, char *end, int64_t v);
char *loom_append_uint64(char *dst, char *end, uint64_t v);
char *loom_append_double(char *dst, char *end, double v, int32_t scientific);

/* Error codes a compiled pipeline returns. 0 means success. */
enum loom_error_code_t {
    loom_code_success = 0,
    loom_code_generic_error = -1,
    loom_code_out_of_bounds = -2,
    loom_code_out_of_memory = -3,
    loom_code_bad_buffer = -4,
    loom_code_buffer_too_small = -5,
    loom_code_device_error = -6,
    loom_code_requirement_failed = -7
};

/* Receives every error message a pipeline reports. The default prints to stderr;
 * the JIT installs its own to turn the message into a C++ exception. */
typedef void (*loom_error_handler_t)(void *user_context, const char *message);

/* Replaces the handler and returns the previous one. Passing NULL restores the default. */
loom_error_handler_t loom_set_error_handler(loom_error_handler_t handler);

/* Called by compiled code. Each formats a message, passes it to the handler and returns
 * the error code the pipeline must return. */
int32_t loom_error(void *user_context, const char *message);
int32_t loom_error_access_out_of_bounds(void *user_context, const char *buffer_name,
                                        int32_t dimension, int32_t min_touched,
                                        int32_t max_touched, int32_t min_valid,
                                        int32_t max_valid);
int32_t loom_error_output_too_small(void *user_context, const char *buffer_name,
                                    int32_t dimension, int32_t min_written, int32_t max_written,
                                    int32_t min_valid, int32_t max_valid);
/* Bounds queries (Halide's): an output whose host pointer is NULL asks the pipeline which region
 * it writes instead of running it. The pipeline widens the output's dim[d] (min, extent) to cover
 * [min, max] in every dimension d it writes (loom_buffer_bounds_query) and returns 0 without
 * computing anything; the caller then allocates that region and runs it again. A JIT
 * realize(sizes) does this (a schedule that rounds up may write past the requested sizes).
 * An ImageParam's buffer without memory is a query too (infer_input_bounds): the pipeline
 * writes the region it reads into it and computes nothing. A dimension of extent 0 is empty:
 * the first region written replaces it. */
int32_t loom_buffer_is_bounds_query(void *user_context, const loom_buffer_t *buffer);
int32_t loom_buffer_bounds_query(void *user_context, loom_buffer_t *buffer, int32_t dimension,
                                 int32_t min, int32_t max);
int32_t loom_error_bound_too_small(void *user_context, const char *func_name, const char *var_name,
                                   int32_t bound_min, int32_t bound_max, int32_t required_min,
                                   int32_t required_max);
/* A scalar Param's value outside the range set with set_range (below its minimum when
 * below_minimum, else above its maximum). */
int32_t loom_error_param_out_of_range(void *user_context, const char *param_name, double value,
                                      double bound, int32_t below_minimum);
int32_t loom_error_out_of_memory(void *user_context, const char *func_name, int64_t bytes);
/* A Func's storage holds more elements than its offsets address (Target::LargeBuffers). */
int32_t loom_error_buffer_allocation_too_large(void *user_context, const char *func_name,
                                               int64_t elements, int64_t most);
/* A require() whose condition failed: passes its message on; returns loom_code_requirement_failed.
 */
int32_t loom_error_requirement_failed(void *user_context, const char *message);
/* The memoization cache (Func::memoize): regions of memoized Funcs kept between runs, shared
 * by every pipeline of the process. Compiled code looks a region up (1: found, copied to host)
 * and stores it after computing it. set_size bounds the bytes kept (1 MiB at first; the least
 * recently used regions go first); evict drops the entries stored with an eviction key
 * (Func::memoize(EvictionKey(e))); cleanup drops every entry; entries counts them. */
int32_t loom_memoization_cache_lookup(void *user_context, const char *func, const int64_t *key,
                                      int32_t key_count, void *host, int64_t bytes);
int32_t loom_memoization_cache_store(void *user_context, const char *func, const int64_t *key,
                                     int32_t key_count, const void *host, int64_t bytes,
                                     uint64_t eviction_key, int32_t has_eviction_key);
void loom_memoization_cache_set_size(int64_t bytes);
void loom_memoization_cache_evict(void *user_context, uint64_t eviction_key);
void loom_memoization_cache_cleanup(void);
int64_t loom_memoization_cache_entries(void);

/* An extern stage (Func::define_extern) returned `result` (nonzero), in its call or in its
 * bounds query: reports it and returns `result`, which the pipeline returns. */
int32_t loom_error_extern_stage_failed(void *user_context, const char *function, int32_t result);
int32_t loom_error_extern_bounds_query_failed(void *user_context, const char *function,
                                              int32_t result);
/* Func::debug_to_file (runtime/loom_debug_to_file.c): writes the buffer's elements to the file,
 * in TIFF (.tif, .tiff), MATLAB (.mat) or Halide's raw format (any other name) as Halide 14
 * does; type_code: float, double, uint8 (and bool), int8, uint16, int16, uint32, int32, uint64,
 * int64 as 0 ... 9. Returns 0, or a nonzero code for loom_error_debug_to_file_failed. */
int32_t loom_debug_to_file(void *user_context, const char *filename, int32_t type_code,
                           loom_buffer_t *buffer);
int32_t loom_error_debug_to_file_failed(void *user_context, const char *func_name,
                                        const char *filename, int32_t code);
int32_t loom_error_fold_too_small(void *user_context, const char *func_name, const char *var_name,
                                  int32_t fold, int32_t window);

/* Called by the C entry point of an ahead-of-time pipeline when an argument is unusable
 * (NULL buffer or host pointer, wrong element type or dimension count): names the function,
 * the argument and the problem; returns loom_code_bad_buffer. `got`/`expected` are printed
 * when expected >= 0. */
int32_t loom_error_bad_buffer(void *user_context, const char *function_name,
                              const char *argument_name, const char *problem, int32_t got,
                              int32_t expected);

/* Instruction-set extensions a multi-target ahead-of-time library chooses between. */
typedef enum loom_cpu_feature_t {
    loom_cpu_sse41 = 1 << 0,
    loom_cpu_avx = 1 << 1,
    loom_cpu_avx2 = 1 << 2,
    loom_cpu_fma = 1 << 3,
    loom_cpu_f16c = 1 << 4,
    loom_cpu_avx512 = 1 << 5,         /* AVX-512 F and CD */
    loom_cpu_avx512_skylake = 1 << 6  /* AVX-512 BW, DQ and VL */
} loom_cpu_feature_t;

/* Nonzero when the running CPU (and the OS, for the wide register state) supports every
 * feature in mask, a set of loom_cpu_feature_t bits. */
int32_t loom_cpu_has_features(uint32_t mask);

/* Heap used for intermediate Funcs (loom_memory.c). Aligned to 64 bytes so vector loads never
 * split lines. Freed blocks are kept for reuse, so that neither an allocation made once per
 * iteration of a loop nor a compute_root intermediate of a pipeline run again and again goes
 * back to the system each time:
 *  - blocks up to 4 MiB: each thread keeps the last few it freed (no lock);
 *  - larger blocks: one cache for the process, bounded (loom_memory_cache_set_size), under a
 *    lock. A request of r bytes takes the smallest cached block of r to r + r/4 bytes (best
 *    fit; no more than a quarter of the request wasted), else fresh memory; a freed block is
 *    kept if the bound allows, after giving back the least recently cached blocks.
 * When the system allocator fails, every cached block the calling thread can reach is given
 * back and the allocation tried again before loom_malloc returns NULL. */
void *loom_malloc(void *user_context, int64_t bytes);
void loom_free(void *user_context, void *ptr);
/* How many blocks loom_malloc handed out that loom_free has not taken back (all threads): what
 * pipelines hold at this moment. Cached free blocks are not counted. Between runs, and after a
 * run that failed, it is back where it was before the run. */
int64_t loom_memory_blocks_in_use(void);

/* The bound of the process-wide cache of large free blocks, in bytes (blocks and their
 * headers); 0 turns the cache off (large blocks go back to the system when freed); negative
 * restores the default. Lowering it gives back cached blocks at once, least recently cached
 * first. Default: the environment variable LOOM_MEMORY_CACHE_SIZE (bytes, with an optional K, M
 * or G suffix: 512M, 2G, 0), else an eighth of physical memory, at most 2 GiB. */
void loom_memory_cache_set_size(int64_t bytes);
int64_t loom_memory_cache_default_size(void);
/* Gives every cached free block back to the system: the process-wide cache and the calling
 * thread's small blocks (other threads keep theirs, at most 16 MiB each, until they exit).
 * Blocks in use are not affected. The C entry of loom::release_memory_cache(). */
void loom_memory_cache_release(void);

/* What the process-wide cache holds and has done since the process started. */
typedef struct loom_memory_cache_stats_t {
    int64_t size_limit;              /* the bound now, in bytes */
    int64_t cached_bytes;            /* held now (free blocks and their headers) */
    int64_t cached_blocks;           /* held now */
    int64_t hits;                    /* large requests served from the cache */
    int64_t misses;                  /* large requests that took fresh memory */
    int64_t releases_under_pressure; /* times a failed allocation emptied the cache */
} loom_memory_cache_stats_t;
void loom_memory_cache_get_stats(loom_memory_cache_stats_t *stats);

/* Where the heap takes fresh memory from, and gives it back to: by default aligned_alloc and
 * free. allocate(bytes) returns a 64-byte aligned block of bytes (a multiple of 64) or NULL;
 * release gives back a block allocate returned. The heap's caches sit above it. Each block goes
 * back to the allocator it came from, so the object passed must outlive every block it
 * allocated (a static object); NULL restores the default. For programs that account for their
 * memory themselves (as Halide's halide_set_custom_malloc) and for tests that make memory run
 * out. */
typedef struct loom_system_allocator_t {
    void *(*allocate)(size_t bytes);
    void (*release)(void *block);
} loom_system_allocator_t;
void loom_set_system_allocator(const loom_system_allocator_t *allocator);

/* Parallel loops: the body of iteration i, returning 0 or an error code. */
typedef int32_t (*loom_task_fn)(void *user_context, int32_t i, void *closure);

/* Runs f for every i in [min, min + extent) on the thread pool and returns the first nonzero
 * result (0 if none). May be called from inside a task (nested parallel loops). The pool has
 * LOOM_NUM_THREADS threads (default: the number of cores), or the count set below. */
int32_t loom_do_par_for(void *user_context, loom_task_fn f, int32_t min, int32_t extent,
                        void *closure);
void loom_set_num_threads(int n);

/* Func::async (lower/AsyncProducers.h). A semaphore is two int32 in the pipeline's memory: the
 * count, and the error code of a task of its fork that failed (0 while none). acquire waits
 * until the count holds `count` and takes it, returning 0; or returns the failed task's code
 * once one is set. Semaphores live as long as one run of the pipeline. */
int32_t loom_semaphore_init(void *user_context, int32_t *semaphore, int32_t count);
int32_t loom_semaphore_release(void *user_context, int32_t *semaphore, int32_t count);
int32_t loom_semaphore_acquire(void *user_context, int32_t *semaphore, int32_t count);

/* Runs f(user_context, 0, closure), the producer task, and f(user_context, 1, closure), the
 * consumer task, at the same time where a thread is free (else one after the other, in that
 * order: the producer never waits for the consumer, so this cannot deadlock). Where either
 * returns an error, each of the `count` semaphores is marked failed, which ends the other's
 * waits. Returns the first nonzero result, or 0. */
int32_t loom_do_fork(void *user_context, loom_task_fn f, void *closure, int32_t **semaphores,
                     int32_t count);

/* CUDA (loom_cuda.c): the CUDA Driver API glue that pipelines compiled for Target::CUDA call.
 * libcuda.so.1 is loaded with dlopen at first use, so a program that never runs a CUDA
 * pipeline needs no NVIDIA driver. Every function uses the primary context of one device
 * (LOOM_GPU_DEVICE, else Halide's HL_GPU_DEVICE, else 0; read when the driver is first
 * loaded, and an ordinal past the devices the driver reports makes CUDA unavailable, saying
 * so) and makes it current on the calling thread, so any thread may call.
 *
 * Streams: kernels and copies go on the context's default stream unless a stream is named.
 * The entry points without _on_stream ask the stream handler (below) with their user context;
 * the _on_stream ones take the stream (NULL: the default stream) from the caller, as the JIT
 * does with a run's JITHandlers::custom_cuda_get_stream. On a stream, a copy to the device
 * returns once the host bytes are taken (the host may change them), a launch returns at once,
 * and a copy to the host returns when the stream has run it. Device memory freed on one stream
 * and reused on another is ordered by an event, with no wait on the host. */

/* 1 if a CUDA device can be used (driver loads, cuInit succeeds, at least one device);
 * otherwise 0, and why (a sentence) is written to why (may be NULL). Never reports through the
 * error handler. */
int32_t loom_cuda_available(char *why, size_t why_size);

/* Makes b's device copy current: allocates it when b->device is 0 (size: the span of b's
 * elements from its dims, ((type.bits + 7) / 8) * type.lanes bytes each; strides must be >= 0,
 * else report an error naming the buffer) and copies the host memory into it when the
 * allocation is new and b->host is not NULL (unless b has host_unwritten), or when b has
 * host_dirty; clears host_dirty.
 * The device copy keeps the size it was allocated with: free it (loom_cuda_device_free) before
 * changing b's dims. Returns 0 or an error code (after reporting through loom_error). name is
 * the buffer's name for messages. */
int32_t loom_cuda_copy_to_device(void *user_context, loom_buffer_t *b, const char *name);
int32_t loom_cuda_copy_to_device_on_stream(void *user_context, void *stream, loom_buffer_t *b,
                                           const char *name);

/* If b has device_dirty, copies the device copy to b->host (reporting an error if host is
 * NULL) and clears device_dirty. Else does nothing. Returns 0 or an error code. */
int32_t loom_cuda_copy_to_host(void *user_context, loom_buffer_t *b, const char *name);
int32_t loom_cuda_copy_to_host_on_stream(void *user_context, void *stream, loom_buffer_t *b,
                                         const char *name);

/* Frees b's device copy if it has one (b->device = 0, device_dirty cleared). Returns 0 or an
 * error code. Safe to call when the driver was never loaded and b->device is 0. A device copy
 * loom_cuda_copy_to_device allocated is kept for reuse by a later device copy of about its
 * size (see below); any other device pointer goes back to the driver. */
int32_t loom_cuda_device_free(void *user_context, loom_buffer_t *b);
int32_t loom_cuda_device_free_on_stream(void *user_context, void *stream, loom_buffer_t *b);

/* The stream handler (Halide's halide_cuda_get_stream): asked for the stream of each launch and
 * copy with the call's user context and the CUDA context (a CUcontext); writes a CUstream of
 * that context to *stream (NULL: the default stream) and returns 0, or returns an error code.
 * Process-wide; NULL (the default) means the default stream. Returns the previous handler. An
 * ahead-of-time library's runs take their streams from here; JIT runs from their
 * JITHandlers::custom_cuda_get_stream, else from here. */
typedef int32_t (*loom_cuda_stream_handler_t)(void *user_context, void *cuda_context,
                                              void **stream);
loom_cuda_stream_handler_t loom_cuda_set_stream_handler(loom_cuda_stream_handler_t handler);

/* The stream the handler gives for user_context (NULL where none is set). Returns 0 or an error
 * code (after reporting it). */
int32_t loom_cuda_stream_for(void *user_context, void **stream);

/* The CUcontext Loom's CUDA calls use (the chosen device's primary context), loading the driver
 * if needed; NULL where CUDA is unavailable. */
void *loom_cuda_primary_context(void);

/* Device memory kept for reuse (Halide's halide_reuse_device_allocations, on by default in
 * Loom): a pipeline's GPU intermediates and the device copies of its buffers take their memory
 * from what earlier frees kept, so a pipeline run again allocates nothing from the driver. A
 * kept block serves a request of at most a quarter less than its size. When the driver runs
 * out of memory, everything kept is given back and the allocation tried again.
 * reuse_device_allocations(0) gives back what is kept and frees at once from then on (1: keep
 * again); release_unused gives back what is kept now (Halide's halide_device_release_unused).
 * Both return 0 or an error code. */
int32_t loom_cuda_reuse_device_allocations(void *user_context, int32_t reuse);
int32_t loom_cuda_release_unused_device_allocations(void *user_context);

/* What the device memory pool has done since the process started, and holds now. */
typedef struct loom_cuda_memory_stats_t {
    int64_t driver_allocations;      /* cuMemAlloc calls that succeeded */
    int64_t driver_frees;            /* cuMemFree calls that succeeded */
    int64_t reuses;                  /* allocations served by a kept block */
    int64_t releases_under_pressure; /* times an allocation found the device full and gave
                                        back what was kept */
    int64_t kept_blocks, kept_bytes; /* kept for reuse now */
} loom_cuda_memory_stats_t;
void loom_cuda_get_memory_stats(loom_cuda_memory_stats_t *stats);

/* Waits until every kernel and copy issued so far has finished. Returns 0 or the error code
 * of a failure among them (after reporting it). */
int32_t loom_cuda_device_sync(void *user_context);

/* GPU time, for benchmarks: event_record records an event on the stream kernels run on,
 * creating it first if *event is NULL (events are kept for the process's life);
 * event_elapsed_ms waits for `end` and writes the milliseconds between the two. */
int32_t loom_cuda_event_record(void *user_context, void **event);
int32_t loom_cuda_event_elapsed_ms(void *user_context, void *start, void *end, float *ms);
/* Also for benchmarks: queues zeros over `bytes` of a device scratch buffer (kept for the
 * process), which evicts the L2 cache and keeps the GPU busy while the host issues the next
 * timed work, as triton.testing.do_bench does before each timed call. */
int32_t loom_cuda_clear_cache(void *user_context, size_t bytes);

/* After a kernel wrote b (mark_device_dirty) or host code wrote it (mark_host_dirty): the
 * other copy is now older. Always return 0. */
int32_t loom_cuda_mark_device_dirty(void *user_context, loom_buffer_t *b);
int32_t loom_cuda_mark_host_dirty(void *user_context, loom_buffer_t *b);

/* Launches kernel `kernel_name` of the PTX module text `ptx` (NUL-terminated) on a grid of
 * grid_x*grid_y*grid_z blocks of block_x*block_y*block_z threads, with kernel parameters
 * `args` (cuLaunchKernel's kernelParams: args[i] points at the i-th parameter's value; they are
 * copied at the launch). The kernel runs asynchronously on its stream: later launches and
 * copies on that stream wait for it, and a fault inside it is reported by the next call
 * that waits (a copy to the host, loom_cuda_device_sync). A grid or block with a zero
 * dimension has no threads: nothing runs and 0 is returned. *module_cache is a slot the caller
 * keeps per PTX module (initially NULL): the module is loaded once (under a lock) and kept
 * there until loom_cuda_unload_modules is given the slot (the JIT does when it frees the
 * pipeline's code; an ahead-of-time library's modules live as long as the process). A load
 * failure's message includes the driver's JIT error log. Returns 0 or an error code. */
int32_t loom_cuda_launch(void *user_context, void **module_cache, const char *ptx,
                         const char *kernel_name, int32_t grid_x, int32_t grid_y, int32_t grid_z,
                         int32_t block_x, int32_t block_y, int32_t block_z, void **args);
int32_t loom_cuda_launch_on_stream(void *user_context, void *stream, void **module_cache,
                                   const char *ptx, const char *kernel_name, int32_t grid_x,
                                   int32_t grid_y, int32_t grid_z, int32_t block_x, int32_t block_y,
                                   int32_t block_z, void **args);

/* Unloads the module in each of the `count` slots that loom_cuda_launch filled, after waiting
 * for the device (a kernel of it may still run), and sets the slot to NULL; NULL slots are
 * skipped. The caller guarantees no launch uses the slots meanwhile. Returns 0 or an error
 * code. */
int32_t loom_cuda_unload_modules(void *user_context, void **const *module_caches, int32_t count);

/* How many PTX modules loom_cuda_launch has loaded and not yet unloaded. */
int64_t loom_cuda_loaded_module_count(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_H */
