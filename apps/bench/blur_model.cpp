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
// Both write with plain stores, as Loom does at these sizes (see blur_strip).
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "apps/common/App.h"

namespace {

enum class Arithmetic { Widened, EvenOdd };

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

// blur_y over the interior of an n x n image into out ((n - 2) x (n - 2), row-major), strip by
// strip; a strip's blur_x rows in `ring` (4 rows of n).
template <Arithmetic A>
void blur_strip(const uint16_t *in, uint16_t *out, int n, int strip, uint16_t *ring) {
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
        const uint16_t *above = ring + (size_t)((y - 1) & 3) * n, *row = ring + (size_t)(y & 3) * n,
                       *below = ring + (size_t)((y + 1) & 3) * n;
        uint16_t *o = out + (size_t)(y - 1) * (n - 2) - 1; // o[x] is out(x, y)
        for (int x = 1; x < n - 1; x += 32) {
            const int at = std::min(x, n - 1 - 32);
            // Plain stores, as Loom's here: an output row of n - 2 16-bit values does not
            // start on a cache line unless n - 2 is a multiple of 32, and Loom streams only a
            // whole aligned line (and only outputs of 32 MiB and more).
            _mm512_storeu_si512(o + at, mean(above + at, row + at, below + at));
        }
    }
}

template <Arithmetic A> void blur(const uint16_t *in, uint16_t *out, int n) {
    std::vector<uint16_t> ring((size_t)4 * n);
    for (int strip = 0; strip * 32 < n - 2; strip++)
        blur_strip<A>(in, out, n, strip, ring.data());
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
    std::vector<double> times[3];
    const int rounds = std::max(15, (int)(4e8 / ((double)n * n)));
    for (int r = 0; r < rounds; r++) {
        auto start = std::chrono::steady_clock::now();
        compiled.realize(loom::RealizationArg(std::vector<loom::Buffer<>>{loom_out}));
        times[0].push_back(milliseconds_since(start));
        start = std::chrono::steady_clock::now();
        blur<Arithmetic::Widened>(in, out, n);
        times[1].push_back(milliseconds_since(start));
        start = std::chrono::steady_clock::now();
        blur<Arithmetic::EvenOdd>(in, out, n);
        times[2].push_back(milliseconds_since(start));
    }
    if (std::memcmp(loom_out.data(), model_out.data(), (size_t)(n - 2) * (n - 2) * 2) != 0) {
        std::fprintf(stderr, "the model's output differs from Loom's\n");
        return 1;
    }
    const char *names[3] = {"Loom (blur.inc, hand schedule)", "model, widened", "model, even/odd"};
    std::printf("blur of %d x %d, one thread, median of %d runs each, in turn:\n", n, n, rounds);
    for (int k = 0; k < 3; k++) {
        std::sort(times[k].begin(), times[k].end());
        const double ms = times[k][times[k].size() / 2];
        std::printf("  %-32s %8.4f ms  %6.3f ns a pixel\n", names[k], ms,
                    ms * 1e6 / ((double)n * n));
    }
    return 0;
}
