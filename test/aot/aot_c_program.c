/* A C program that uses two ahead-of-time Loom libraries (built by loom_add_library) with
 * nothing else from Loom: it runs them on the inputs of aot_inputs.h and prints a checksum of
 * each output, then the error code of each misuse. test/aot/aot_test.cpp runs it and compares
 * the checksums with the JIT's. Exit status 0 when every call returned what it should. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aot_inputs.h"
#include "bilateral_grid_aot.h"
#include "blur_aot.h"

static int failures = 0;

static void expect(const char *what, int got, int want) {
    printf("%s %d\n", what, got);
    if (got != want) {
        fprintf(stderr, "%s: returned %d, expected %d\n", what, got, want);
        failures++;
    }
}

static int messages = 0;
static void count_messages(void *user_context, const char *message) {
    (void)user_context;
    (void)message;
    messages++;
}

int main(void) {
    /* blur: uint16 input, output over the interior (mins 1, 1). */
    uint16_t *in16 = malloc(sizeof(uint16_t) * kBlurWidth * kBlurHeight);
    uint16_t *out16 = malloc(sizeof(uint16_t) * (kBlurWidth - 2) * (kBlurHeight - 2));
    for (int y = 0; y < kBlurHeight; y++)
        for (int x = 0; x < kBlurWidth; x++) in16[y * kBlurWidth + x] = aot_blur_input(x, y);
    loom_dimension_t in_dims[2] = {{0, kBlurWidth, 1, 0}, {0, kBlurHeight, kBlurWidth, 0}};
    loom_dimension_t out_dims[2] = {{1, kBlurWidth - 2, 1, 0},
                                    {1, kBlurHeight - 2, kBlurWidth - 2, 0}};
    loom_buffer_t input = {(uint8_t *)in16, {loom_type_uint, 16, 1}, 2, in_dims, 0, 0, 0};
    loom_buffer_t output = {(uint8_t *)out16, {loom_type_uint, 16, 1}, 2, out_dims, 0, 0, 0};
    expect("blur", blur_aot(&input, &output), 0);
    printf("blur_checksum %016llx\n",
           (unsigned long long)aot_fnv1a(out16, sizeof(uint16_t) * (kBlurWidth - 2) * (kBlurHeight - 2)));

    /* bilateral_grid: float input and output of the same size. */
    float *inf = malloc(sizeof(float) * kGridWidth * kGridHeight);
    float *outf = malloc(sizeof(float) * kGridWidth * kGridHeight);
    for (int y = 0; y < kGridHeight; y++)
        for (int x = 0; x < kGridWidth; x++) inf[y * kGridWidth + x] = aot_grid_input(x, y);
    loom_dimension_t grid_dims[2] = {{0, kGridWidth, 1, 0}, {0, kGridHeight, kGridWidth, 0}};
    loom_buffer_t grid_in = {(uint8_t *)inf, {loom_type_float, 32, 1}, 2, grid_dims, 0, 0, 0};
    loom_buffer_t grid_out = {(uint8_t *)outf, {loom_type_float, 32, 1}, 2, grid_dims, 0, 0, 0};
    expect("bilateral_grid", bilateral_grid_aot(&grid_in, &grid_out), 0);
    printf("bilateral_grid_checksum %016llx\n",
           (unsigned long long)aot_fnv1a(outf, sizeof(float) * kGridWidth * kGridHeight));

    /* Misuse: each call must return its error code and report one message. */
    loom_set_error_handler(count_messages);
    expect("null_buffer", blur_aot(NULL, &output), loom_code_bad_buffer);
    loom_buffer_t wrong_type = input;
    wrong_type.type.bits = 8;
    expect("wrong_type", blur_aot(&wrong_type, &output), loom_code_bad_buffer);
    loom_buffer_t wrong_dims = input;
    wrong_dims.dimensions = 3;
    expect("wrong_dimensions", blur_aot(&wrong_dims, &output), loom_code_bad_buffer);
    loom_dimension_t small_dims[2] = {{0, kBlurWidth - 1, 1, 0}, {0, kBlurHeight, kBlurWidth, 0}};
    loom_buffer_t too_small = {(uint8_t *)in16, {loom_type_uint, 16, 1}, 2, small_dims, 0, 0, 0};
    expect("input_too_small", blur_aot(&too_small, &output), loom_code_out_of_bounds);
    expect("messages", messages, 4);

    free(in16);
    free(out16);
    free(inf);
    free(outf);
    return failures == 0 ? 0 : 1;
}
