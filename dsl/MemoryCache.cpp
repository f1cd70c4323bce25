#include "dsl/MemoryCache.h"

#include "dsl/Error.h"
#include "dsl/RuntimeErrors.h"
#include "loom_runtime.h"

namespace loom {

MemoryCacheStats memory_cache_stats() {
    loom_memory_cache_stats_t s;
    loom_memory_cache_get_stats(&s);
    MemoryCacheStats stats;
    stats.size_limit = s.size_limit;
    stats.cached_bytes = s.cached_bytes;
    stats.cached_blocks = s.cached_blocks;
    stats.hits = s.hits;
    stats.misses = s.misses;
    stats.releases_under_pressure = s.releases_under_pressure;
    return stats;
}

void release_memory_cache() { loom_memory_cache_release(); }

void set_memory_cache_size(int64_t bytes) {
    user_assert(bytes >= 0) << "set_memory_cache_size(" << bytes
                            << "): the bound is a number of bytes, >= 0 (0 turns the cache "
                               "off); reset_memory_cache_size() restores the default.";
    loom_memory_cache_set_size(bytes);
}

void reset_memory_cache_size() { loom_memory_cache_set_size(-1); }

int64_t memory_cache_size() { return memory_cache_stats().size_limit; }

DeviceMemoryStats device_memory_stats() {
    loom_cuda_memory_stats_t s;
    loom_cuda_get_memory_stats(&s);
    DeviceMemoryStats stats;
    stats.driver_allocations = s.driver_allocations;
    stats.driver_frees = s.driver_frees;
    stats.reuses = s.reuses;
    stats.releases_under_pressure = s.releases_under_pressure;
    stats.kept_blocks = s.kept_blocks;
    stats.kept_bytes = s.kept_bytes;
    return stats;
}

void release_unused_device_memory() {
    Internal::call_runtime(loom_cuda_release_unused_device_allocations,
                           "Releasing the kept device memory");
}

void reuse_device_allocations(bool reuse) {
    Internal::call_runtime(
        [reuse](void *context) { return loom_cuda_reuse_device_allocations(context, reuse); },
        "reuse_device_allocations");
}

} // namespace loom
