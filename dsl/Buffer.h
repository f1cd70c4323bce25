// Buffer<T>: an n-dimensional array a pipeline reads or writes, with Halide's core API.
// Copies share the same memory (like a shared_ptr). Dimension 0 is dense by default and
// each further dimension's stride is the product of the extents before it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/Type.h"
#include "dsl/Var.h"
#include "runtime/loom_runtime.h"

namespace loom {

namespace Runtime {
template <typename T, int Dims> class Buffer;
}
namespace Internal {

struct BufferContents {
    std::string name;
    std::vector<loom_dimension_t> dims;
    loom_buffer_t raw{};
    std::shared_ptr<uint8_t> storage;  // null when wrapping memory the user owns

    /** Allocates dense zeroed storage of `type` with the given extents, mins at zero. */
    static std::shared_ptr<BufferContents> allocate(Type type, const std::vector<int> &sizes,
                                                    const std::string &name);
    /** No memory (host NULL): a bounds query's output, over [0, size) in each dimension. A
     * pipeline realized into it writes the region it would write into its dims instead of
     * running (see loom_buffer_bounds_query). */
    static std::shared_ptr<BufferContents> bounds_query(Type type, const std::vector<int> &sizes,
                                                        const std::string &name);
    /** Gives contents without memory dense zeroed storage over their region (mins kept). */
    void allocate_host();
    /** Views memory the caller owns. */
    static std::shared_ptr<BufferContents> wrap(Type type, void *data,
                                                const std::vector<int> &sizes,
                                                const std::string &name);
    /** Views the host memory of a raw buffer the caller owns, with a copy of its shape (null
     * host: a bounds query's buffer, as bounds_query's). A newer device copy is refused. */
    static std::shared_ptr<BufferContents> view_raw(const loom_buffer_t &buffer,
                                                    const std::string &name);
    Type type() const { return Type::from_runtime(raw.type); }
    /** Byte offset of element `pos` from host, checking it lies inside the buffer. */
    int64_t offset_of(const int *pos, int count) const;
    void sync_raw() {
        raw.dimensions = (int32_t)dims.size();
        raw.dim = dims.data();
    }
    BufferContents() = default;
    BufferContents(const BufferContents &) = delete;
    BufferContents &operator=(const BufferContents &) = delete;
    /** Frees the device copy, if a GPU pipeline made one. */
    ~BufferContents();
    /** Brings a newer device copy back to host memory; throws if the copy fails. */
    void copy_to_host();

