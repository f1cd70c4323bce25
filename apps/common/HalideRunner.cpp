#include "apps/common/HalideRunner.h"

#include <cctype>
#include <mutex>
#include <set>
#include <string>
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

Halide::MachineParams halide_machine_params() {
    const loom::MachineParams m = loom::MachineParams::host();
    return Halide::MachineParams(m.parallelism, m.last_level_cache_size, m.balance);
}

void load_halide_autoscheduler(Variant variant) {
    static std::mutex mutex;
    static std::set<Variant> loaded;
    std::lock_guard<std::mutex> lock(mutex);
    if (loaded.count(variant)) return;
    std::string file = variant_name(variant);
    for (char &c : file)
        c = (char)std::tolower((unsigned char)c);
    Halide::load_plugin(std::string(LOOM_HALIDE14_PLUGIN_DIR) + "/libautoschedule_" + file + ".so");
    loaded.insert(variant);
}

Halide::Region halide_region_of(const loom::Buffer<> &b) {
    Halide::Region r;
    for (int d = 0; d < b.dimensions(); d++)
        r.emplace_back(b.dim(d).min(), b.dim(d).extent());
    return r;
}

} // namespace loom_apps
