// The values of the fuzzer's input buffers. The code is written once, inside a macro, so that
// the fuzzer compiles it and the reproducer prints the very same text (kFuzzValueSource,
// kFuzzFillSource).
#pragma once

#include <cstdint>

#include <loom.h>

#define LOOM_FUZZ_DATA_CODE(source_name, ...)                                                      \
    __VA_ARGS__                                                                                    \
    static const char *const source_name = #__VA_ARGS__;

namespace loom_fuzz {

// clang-format off
// The values, in any language's buffers (the performance fuzzer's programs build with Halide too).
LOOM_FUZZ_DATA_CODE(kFuzzValueSource,
/* A hash of (seed, i): the value at the i-th position of an input, dimension 0 fastest. */
static inline uint32_t fuzz_hash(uint32_t seed, uint32_t i) {
    uint32_t h = seed * 0x9E3779B9u ^ (i + 0x7F4A7C15u) * 0x85EBCA6Bu;
    h ^= h >> 16; h *= 0x7FEB352Du; h ^= h >> 15; h *= 0x846CA68Bu; h ^= h >> 16;
    return h;
}
/* Integers: mostly small values, sometimes any value of the type. Floats: multiples of 1/8 in
   [-128, 128], so that every sum of a few of them is exact. */
template<typename T> static T fuzz_value(uint32_t seed, uint32_t i) {
    uint32_t h = fuzz_hash(seed, i);
    if (std::is_floating_point<T>::value) return (T)((int)(h % 2049) - 1024) / (T)8;
    if ((h >> 28) < 4) return (T)(h >> 3);
    return (T)((int)((h >> 3) % 41) - (std::is_signed<T>::value ? 20 : 0));
}
)
// Loom's buffers filled with them, position by position.
LOOM_FUZZ_DATA_CODE(kFuzzFillSource,
template<typename T> static void fuzz_fill(loom::Buffer<> raw, uint32_t seed) {
    loom::Buffer<T> b(raw);
    uint32_t i = 0;
    b.for_each_position([&](const std::vector<int> &pos) { b(pos) = fuzz_value<T>(seed, i++); });
}
static inline void fuzz_fill_any(loom::Buffer<> b, uint32_t seed) {
    loom::Type t = b.type();
    if (t == loom::UInt(8)) fuzz_fill<uint8_t>(b, seed);
    else if (t == loom::UInt(16)) fuzz_fill<uint16_t>(b, seed);
    else if (t == loom::Int(16)) fuzz_fill<int16_t>(b, seed);
    else if (t == loom::Int(32)) fuzz_fill<int32_t>(b, seed);
    else fuzz_fill<float>(b, seed);
}
)
// clang-format on

}  // namespace loom_fuzz
