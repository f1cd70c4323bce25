// blur_shape: what blur's loop structure costs in memory traffic alone, with no arithmetic, timed
// beside a plain copy and Loom's blur in one process, each run in turn. BENCHMARKS.md cites it for
// blur's bandwidth target (80% of a streaming copy).
//
// Usage: blur_shape [width] [rounds]   (default 4096, 100; every hardware thread, like loom_bench)
//
// Blur's hand schedule (apps/blur/blur.inc) works in strips of 32 rows; in each, row by row, it
// reads an input row into blur_x's rows (kept in the cache) and then streams an output row made
// from three of them. The hand-written stand-ins below do the same with the arithmetic taken out,
// on rows that start on cache lines (the best case for streaming):
//   copy:            each output row streamed straight from its input row;
//   two stages:      the input row copied into a ring of four rows (plain stores), then the output
//                    row streamed from the ring: blur's structure;
//   two stages, per vector: the same with the two stages interleaved vector by vector.
// All three prefetch the next input row as blur does. If "two stages" falls short of 80% of
// "copy", so must blur, whatever its arithmetic costs.
#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "apps/common/App.h"

namespace {

constexpr int kStripRows = 32;
constexpr int kVectorBytes = 64;

/** Runs one job on every hardware thread at a time, on threads started once: starting threads
 * per run would cost each hand-written variant tens of microseconds Loom's pool does not pay. */
class Workers {
public:
    Workers() : count_(std::max(1u, std::thread::hardware_concurrency())) {
        for (unsigned i = 1; i < count_; i++)
            threads_.emplace_back([this] { serve(); });
    }
    ~Workers() {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            stopping_ = true;
            generation_++;
        }
        wake_.notify_all();
        for (auto &t : threads_)
            t.join();
    }
    unsigned count() const { return count_; }
    /** Runs job() on every thread (this one included) and returns when all are done. */
    void run(const std::function<void()> &job) {
        {
            std::lock_guard<std::mutex> lock(mutex_);
            job_ = &job;
            busy_ = count_ - 1;
            generation_++;
        }
        wake_.notify_all();
        job();
        std::unique_lock<std::mutex> lock(mutex_);
        done_.wait(lock, [this] { return busy_ == 0; });
    }

private:
    void serve() {
        uint64_t seen = 0;
        for (;;) {
            const std::function<void()> *job;
            {
                std::unique_lock<std::mutex> lock(mutex_);
                wake_.wait(lock, [&] { return generation_ != seen; });
                seen = generation_;
                if (stopping_) return;
                job = job_;
            }
            (*job)();
            std::lock_guard<std::mutex> lock(mutex_);
            if (--busy_ == 0) done_.notify_one();
        }
    }
    unsigned count_;
    std::vector<std::thread> threads_;
    std::mutex mutex_;
    std::condition_variable wake_, done_;
    const std::function<void()> *job_ = nullptr;
    unsigned busy_ = 0;
    uint64_t generation_ = 0;
    bool stopping_ = false;
};

enum class Shape { Copy, TwoStages, TwoStagesPerVector };

/** One strip of `kStripRows` output rows of `row_bytes` each (rows [first, last)); `ring` holds
 * four rows. Input row y + 1 is prefetched while row y is read, as blur's schedule does. */
template <Shape S>
void strip(const char *in, char *out, size_t row_bytes, int first, int last, char *ring) {
    auto ring_row = [&](int y) { return ring + (size_t)(y & 3) * row_bytes; };
    auto input_row = [&](int y) { return in + (size_t)y * row_bytes; };
    auto read_vector = [&](int y, size_t x) {
        _mm_prefetch(input_row(y + 1) + x, _MM_HINT_T0);
        return _mm512_load_si512(input_row(y) + x);
    };
    auto stream = [&](int y, size_t x, __m512i v) {
        _mm512_stream_si512((__m512i *)(out + (size_t)y * row_bytes + x), v);
    };
    if (S == Shape::Copy) {
        for (int y = first; y < last; y++) {
            for (size_t x = 0; x < row_bytes; x += kVectorBytes)
                stream(y, x, read_vector(y, x));
        }
        return;
    }
    auto stage_one = [&](int y, size_t x) {
        _mm512_store_si512(ring_row(y) + x, read_vector(y, x));
    };
    auto stage_two = [&](int y, size_t x) { stream(y, x, _mm512_load_si512(ring_row(y) + x)); };
    for (size_t x = 0; x < row_bytes; x += kVectorBytes)
        stage_one(first, x);
    for (int y = first; y < last; y++) {
        const int next = std::min(y + 1, last - 1); // the strip's last row reads no row past it
        if (S == Shape::TwoStages) {
            for (size_t x = 0; x < row_bytes; x += kVectorBytes)
                stage_one(next, x);
            for (size_t x = 0; x < row_bytes; x += kVectorBytes)
                stage_two(y, x);
        } else {
            for (size_t x = 0; x < row_bytes; x += kVectorBytes) {
                stage_one(next, x);
                stage_two(y, x);
            }
        }
    }
}

