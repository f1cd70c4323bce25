// The fuzzer's random numbers: std::mt19937 (whose sequence the standard fixes) and helpers
// that use only its raw output, so that a seed means the same pipeline on every platform.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace loom_fuzz {

class Rng {
public:
    explicit Rng(uint32_t seed) : gen(seed) {}
    /** Uniform in [lo, hi]. */
    int uni(int lo, int hi) { return lo + (int)(gen() % (uint32_t)(hi - lo + 1)); }
    bool chance(int percent) { return uni(0, 99) < percent; }
    template<typename T>
    const T &pick(const std::vector<T> &v) { return v[uni(0, (int)v.size() - 1)]; }
    /** An index drawn with the given weights. */
    int weighted(const std::vector<int> &weights) {
        int total = 0;
        for (int w : weights) total += w;
        int k = uni(0, total - 1);
        for (size_t i = 0; i < weights.size(); i++) {
            if (k < weights[i]) return (int)i;
            k -= weights[i];
        }
        return 0;
    }
    uint32_t raw() { return gen(); }

private:
    std::mt19937 gen;
};

}  // namespace loom_fuzz
