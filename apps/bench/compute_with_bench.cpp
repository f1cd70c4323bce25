// compute_with_bench: horizontal fusion measured, in Google Benchmark. Two Funcs read one producer
// computed at the root (a 3x3 neighbourhood each) and an output reads both: computed apart, each
// sweeps the whole producer from memory; computed with one another (b.compute_with(a, y)), one loop
// over the rows runs both, so each row of the producer is read from memory once and from the cache
// the second time. Loom and Halide 14 run the same algorithm and the same schedules on the same
// bytes, in one process, in interleaved pairs (each pair runs both, which goes first
// alternating); the ratios are medians of per-pair ratios, so that both runs of a pair see the
// same machine.
//
//   compute_with_bench [width] [height] [--benchmark_* flags]     (default 4096 2048)
#include "apps/common/HalideRunner.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "apps/bench/BenchCommon.h"

namespace {

// The pipeline in either language: in is uint8, the rest int32; `shared` asks for
// compute_with. Producer and consumers are computed at the root, vectorized and parallel over
// rows, as a user writes them.
#define TWO_CONSUMERS_PIPELINE                                                                     \
    Var x("x"), y("y");                                                                            \
    Func p("p"), a("a"), b("b"), out("out");                                                       \
    p(x, y) = cast<int32_t>(in(x, y)) * 3 - in(x + 1, y);                                          \
    a(x, y) = p(x - 1, y) + p(x, y + 1) * 2 + p(x + 1, y - 1);                                     \
    b(x, y) = p(x + 1, y) * 5 - p(x, y - 1) + p(x - 1, y + 1);                                     \
    out(x, y) = a(x, y) * 7 + b(x, y) - a(x, y) / 3;                                               \
    for (Func f : {p, a, b, out})                                                                  \
        f.compute_root().vectorize(x, 8).parallel(y, 8);                                           \
    if (shared) b.compute_with(a, y);

struct Pair {
    std::function<void()> loom, halide;
};

Pair compile(const loom::Buffer<uint8_t> &input, loom::Buffer<int32_t> &l_out,
             Halide::Buffer<int32_t> &h_out, bool shared) {
    Pair pair;
    {
        using namespace loom;
        Buffer<uint8_t> in = input;
        TWO_CONSUMERS_PIPELINE
        auto pipeline = std::make_shared<Pipeline>(out);
        pipeline->compile_jit();
        pair.loom = [pipeline, &l_out] { pipeline->realize(l_out); };
    }
    {
        using namespace Halide;
        Buffer<uint8_t> in(loom_apps::halide_view(loom::Buffer<>(input)));
        TWO_CONSUMERS_PIPELINE
        auto pipeline = std::make_shared<Pipeline>(out);
        pipeline->jit_handlers().custom_malloc = loom_apps::halide_peer_malloc;
        pipeline->jit_handlers().custom_free = loom_apps::halide_peer_free;
        pipeline->compile_jit(loom_apps::halide_peer_target());
        pair.halide = [pipeline, &h_out] { pipeline->realize(h_out); };
    }
    return pair;
}

} // namespace

int main(int argc, char **argv) {
    benchmark::Initialize(&argc, argv);
    const int width = argc > 1 ? std::atoi(argv[1]) : 4096;
    const int height = argc > 2 ? std::atoi(argv[2]) : 2048;
    // The input covers the output and the 2-pixel margin the stencils read.
    loom::Buffer<uint8_t> input(width + 4, height + 4);
    input.set_min({-2, -2});
    uint32_t s = 12345;
    for (int yy = -2; yy < height + 2; yy++) {
        for (int xx = -2; xx < width + 2; xx++) {
            s = s * 1664525u + 1013904223u;
            input(xx, yy) = uint8_t(s >> 24);
        }
    }
    struct Case {
        bool shared;
        loom::Buffer<int32_t> l_out;
        Halide::Buffer<int32_t> h_out;
        Pair pair;
        std::vector<double> loom_ms, halide_ms;
    };
    std::vector<Case> cases(2);
    for (int k = 0; k < 2; k++) {
        Case &c = cases[k];
        c.shared = k == 1;
        c.l_out = loom::Buffer<int32_t>(width, height);
        c.h_out = Halide::Buffer<int32_t>(width, height);
        c.pair = compile(input, c.l_out, c.h_out, c.shared);
        c.pair.loom();
        c.pair.halide();
        if (std::memcmp(c.l_out.data(), c.h_out.data(), sizeof(int32_t) * width * height) != 0) {
            std::fprintf(stderr, "Loom's and Halide's outputs differ (%s)\n",
                         c.shared ? "shared" : "apart");
            return 1;
        }
        loom_bench::register_pairs(std::string("two_consumers/") + (c.shared ? "shared" : "apart") +
                                       "/loom_and_halide",
                                   c.pair.loom, c.pair.halide, &c.loom_ms, &c.halide_ms, 1.0);
    }
    if (std::memcmp(cases[0].l_out.data(), cases[1].l_out.data(),
                    sizeof(int32_t) * width * height) != 0) {
        std::fprintf(stderr, "compute_with changed Loom's output\n");
        return 1;
    }
    benchmark::RunSpecifiedBenchmarks();
    std::printf("\ncompute_with_bench: %d x %d; medians of all pairs\n", width, height);
    std::printf("%-8s %10s %10s %14s\n", "schedule", "Loom ms", "Halide ms", "Loom / Halide");
    for (const Case &c : cases) {
        std::vector<double> ratios;
        for (size_t i = 0; i < c.loom_ms.size(); i++)
            ratios.push_back(c.loom_ms[i] / c.halide_ms[i]);
        std::printf("%-8s %10.2f %10.2f %14.3f\n", c.shared ? "shared" : "apart",
                    loom_bench::median_of(c.loom_ms), loom_bench::median_of(c.halide_ms),
                    loom_bench::median_of(ratios));
    }
    std::printf("Loom shared / apart: %.3f; Halide shared / apart: %.3f\n",
                loom_bench::median_of(cases[1].loom_ms) / loom_bench::median_of(cases[0].loom_ms),
                loom_bench::median_of(cases[1].halide_ms) /
                    loom_bench::median_of(cases[0].halide_ms));
    return 0;
}
