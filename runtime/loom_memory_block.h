/* Internal to the runtime's heap (loom_memory.c, loom_memory_cache.c): the layout of a block,
 * where fresh blocks come from, and the process-wide cache of large free blocks. Not installed,
 * not part of the C ABI.
 *
 * A block is one allocation from a system allocator: a header of kHeaderBytes, then the
 * caller's memory (64-byte aligned, capacity bytes). The header records the capacity, so that
 * loom_free knows which cache may keep the block, and the allocator the block came from, so
 * that it goes back to that one even after loom_set_system_allocator changed the current one. */
#ifndef LOOM_MEMORY_BLOCK_H
#define LOOM_MEMORY_BLOCK_H

#include "loom_runtime.h"

#include <stddef.h>

enum {
    kHeaderBytes = 64, /* keeps the caller's memory 64-byte aligned; holds a block_header */
    /* Blocks up to this capacity are kept by the thread that freed them (loom_memory.c);
     * larger ones by the process-wide cache (loom_memory_cache.c). */
    kSmallBlockBytes = 4 << 20
};

typedef struct block_header {
    size_t capacity;                          /* the caller's bytes, a multiple of 64 */
    const loom_system_allocator_t *allocator; /* gives the block back (release) */
    struct block_header *next;                /* the cache's list, while the block is cached */
} block_header;

_Static_assert(sizeof(block_header) <= kHeaderBytes, "a block header must fit in kHeaderBytes");

static inline void *payload_of(block_header *b) { return (char *)b + kHeaderBytes; }
static inline block_header *block_of(void *payload) {
    return (block_header *)((char *)payload - kHeaderBytes);
}
/* The memory a block takes from its allocator: what the cache's bound counts. */
static inline size_t footprint_of(const block_header *b) { return b->capacity + kHeaderBytes; }

/* AddressSanitizer sees a cached block as freed memory. Compiled pipelines are not
 * instrumented, but the runtime, the tests and the C++ library are: a pointer they keep into
 * a pipeline's freed buffer would, with the cache, read a block that is still allocated and
 * go unnoticed. Poisoning the caller's part of every cached block (the header stays readable:
 * the caches read it) reports such a read as use-after-poison, as ASan's own quarantine would
 * report a use-after-free, and keeps the caches (their locking, bound and accounting) under
 * the sanitizer tests rather than turned off there. */
#if defined(__SANITIZE_ADDRESS__)
#define LOOM_MEMORY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOOM_MEMORY_ASAN 1
#endif
#endif
#ifdef LOOM_MEMORY_ASAN
#include <sanitizer/asan_interface.h>
static inline void poison_payload(block_header *b) {
    __asan_poison_memory_region(payload_of(b), b->capacity);
}
static inline void unpoison_payload(block_header *b) {
    __asan_unpoison_memory_region(payload_of(b), b->capacity);
}
#else
static inline void poison_payload(block_header *b) { (void)b; }
static inline void unpoison_payload(block_header *b) { (void)b; }
#endif

/* Gives a block back to the allocator it came from. The block must not be in any cache. */
static inline void release_block(block_header *b) {
    unpoison_payload(b);
    b->allocator->release(b);
}

/* The process-wide cache of large free blocks (loom_memory_cache.c), under one lock. */

/* Removes and returns the cached block that best fits a request of `capacity` bytes (a
 * multiple of 64, above kSmallBlockBytes), unpoisoned; NULL when none fits. Counts a hit or a
 * miss. */
block_header *loom_block_cache_take(size_t capacity);

/* Keeps a freed large block, poisoned, evicting the least recently cached blocks as needed to
 * stay within the bound; returns 0 (and keeps nothing) when the block alone exceeds the bound,
 * so that the caller releases it. */
int loom_block_cache_put(block_header *b);

/* Gives back every cached block: on request (under_pressure 0) or because an allocation
 * failed (1, counted in the stats). Returns the number of bytes given back. */
int64_t loom_block_cache_release(int under_pressure);

#endif /* LOOM_MEMORY_BLOCK_H */
