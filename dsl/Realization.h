// The buffers a realize() fills: one per output (per Tuple element of each output Func).
#pragma once

#include <vector>

#include "dsl/Buffer.h"

namespace loom {

class Realization {
public:
    Realization() = default;
    explicit Realization(std::vector<Buffer<>> buffers) : buffers(std::move(buffers)) {}
    template <typename... T, int... D>
    Realization(const Buffer<T, D> &...bs) : buffers{Buffer<>(bs)...} {}

    size_t size() const { return buffers.size(); }
    Buffer<> &operator[](size_t i) { return buffers.at(i); }
    const Buffer<> &operator[](size_t i) const { return buffers.at(i); }
    const std::vector<Buffer<>> &as_vector() const { return buffers; }

    /** A single-output realization converts to a typed Buffer. */
    template <typename T, int D> operator Buffer<T, D>() const {
        user_assert(buffers.size() == 1)
            << "Can't convert a Realization of " << buffers.size()
            << " buffers to one Buffer; index it with [i] instead";
        return Buffer<T, D>(buffers[0]);
    }

private:
    std::vector<Buffer<>> buffers;
};

/** What realize() writes into: one Buffer, a Realization, or a list of Buffers. */
struct RealizationArg {
    std::vector<Buffer<>> buffers;
    template <typename T, int D> RealizationArg(const Buffer<T, D> &b) : buffers{Buffer<>(b)} {}
    /** realize({f_out, g_out}) into the buffers of a Pipeline's outputs, as Halide's. */
    template <typename T, int D, typename U, int E, typename... Rest>
    RealizationArg(const Buffer<T, D> &a, const Buffer<U, E> &b, const Rest &...rest)
        : buffers{Buffer<>(a), Buffer<>(b), Buffer<>(rest)...} {}
    RealizationArg(const Realization &r) : buffers(r.as_vector()) {}
    RealizationArg(std::vector<Buffer<>> bs) : buffers(std::move(bs)) {}
};

}  // namespace loom
