// Compiled with -mavx512f -mfma (see CMakeLists.txt): the FMA loop must be vector FMAs whatever
// the default flags are.
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

void fma_loop(long iterations) {
    constexpr int kAccumulators = 12;
    __m512 acc[kAccumulators];
    for (int i = 0; i < kAccumulators; i++)
        acc[i] = _mm512_set1_ps(1.0f + i * 1e-3f);
    const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
    for (long it = 0; it < iterations; it++) {
        for (int i = 0; i < kAccumulators; i++)
            acc[i] = _mm512_fmadd_ps(acc[i], a, b);
    }
    __m512 sum = acc[0];
    for (int i = 1; i < kAccumulators; i++)
        sum = _mm512_add_ps(sum, acc[i]);
    fma_sink = _mm512_reduce_add_ps(sum);
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
    on_every_thread(n, [&](unsigned) { fma_loop(iterations); });
    return 2.0 * 16 * 12 * (double)iterations * n;
}

} // namespace loom_bench
