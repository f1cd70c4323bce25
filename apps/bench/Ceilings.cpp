// The FMA loop is written for each vector width, compiled for it with a target attribute, and
// chosen by what the CPU has: AVX-512 where present (16 lanes), else AVX2 (8 lanes; AMD's Zen 3
// has no AVX-512, and the AVX-512 loop stopped the benchmark there with an illegal instruction).
#include "apps/bench/Ceilings.h"

#include <immintrin.h>

#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

namespace loom_bench {

namespace {

unsigned thread_count() { return std::max(1u, std::thread::hardware_concurrency()); }

/** Runs body(i) for i in [0, n) on n threads and waits. */
template <typename Body> void on_every_thread(unsigned n, Body body) {
    std::vector<std::thread> threads;
    for (unsigned i = 1; i < n; i++)
        threads.emplace_back(body, i);
    body(0u);
    for (auto &t : threads)
        t.join();
}

// Keeps the compiler from dropping the FMA chains as dead code.
volatile float fma_sink;

constexpr int kFmaAccumulators = 12;

// Twelve independent chains of vector FMAs, enough to keep both FMA pipes busy through their
// latency. Returns the lanes per vector.
__attribute__((target("avx512f,fma"))) int fma_loop_avx512(long iterations) {
    __m512 acc[kFmaAccumulators];
    for (int i = 0; i < kFmaAccumulators; i++)
        acc[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long it = 0; it < iterations; it++) {
        for (int i = 0; i < kFmaAccumulators; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < kFmaAccumulators; i++)
        sum = _mm512_add_ps(sum, acc[i]);
    fma_sink = _mm512_reduce_add_ps(sum);
    return 16;
}

__attribute__((target("avx2,fma"))) int fma_loop_avx2(long iterations) {
    __m256 acc[kFmaAccumulators];
    for (int i = 0; i < kFmaAccumulators; i++)
        acc[i] = _mm256_set1_ps(1.0f + i * 1e-3f);
    const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
    for (long it = 0; it < iterations; it++) {
        for (int i = 0; i < kFmaAccumulators; i++)
            acc[i] = _mm256_fmadd_ps(acc[i], a, b);
    }
    __m256 sum = acc[0];
    for (int i = 1; i < kFmaAccumulators; i++)
        sum = _mm256_add_ps(sum, acc[i]);
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, sum);
    float total = 0;
    for (float v : lanes)
        total += v;
    fma_sink = total;
    return 8;
}

int fma_loop(long iterations) {
    return __builtin_cpu_supports("avx512f") ? fma_loop_avx512(iterations)
                                             : fma_loop_avx2(iterations);
}

} // namespace

void stream_copy(const void *src, void *dst, size_t bytes) {
    const unsigned n = thread_count();
    const size_t share = (bytes / n) & ~size_t(63);
    on_every_thread(n, [&](unsigned i) {
        size_t begin = share * i, end = i + 1 == n ? bytes : begin + share;
        std::memcpy((char *)dst + begin, (const char *)src + begin, end - begin);
    });
}

double fma_peak(long iterations) {
    const unsigned n = thread_count();
    int lanes = 0;
    on_every_thread(n, [&](unsigned i) {
        const int l = fma_loop(iterations);
        if (i == 0) lanes = l;
    });
    return 2.0 * lanes * kFmaAccumulators * (double)iterations * n;
}

} // namespace loom_bench
