// Timing of a callable, under the names of Halide 14's halide_benchmark.h, so that a Halide
// program's `double t = Halide::Tools::benchmark(samples, iterations, [&] { ... });` works
// against Loom. Times are wall-clock seconds from a steady clock. A pipeline that runs on a GPU
// must finish (copy its output to the host) inside the timed callable, or only the launch is
// timed.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <limits>
#include <ostream>

namespace loom {
namespace Tools {

using BenchmarkClock = std::chrono::steady_clock;

inline BenchmarkClock::time_point benchmark_now() { return BenchmarkClock::now(); }

inline double benchmark_duration_seconds(BenchmarkClock::time_point start,
                                         BenchmarkClock::time_point end) {
    return std::chrono::duration<double>(end - start).count();
}

/** Runs `op` `iterations` times in a row, `samples` times over, and returns the fastest row's
 * time divided by `iterations`: the best time of one call, in seconds. (The adaptive form
 * below picks the counts itself and is usually the better choice.) */
inline double benchmark(uint64_t samples, uint64_t iterations, const std::function<void()> &op) {
    double fastest = std::numeric_limits<double>::infinity();
    for (uint64_t s = 0; s < samples; s++) {
        const auto start = benchmark_now();
        for (uint64_t i = 0; i < iterations; i++)
            op();
        fastest = std::min(fastest, benchmark_duration_seconds(start, benchmark_now()));
    }
    return fastest / iterations;
}

/** Halide's name; kept for programs that use it (the bound is max_iters_per_sample). */
constexpr uint64_t kBenchmarkMaxIterations = 1000000000;

/** How long and how carefully the adaptive benchmark measures. */
struct BenchmarkConfig {
    /** Seconds the measured samples should take together, at least (raised to 10 us). The
     * calls per sample grow until three samples take about this long. */
    double min_time{0.1};
    /** Seconds after which sampling stops even if not accurate enough (at least min_time). */
    double max_time{0.1 * 4};
    /** The most calls one sample makes: a bound for a clock too coarse to time one call. */
    uint64_t max_iters_per_sample{1000000};
    /** Sampling stops once the third-fastest sample is within this fraction of the fastest
     * (clamped to [0.001, 0.1]) and min_time has passed. */
    double accuracy{0.03};
};

/** What the adaptive benchmark measured. Converts to wall_time. */
struct BenchmarkResult {
    /** The fastest sample's time per call, in seconds. */
    double wall_time;
    /** Samples counted: those of the last calibration round and all after it (earlier
     * calibration rounds are not). */
    uint64_t samples;
    /** Calls made in the counted samples. */
    uint64_t iterations;
    /** (third-fastest / fastest) - 1: at most config.accuracy unless max_time ran out. */
    double accuracy;

    operator double() const { return wall_time; }
};
using BenchmarkResults = BenchmarkResult;

/** Prints as Halide's RunGen reports a benchmark: "0.00123 sec/iter (over 12 samples, 3600
 * iterations, accuracy 1.2%)". */
inline std::ostream &operator<<(std::ostream &os, const BenchmarkResult &r) {
    const std::streamsize precision = os.precision();
    os << r.wall_time << " sec/iter (over " << r.samples << " samples, " << r.iterations
       << " iterations, accuracy ";
    os.precision(2);
    os << r.accuracy * 100.0 << "%)";
    os.precision(precision);
    return os;
}

/** Times `op` adaptively, with Halide's method: first the calls per sample double (or jump to
 * the estimate that makes three samples last min_time) until three samples last min_time; then
 * more samples are taken until the third-fastest is within `accuracy` of the fastest and
 * min_time has passed, or max_time has. The result is the fastest sample's time per call. */
inline BenchmarkResult benchmark(const std::function<void()> &op,
                                 const BenchmarkConfig &config = {}) {
    constexpr int kSamplesCompared = 3; // the fastest and the third-fastest
    constexpr double kZeroTime = 1e-9;  // a sample no slower than this timed nothing
    const double min_time = std::max(10e-6, config.min_time);
    const double max_time = std::max(config.min_time, config.max_time);
    const double tolerance = 1.0 + std::min(std::max(0.001, config.accuracy), 0.1);

    BenchmarkResult result{0, 0, 0, 0};
    // The kSamplesCompared fastest times per call so far, ascending; one more slot for a new one.
    double fastest[kSamplesCompared + 1] = {};
    double total_time = 0;
    uint64_t iters_per_sample = 1;

    // Calibrate: restart the count until kSamplesCompared samples of iters_per_sample calls
    // last about min_time.
    while (true) {
        result.samples = result.iterations = 0;
        total_time = 0;
        for (int i = 0; i < kSamplesCompared; i++) {
            fastest[i] = benchmark(1, iters_per_sample, op);
            result.samples++;
            result.iterations += iters_per_sample;
            total_time += fastest[i] * iters_per_sample;
        }
        std::sort(fastest, fastest + kSamplesCompared);
        if (fastest[0] < kZeroTime) {
            // Too fast for the clock: an estimate from it could be huge, so only double.
            iters_per_sample *= 2;
        } else {
            const double three_samples = fastest[0] * kSamplesCompared; // per call
            if (three_samples * iters_per_sample >= min_time) break;
            const double estimate = std::max(min_time / three_samples, iters_per_sample * 2.0);
            iters_per_sample = (uint64_t)(estimate + 0.5);
        }
        if (iters_per_sample >= config.max_iters_per_sample) {
            iters_per_sample = config.max_iters_per_sample;
            break;
        }
    }

    // Measure: until accurate enough and min_time spent, but never past max_time.
    while ((fastest[0] * tolerance < fastest[kSamplesCompared - 1] || total_time < min_time) &&
           total_time < max_time) {
        fastest[kSamplesCompared] = benchmark(1, iters_per_sample, op);
        result.samples++;
        result.iterations += iters_per_sample;
        total_time += fastest[kSamplesCompared] * iters_per_sample;
        std::sort(fastest, fastest + kSamplesCompared + 1);
    }
    result.wall_time = fastest[0];
    result.accuracy = fastest[kSamplesCompared - 1] / fastest[0] - 1.0;
    return result;
}

} // namespace Tools
} // namespace loom
