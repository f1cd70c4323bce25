// blur_model: blur's hand schedule written out by hand in AVX-512 intrinsics and timed beside
// Loom's compiled blur in one process, each run in turn, on the same image: what the arithmetic
// of blur costs on this machine, whatever the compiler. BENCHMARKS.md cites it for blur's
// bandwidth target.
//
// Usage: LOOM_NUM_THREADS=1 blur_model [width]   (one thread: Loom's pool and the model alike;
// the default width 512 keeps the image, 0.5 MiB, in the cache).
//
// The model computes what blur.inc's hand schedule does, in strips of 32 rows, blur_x's rows in
// a ring of four, 32 columns a vector, with two ways of doing the arithmetic:
//   widened: each 16-bit vector widened to two of 32 bits (vpmovzxwd), the sum divided by 3 as
//            a float multiply, narrowed back (vpmovdw);
//   even/odd: the even and the odd 16-bit lanes of a vector taken apart by a mask and a shift,
//            with no shuffle; the sum, biased to a float by 2^23, divided by 3 with one FMA whose
//            result holds the quotient in its low bits; the halves put back by a shift and a
//            bitwise select. The fastest way found to do blur's arithmetic on AVX-512.
// Both write with plain stores, as Loom does here (see blur_strip). A third run streams the
// output rows, joined: each row's interior from its first line boundary on, and the line where
// one row ends and the next begins built from the two rows' vectors and streamed whole.
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include "apps/common/App.h"

