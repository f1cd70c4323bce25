/* The heap behind allocations of intermediate Funcs (loom_malloc / loom_free).
 *
 * Small blocks (up to kSmallBlockBytes): a Func computed inside a parallel loop (a row's
 * scratch, a tile) is allocated and freed once per iteration: thousands of times a run. Through
 * the C library each pair costs a trip into malloc's arena, under its lock when two threads
 * free at once (a row softmax spent 12% of its time in _int_free and malloc_consolidate). So
 * every thread keeps the last few small blocks it freed and hands them out again to requests
 * that fit: after the first iteration, a loop's allocation is a search of a few entries, with
 * no lock. A thread's cached blocks go back to their allocator when the thread exits.
 *
 * Large blocks: a compute_root intermediate of a pipeline run again and again. Freed, they go
 * to the process-wide cache (loom_memory_cache.c), bounded, under a lock, so that the next run
 * reuses pages already faulted in.
 *
 * Memory pressure: when the system allocator fails, the cached blocks (the process-wide cache
 * and the calling thread's small ones) are given back and the allocation is tried once more
 * before loom_malloc reports failure (NULL: the pipeline then reports out of memory). */
#include "loom_memory_block.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { kSmallBlocksPerThread = 4 };

typedef struct small_cache {
    block_header *blocks[kSmallBlocksPerThread]; /* NULL where empty */
} small_cache;

static _Thread_local small_cache cache;
/* Blocks handed out by loom_malloc and not yet given back to loom_free, in all threads. Cached
 * free blocks are not in use. */
static _Atomic int64_t blocks_in_use;
static _Thread_local int cache_registered;
static pthread_key_t cache_owner;
static pthread_once_t cache_owner_once = PTHREAD_ONCE_INIT;

static void *default_allocate(size_t bytes) { return aligned_alloc(64, bytes); }
static void default_release(void *block) { free(block); }
static const loom_system_allocator_t default_allocator = {default_allocate, default_release};
static const loom_system_allocator_t *_Atomic current_allocator = &default_allocator;

void loom_set_system_allocator(const loom_system_allocator_t *allocator) {
    atomic_store(&current_allocator, allocator ? allocator : &default_allocator);
}

/* Gives the blocks of a thread's small cache back to their allocators. Runs at the exit of a
 * thread that cached a block, and under memory pressure. */
static void release_small_cache(void *value) {
    small_cache *c = (small_cache *)value;
    for (int k = 0; k < kSmallBlocksPerThread; k++) {
        if (c->blocks[k]) release_block(c->blocks[k]);
        c->blocks[k] = NULL;
    }
}

static void create_cache_owner(void) { pthread_key_create(&cache_owner, release_small_cache); }

/* The smallest block of the thread's cache that holds `capacity` bytes, removed from it;
 * NULL if none. */
static block_header *take_small(size_t capacity) {
    int best = -1;
    for (int k = 0; k < kSmallBlocksPerThread; k++) {
        block_header *b = cache.blocks[k];
        if (b && b->capacity >= capacity &&
            (best < 0 || b->capacity < cache.blocks[best]->capacity))
            best = k;
    }
    if (best < 0) return NULL;
    block_header *b = cache.blocks[best];
    cache.blocks[best] = NULL;
    unpoison_payload(b);
    return b;
}

/* Keeps a freed small block in an empty slot, else in place of the smallest block cached if
 * this one is larger (it serves more requests); gives back whichever is left out. */
static void put_small(block_header *block) {
    int slot = -1;
    for (int k = 0; k < kSmallBlocksPerThread && slot < 0; k++) {
        if (!cache.blocks[k]) slot = k;
    }
    if (slot < 0) {
        slot = 0;
        for (int k = 1; k < kSmallBlocksPerThread; k++) {
            if (cache.blocks[k]->capacity < cache.blocks[slot]->capacity) slot = k;
        }
        if (cache.blocks[slot]->capacity >= block->capacity) {
            release_block(block);
            return;
        }
        release_block(cache.blocks[slot]);
    }
    poison_payload(block);
    cache.blocks[slot] = block;
    if (!cache_registered) {
        /* Registers the thread's cache for release at its exit. */
        pthread_once(&cache_owner_once, create_cache_owner);
        pthread_setspecific(cache_owner, &cache);
        cache_registered = 1;
    }
}

/* A block of `capacity` bytes from the current system allocator; under memory pressure, again
 * after giving back every cached block this thread can reach. NULL if both fail. */
static block_header *allocate_fresh(size_t capacity) {
    const loom_system_allocator_t *allocator = atomic_load(&current_allocator);
    block_header *b = (block_header *)allocator->allocate(capacity + kHeaderBytes);
    if (!b) {
        memory_cache_release(1);
        release_small_cache(&cache);
        b = (block_header *)allocator->allocate(capacity + kHeaderBytes);
        if (!b) return NULL;
    }
    b->capacity = capacity;
    b->allocator = allocator;
    b->next = NULL;
    return b;
}

void *loom_malloc(void *user_context, int64_t bytes) {
    (void)user_context;
    if (bytes <= 0) bytes = 1;
    /* A multiple of 64, as aligned_alloc needs and the cache's best fit assumes. */
    size_t capacity = ((size_t)bytes + 63) & ~(size_t)63;
    block_header *b =
        capacity <= kSmallBlockBytes ? take_small(capacity) : memory_cache_take(capacity);
    if (!b) b = allocate_fresh(capacity);
    if (!b) return NULL;
    atomic_fetch_add_explicit(&blocks_in_use, 1, memory_order_relaxed);
    return payload_of(b);
}

int64_t loom_memory_blocks_in_use(void) {
    return atomic_load_explicit(&blocks_in_use, memory_order_relaxed);
}

void loom_free(void *user_context, void *ptr) {
    (void)user_context;
    if (!ptr) return;
    atomic_fetch_sub_explicit(&blocks_in_use, 1, memory_order_relaxed);
    block_header *b = block_of(ptr);
    if (b->capacity <= kSmallBlockBytes) {
        put_small(b);
    } else if (!memory_cache_put(b)) {
        release_block(b);
    }
}

void loom_memory_cache_release(void) {
    memory_cache_release(0);
    release_small_cache(&cache);
}
