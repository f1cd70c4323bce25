// Helpers of the end-to-end tests: input buffers from values, C++ reference arithmetic with
// Loom's semantics (wrap-around, Euclidean division, shifts that reverse on negative amounts),
// and an element-by-element comparison that is bit-exact for floats.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <loom.h>

namespace loom_test {

template<typename T>
constexpr bool is_float_v = std::is_floating_point<T>::value;

/** A value as a person reads it: int8/uint8 as numbers, floats with all their digits. */
template<typename T>
std::string show(T v) {
    std::ostringstream s;
    if constexpr (std::is_integral<T>::value && sizeof(T) == 1) {
        s << int(v);
    } else if constexpr (is_float_v<T>) {
        uint64_t bits = 0;
        std::memcpy(&bits, &v, sizeof(T));
        s << std::setprecision(std::numeric_limits<T>::max_digits10) << v << " (0x" << std::hex
          << bits << ")";
    } else {
        s << v;
    }
    return s.str();
}

/** Equality that is bit-exact for floats: -0.0 differs from 0.0, a NaN equals the same NaN. */
template<typename T>
bool same_value(T a, T b) {
    if constexpr (is_float_v<T>) {
        return std::memcmp(&a, &b, sizeof(T)) == 0;
    } else {
        return a == b;
    }
}

/** A 1-D input buffer holding `values`, dimension 0 starting at 0. */
template<typename T>
loom::Buffer<T> buffer_of(const std::vector<T> &values, const std::string &name) {
    loom::Buffer<T> b(std::vector<int>{(int)values.size()}, name);
    for (size_t i = 0; i < values.size(); i++) b((int)i) = values[i];
    return b;
}

/** n values spread over [lo, hi] from a fixed seed, so every run sees the same data. */
template<typename T>
std::vector<T> random_values(size_t n, uint32_t seed, T lo = std::numeric_limits<T>::lowest(),
                             T hi = std::numeric_limits<T>::max()) {
    std::mt19937_64 rng(seed);
    std::vector<T> out(n);
    for (T &v : out) {
        if constexpr (is_float_v<T>) {
            v = (T)std::uniform_real_distribution<double>((double)lo, (double)hi)(rng);
        } else if constexpr (std::is_signed<T>::value) {
            v = (T)std::uniform_int_distribution<int64_t>(lo, hi)(rng);
        } else {
            v = (T)std::uniform_int_distribution<uint64_t>(lo, hi)(rng);
        }
    }
    return out;
}

// ---------------------------------------------------------------------------------------------
// Reference arithmetic. Integers wrap modulo 2^bits (computed in uint64_t, where C++ wraps too).

template<typename T>
T ref_add(T a, T b) {
    if constexpr (is_float_v<T>) return a + b;
    else return (T)((uint64_t)a + (uint64_t)b);
}
template<typename T>
T ref_sub(T a, T b) {
    if constexpr (is_float_v<T>) return a - b;
    else return (T)((uint64_t)a - (uint64_t)b);
}
template<typename T>
T ref_mul(T a, T b) {
    if constexpr (is_float_v<T>) return a * b;
    else return (T)((uint64_t)a * (uint64_t)b);
}

/** Halide's division: rounds toward -infinity for a positive divisor and toward +infinity for a
 * negative one (the remainder is never negative); x / 0 == 0; MIN / -1 wraps to MIN. */
template<typename T>
T ref_div(T a, T b) {
    if constexpr (is_float_v<T>) {
        return a / b;
    } else {
        if (b == 0) return 0;
        if constexpr (std::is_signed<T>::value) {
            if (a == std::numeric_limits<T>::min() && b == -1) return a;
            T q = (T)(a / b), r = (T)(a % b);
            if (r < 0) q = b > 0 ? (T)(q - 1) : (T)(q + 1);
            return q;
        } else {
            return (T)(a / b);
        }
    }
}

/** Halide's modulo: never negative for integers, x % 0 == 0; a - b * floor(a / b) for floats. */
template<typename T>
T ref_mod(T a, T b) {
    if constexpr (is_float_v<T>) {
        return a - b * std::floor(a / b);
    } else {
        if (b == 0) return 0;
        if constexpr (std::is_signed<T>::value) {
            if (b == -1) return 0;
            T r = (T)(a % b);
            // |b| may not be representable (b == MIN), but r - b and r + b never overflow here.
            if (r < 0) r = b > 0 ? (T)(r + b) : (T)(r - b);
            return r;
        } else {
            return (T)(a % b);
        }
    }
}

/** a << b; a negative signed amount shifts right instead. Right shifts of signed values extend
 * the sign. Amounts stay below the width. */
template<typename T>
T ref_shift_left(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if constexpr (std::is_signed<T>::value) {
        if (b < 0) return (T)(a >> -b);
    }
    return (T)((U)a << b);
}
template<typename T>
T ref_shift_right(T a, T b) {
    using U = std::make_unsigned_t<T>;
    if constexpr (std::is_signed<T>::value) {
        if (b < 0) return (T)((U)a << -b);
    }
    return (T)(a >> b);
}

// ---------------------------------------------------------------------------------------------

/** Checks every element of `out` against reference(pos), bit-exactly. `inputs(pos)` describes
 * what the element was computed from; the first few differences are reported. */
template<typename T>
void expect_buffer(loom::Buffer<T> out, const std::function<T(const std::vector<int> &)> &reference,
                   const std::function<std::string(const std::vector<int> &)> &inputs = nullptr) {
    int failures = 0;
    out.for_each_position([&](const std::vector<int> &pos) {
        T expected = reference(pos);
        T actual = out(pos);
        if (same_value(actual, expected)) return;
        if (++failures > 5) return;
        std::ostringstream where;
        where << "(";
        for (size_t i = 0; i < pos.size(); i++) where << (i ? ", " : "") << pos[i];
        where << ")";
        ADD_FAILURE() << "at " << where.str() << (inputs ? " from " + inputs(pos) : std::string())
                      << ": Loom gave " << show(actual) << ", expected " << show(expected);
    });
    if (failures > 5) ADD_FAILURE() << failures << " elements differ in all";
}

/** The 1-D form: reference(i) and inputs(i) take the coordinate. */
template<typename T>
void expect_1d(loom::Buffer<T> out, const std::function<T(int)> &reference,
               const std::function<std::string(int)> &inputs = nullptr) {
    expect_buffer<T>(
        out, [&](const std::vector<int> &p) { return reference(p[0]); },
        inputs ? std::function<std::string(const std::vector<int> &)>(
                     [&](const std::vector<int> &p) { return inputs(p[0]); })
               : nullptr);
}

/** The message of the exception `body` throws, or "" where it throws none. */
inline std::string error_of(const std::function<void()> &body) {
    try {
        body();
    } catch (const std::exception &e) {
        return e.what();
    }
    return "";
}

/** The message of the CompileError `body` throws, or what happened instead (which then shows
 * in the failed expectation). */
template <typename Body> std::string compile_error_of(Body body) {
    try {
        body();
    } catch (const loom::CompileError &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("<not a CompileError: ") + e.what() + ">";
    }
    return "<no error>";
}

}  // namespace loom_test
