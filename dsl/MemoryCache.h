// The memory that compiled pipelines keep between runs. A pipeline's intermediates come from
// Loom's heap (runtime/loom_memory.c), which keeps freed blocks for the next run instead of
// giving them back to the system, as an eager framework's caching allocator does: a
// compute_root intermediate of a pipeline run again and again then reuses pages already
// faulted in. Large blocks (above 4 MiB) are kept in one cache for the process, bounded by
// memory_cache_size(); this header controls it. Halide 14 caches device memory only
// (halide_reuse_device_allocations, halide_cuda_release_unused_device_allocations: a flushed
// cache and a retry when cuMemAlloc fails, as here); its host memory is malloc and free.
#pragma once

#include <cstdint>

namespace loom {

/** What the process-wide cache holds now and has done since the process started. */
struct MemoryCacheStats {
    int64_t size_limit = 0;              ///< the bound, in bytes
    int64_t cached_bytes = 0;            ///< free blocks held now, with their headers
    int64_t cached_blocks = 0;           ///< free blocks held now
    int64_t hits = 0;                    ///< large allocations served from the cache
    int64_t misses = 0;                  ///< large allocations that took fresh memory
    int64_t releases_under_pressure = 0; ///< times a failed allocation emptied the cache
};

MemoryCacheStats memory_cache_stats();

/** Gives every cached free block back to the system (the process-wide cache, and the calling
 * thread's small blocks; other threads keep theirs, at most 16 MiB each, until they exit).
 * Memory a running pipeline holds is not affected. Call it after the last run of a pipeline
 * that will not run again soon. */
void release_memory_cache();

/** Sets the bound of the process-wide cache in bytes; 0 turns it off. Lowering it gives back
 * cached blocks at once, least recently cached first. Throws loom::CompileError for a negative
 * size. */
void set_memory_cache_size(int64_t bytes);

/** Restores the default bound: LOOM_MEMORY_CACHE_SIZE (bytes, with an optional K, M or G
 * suffix) if set, else an eighth of physical memory, at most 2 GiB. */
void reset_memory_cache_size();

/** The bound the cache has now. */
int64_t memory_cache_size();

/** Device (CUDA) memory kept between runs: a GPU intermediate's memory, and the device copy
 * of a Buffer that died, are kept for the next device allocation of about their size, so that
 * a pipeline run again allocates nothing from the driver (Halide's
 * halide_reuse_device_allocations, on by default here). When the device is full, what is kept
 * is given back and the allocation tried again. */
struct DeviceMemoryStats {
    int64_t driver_allocations = 0;      ///< cuMemAlloc calls since the process started
    int64_t driver_frees = 0;            ///< cuMemFree calls since the process started
    int64_t reuses = 0;                  ///< allocations served by kept memory
    int64_t releases_under_pressure = 0; ///< times a full device made the pool give back
    int64_t kept_blocks = 0;             ///< blocks kept for reuse now
    int64_t kept_bytes = 0;              ///< their bytes
};

DeviceMemoryStats device_memory_stats();

/** Gives the device memory kept for reuse back to the driver (Halide's
 * halide_device_release_unused). Throws loom::RuntimeError with the driver's message if the
 * driver fails. Does nothing where nothing is kept. */
void release_unused_device_memory();

/** Whether freed device memory is kept for reuse (true, the default); false gives back what
 * is kept and frees at once from then on. */
void reuse_device_allocations(bool reuse);

} // namespace loom