    // Views (Halide's crop, slice, translate, transpose, embed, add_dimension): the same host
    // memory seen over other coordinates. A view has no device copy: view() brings a newer
    // device copy home first, and the in-place forms let go of the device copy.
    /** New contents over the same host memory and coordinates. */
    std::shared_ptr<BufferContents> view();
    void crop(int d, int min, int extent);
    void slice(int d, int pos);
    void translate(int d, int delta);
    void transpose(int d1, int d2);
    void embed(int d, int pos);
    void add_dimension();
    /** Before changing the coordinates in place: the device copy home, then freed. */
    void release_device();
};

/** Makes the Call that reads a buffer at the given coordinates inside a definition. */
Expr buffer_call(const std::shared_ptr<BufferContents> &b, std::vector<Expr> args);

/** Coordinates and sizes: integers, or unscoped enum constants (as Halide's Buffer takes). */
template<typename... Args>
constexpr bool all_integral() {
    return ((std::is_integral<std::decay_t<Args>>::value ||
             std::is_enum<std::decay_t<Args>>::value) &&
            ...);
}

/** Sizes followed by a name (Halide's Buffer(int, int, ..., "name")): integers, then one
 * argument that converts to std::string, last. */
template <typename... Args> struct sizes_then_name : std::false_type {};
template <typename Last>
struct sizes_then_name<Last> : std::is_convertible<const Last &, std::string> {};
template <typename First, typename Second, typename... Rest>
struct sizes_then_name<First, Second, Rest...>
    : std::bool_constant<all_integral<First>() && sizes_then_name<Second, Rest...>::value> {};

inline void collect_sizes(std::vector<int> &, std::string &) {}
template <typename First, typename... Rest>
void collect_sizes(std::vector<int> &sizes, std::string &name, const First &first,
                   const Rest &...rest) {
    if constexpr (all_integral<First>()) {
        sizes.push_back(int(first));
    } else {
        name = first;
    }
    collect_sizes(sizes, name, rest...);
}

}  // namespace Internal

/** One dimension of a Buffer, as Halide's dim(i) returns it. */
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

/** The Dims of a Buffer whose dimension count is not fixed in its type (Halide's AnyDims). */
constexpr int AnyDims = -1;

/** Dims, where given (Buffer<uint8_t, 2>, as Halide 14 writes a Generator's Input), is the
 * dimension count every value of the type has (checked when one is made or converted). */
template <typename T = void, int Dims = AnyDims> class Buffer {
    template <typename U, int D> friend class Buffer;

public:
    using ElemType = T;
    static constexpr int static_dimensions() { return Dims; }
    static constexpr bool has_static_dimensions() { return Dims != AnyDims; }

    Buffer() = default;

    /** A dense buffer of the given sizes, zero-filled. */
    template<typename... Args, typename = std::enable_if_t<Internal::all_integral<Args...>()>>
    explicit Buffer(int first, Args... rest) : Buffer(std::vector<int>{first, int(rest)...}) {}
    /** The same, named: Buffer<uint8_t> input(8, 8, "input"). */
    template <typename... Args,
              typename = std::enable_if_t<Internal::sizes_then_name<Args...>::value>,
              typename = void>
    explicit Buffer(int first, const Args &...rest) : Buffer(named_shape(first, rest...)) {}
    explicit Buffer(const std::vector<int> &sizes, const std::string &name = "")
        : contents(Internal::BufferContents::allocate(static_type(), sizes, pick_name(name))) {
        static_assert(!std::is_void<T>::value, "Buffer<void> needs a Type: Buffer<>(type, sizes)");
        check_dimensions();
    }
    /** An untyped buffer of a runtime-chosen type. */
    Buffer(Type type, const std::vector<int> &sizes, const std::string &name = "")
        : contents(Internal::BufferContents::allocate(type, sizes, pick_name(name))) {
        check_type(type, contents->name);
    }
    /** Views memory of a runtime-chosen type that the caller owns (Halide's form). With data
     * null, a buffer without memory: realizing a pipeline into it is a bounds query, which
     * gives it the region the pipeline would write; allocate() then gives it memory. */
    Buffer(Type type, void *data, const std::vector<int> &sizes, const std::string &name = "")
        : contents(data ? Internal::BufferContents::wrap(type, data, sizes, pick_name(name))
                        : Internal::BufferContents::bounds_query(type, sizes, pick_name(name))) {
        check_type(type, contents->name);
    }
    /** Views memory the caller owns and keeps alive while the Buffer is used. */
    template<typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    Buffer(U *data, const std::vector<int> &sizes, const std::string &name = "")
        : contents(Internal::BufferContents::wrap(static_type(), data, sizes, pick_name(name))) {}

    /** Views a C array the caller owns (Halide's form): its innermost index is dimension 0, so
     * `int a[3][4]` is 4 x 3, a(x, y) being a[y][x]. The element type must be this Buffer's. */
    template <typename Array, size_t N>
    explicit Buffer(Array (&vals)[N], const std::string &name = "")
        : Buffer(type_of<std::remove_cv_t<std::remove_all_extents_t<Array>>>(),
                 const_cast<void *>(static_cast<const void *>(&vals)),
                 array_shape<Array[N]>(std::make_index_sequence<std::rank_v<Array> + 1>()), name) {}

    /** Views the memory and shape of a raw buffer (Halide's Buffer(const halide_buffer_t &)):
     * the host memory is shared (the caller owns it and keeps it alive while this Buffer is
     * used), the shape copied. The element type must be this Buffer's; a buffer whose device
     * copy is newer than its host memory is refused (copy it to the host first). */
    explicit Buffer(const loom_buffer_t &raw, const std::string &name = "")
        : contents(Internal::BufferContents::view_raw(raw, pick_name(name))) {
        check_type(contents->type(), contents->name);
        check_dimensions();
    }

    /** Views a Runtime::Buffer (tools/halide/HalideBuffer.h, Halide's Buffer(Runtime::Buffer)):
     * its memory shared, its shape copied, as the raw buffer above. */
    template <typename U, int D>
    explicit Buffer(const Runtime::Buffer<U, D> &runtime_buffer, const std::string &name = "")
        : Buffer(*runtime_buffer.raw_buffer(), name) {}

    /** Converts between typed and untyped views of the same memory, checking the type (and
     * the dimension count, where this type fixes it). */
    template <typename U, int D> Buffer(const Buffer<U, D> &other) : contents(other.contents) {
        if (contents) check_type(contents->type(), contents->name);
        check_dimensions();
    }

    /** Channels innermost, as Halide's: (x, y, c) at c + channels * (x + width * y), for
     * pipelines whose inputs or outputs are constrained to that layout
     * (dim(0).set_stride(channels)). Zero-filled. */
    static Buffer make_interleaved(int width, int height, int channels,
                                   const std::string &name = "") {
        static_assert(!std::is_void<T>::value, "make_interleaved needs an element type");
        Buffer b(std::vector<int>{channels, width, height}, name);
        auto &dims = b.get()->dims;
        const loom_dimension_t c = dims[0], x = dims[1], y = dims[2];
        dims = {x, y, c}; // the same memory, dimensions reordered: x and y outside c
        b.get()->sync_raw();
        return b;
    }

    bool defined() const { return contents != nullptr; }
    const std::string &name() const { return get()->name; }
    Type type() const { return get()->type(); }
    int dimensions() const { return (int)get()->dims.size(); }
    Dimension dim(int i) const {
        user_assert(i >= 0 && i < dimensions())
            << "Buffer " << name() << " has " << dimensions() << " dimensions; dim(" << i
            << ") does not exist";
        return Dimension(get()->dims[i]);
    }
    int width() const { return dimensions() > 0 ? dim(0).extent() : 1; }
    int height() const { return dimensions() > 1 ? dim(1).extent() : 1; }
    int channels() const { return dimensions() > 2 ? dim(2).extent() : 1; }
    /** Halide's names for the bounds of the first two dimensions. */
    int left() const { return dim(0).min(); }
    int right() const { return dim(0).max(); }
    int top() const { return dim(1).min(); }
    int bottom() const { return dim(1).max(); }
    int min(int i) const { return dim(i).min(); }
    int extent(int i) const { return dim(i).extent(); }
    int stride(int i) const { return dim(i).stride(); }
    int64_t number_of_elements() const {
        int64_t n = 1;
        for (const auto &d : get()->dims) n *= d.extent;
        return n;
    }

    /** Moves the buffer's coordinate origin: dimension i then starts at mins[i]. */
    void set_min(const std::vector<int> &mins) {
        user_assert((int)mins.size() <= dimensions())
            << "set_min on Buffer " << name() << " with " << mins.size()
            << " values, but it has " << dimensions() << " dimensions";
        for (size_t i = 0; i < mins.size(); i++) get()->dims[i].min = mins[i];
    }
    template<typename... Args, typename = std::enable_if_t<Internal::all_integral<Args...>()>>
    void set_min(Args... mins) {
        set_min(std::vector<int>{int(mins)...});
    }

    template<typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    U *data() const {
        return reinterpret_cast<U *>(get()->raw.host);
    }
    void *raw_data() const { return get()->raw.host; }

    /** Element access with bounds checks: b(x, y) = 3; */
    template<typename... Args, typename U = T,
             typename = std::enable_if_t<!std::is_void<U>::value && Internal::all_integral<Args...>()>>
    U &operator()(Args... pos) {
        const int p[] = {int(pos)..., 0};
        return *reinterpret_cast<U *>(get()->raw.host + get()->offset_of(p, sizeof...(Args)));
    }
    template<typename... Args, typename U = T,
             typename = std::enable_if_t<!std::is_void<U>::value && Internal::all_integral<Args...>()>>
    const U &operator()(Args... pos) const {
        const int p[] = {int(pos)..., 0};
        return *reinterpret_cast<const U *>(get()->raw.host + get()->offset_of(p, sizeof...(Args)));
    }
    template<typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    U &operator()(const std::vector<int> &pos) {
        return *reinterpret_cast<U *>(get()->raw.host + get()->offset_of(pos.data(), (int)pos.size()));
    }

    /** A read of this buffer inside a Func definition: f(x, y) = b(x + 1, y). */
    template<typename... Args, typename = std::enable_if_t<!Internal::all_integral<Args...>()>>
    Expr operator()(const Args &...args) const {
        return Internal::buffer_call(contents_checked(), {Expr(args)...});
    }
    Expr operator()(const std::vector<Expr> &args) const {
        return Internal::buffer_call(contents_checked(), args);
    }

    /** Sets every element to value. */
    template<typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    void fill(U value) {
        for_each_position([&](const std::vector<int> &pos) { (*this)(pos) = value; });
    }

    /** Calls f(pos) for every position, dimension 0 fastest. */
    template<typename F>
    void for_each_position(F f) const {
        int n = dimensions();
        std::vector<int> pos(n);
        for (int i = 0; i < n; i++) {
            pos[i] = min(i);
            if (extent(i) <= 0) return;
        }
        while (true) {
            f(pos);
            int i = 0;
            for (; i < n; i++) {
                if (++pos[i] <= dim(i).max()) break;
                pos[i] = min(i);
            }
            if (i == n) return;
        }
    }

    // Halide's iteration helpers. for_each_element calls f(x, y, ...) with one int per
    // dimension (f's arity must match the dimension count), or f(const int *pos); dimension 0
    // fastest. for_each_value calls f(value &, other values &...) for the elements at the same
    // coordinates of this buffer and the others, which must cover this one's region.
    template <typename F> void for_each_element(F f) const {
        for_each_position([&](const std::vector<int> &pos) {
            if constexpr (std::is_invocable<F, const int *>::value) {
                f(pos.data());
            } else {
                call_with_coordinates(f, pos, std::make_index_sequence<kMaxElementArity>());
            }
        });
    }
    template <typename F, typename... Others> void for_each_value(F f, Others &&...others) {
        static_assert(!std::is_void<T>::value, "for_each_value needs an element type");
        for_each_position([&](const std::vector<int> &pos) { f((*this)(pos), others(pos)...); });
    }

    /** Whether every coordinate lies in the buffer's region. */
    template <typename... Args, typename = std::enable_if_t<Internal::all_integral<Args...>()>>
    bool contains(Args... pos) const {
        return contains(std::vector<int>{int(pos)...});
    }
    bool contains(const std::vector<int> &pos) const {
        for (size_t d = 0; d < pos.size() && (int)d < dimensions(); d++) {
            if (pos[d] < dim((int)d).min() || pos[d] > dim((int)d).max()) return false;
        }
        return true;
    }
    /** Whether every element equals value. */
    template <typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    bool all_equal(U value) const {
        bool equal = true;
        for_each_position([&](const std::vector<int> &pos) {
            equal = equal && (*const_cast<Buffer *>(this))(pos) == value;
        });
        return equal;
    }
    template <typename U = T, typename = std::enable_if_t<!std::is_void<U>::value>>
    U &operator()(const int *pos) {
        return *reinterpret_cast<U *>(get()->raw.host + get()->offset_of(pos, dimensions()));
    }

    /** The bytes between the lowest and one past the highest element's address. */
    size_t size_in_bytes() const {
        return (size_t)(static_cast<const uint8_t *>(end()) -
                        static_cast<const uint8_t *>(begin()));
    }
    /** The lowest element's address, and one past the highest (Halide's begin / end). */
    void *begin() const {
        int64_t offset = 0;
        for (const auto &d : get()->dims) {
            if (d.stride < 0 && d.extent > 0) offset += (int64_t)d.stride * (d.extent - 1);
        }
        return get()->raw.host + offset * type().bytes();
    }
    void *end() const {
        int64_t offset = 1;
        for (const auto &d : get()->dims) {
            if (d.extent <= 0) return begin();
            if (d.stride > 0) offset += (int64_t)d.stride * (d.extent - 1);
        }
        return get()->raw.host + offset * type().bytes();
    }

    void set_name(const std::string &name) { get()->name = name; }
    /** Whether both handles share the same contents. */
    template <typename U, int D> bool same_as(const Buffer<U, D> &other) const {
        return contents == other.contents;
    }

    /** A 0-dimensional buffer (one value). */
    static Buffer make_scalar(const std::string &name = "") {
        return Buffer(std::vector<int>{}, name);
    }
    /** A dense buffer over src's region (its mins kept), zero-filled. */
    template <typename U, int D>
    static Buffer make_with_shape_of(const Buffer<U, D> &src, const std::string &name = "") {
        std::vector<int> sizes, mins;
        for (int d = 0; d < src.dimensions(); d++) {
            sizes.push_back(src.dim(d).extent());
            mins.push_back(src.dim(d).min());
        }
        Buffer b = std::is_void<T>::value ? Buffer(src.type(), sizes, name) : Buffer(sizes, name);
        b.set_min(mins);
        return b;
    }
    /** A dense copy of the elements, over the same region. */
    Buffer copy() const {
        Buffer c = make_with_shape_of(*this, name());
        c.copy_from(*this);
        return c;
    }
    /** Copies src's elements where its region overlaps this one's (types must match). */
    template <typename U, int D> void copy_from(const Buffer<U, D> &src) {
        user_assert(src.type() == type() && src.dimensions() == dimensions())
            << "copy_from into Buffer " << name() << " from Buffer " << src.name()
            << ": both need the same type and dimension count.";
        const size_t bytes = type().bytes();
        for_each_position([&](const std::vector<int> &pos) {
            if (!src.contains(pos)) return;
            std::memcpy(get()->raw.host + get()->offset_of(pos.data(), (int)pos.size()),
                        src.raw_buffer()->host +
                            src.contents_ptr()->offset_of(pos.data(), (int)pos.size()),
                        bytes);
        });
    }
    /** The same memory as a Buffer of T2 (the element types must be the same). */
    template <typename T2, int D2 = Dims> Buffer<T2, D2> as() const {
        return Buffer<T2, D2>(*this);
    }
    /** Whether a Buffer<T, Dims> can view other (its type and dimension count allow it). */
    template <typename U, int D> static bool can_convert_from(const Buffer<U, D> &other) {
        return (std::is_void<T>::value || other.type() == static_type()) &&
               (Dims == AnyDims || other.dimensions() == Dims);
    }
    /** The element type (Halide's halide_type_t: code, bits, lanes) and whether T fixes it. */
    static loom_type_t static_halide_type() {
        const Type t = static_type();
        return loom_type_t{(uint8_t)t.code, (uint8_t)t.bits(), (uint16_t)t.lanes()};
    }
    static constexpr bool has_static_halide_type = !std::is_void<T>::value;

    loom_buffer_t *raw_buffer() const { return &get()->raw; }

    // The device side (Target::CUDA), as Halide's Buffer has it. A GPU pipeline gives a buffer
    // it uses a device copy; Pipeline::realize brings its outputs back to the host. After
    // writing the host memory of a buffer that has a device copy, call set_host_dirty() so
    // that the next pipeline run copies it over.
    bool has_device_allocation() const { return get()->raw.device != 0; }
    bool host_dirty() const { return get()->raw.flags & loom_buffer_host_dirty; }
    bool device_dirty() const { return get()->raw.flags & loom_buffer_device_dirty; }
    void set_host_dirty(bool dirty = true) {
        loom_buffer_t &r = get()->raw;
        r.flags = dirty ? (r.flags & ~uint32_t(loom_buffer_device_dirty)) | loom_buffer_host_dirty
                        : r.flags & ~uint32_t(loom_buffer_host_dirty);
    }
    /** Gives a buffer without memory (a bounds query's output) dense zeroed memory over its
     * current region, as Halide's allocate() does; a buffer with memory keeps it. */
    void allocate() { get()->allocate_host(); }
    /** Copies a newer device copy to the host (nothing if the host's is current). */
    void copy_to_host() const { get()->copy_to_host(); }
    // Views (Halide's names): the same memory over other coordinates. The -ed forms return a
    // new Buffer; the others change this one's contents (seen through every handle to them).
    // A view has no device copy: after writing through a view of a buffer that has one, call
    // set_host_dirty() on that buffer.
    /** Dimension d narrowed to [min, min + extent), inside the buffer. */
    Buffer cropped(int d, int min, int extent) const {
        return with(&Internal::BufferContents::crop, d, min, extent);
    }
    void crop(int d, int min, int extent) { get()->crop(d, min, extent); }
    /** Every dimension narrowed: rect[i] = {min, extent}. */
    Buffer cropped(const std::vector<std::pair<int, int>> &rect) const {
        Buffer b = view_of_this();
        b.crop(rect);
        return b;
    }
    void crop(const std::vector<std::pair<int, int>> &rect) {
        for (size_t i = 0; i < rect.size(); i++)
            crop((int)i, rect[i].first, rect[i].second);
    }
    /** The Buffer type with one dimension less or more (any count stays any). */
    using OneDimensionLess = Buffer<T, Dims == AnyDims ? AnyDims : Dims - 1>;
    using OneDimensionMore = Buffer<T, Dims == AnyDims ? AnyDims : Dims + 1>;

    /** Dimension d removed, at coordinate pos (its min when not given). */
    OneDimensionLess sliced(int d, int pos) const {
        return OneDimensionLess::from_contents(
            with(&Internal::BufferContents::slice, d, pos).contents);
    }
    OneDimensionLess sliced(int d) const { return sliced(d, dim(d).min()); }
    void slice(int d, int pos) {
        static_assert(Dims == AnyDims,
                      "slice() in place changes the dimension count: use sliced()");
        get()->slice(d, pos);
    }
    void slice(int d) { slice(d, dim(d).min()); }
    /** Coordinates of dimension d moved by delta (the same elements). */
    Buffer translated(int d, int delta) const {
        return with(&Internal::BufferContents::translate, d, delta);
    }
    void translate(int d, int delta) { get()->translate(d, delta); }
    Buffer translated(const std::vector<int> &deltas) const {
        Buffer b = view_of_this();
        b.translate(deltas);
        return b;
    }
    void translate(const std::vector<int> &deltas) {
        for (size_t i = 0; i < deltas.size(); i++)
            translate((int)i, deltas[i]);
    }
    /** Dimensions d1 and d2 swapped. */
    Buffer transposed(int d1, int d2) const {
        return with(&Internal::BufferContents::transpose, d1, d2);
    }
    void transpose(int d1, int d2) { get()->transpose(d1, d2); }
    /** Dimension i moves to position order[i] (Halide's rule; order lists each once). */
    Buffer transposed(const std::vector<int> &order) const {
        Buffer b = view_of_this();
        b.transpose(order);
        return b;
    }
    void transpose(const std::vector<int> &order) {
        std::vector<bool> seen(order.size());
        bool permutation = (int)order.size() == dimensions();
        for (int o : order) {
            permutation = permutation && o >= 0 && o < (int)order.size() && !seen[o];
            if (permutation) seen[o] = true;
        }
        user_assert(permutation) << "transpose of Buffer " << name() << ": the order must list "
                                 << "each of its " << dimensions() << " dimensions once.";
        // Swaps that sort `order` carry each dimension to its place.
        std::vector<int> pending = order;
        for (int i = 0; i < (int)pending.size(); i++) {
            while (pending[i] != i) {
                const int j = pending[i];
                transpose(i, j);
                std::swap(pending[i], pending[j]);
            }
        }
    }
    /** A new dimension of extent 1 at d, its only coordinate pos. */
    OneDimensionMore embedded(int d, int pos = 0) const {
        return OneDimensionMore::from_contents(
            with(&Internal::BufferContents::embed, d, pos).contents);
    }
    void embed(int d, int pos = 0) {
        static_assert(Dims == AnyDims,
                      "embed() in place changes the dimension count: use embedded()");
        get()->embed(d, pos);
    }
    /** A new outermost dimension of extent 1. */
    void add_dimension() {
        static_assert(Dims == AnyDims, "add_dimension() changes the dimension count");
        get()->add_dimension();
    }

    /** A handle sharing existing contents (checked against T). */
    static Buffer from_contents(std::shared_ptr<Internal::BufferContents> c) {
        Buffer b;
        b.contents = std::move(c);
        if (b.contents) check_type(b.contents->type(), b.contents->name);
        return b;
    }
    const std::shared_ptr<Internal::BufferContents> &contents_ptr() const { return contents; }

private:
    std::shared_ptr<Internal::BufferContents> contents;

    // for_each_element with f(x, y, ...): the first `arity` coordinates, for the arity f takes.
    static constexpr size_t kMaxElementArity = 8;
    template <typename F, size_t... I>
    void call_with_coordinates(F &f, const std::vector<int> &pos, std::index_sequence<I...>) const {
        bool called = false;
        (call_if_arity<I + 1>(f, pos, called), ...);
        user_assert(called) << "for_each_element over Buffer " << name() << ": the function "
                            << "must take one int per dimension (" << dimensions()
                            << ") or a const int *.";
    }
    template <size_t N, typename F>
    void call_if_arity(F &f, const std::vector<int> &pos, bool &called) const {
        if constexpr (is_invocable_with_ints<F>(std::make_index_sequence<N>())) {
            if (!called && (int)N == dimensions()) {
                call_ints(f, pos, std::make_index_sequence<N>());
                called = true;
            }
        }
    }
    template <typename F, size_t... I>
    static constexpr bool is_invocable_with_ints(std::index_sequence<I...>) {
        return std::is_invocable<F, decltype((void)I, int(0))...>::value;
    }
    template <typename F, size_t... I>
    static void call_ints(F &f, const std::vector<int> &pos, std::index_sequence<I...>) {
        f(pos[I]...);
    }

    Buffer view_of_this() const { return Buffer::from_contents(get()->view()); }
    /** A view of this buffer with `op` applied to it (the dimension count checks are the
     * caller's type's). */
    template <typename... A>
    Buffer<T> with(void (Internal::BufferContents::*op)(A...), A... args) const {
        std::shared_ptr<Internal::BufferContents> v = get()->view();
        (v.get()->*op)(args...);
        return Buffer<T>::from_contents(v);
    }

    using NamedShape = std::pair<std::vector<int>, std::string>;
    // The extents of a C array type, innermost first.
    template <typename A, size_t... I>
    static std::vector<int> array_shape(std::index_sequence<I...>) {
        std::vector<int> sizes{(int)std::extent_v<A, I>...};
        std::reverse(sizes.begin(), sizes.end());
        return sizes;
    }
    template <typename... Args> static NamedShape named_shape(int first, const Args &...rest) {
        NamedShape shape{{first}, ""};
        Internal::collect_sizes(shape.first, shape.second, rest...);
        return shape;
    }
    explicit Buffer(const NamedShape &shape) : Buffer(shape.first, shape.second) {}

    static Type static_type() {
        if constexpr (std::is_void<T>::value) {
            return Type();
        } else {
            return type_of<T>();
        }
    }
    static std::string pick_name(const std::string &name) {
        return name.empty() ? Internal::unique_user_name('b') : name;
    }
    void check_dimensions() const {
        if constexpr (Dims != AnyDims) {
            user_assert(!contents || (int)contents->dims.size() == Dims)
                << "Buffer " << contents->name << " has " << contents->dims.size()
                << " dimensions, but its type says " << Dims << ".";
        }
    }
    /** `name`: the Buffer's, where it has one yet. */
    static void check_type(Type t, const std::string &name = "") {
        if constexpr (!std::is_void<T>::value) {
            user_assert(t == type_of<T>())
                << "Can't view " << (name.empty() ? "a buffer" : "Buffer " + name) << " of type "
                << type_to_string(t) << " as a Buffer of " << type_to_string(type_of<T>())
                << ". Use a Buffer of the matching type.";
        }
        (void)t;
        (void)name;
    }
    Internal::BufferContents *get() const {
        user_assert(contents) << "Use of an undefined Buffer. Construct it with sizes first.";
        return contents.get();
    }
    const std::shared_ptr<Internal::BufferContents> &contents_checked() const {
        get();
        return contents;
    }
};

}  // namespace loom
