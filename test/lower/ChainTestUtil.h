// A chain of stages g_i(x, y) = g_{i-1}(x, y) + g_{i-1}(x + dx, y + dy) over
// repeat_edge(input), used by tests that check that bounds stay small along a long chain: its
// input and its value computed independently (binomial weights).
#pragma once

#include <algorithm>

#include <gtest/gtest.h>
#include <loom.h>

namespace loom_test {

inline loom::Buffer<float> chain_test_input(int w, int h) {
    loom::Buffer<float> input(w, h);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++)
            input(x, y) = (float)((x * 7 + y * 3) % 10);
    }
    return input;
}

/** Stage `stages` of the chain at (x, y): sum over i of C(stages, i) * input at
 * (x + i * dx, y + i * dy), clamped to the input (which is at min 0). */
inline float binomial_chain(const loom::Buffer<float> &input, int x, int y, int stages, int dx,
                            int dy) {
    float sum = 0, weight = 1;
    for (int i = 0; i <= stages; i++) {
        sum += weight * input(std::min(x + i * dx, input.width() - 1),
                              std::min(y + i * dy, input.height() - 1));
        weight = weight * (stages - i) / (i + 1);
    }
    return sum;
}

/** Realizes p (whose input `in` is bound to a chain_test_input of w x h) and checks every point
 * against binomial_chain. */
inline void expect_chain_values(loom::Pipeline &p, loom::ImageParam &in, int w, int h, int stages,
                                int dx, int dy) {
    loom::Buffer<float> input = chain_test_input(w, h);
    in.set(input);
    loom::Buffer<float> result(w, h);
    p.realize(result);
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            ASSERT_EQ(result(x, y), binomial_chain(input, x, y, stages, dx, dy))
                << "at (" << x << ", " << y << ")";
        }
    }
}

} // namespace loom_test
