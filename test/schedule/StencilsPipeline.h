// A small pipeline with knobs of every kind but register tiles (two stencils and a pointwise
// stage over an ImageParam), and what the tests of the automatic schedulers compare it with:
// the autotuner's tests and the search scheduler's share it.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include <loom.h>

namespace loom_test {

/** A w x h float image of values in [0, 10), the same for the same size. */
inline loom::Buffer<float> image(int w, int h) {
    loom::Buffer<float> b(w, h);
    uint32_t state = 777;
    b.for_each_position([&](const std::vector<int> &pos) {
        state = state * 1664525u + 1013904223u;
        b(pos) = (float)((state >> 8) % 1000) / 100.0f;
    });
    return b;
}

struct Stencils {
    loom::ImageParam input{loom::Float(32), 2, "input"};
    loom::Func bx{"bx"}, by{"by"}, out{"out"};
    loom::Var x{"x"}, y{"y"};
    Stencils() {
        bx(x, y) = input(x - 1, y) + input(x, y) * 2.0f + input(x + 1, y);
        by(x, y) = bx(x, y - 1) + bx(x, y) * 2.0f + bx(x, y + 1);
        out(x, y) = by(x, y) * 0.0625f - input(x, y);
        out.set_estimates({{1, 510}, {1, 382}});
        input.set_estimates({{0, 512}, {0, 384}});
    }
};

/** The stencils' output region (the estimates') computed by p. */
inline loom::Buffer<float> realized(loom::Pipeline &p) {
    loom::Buffer<float> out(510, 382);
    out.set_min(1, 1);
    p.realize(out);
    return out;
}

/** The stencils of `s` on `in`, as `s` is scheduled. */
inline loom::Buffer<float> run(Stencils s, const loom::Buffer<float> &in) {
    s.input.set(in);
    loom::Pipeline p(s.out);
    return realized(p);
}

/** How many elements of `got` differ from `want` in any bit. */
inline int differing(loom::Buffer<float> got, loom::Buffer<float> want) {
    int differ = 0;
    got.for_each_position([&](const std::vector<int> &pos) {
        const float a = got(pos), b = want(pos);
        differ += std::memcmp(&a, &b, sizeof(float)) != 0;
    });
    return differ;
}

} // namespace loom_test
