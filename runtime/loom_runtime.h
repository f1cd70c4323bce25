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

/* A view of memory a pipeline reads or writes. The caller owns host and dim. */
typedef struct loom_buffer_t {
    uint8_t *host;
    loom_type_t type;
    int32_t dimensions;
    loom_dimension_t *dim;
} loom_buffer_t;

/* Error codes a compiled pipeline returns. 0 means success. */
enum loom_error_code_t {
    loom_code_success = 0,
    loom_code_generic_error = -1,
    loom_code_out_of_bounds = -2,
    loom_code_out_of_memory = -3,
    loom_code_bad_buffer = -4,
    loom_code_buffer_too_small = -5
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
int32_t loom_error_bound_too_small(void *user_context, const char *func_name, const char *var_name,
                                   int32_t bound_min, int32_t bound_max, int32_t required_min,
                                   int32_t required_max);
int32_t loom_error_out_of_memory(void *user_context, const char *func_name, int64_t bytes);
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
 * split lines. Each thread reuses the last few blocks it freed, so an allocation made once per
 * iteration of a loop does not go back to the C library every time. */
void *loom_malloc(void *user_context, int64_t bytes);
void loom_free(void *user_context, void *ptr);

/* Parallel loops: the body of iteration i, returning 0 or an error code. */
typedef int32_t (*loom_task_fn)(void *user_context, int32_t i, void *closure);

/* Runs f for every i in [min, min + extent) on the thread pool and returns the first nonzero
 * result (0 if none). May be called from inside a task (nested parallel loops). The pool has
 * LOOM_NUM_THREADS threads (default: the number of cores), or the count set below. */
int32_t loom_do_par_for(void *user_context, loom_task_fn f, int32_t min, int32_t extent,
                        void *closure);
void loom_set_num_threads(int n);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* LOOM_RUNTIME_H */
