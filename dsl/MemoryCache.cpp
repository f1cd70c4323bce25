#include "dsl/MemoryCache.h"

#include "dsl/Error.h"
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

} // namespace loom
