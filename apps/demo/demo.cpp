// loom_demo: a two-stage separable 3x3 box blur of a 16-bit image, written once as an
// algorithm and run under two schedules:
//
//   fused    blur_y in parallel strips of 32 rows; blur_x computed row by row inside each strip
//            into a sliding window that stays in cache (store_at the strip, compute_at the row);
//   unfused  blur_x.compute_root(), so the whole intermediate image is written to memory and
//            read back, the way an eager library would run the two stages.
// Both vectorize 16 lanes and run rows in parallel, so the difference is the memory traffic.
//
// Both must give exactly the output of a plain C++ reference; the demo exits nonzero if not.
// It prints a checksum of the output, the JIT compile time of each schedule, the median run
// time of each, and their ratio.
//
// Usage: loom_demo [width height]   (default 4096 4096)

#include <loom.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

using namespace loom;

namespace {

// Medians over this many timed runs, after one untimed warm-up run.
constexpr int kTimedRuns = 9;

/** A deterministic pattern that uses the whole 16-bit range, so that a blur which
 * overflowed uint16 (instead of widening) would not match the reference. */
uint16_t pattern(int x, int y) {
    uint32_t v = (uint32_t)x * 2654435761u ^ (uint32_t)y * 2246822519u;
    v ^= v >> 15;
    return (uint16_t)(v ^ (uint32_t)(x * 7 + y * 13));
}

Buffer<uint16_t> make_input(int width, int height) {
    Buffer<uint16_t> in(width, height);
    uint16_t *data = in.data();
    for (int y = 0; y < height; y++) {
        for (int x = 0; x < width; x++) data[(int64_t)y * in.stride(1) + x] = pattern(x, y);
    }
    return in;
}

/** The algorithm. Sums are widened to uint32 so that three 16-bit values cannot wrap. */
Func make_blur(const Buffer<uint16_t> &in, bool fused) {
    Var x("x"), y("y");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = cast<uint16_t>((cast<uint32_t>(in(x - 1, y)) + in(x, y) + in(x + 1, y)) / 3);
    blur_y(x, y) =
        cast<uint16_t>((cast<uint32_t>(blur_x(x, y - 1)) + blur_x(x, y) + blur_x(x, y + 1)) / 3);
    Var yo("yo"), yi("yi");
    if (fused) {
        // Strips of 32 rows in parallel; blur_x is computed row by row inside each strip and
        // kept in a sliding window, so the intermediate stays in cache and each row of it is
        // computed once; both stages in 16-lane vectors.
        blur_y.split(y, yo, yi, 32).parallel(yo).vectorize(x, 16);
        blur_x.store_at(blur_y, yo).compute_at(blur_y, yi).vectorize(x, 16);
    } else {
        // The eager way: the whole intermediate image is written to memory, then read back.
        // Same vectorization and parallelism per stage.
        blur_y.parallel(y, 32).vectorize(x, 16);
        blur_x.compute_root().parallel(y, 32).vectorize(x, 16);
    }
    return blur_y;
}

/** The same blur in plain C++, over the interior [1, w-2] x [1, h-2]; row-major, (w-2) wide. */
std::vector<uint16_t> reference_blur(const Buffer<uint16_t> &in) {
    const int w = in.width(), h = in.height();
    const uint16_t *src = in.data();
    const int64_t stride = in.stride(1);
    std::vector<uint16_t> bx((size_t)w * h), out((size_t)(w - 2) * (h - 2));
    for (int y = 0; y < h; y++) {
        for (int x = 1; x < w - 1; x++) {
            const uint16_t *p = src + y * stride + x;
            bx[(size_t)y * w + x] = (uint16_t)(((uint32_t)p[-1] + p[0] + p[1]) / 3);
        }
    }
    for (int y = 1; y < h - 1; y++) {
        for (int x = 1; x < w - 1; x++) {
            const uint16_t *p = &bx[(size_t)y * w + x];
            out[(size_t)(y - 1) * (w - 2) + (x - 1)] =
                (uint16_t)(((uint32_t)p[-w] + p[0] + p[w]) / 3);
        }
    }
    return out;
}

/** FNV-1a over the output's bytes, row by row (so it does not depend on the row stride). */
uint64_t fnv1a(const Buffer<uint16_t> &b) {
    uint64_t h = 14695981039346656037ull;
    const uint16_t *data = b.data();
    for (int y = 0; y < b.height(); y++) {
        for (int x = 0; x < b.width(); x++) {
            uint16_t v = data[(int64_t)y * b.stride(1) + x];
            for (int byte = 0; byte < 2; byte++) {
                h ^= (v >> (8 * byte)) & 0xff;
                h *= 1099511628211ull;
            }
        }
    }
    return h;
}

/** Number of pixels that differ from the reference; prints the first few. */
int64_t count_mismatches(const char *label, const Buffer<uint16_t> &out,
                         const std::vector<uint16_t> &expected) {
    int64_t bad = 0;
    const int w = out.width(), h = out.height();
    const uint16_t *data = out.data();
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            uint16_t got = data[(int64_t)y * out.stride(1) + x];
            uint16_t want = expected[(size_t)y * w + x];
            if (got != want && bad++ < 5) {
                std::fprintf(stderr, "  %s: mismatch at (%d, %d): got %u, expected %u\n", label,
                             x + out.dim(0).min(), y + out.dim(1).min(), got, want);
            }
        }
    }
    return bad;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct ScheduleResult {
    double compile_ms = 0;  // Pipeline::last_compile_seconds(): lowering + LLVM
    double median_ms = 0;
    uint64_t checksum = 0;
    bool correct = false;
};

