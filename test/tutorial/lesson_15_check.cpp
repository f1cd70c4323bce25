// Lesson 15 through Loom: the libraries lesson_15_generators_usage_loom.sh wrote from the
// lesson's unchanged Generators, linked into one program and run against the lesson's
// algorithms written in C++. Halide's lesson only checks that the files and symbols exist;
// this checks that what they compute is right: the three versions of my_first_generator
// built without the runtime, joined with the runtime alone in one library, and the second
// generator under three sets of GeneratorParams (its output type among them).
#include <cstdint>
#include <cstdio>

#include "HalideBuffer.h"
#include "my_first_generator_avx.h"
#include "my_first_generator_basic.h"
#include "my_first_generator_sse41.h"
#include "my_second_generator_1.h"
#include "my_second_generator_2.h"
#include "my_second_generator_3.h"

namespace {

constexpr int kWidth = 67, kHeight = 45; // not multiples of the vector widths
constexpr uint8_t kOffset = 200;         // sums past 255 wrap, as uint8 arithmetic does

int failures = 0;

template <typename T> void expect_equal(const char *what, int x, int y, T got, T want) {
    if (got == want) return;
    if (failures++ < 10) {
        std::printf("%s(%d, %d): %g, expected %g\n", what, x, y, (double)got, (double)want);
    }
}

// Runs fn(offset, in, out) into a kWidth x kHeight buffer of T and compares every value with
// want(x, y).
template <typename T, typename Fn, typename Want>
void check(const char *name, Fn fn, const Halide::Runtime::Buffer<uint8_t> &in, Want want) {
    Halide::Runtime::Buffer<T> out(kWidth, kHeight);
    if (fn(kOffset, in, out) != 0) {
        std::printf("%s failed\n", name);
        failures++;
        return;
    }
    for (int y = 0; y < kHeight; y++) {
        for (int x = 0; x < kWidth; x++)
            expect_equal(name, x, y, out(x, y), want(x, y));
    }
}

// my_first_generator: brighter(x, y) = input(x, y) + offset, in uint8.
template <typename Fn>
void check_first(const char *name, Fn fn, const Halide::Runtime::Buffer<uint8_t> &in) {
    check<uint8_t>(name, fn, in, [&](int x, int y) { return (uint8_t)(in(x, y) + kOffset); });
}

// my_second_generator with rotation=ccw: output(x, y) = T(scale * uint8(input(100 - y, x) +
// offset)), the product in float (a float GeneratorParam times a uint8 Expr).
template <typename T, typename Fn>
void check_second(const char *name, Fn fn, float scale, bool ccw,
                  const Halide::Runtime::Buffer<uint8_t> &in) {
    check<T>(name, fn, in, [&](int x, int y) {
        const uint8_t v = ccw ? in(100 - y, x) : in(x, y);
        return (T)(scale * (float)(uint8_t)(v + kOffset));
    });
}

} // namespace

int main() {
    // Wide and tall enough for the rotated reads: input(100 - y, x) for y < kHeight, x < kWidth.
    Halide::Runtime::Buffer<uint8_t> in(101, 101);
    for (int y = 0; y < 101; y++) {
        for (int x = 0; x < 101; x++)
            in(x, y) = (uint8_t)(x * 7 + y * 13 + (x * y) % 11);
    }
    check_first("my_first_generator_basic", my_first_generator_basic, in);
    check_first("my_first_generator_sse41", my_first_generator_sse41, in);
    check_first("my_first_generator_avx", my_first_generator_avx, in);
    check_second<uint16_t>("my_second_generator_1", my_second_generator_1, 3.0f, true, in);
    check_second<float>("my_second_generator_2", my_second_generator_2, 9.0f, true, in);
    check_second<double>("my_second_generator_3", my_second_generator_3, 1.0f, false, in);
    if (failures) {
        std::printf("%d values differ\n", failures);
        return 1;
    }
    std::printf("The six pipelines give the lesson's values.\n");
    return 0;
}
