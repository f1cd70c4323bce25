#include "dsl/Buffer.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "dsl/Error.h"
#include "dsl/IRPrinter.h"
#include "dsl/RuntimeErrors.h"
#include "dsl/Var.h"

namespace loom {
namespace Internal {

namespace {

std::vector<loom_dimension_t> dense_dims(const std::vector<int> &sizes, const std::string &name) {
    std::vector<loom_dimension_t> dims(sizes.size());
    int64_t stride = 1;
    for (size_t i = 0; i < sizes.size(); i++) {
        user_assert(sizes[i] >= 0) << "Buffer " << name << " has negative extent " << sizes[i]
                                   << " in dimension " << i;
        // Each stride must fit in 32 bits (loom_dimension_t's); the whole may pass 2^31
        // elements, which a pipeline reads with 64-bit offsets (Target::LargeBuffers).
        user_assert(stride <= INT32_MAX)
            << "Buffer " << name << " is too large: the stride of dimension " << i << " would be "
            << stride << " elements, and strides must fit in 32 bits. Use fewer elements in "
            << "the dimensions inside it.";
        dims[i] = loom_dimension_t{0, sizes[i], (int32_t)stride, 0};
        stride *= std::max(sizes[i], 1);
    }
    return dims;
}

}  // namespace

BufferContents::~BufferContents() {
    if (raw.device) loom_cuda_device_free(nullptr, &raw);
}

std::shared_ptr<BufferContents> BufferContents::view() {
    copy_to_host();
    auto v = std::make_shared<BufferContents>();
    v->name = name;
    v->dims = dims;
    v->storage = storage;
    v->raw.host = raw.host;
    v->raw.type = raw.type;
    v->sync_raw();
    return v;
}

void BufferContents::release_device() {
    copy_to_host();
    if (raw.device) loom_cuda_device_free(nullptr, &raw);
    raw.device = 0;
    raw.flags = 0;
}

namespace {

void check_dimension(const BufferContents &b, int d, const char *what, int extra = 0) {
    user_assert(d >= 0 && d < (int)b.dims.size() + extra)
        << what << " of Buffer " << b.name << " names dimension " << d << ", but it has "
        << b.dims.size() << " (0 to " << (int)b.dims.size() - 1 + extra << " may be named).";
}

} // namespace

void BufferContents::crop(int d, int min, int extent) {
    check_dimension(*this, d, "crop");
    loom_dimension_t &dim = dims[d];
    user_assert(extent >= 0 && min >= dim.min &&
                (int64_t)min + extent <= (int64_t)dim.min + dim.extent)
        << "crop of Buffer " << name << " to [" << min << ", " << (int64_t)min + extent - 1
        << "] in dimension " << d << ", which covers only [" << dim.min << ", "
        << (int64_t)dim.min + dim.extent - 1 << "]. A crop stays inside the buffer.";
    release_device();
    if (raw.host) raw.host += (int64_t)(min - dim.min) * dim.stride * type().bytes();
    dim.min = min;
    dim.extent = extent;
    sync_raw();
}

void BufferContents::slice(int d, int pos) {
    check_dimension(*this, d, "slice");
    const loom_dimension_t dim = dims[d];
    user_assert(pos >= dim.min && (int64_t)pos < (int64_t)dim.min + dim.extent)
        << "slice of Buffer " << name << " at " << pos << " in dimension " << d
        << ", which covers only [" << dim.min << ", " << (int64_t)dim.min + dim.extent - 1 << "].";
    release_device();
    if (raw.host) raw.host += (int64_t)(pos - dim.min) * dim.stride * type().bytes();
    dims.erase(dims.begin() + d);
    sync_raw();
}

void BufferContents::translate(int d, int delta) {
    check_dimension(*this, d, "translate");
    release_device();
    dims[d].min += delta;
    sync_raw();
}

void BufferContents::transpose(int d1, int d2) {
    check_dimension(*this, d1, "transpose");
    check_dimension(*this, d2, "transpose");
    release_device();
    std::swap(dims[d1], dims[d2]);
    sync_raw();
}

void BufferContents::embed(int d, int pos) {
    check_dimension(*this, d, "embed", 1);
    release_device();
    // Extent 1: the stride is never multiplied by a non-zero offset; the outermost one's, as
    // add_dimension gives, keeps the layout readable.
    int64_t stride = 1;
    for (const loom_dimension_t &dim : dims)
        stride = std::max<int64_t>(stride, (int64_t)dim.extent * dim.stride);
    dims.insert(dims.begin() + d, loom_dimension_t{pos, 1, (int32_t)stride, 0});
    sync_raw();
}

void BufferContents::add_dimension() { embed((int)dims.size(), 0); }

void BufferContents::copy_to_host() {
    if (!(raw.flags & loom_buffer_device_dirty)) return;
    sync_raw();
    call_runtime([&](void *context) { return loom_cuda_copy_to_host(context, &raw, name.c_str()); },
                 "Copying buffer " + name + " from the GPU");
}

std::shared_ptr<BufferContents> BufferContents::allocate(Type type, const std::vector<int> &sizes,
                                                         const std::string &name) {
    user_assert(type.is_scalar() && type.bits() > 0)
        << "Buffer " << name << " needs a scalar element type";
    auto b = std::make_shared<BufferContents>();
    b->name = name;
    b->dims = dense_dims(sizes, name);
    int64_t elements = 1;
    for (int s : sizes) elements *= s;
    size_t bytes = (size_t)std::max<int64_t>(elements, 1) * type.bytes();
    size_t rounded = (bytes + 63) & ~size_t(63);
    auto *mem = static_cast<uint8_t *>(std::aligned_alloc(64, rounded));
    user_assert(mem) << "Out of memory allocating " << bytes << " bytes for Buffer " << name;
    std::memset(mem, 0, rounded);
    b->storage = std::shared_ptr<uint8_t>(mem, [](uint8_t *p) { std::free(p); });
    b->raw.host = mem;
    b->raw.type = type.to_runtime();
    b->sync_raw();
    return b;
}

std::shared_ptr<BufferContents> BufferContents::bounds_query(Type type,
                                                             const std::vector<int> &sizes,
                                                             const std::string &name) {
    auto b = std::make_shared<BufferContents>();
    b->name = name;
    b->dims = dense_dims(sizes, name);
    b->raw.type = type.to_runtime();
    b->sync_raw();
    return b;
}

void BufferContents::allocate_host() {
    if (raw.host) return;
    std::vector<int> sizes;
    for (const loom_dimension_t &d : dims) sizes.push_back(d.extent);
    std::shared_ptr<BufferContents> fresh = allocate(type(), sizes, name);
    storage = fresh->storage;
    raw.host = fresh->raw.host;
    for (size_t d = 0; d < dims.size(); d++) dims[d].stride = fresh->dims[d].stride;
    sync_raw();
}

std::shared_ptr<BufferContents> BufferContents::wrap(Type type, void *data,
                                                     const std::vector<int> &sizes,
                                                     const std::string &name) {
    user_assert(data) << "Buffer " << name << " wraps a null pointer";
    // Compiled code and Buffer's element access read whole elements through typed pointers, as
    // C++ and LLVM's IR require, so an element must start at a multiple of its size.
    user_assert(reinterpret_cast<uintptr_t>(data) % type.bytes() == 0)
        << "Buffer " << name << " wraps memory at " << data << ", which is not aligned to its "
        << type.bytes() << "-byte elements. Allocate it aligned to " << type.bytes()
        << " bytes (any malloc, new or std::vector of the element type is).";
    auto b = std::make_shared<BufferContents>();
    b->name = name;
    b->dims = dense_dims(sizes, name);
    b->raw.host = static_cast<uint8_t *>(data);
    b->raw.type = type.to_runtime();
    b->sync_raw();
    return b;
}

std::shared_ptr<BufferContents> BufferContents::view_raw(const loom_buffer_t &buffer,
                                                         const std::string &name) {
    user_assert(buffer.dimensions >= 0 && (buffer.dimensions == 0 || buffer.dim))
        << "Buffer " << name << " views a raw buffer of " << buffer.dimensions
        << " dimensions without its dim array: give the buffer its shape first";
    user_assert(!(buffer.flags & loom_buffer_device_dirty))
        << "Buffer " << name << " views a raw buffer whose device copy is newer than its host "
        << "memory: copy it to the host (loom_cuda_copy_to_host) first";
    const Type type = Type::from_runtime(buffer.type);
    user_assert(!buffer.host || reinterpret_cast<uintptr_t>(buffer.host) % type.bytes() == 0)
        << "Buffer " << name << " views memory at " << static_cast<const void *>(buffer.host)
        << ", which is not aligned to its " << type.bytes() << "-byte elements";
    auto b = std::make_shared<BufferContents>();
    b->name = name;
    b->dims.assign(buffer.dim, buffer.dim + buffer.dimensions);
    b->raw.host = buffer.host;
    b->raw.type = buffer.type;
    b->sync_raw();
    return b;
}

int64_t BufferContents::offset_of(const int *pos, int count) const {
    // As in Halide, coordinates past the last dimension are allowed where they are 0: the
    // buffer reads as if it had more dimensions of extent 1 (a 0-dimensional result read as
    // r(0), say).
    user_assert(count >= (int)dims.size())
        << "Buffer " << name << " has " << dims.size() << " dimensions but was accessed with "
        << count << " coordinates";
    for (int i = (int)dims.size(); i < count; i++) {
        user_assert(pos[i] == 0) << "Access to Buffer " << name << " at coordinate " << pos[i]
                                 << " in dimension " << i << ": it has " << dims.size()
                                 << " dimensions, so a coordinate past them must be 0";
    }
    int64_t offset = 0;
    for (int i = 0; i < (int)dims.size(); i++) {
        const loom_dimension_t &d = dims[i];
        user_assert(pos[i] >= d.min && pos[i] < d.min + d.extent)
            << "Access to Buffer " << name << " at coordinate " << pos[i] << " in dimension "
            << i << " is outside its range [" << d.min << ", " << d.min + d.extent - 1 << "]";
        offset += (int64_t)(pos[i] - d.min) * d.stride;
    }
    return offset * type().bytes();
}

Expr buffer_call(const std::shared_ptr<BufferContents> &b, std::vector<Expr> args) {
    expand_placeholder(args, (int)b->dims.size());
    user_assert(args.size() == b->dims.size())
        << "Buffer " << b->name << " has " << b->dims.size() << " dimensions but is called with "
        << args.size() << " arguments. Pass one coordinate per dimension.";
    for (size_t i = 0; i < args.size(); i++) {
        user_assert(args[i].defined() && args[i].type().is_int_or_uint() &&
                    args[i].type().is_scalar())
            << "Coordinate " << i << " of the call to Buffer " << b->name
            << " must be a scalar integer, but is " << args[i] << " of type " << args[i].type();
        if (args[i].type() != Int(32)) args[i] = Cast::make(Int(32), args[i]);
    }
    return Call::make(b->type(), b->name, std::move(args), Call::Image, nullptr, 0, b);
}

}  // namespace Internal
}  // namespace loom
