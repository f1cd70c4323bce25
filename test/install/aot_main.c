/* Runs the brighten library (built by loom_add_library from the installed package) and checks
 * every output value, then that a NULL buffer is refused. Exit status 0 on success. */
#include <stdio.h>

#include "brighten.h"

static void quiet(void *user_context, const char *message) {
    (void)user_context;
    (void)message;
}

int main(void) {
    enum { W = 37, H = 5 };
    uint8_t in[W * H], out[W * H];
    for (int i = 0; i < W * H; i++) in[i] = (uint8_t)(i * 7);
    loom_dimension_t dims[2] = {{0, W, 1, 0}, {0, H, W, 0}};
    loom_buffer_t input = {in, {loom_type_uint, 8, 1}, 2, dims, 0, 0, 0};
    loom_buffer_t output = {out, {loom_type_uint, 8, 1}, 2, dims, 0, 0, 0};
    if (brighten(&input, 1.5f, &output) != 0) return 1;
    int bad = 0;
    for (int i = 0; i < W * H; i++) {
        float v = in[i] * 1.5f;
        uint8_t want = (uint8_t)(v < 255.0f ? v : 255.0f);
        if (out[i] != want) bad++;
    }
    loom_set_error_handler(quiet);
    int refused = brighten(NULL, 1.0f, &output) == loom_code_bad_buffer;
    printf("loom install AOT check: %d of %d values wrong, NULL buffer %s\n", bad, W * H,
           refused ? "refused" : "ACCEPTED");
    return bad == 0 && refused ? 0 : 1;
}
