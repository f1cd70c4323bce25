#include "apps/common/HalideRunner.h"

#include <vector>

#include "loom_runtime.h"

namespace loom_apps {

Halide::Buffer<> halide_view(const loom::Buffer<> &b) {
    std::vector<halide_dimension_t> shape(b.dimensions());
    for (int i = 0; i < b.dimensions(); i++) {
        shape[i] = halide_dimension_t(b.dim(i).min(), b.dim(i).extent(), b.dim(i).stride());
    }
    halide_type_t type((halide_type_code_t)b.type().code, b.type().bits(), 1);
    return Halide::Buffer<>(type, b.raw_data(), b.dimensions(), shape.data());
}

void *halide_peer_malloc(Halide::JITUserContext *, size_t bytes) {
    // Halide may read up to 8 bytes past the end of a block (HalideRuntime.h); before its
    // start lies the heap's 64-byte header.
    return loom_malloc(nullptr, (int64_t)bytes + 64);
}

void halide_peer_free(Halide::JITUserContext *, void *ptr) { loom_free(nullptr, ptr); }

const Halide::Target &halide_peer_target() {
    static const Halide::Target target =
        Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids);
    return target;
}

} // namespace loom_apps
