/* Default implementations of the runtime entry points declared in loom_runtime.h. */
#include "loom_runtime.h"

#include <stdio.h>
#include <stdlib.h>

static void default_error_handler(void *user_context, const char *message) {
    (void)user_context;
    fprintf(stderr, "loom error: %s\n", message);
}

static loom_error_handler_t current_handler = default_error_handler;

loom_error_handler_t loom_set_error_handler(loom_error_handler_t handler) {
    loom_error_handler_t previous = current_handler;
    current_handler = handler ? handler : default_error_handler;
    return previous;
}

int32_t loom_error(void *user_context, const char *message) {
    current_handler(user_context, message);
    return loom_code_generic_error;
}

int32_t loom_error_access_out_of_bounds(void *user_context, const char *buffer_name,
                                        int32_t dimension, int32_t min_touched,
                                        int32_t max_touched, int32_t min_valid,
                                        int32_t max_valid) {
    char message[512];
    if (min_touched < min_valid) {
        snprintf(message, sizeof message,
                 "Input buffer %s is accessed at %d, which is before the min (%d) in dimension "
                 "%d. The pipeline reads [%d, %d] there; pass a buffer that covers it, or "
                 "clamp the accesses (BoundaryConditions).",
                 buffer_name, min_touched, min_valid, dimension, min_touched, max_touched);
    } else {
        snprintf(message, sizeof message,
                 "Input buffer %s is accessed at %d, which is beyond the max (%d) in dimension "
                 "%d. The pipeline reads [%d, %d] there; pass a buffer that covers it, or "
                 "clamp the accesses (BoundaryConditions).",
                 buffer_name, max_touched, max_valid, dimension, min_touched, max_touched);
    }
    current_handler(user_context, message);
    return loom_code_out_of_bounds;
}

int32_t loom_buffer_is_bounds_query(void *user_context, const loom_buffer_t *buffer) {
    (void)user_context;
    return buffer->host == NULL;
}

int32_t loom_buffer_bounds_query(void *user_context, loom_buffer_t *buffer, int32_t dimension,
                                 int32_t min, int32_t max) {
    (void)user_context;
    if (max < min) return 0; /* nothing written in this dimension */
    loom_dimension_t *d = &buffer->dim[dimension];
    if (d->extent <= 0) { /* an empty region (an input's query starts with one) */
        d->min = min;
        d->extent = max - min + 1;
        return 0;
    }
    const int64_t lo = d->min < min ? d->min : min;
    const int64_t old_max = (int64_t)d->min + d->extent - 1;
    const int64_t hi = old_max > max ? old_max : max;
    d->min = (int32_t)lo;
    d->extent = (int32_t)(hi - lo + 1);
    return 0;
}

int32_t loom_error_output_too_small(void *user_context, const char *buffer_name,
                                    int32_t dimension, int32_t min_written, int32_t max_written,
                                    int32_t min_valid, int32_t max_valid) {
    char message[512];
    snprintf(message, sizeof message,
             "Output buffer %s covers [%d, %d] in dimension %d, but the schedule writes [%d, %d] "
             "there: a split with TailStrategy RoundUp needs an extent that is a multiple of its "
             "factor, and ShiftInwards an extent of at least the factor. Realize a region of such "
             "a size, or split with TailStrategy::GuardWithIf.",
             buffer_name, min_valid, max_valid, dimension, min_written, max_written);
    current_handler(user_context, message);
    return loom_code_buffer_too_small;
}

int32_t loom_error_bound_too_small(void *user_context, const char *func_name, const char *var_name,
                                   int32_t bound_min, int32_t bound_max, int32_t required_min,
                                   int32_t required_max) {
    char message[512];
    snprintf(message, sizeof message,
             "Func %s is bounded to [%d, %d] in %s by bound() or bound_extent(), but the "
             "pipeline needs [%d, %d] there. Widen the bound, or realize a region that fits it.",
             func_name, bound_min, bound_max, var_name, required_min, required_max);
    current_handler(user_context, message);
    return loom_code_out_of_bounds;
}

int32_t loom_error_requirement_failed(void *user_context, const char *message) {
    current_handler(user_context, message);
    return loom_code_requirement_failed;
}

int32_t loom_error_extern_stage_failed(void *user_context, const char *function, int32_t result) {
    char message[384];
    snprintf(message, sizeof message,
             "The extern stage %s returned %d: the pipeline stops and returns that code.", function,
             result);
    current_handler(user_context, message);
    return result;
}

int32_t loom_error_extern_bounds_query_failed(void *user_context, const char *function,
                                              int32_t result) {
    char message[384];
    snprintf(message, sizeof message,
             "The extern stage %s returned %d in bounds-query mode (its buffers' host is null; "
             "it should write the region it reads into its input buffers' dim[] and return 0): "
             "the pipeline stops and returns that code.",
             function, result);
    current_handler(user_context, message);
    return result;
}

int32_t loom_error_param_out_of_range(void *user_context, const char *param_name, double value,
                                      double bound, int32_t below_minimum) {
    char message[384];
    snprintf(message, sizeof message,
             "Param %s is %.17g, %s its %s %.17g (set with set_range, set_min_value or "
             "set_max_value). Give it a value in its range, or widen the range.",
             param_name, value, below_minimum ? "below" : "above",
             below_minimum ? "minimum" : "maximum", bound);
    current_handler(user_context, message);
    return loom_code_out_of_bounds;
}

int32_t loom_error_out_of_memory(void *user_context, const char *func_name, int64_t bytes) {
    char message[256];
    snprintf(message, sizeof message,
             "Out of memory allocating %lld bytes for Func %s. Compute it over a smaller region "
             "(compute_at) or realize a smaller output.",
             (long long)bytes, func_name);
    current_handler(user_context, message);
    return loom_code_out_of_memory;
}

int32_t loom_error_buffer_allocation_too_large(void *user_context, const char *func_name,
                                               int64_t elements, int64_t most) {
    char message[512];
    snprintf(message, sizeof message,
             "Func %s's storage holds %lld elements, more than the %lld that 32-bit offsets "
             "address. Add the LargeBuffers feature to the target (Target::LargeBuffers, "
             "\"large_buffers\") for 64-bit offsets, or compute it over a smaller region.",
             func_name, (long long)elements, (long long)most);
    current_handler(user_context, message);
    return loom_code_out_of_memory;
}

int32_t loom_error_fold_too_small(void *user_context, const char *func_name, const char *var_name,
                                  int32_t fold, int32_t window) {
    char message[384];
    snprintf(message, sizeof message,
             "fold_storage of Func %s in %s keeps %d slices, but one iteration of the loop it is "
             "computed in needs %d. Fold by at least %d, or compute it at a finer loop.",
             func_name, var_name, fold, window, window);
    current_handler(user_context, message);
    return loom_code_buffer_too_small;
}

int32_t loom_error_bad_buffer(void *user_context, const char *function_name,
                              const char *argument_name, const char *problem, int32_t got,
                              int32_t expected) {
    char message[512];
    if (expected >= 0) {
        snprintf(message, sizeof message, "%s: argument %s %s (got %d, expected %d)",
                 function_name, argument_name, problem, got, expected);
    } else {
        snprintf(message, sizeof message, "%s: argument %s %s", function_name, argument_name,
                 problem);
    }
    current_handler(user_context, message);
    return loom_code_bad_buffer;
}
