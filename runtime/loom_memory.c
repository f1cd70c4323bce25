/* The heap behind allocations of intermediate Funcs (loom_malloc / loom_free).
 *
 * A Func computed inside a parallel loop (a row's scratch, a tile) is allocated and freed once
 * per iteration: thousands of times a run. Through the C library each pair costs a trip into
 * malloc's arena, under its lock when two threads free at once (a row softmax spent 12% of its
 * time in _int_free and malloc_consolidate). So every thread keeps the last few blocks it freed,
 * up to kCachedBlockBytes each, and hands them out again to requests that fit: after the first
 * iteration, a loop's allocation is a search of a few entries. A thread's cached blocks go back
 * to the C library when the thread exits.
 *
 * Every block starts with a header of kHeaderBytes holding its capacity, so that loom_free knows
 * whether it may be cached; the caller's memory starts after it, 64-byte aligned so that vector
 * loads never split cache lines. */
#include "loom_runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum {
    kHeaderBytes = 64,          /* keeps the caller's memory 64-byte aligned */
    kCachedBlocks = 4,          /* per thread */
    kCachedBlockBytes = 4 << 20 /* larger blocks go straight back to the C library */
};

typedef struct block_cache {
    void *blocks[kCachedBlocks]; /* block starts (headers), NULL where empty */
} block_cache;

static _Thread_local block_cache cache;
/* Blocks handed out by loom_malloc and not yet given back to loom_free, in all threads. */
static _Atomic int64_t blocks_in_use;
static _Thread_local int cache_registered;
static pthread_key_t cache_owner;
static pthread_once_t cache_owner_once = PTHREAD_ONCE_INIT;

static size_t capacity_of(void *block) { return *(size_t *)block; }

/* Runs at the exit of a thread that cached a block: returns its blocks to the C library. */
static void release_cache(void *value) {
    block_cache *c = (block_cache *)value;
    for (int k = 0; k < kCachedBlocks; k++) {
        free(c->blocks[k]);
        c->blocks[k] = NULL;
    }
}

static void create_cache_owner(void) { pthread_key_create(&cache_owner, release_cache); }

void *loom_malloc(void *user_context, int64_t bytes) {
    (void)user_context;
    if (bytes <= 0) bytes = 1;
    /* aligned_alloc needs a size that is a multiple of the alignment. */
    size_t capacity = ((size_t)bytes + 63) & ~(size_t)63;
    /* The smallest cached block that holds the request. */
    int best = -1;
    for (int k = 0; k < kCachedBlocks; k++) {
        void *b = cache.blocks[k];
        if (b && capacity_of(b) >= capacity &&
            (best < 0 || capacity_of(b) < capacity_of(cache.blocks[best])))
            best = k;
    }
    void *block;
    if (best >= 0) {
        block = cache.blocks[best];
        cache.blocks[best] = NULL;
    } else {
        block = aligned_alloc(64, capacity + kHeaderBytes);
        if (!block) return NULL;
        *(size_t *)block = capacity;
    }
    atomic_fetch_add_explicit(&blocks_in_use, 1, memory_order_relaxed);
    return (char *)block + kHeaderBytes;
}

int64_t loom_memory_blocks_in_use(void) {
    return atomic_load_explicit(&blocks_in_use, memory_order_relaxed);
}

void loom_free(void *user_context, void *ptr) {
    (void)user_context;
    if (!ptr) return;
    atomic_fetch_sub_explicit(&blocks_in_use, 1, memory_order_relaxed);
    void *block = (char *)ptr - kHeaderBytes;
    if (capacity_of(block) <= kCachedBlockBytes) {
        /* Keep it in an empty slot, else in place of the smallest block cached if this one is
         * larger (it serves more requests). */
        int slot = -1;
        for (int k = 0; k < kCachedBlocks && slot < 0; k++) {
            if (!cache.blocks[k]) slot = k;
        }
        if (slot < 0) {
            slot = 0;
            for (int k = 1; k < kCachedBlocks; k++) {
                if (capacity_of(cache.blocks[k]) < capacity_of(cache.blocks[slot])) slot = k;
            }
            if (capacity_of(cache.blocks[slot]) >= capacity_of(block)) {
                free(block);
                return;
            }
            free(cache.blocks[slot]);
        }
        cache.blocks[slot] = block;
        if (!cache_registered) {
            /* Registers the thread's cache for release at its exit. */
            pthread_once(&cache_owner_once, create_cache_owner);
            pthread_setspecific(cache_owner, &cache);
            cache_registered = 1;
        }
        return;
    }
    free(block);
}