template <Shape S>
void run_shape(Workers &workers, const char *in, char *out, int rows, size_t row_bytes) {
    std::atomic<int> next_strip{0};
    const int strips = (rows + kStripRows - 1) / kStripRows;
    workers.run([&] {
        std::vector<char> ring_memory(4 * row_bytes + kVectorBytes);
        char *ring = (char *)(((uintptr_t)ring_memory.data() + kVectorBytes - 1) &
                              ~(uintptr_t)(kVectorBytes - 1));
        for (int s; (s = next_strip.fetch_add(1)) < strips;) {
            const int first = s * kStripRows;
            strip<S>(in, out, row_bytes, first, std::min(first + kStripRows, rows), ring);
        }
        _mm_sfence();
    });
}

double milliseconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
        .count();
}

} // namespace

namespace blur_loom {
using namespace loom;
using loom_apps::Variant;
#include "apps/blur/blur.inc"
} // namespace blur_loom

int main(int argc, char **argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : 4096;
    const int rounds = argc > 2 ? std::atoi(argv[2]) : 100;
    if (n < 64 || n % 32 != 0 || rounds < 1) {
        std::fprintf(stderr, "usage: blur_shape [width: a multiple of 32, >= 64] [rounds >= 1]\n");
        return 2;
    }
    loom::Buffer<uint16_t> input(n, n), copy_out(n, n), blur_out(n - 2, n - 2);
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++)
            input(x, y) = (uint16_t)((x * 7919 + y * 104729) ^ (x * y));
    }
    copy_out.fill(0);
    blur_out.set_min(1, 1);
    blur_loom::BlurPipeline pipeline(loom_apps::Variant::Hand);
    pipeline.input.set(input);
    loom::Pipeline blur(pipeline.outputs());
    blur.compile_jit();

    Workers workers;
    const char *in = (const char *)input.data();
    char *out = (char *)copy_out.data();
    const size_t row_bytes = (size_t)n * 2;
    // Traffic: what is read plus what is written.
    const double copy_bytes = 2.0 * n * row_bytes,
                 blur_bytes = (double)n * row_bytes + (double)(n - 2) * (n - 2) * 2;
    struct Variant {
        const char *name;
        double bytes;
        std::function<void()> run;
        std::vector<double> times;
    };
    std::vector<Variant> variants = {
        {"copy", copy_bytes, [&] { run_shape<Shape::Copy>(workers, in, out, n, row_bytes); }, {}},
        {"two stages (blur's structure)",
         copy_bytes,
         [&] { run_shape<Shape::TwoStages>(workers, in, out, n, row_bytes); },
         {}},
        {"two stages, per vector",
         copy_bytes,
         [&] { run_shape<Shape::TwoStagesPerVector>(workers, in, out, n, row_bytes); },
         {}},
        {"Loom's blur (hand schedule)",
         blur_bytes,
         [&] { blur.realize(loom::RealizationArg(std::vector<loom::Buffer<>>{blur_out})); },
         {}},
    };
    for (int r = 0; r < rounds; r++) {
        for (Variant &v : variants) {
            auto start = std::chrono::steady_clock::now();
            v.run();
            v.times.push_back(milliseconds_since(start));
            // Each shape is a copy whatever its structure: check it once.
            if (r == 0 && &v != &variants.back()) {
                for (int y = 0; y < n; y++) {
                    for (int x = 0; x < n; x++) {
                        if (copy_out(x, y) != input(x, y)) {
                            std::fprintf(stderr, "%s: output (%d, %d) differs from the input\n",
                                         v.name, x, y);
                            return 1;
                        }
                    }
                }
                copy_out.fill(0);
            }
        }
    }
    std::printf("%d x %d uint16, %u threads, median of %d runs each, in turn:\n", n, n,
                workers.count(), rounds);
    double copy_rate = 0;
    for (Variant &v : variants) {
        std::sort(v.times.begin(), v.times.end());
        const double ms = v.times[v.times.size() / 2], rate = v.bytes / ms / 1e6;
        if (copy_rate == 0) copy_rate = rate;
        std::printf("  %-32s %7.3f ms  %5.1f GB/s  %4.0f%% of copy\n", v.name, ms, rate,
                    100 * rate / copy_rate);
    }
    return 0;
}
