// Halide 14's HalideBuffer.h for programs that call Loom's ahead-of-time pipelines:
// Halide::Runtime::Buffer<T>, a header-only owner (or view) of host memory that converts to the
// loom_buffer_t * the generated functions take, as Halide's converts to halide_buffer_t *. Needs
// only runtime/loom_runtime.h (no LLVM, no libloom): a program that links a pipeline's static
// library includes this and the pipeline's header.
#pragma once

#include <cassert>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "loom_runtime.h"

// Declared in namespace loom, as everything of Loom's; Halide names it through the alias
// below, which Halide.h and halide_benchmark.h declare too (a program may include any of them).
namespace loom {
namespace Runtime {

namespace BufferDetail {

template <typename T> loom_type_t type_of() {
    static_assert(std::is_arithmetic<T>::value, "Buffer elements are numbers");
    loom_type_t t;
    t.code = std::is_floating_point<T>::value ? loom_type_float
             : std::is_signed<T>::value       ? loom_type_int
                                              : loom_type_uint;
    t.bits = std::is_same<T, bool>::value ? 1 : (uint8_t)(sizeof(T) * 8);
    t.lanes = 1;
    return t;
}

template <typename... Args> constexpr bool all_integral() {
    return (std::is_integral<std::decay_t<Args>>::value && ...);
}

} // namespace BufferDetail

/** A buffer of T on the host. Copies share the memory (the last one frees it), as Halide's do.
 * Dimension 0 is innermost unless the strides say otherwise (make_interleaved). */
template <typename T = void, int Dims = -1> class Buffer {
    static_assert(!std::is_void<T>::value, "Loom's Runtime::Buffer needs an element type");

public:
    /** One dimension's shape, as Halide's dim(i) returns it. (The same view as loom::Buffer's
     * Dimension in dsl/Buffer.h, which this header may not include: it is for programs built
     * without Loom's compiler headers.) */
    class Dimension {
    public:
        explicit Dimension(const loom_dimension_t &d) : d(d) {}
        int min() const { return d.min; }
        int extent() const { return d.extent; }
        int max() const { return d.min + d.extent - 1; }
        int stride() const { return d.stride; }

    private:
        const loom_dimension_t &d;
    };

    Buffer() = default;

    /** Dense, zero-filled, dimension 0 innermost. */
    template <typename... Args, typename = std::enable_if_t<BufferDetail::all_integral<Args...>()>>
    explicit Buffer(int first, Args... rest) : Buffer(std::vector<int>{first, int(rest)...}) {}
    explicit Buffer(const std::vector<int> &sizes) { allocate(sizes, dense_strides(sizes)); }

    /** A view of memory the caller owns, dense, dimension 0 innermost. */
    template <typename... Args, typename = std::enable_if_t<BufferDetail::all_integral<Args...>()>>
    Buffer(T *data, int first, Args... rest) {
        std::vector<int> sizes{first, int(rest)...};
        wrap(data, sizes, dense_strides(sizes));
    }

    /** Channels innermost: (x, y, c) at c + channels * (x + width * y), as Halide's. */
    static Buffer make_interleaved(int width, int height, int channels) {
        Buffer b;
        b.allocate({width, height, channels}, {channels, channels * width, 1});
        return b;
    }

    int dimensions() const { return (int)shape().dims.size(); }
    Dimension dim(int i) const {
        if (i < 0 || i >= dimensions()) throw std::out_of_range("Buffer::dim: no such dimension");
        return Dimension(shape().dims[i]);
    }
    int width() const { return dimensions() > 0 ? dim(0).extent() : 1; }
    int height() const { return dimensions() > 1 ? dim(1).extent() : 1; }
    int channels() const { return dimensions() > 2 ? dim(2).extent() : 1; }
    int left() const { return dim(0).min(); }
    int right() const { return dim(0).max(); }
    int top() const { return dim(1).min(); }
    int bottom() const { return dim(1).max(); }
    int64_t number_of_elements() const {
        int64_t n = 1;
        for (const loom_dimension_t &d : shape().dims)
            n *= d.extent;
        return n;
    }

    /** Moves the origin: dimension i then starts at mins[i]. */
    template <typename... Args, typename = std::enable_if_t<BufferDetail::all_integral<Args...>()>>
    void set_min(Args... mins) {
        const int m[] = {int(mins)...};
        for (size_t i = 0; i < sizeof...(mins) && (int)i < dimensions(); i++)
            state->dims[i].min = m[i];
    }

    T *data() const { return reinterpret_cast<T *>(shape().raw.host); }
    T *begin() const { return data(); }

    /** The buffer as the generated functions take it. */
    loom_buffer_t *raw_buffer() const { return &state->raw; }
    operator loom_buffer_t *() const { return raw_buffer(); }

    template <typename... Args, typename = std::enable_if_t<BufferDetail::all_integral<Args...>()>>
    T &operator()(Args... pos) const {
        const int p[] = {int(pos)...};
        return data()[offset_of(p, (int)sizeof...(pos))];
    }
    T &operator()() const { return data()[0]; }

    void fill(T value) const {
        for_each_offset(0, 0, [&](int64_t o) { data()[o] = value; });
    }

private:
    // The dims live beside the loom_buffer_t that points at them; copies share both.
    struct State {
        loom_buffer_t raw{};
        std::vector<loom_dimension_t> dims;
        std::vector<uint8_t> owned; // empty for a view
    };
    std::shared_ptr<State> state;

    const State &shape() const {
        if (!state) throw std::logic_error("use of an undefined Halide::Runtime::Buffer");
        return *state;
    }

    static std::vector<int> dense_strides(const std::vector<int> &sizes) {
        std::vector<int> strides;
        int stride = 1;
        for (int s : sizes) {
            strides.push_back(stride);
            stride *= s;
        }
        return strides;
    }

    void describe(const std::vector<int> &sizes, const std::vector<int> &strides) {
        state = std::make_shared<State>();
        for (size_t i = 0; i < sizes.size(); i++) {
            if (sizes[i] < 0) throw std::invalid_argument("Buffer: negative size");
            state->dims.push_back(loom_dimension_t{0, sizes[i], strides[i], 0});
        }
        state->raw.type = BufferDetail::type_of<T>();
        state->raw.dimensions = (int32_t)sizes.size();
        state->raw.dim = state->dims.data();
    }

    void allocate(const std::vector<int> &sizes, const std::vector<int> &strides) {
        describe(sizes, strides);
        int64_t elements = 1;
        for (int s : sizes)
            elements *= s;
        state->owned.assign((size_t)elements * sizeof(T), 0);
        state->raw.host = state->owned.data();
    }

    void wrap(T *data, const std::vector<int> &sizes, const std::vector<int> &strides) {
        describe(sizes, strides);
        state->raw.host = reinterpret_cast<uint8_t *>(data);
    }

    int64_t offset_of(const int *pos, int count) const {
        const std::vector<loom_dimension_t> &dims = shape().dims;
        assert(count >= (int)dims.size() && "too few coordinates for the buffer's dimensions");
        int64_t offset = 0;
        for (int i = 0; i < (int)dims.size(); i++) {
            assert(pos[i] >= dims[i].min && pos[i] < dims[i].min + dims[i].extent &&
                   "coordinate outside the buffer");
            offset += (int64_t)(pos[i] - dims[i].min) * dims[i].stride;
        }
        (void)count;
        return offset;
    }

    template <typename F> void for_each_offset(int d, int64_t base, F f) const {
        const std::vector<loom_dimension_t> &dims = shape().dims;
        if (d == (int)dims.size()) {
            f(base);
            return;
        }
        for (int i = 0; i < dims[d].extent; i++)
            for_each_offset(d + 1, base + (int64_t)i * dims[d].stride, f);
    }
};

} // namespace Runtime
} // namespace loom

namespace Halide = loom;
