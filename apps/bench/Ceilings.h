// The machine's ceilings, measured in the same run as the apps: what the benchmark's achieved
// bandwidth and FLOP rates are judged against.
#pragma once

#include <cstddef>

namespace loom_bench {

/** Streams: copies `bytes` bytes from src to dst on every hardware thread (each a contiguous
 * share). Traffic is 2 * bytes (read + write). */
void stream_copy(const void *src, void *dst, size_t bytes);

/** Runs `iterations` rounds of independent vector FMAs (AVX-512's 16 float lanes where the CPU
 * has them, else AVX2's 8; 12 accumulators per thread, enough to cover the FMA latency on every
 * core) on every hardware thread. Returns the number of floating-point operations done (2 per
 * lane per FMA). */
double fma_peak(long iterations);

} // namespace loom_bench
