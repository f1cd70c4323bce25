/* Deterministic inputs shared by the C program and the C++ test of the ahead-of-time
 * libraries, so that both run the pipelines on the same bytes. Plain C. */
#ifndef LOOM_TEST_AOT_INPUTS_H
#define LOOM_TEST_AOT_INPUTS_H

#include <stddef.h>
#include <stdint.h>

enum { kBlurWidth = 300, kBlurHeight = 200, kGridWidth = 203, kGridHeight = 141 };

/* A hash of the coordinates over the whole 16-bit range. */
static inline uint16_t aot_blur_input(int x, int y) {
    uint32_t v = (uint32_t)x * 2654435761u ^ (uint32_t)y * 2246822519u;
    v ^= v >> 15;
    return (uint16_t)(v ^ (uint32_t)(x * 7 + y * 13));
}

/* Smooth ramps with steps, in [0, 1]. */
static inline float aot_grid_input(int x, int y) {
    float v = (float)((x * 3 + y * 5) % 97) / 96.0f;
    return ((x / 17 + y / 13) % 2) ? v : 1.0f - v * 0.5f;
}

/* FNV-1a over n bytes. */
static inline uint64_t aot_fnv1a(const void *data, size_t n) {
    const uint8_t *p = (const uint8_t *)data;
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 1099511628211ull;
    }
    return h;
}

#endif