ScheduleResult run_schedule(const char *label, const Buffer<uint16_t> &in, bool fused,
                            const std::vector<uint16_t> &expected) {
    ScheduleResult r;
    Pipeline pipeline(make_blur(in, fused));
    pipeline.compile_jit();
    r.compile_ms = pipeline.last_compile_seconds() * 1e3;

    // The output covers the interior only, so blur_x(x +- 1) and blur_y(y +- 1) stay inside
    // the input: its mins are (1, 1) and it is two pixels smaller in each dimension.
    Buffer<uint16_t> out(in.width() - 2, in.height() - 2);
    out.set_min(1, 1);

    pipeline.realize(out);  // warm-up: first touch of the output pages
    std::vector<double> times;
    for (int i = 0; i < kTimedRuns; i++) {
        auto start = std::chrono::steady_clock::now();
        pipeline.realize(out);
        times.push_back(seconds_since(start) * 1e3);
    }
    std::sort(times.begin(), times.end());
    r.median_ms = times[times.size() / 2];

    r.checksum = fnv1a(out);
    int64_t bad = count_mismatches(label, out, expected);
    r.correct = bad == 0;
    if (bad) {
        std::fprintf(stderr, "  %s: %lld of %lld pixels differ from the C++ reference\n", label,
                     (long long)bad, (long long)out.number_of_elements());
    }
    return r;
}

}  // namespace

int main(int argc, char **argv) {
    int width = 4096, height = 4096;
    if (argc == 3) {
        width = std::atoi(argv[1]);
        height = std::atoi(argv[2]);
    }
    if ((argc != 1 && argc != 3) || width < 3 || height < 3) {
        std::fprintf(stderr, "usage: %s [width height]   (both at least 3; default 4096 4096)\n",
                     argv[0]);
        return 2;
    }

    try {
        std::printf("Loom demo: separable 3x3 box blur, uint16 %dx%d input, %dx%d output\n",
                    width, height, width - 2, height - 2);
        Buffer<uint16_t> in = make_input(width, height);
        std::vector<uint16_t> expected = reference_blur(in);

        ScheduleResult fused = run_schedule("fused", in, true, expected);
        ScheduleResult unfused = run_schedule("unfused", in, false, expected);

        std::printf("  %-28s %-10s %-10s\n", "", "fused", "unfused");
        std::printf("  %-28s %-10s %-10s\n", "blur_x computed", "per strip", "at root");
        std::printf("  %-28s %-10.1f %-10.1f\n", "JIT compile (ms)", fused.compile_ms,
                    unfused.compile_ms);
        const std::string median_label = "median of " + std::to_string(kTimedRuns) + " runs (ms)";
        std::printf("  %-28s %-10.3f %-10.3f\n", median_label.c_str(), fused.median_ms,
                    unfused.median_ms);
        std::printf("  %-28s 0x%016llx 0x%016llx\n", "output checksum (FNV-1a 64)",
                    (unsigned long long)fused.checksum, (unsigned long long)unfused.checksum);
        std::printf("  %-28s %-10s %-10s\n", "matches C++ reference", fused.correct ? "yes" : "NO",
                    unfused.correct ? "yes" : "NO");
        if (fused.median_ms > 0) {
            std::printf("unfused / fused run time: %.2fx\n", unfused.median_ms / fused.median_ms);
        }

        if (!fused.correct || !unfused.correct) {
            std::printf("FAILED: output differs from the C++ reference\n");
            return 1;
        }
        std::printf("OK: both schedules match the C++ reference\n");
        return 0;
    } catch (const loom::Error &e) {
        std::fprintf(stderr, "loom error: %s\n", e.what());
        return 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