namespace {

enum class Arithmetic { Widened, EvenOdd };
enum class Stores { Plain, Joined };

// floor((a + b + c) / 3) of 32 lanes of uint16.
__m512i mean_of_three_widened(const uint16_t *a, const uint16_t *b, const uint16_t *c) {
    // The zero-masked forms: GCC 12 warns that the plain ones read an undefined vector.
    auto widen = [](const uint16_t *p) {
        return _mm512_maskz_cvtepu16_epi32(0xFFFF, _mm256_loadu_si256((const __m256i *)p));
    };
    const __m512 third = _mm512_set1_ps(1.0f / 3.0f);
    auto divide = [&](__m512i s) {
        return _mm512_cvttps_epi32(_mm512_mul_ps(_mm512_cvtepi32_ps(s), third));
    };
    __m512i lo = _mm512_add_epi32(_mm512_add_epi32(widen(a), widen(b)), widen(c));
    __m512i hi = _mm512_add_epi32(_mm512_add_epi32(widen(a + 16), widen(b + 16)), widen(c + 16));
    return _mm512_inserti64x4(
        _mm512_zextsi256_si512(_mm512_maskz_cvtepi32_epi16(0xFFFF, divide(lo))),
        _mm512_maskz_cvtepi32_epi16(0xFFFF, divide(hi)), 1);
}

// The same without shuffles. A lane's sum s < 2^18 ORed into the mantissa of 2^23 is the float
// 2^23 + s; fma(2^23 + s, c, K) with c the float nearest 1/3 and K = 5592405 rounds to the
// float 2^23 + floor(s / 3), whose low 16 bits are the quotient (the error, under 0.09, stays
// clear of the halves that rounding would cross).
__m512i mean_of_three_even_odd(const uint16_t *a, const uint16_t *b, const uint16_t *c) {
    const __m512i low16 = _mm512_set1_epi32(0xFFFF), bias = _mm512_set1_epi32(0x4B000000);
    const __m512 third = _mm512_set1_ps(1.0f / 3.0f), k = _mm512_set1_ps(5592405.0f);
    __m512i va = _mm512_loadu_si512(a), vb = _mm512_loadu_si512(b), vc = _mm512_loadu_si512(c);
    // 0xEA: (x & y) | z.
    __m512i even =
        _mm512_add_epi32(_mm512_add_epi32(_mm512_ternarylogic_epi32(va, low16, bias, 0xEA),
                                          _mm512_and_si512(vb, low16)),
                         _mm512_and_si512(vc, low16));
    __m512i odd =
        _mm512_add_epi32(_mm512_add_epi32(_mm512_srli_epi32(va, 16), _mm512_srli_epi32(vb, 16)),
                         _mm512_add_epi32(_mm512_srli_epi32(vc, 16), bias));
    __m512i q_even = _mm512_castps_si512(_mm512_fmadd_ps(_mm512_castsi512_ps(even), third, k));
    __m512i q_odd = _mm512_castps_si512(_mm512_fmadd_ps(_mm512_castsi512_ps(odd), third, k));
    return _mm512_ternarylogic_epi32(q_even, low16, _mm512_slli_epi32(q_odd, 16), 0xEA);
}

// 0, 1, .. 31 as 16-bit lanes.
const __m512i lane_index =
    _mm512_set_epi16(31, 30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12,
                     11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);

// blur_y over the interior of an n x n image into out ((n - 2) x (n - 2), row-major), one strip
// of 32 rows; the strip's blur_x rows in `ring` (4 rows of n).
template <Arithmetic A, Stores S>
void blur_strip(const uint16_t *in, uint16_t *out, int n, int strip, uint16_t *ring) {
    __m512i tail = _mm512_setzero_si512(); // the last vector of the row above (Joined)
    auto mean = [](const uint16_t *a, const uint16_t *b, const uint16_t *c) {
        return A == Arithmetic::Widened ? mean_of_three_widened(a, b, c)
                                        : mean_of_three_even_odd(a, b, c);
    };
    const int first = 1 + strip * 32, last = std::min(first + 32, n - 1); // rows [first, last)
    auto blur_x_row = [&](int y) {
        uint16_t *dst = ring + (size_t)(y & 3) * n;
        const uint16_t *src = in + (size_t)y * n;
        for (int x = 1; x < n - 1; x += 32) {
            const int at = std::min(x, n - 1 - 32); // the last vector shifts inwards
            _mm512_storeu_si512(dst + at, mean(src + at - 1, src + at, src + at + 1));
        }
    };
    blur_x_row(first - 1);
    blur_x_row(first);
    for (int y = first; y < last; y++) {
        blur_x_row(y + 1);
        // blur_x's rows y - 1, y, y + 1 from column 1 on, as row0 is the output's.
        const uint16_t *above = ring + (size_t)((y - 1) & 3) * n + 1,
                       *row = ring + (size_t)(y & 3) * n + 1,
                       *below = ring + (size_t)((y + 1) & 3) * n + 1;
        const int w = n - 2;
        uint16_t *row0 = out + (size_t)(y - 1) * w; // row0[p] is out(p + 1, y)
        auto at = [&](int p) { return mean(above + p, row + p, below + p); };
        if (S == Stores::Plain) {
            // As Loom's here: an output row of n - 2 16-bit values does not start on a cache
            // line unless n - 2 is a multiple of 32, and Loom streams only a whole aligned line.
            for (int p = 0;; p += 32) {
                p = std::min(p, w - 32); // the last vector shifts inwards
                _mm512_storeu_si512(row0 + p, at(p));
                if (p == w - 32) break;
            }
            continue;
        }
        // Joined: the row's interior streamed from its first line boundary on; the line where
        // the row above ends and this one begins built from the last vector of the one and the
        // first of the other and streamed whole; partial lines stored plain only at the strip's
        // two ends (where the row above or below is another strip's).
        const int to_line = (int)(((64 - ((uintptr_t)row0 & 63)) & 63) / 2); // elements
        const __m512i head = at(0);
        if (to_line == 0) {
            _mm512_stream_si512((__m512i *)row0, head);
        } else if (y == first) {
            _mm512_storeu_si512(row0, head);
        } else {
            // Elements to_line .. 31 of the tail (the row above's last 32 - to_line), then
            // 0 .. to_line - 1 of the head.
            const __m512i from = _mm512_add_epi16(lane_index, _mm512_set1_epi16((short)to_line));
            _mm512_stream_si512((__m512i *)(row0 - (32 - to_line)),
                                _mm512_permutex2var_epi16(tail, from, head));
        }
        int p = to_line == 0 ? 32 : to_line;
        for (; p + 32 <= w; p += 32)
            _mm512_stream_si512((__m512i *)(row0 + p), at(p));
        tail = at(w - 32);
        if (y == last - 1 && p < w) _mm512_storeu_si512(row0 + w - 32, tail);
    }
}

template <Arithmetic A, Stores S = Stores::Plain>
void blur(const uint16_t *in, uint16_t *out, int n) {
    std::vector<uint16_t> ring((size_t)4 * n);
    for (int strip = 0; strip * 32 < n - 2; strip++)
        blur_strip<A, S>(in, out, n, strip, ring.data());
    if (S == Stores::Joined) _mm_sfence();
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
    const int n = argc > 1 ? std::atoi(argv[1]) : 512;
    const char *threads = std::getenv("LOOM_NUM_THREADS");
    if (n < 34 || !threads || std::strcmp(threads, "1") != 0) {
        std::fprintf(stderr, "usage: LOOM_NUM_THREADS=1 blur_model [width >= 34]\n"
                             "(one thread: the model runs on one)\n");
        return 2;
    }
    loom::Buffer<uint16_t> input(n, n);
    for (int y = 0; y < n; y++) {
        for (int x = 0; x < n; x++)
            input(x, y) = (uint16_t)((x * 7919 + y * 104729) ^ (x * y));
    }
    loom::Buffer<uint16_t> loom_out(n - 2, n - 2), model_out(n - 2, n - 2);
    loom_out.set_min(1, 1);
    blur_loom::BlurPipeline pipeline(loom_apps::Variant::Hand);
    pipeline.input.set(input);
    loom::Pipeline compiled(pipeline.outputs());
    compiled.compile_jit();

    const uint16_t *in = input.data();
    uint16_t *out = model_out.data();
    struct Variant {
        const char *name;
        std::function<void()> run;
        std::vector<double> times;
    };
    std::vector<Variant> variants = {
        {"Loom (blur.inc, hand schedule)",
         [&] { compiled.realize(loom::RealizationArg(std::vector<loom::Buffer<>>{loom_out})); },
         {}},
        {"model, widened", [&] { blur<Arithmetic::Widened>(in, out, n); }, {}},
        {"model, even/odd", [&] { blur<Arithmetic::EvenOdd>(in, out, n); }, {}},
        {"model, widened, rows joined",
         [&] { blur<Arithmetic::Widened, Stores::Joined>(in, out, n); },
         {}},
    };
    const size_t bytes = (size_t)(n - 2) * (n - 2) * 2;
    const int rounds = std::max(15, (int)(4e8 / ((double)n * n)));
    for (int r = 0; r < rounds; r++) {
        for (size_t k = 0; k < variants.size(); k++) {
            if (r == 0 && k > 0) std::memset(out, 0, bytes);
            auto start = std::chrono::steady_clock::now();
            variants[k].run();
            variants[k].times.push_back(milliseconds_since(start));
            if (r == 0 && k > 0 && std::memcmp(loom_out.data(), out, bytes) != 0) {
                std::fprintf(stderr, "%s: the output differs from Loom's\n", variants[k].name);
                return 1;
            }
        }
    }
    std::printf("blur of %d x %d, one thread, median of %d runs each, in turn:\n", n, n, rounds);
    for (Variant &v : variants) {
        std::sort(v.times.begin(), v.times.end());
        const double ms = v.times[v.times.size() / 2];
        std::printf("  %-32s %8.4f ms  %6.3f ns a pixel\n", v.name, ms, ms * 1e6 / ((double)n * n));
    }
    return 0;
}
