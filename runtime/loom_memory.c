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

/* Blocks handed out by loom_malloc and not yet given back to loom_free (cached free blocks are
 * not in use), counted per thread: a thread's count is the blocks it allocated less those it
 * freed (negative where it frees others' blocks), written by that thread alone with a plain
 * load and store. A locked increment of one shared count took three quarters of loom_malloc's
 * and loom_free's time on an Emerald Rapids machine, where a small Func is allocated per
 * point (fuzz seed 2026 pair 349: the allocator 28% of the run). loom_memory_blocks_in_use
 * sums the live threads' counts and those of the threads that exited. */
typedef struct thread_count {
    _Atomic int64_t in_use;
    struct thread_count *prev, *next; /* the list of live threads' counts, under counts_lock */
} thread_count;
static _Thread_local thread_count my_count;
static _Thread_local int thread_registered;
static pthread_mutex_t counts_lock = PTHREAD_MUTEX_INITIALIZER;
static thread_count *live_counts;
static int64_t exited_in_use; /* under counts_lock */
static pthread_key_t thread_owner;
static pthread_once_t thread_owner_once = PTHREAD_ONCE_INIT;

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

/* At a registered thread's exit: its cached blocks go back, its count to exited_in_use. */
static void thread_exit(void *value) {
    (void)value;
    release_small_cache(&cache);
    pthread_mutex_lock(&counts_lock);
    exited_in_use += atomic_load_explicit(&my_count.in_use, memory_order_relaxed);
    if (my_count.prev)
        my_count.prev->next = my_count.next;
    else
        live_counts = my_count.next;
    if (my_count.next) my_count.next->prev = my_count.prev;
    atomic_store_explicit(&my_count.in_use, 0, memory_order_relaxed);
    pthread_mutex_unlock(&counts_lock);
    thread_registered = 0; /* a later destructor that allocates registers the thread again */
}

static void create_thread_owner(void) { pthread_key_create(&thread_owner, thread_exit); }

/* Adds the calling thread's count to the list, once, and arranges for thread_exit. */
static void register_thread(void) {
    pthread_once(&thread_owner_once, create_thread_owner);
    pthread_mutex_lock(&counts_lock);
    my_count.prev = NULL;
    my_count.next = live_counts;
    if (live_counts) live_counts->prev = &my_count;
    live_counts = &my_count;
    pthread_mutex_unlock(&counts_lock);
    pthread_setspecific(thread_owner, &my_count);
    thread_registered = 1;
}

/* Changes the calling thread's count by delta: no locked instruction (only this thread writes
 * it; loom_memory_blocks_in_use reads it). */
static void count_in_use(int64_t delta) {
    if (!thread_registered) register_thread();
    atomic_store_explicit(&my_count.in_use,
                          atomic_load_explicit(&my_count.in_use, memory_order_relaxed) + delta,
                          memory_order_relaxed);
}

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
    cache.blocks[slot] = block; /* given back at the thread's exit (thread_exit) */
}

/* A block of `capacity` bytes from the current system allocator; under memory pressure, again
 * after giving back every cached block this thread can reach. NULL if both fail. */
static block_header *allocate_fresh(size_t capacity) {
    const loom_system_allocator_t *allocator = atomic_load(&current_allocator);
    block_header *b = (block_header *)allocator->allocate(capacity + kHeaderBytes);
    if (!b) {
        loom_block_cache_release(1);
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
        capacity <= kSmallBlockBytes ? take_small(capacity) : loom_block_cache_take(capacity);
    if (!b) b = allocate_fresh(capacity);
    if (!b) return NULL;
    count_in_use(1);
    return payload_of(b);
}

int64_t loom_memory_blocks_in_use(void) {
    pthread_mutex_lock(&counts_lock);
    int64_t total = exited_in_use;
    for (thread_count *c = live_counts; c; c = c->next)
        total += atomic_load_explicit(&c->in_use, memory_order_relaxed);
    pthread_mutex_unlock(&counts_lock);
    return total;
}

void loom_free(void *user_context, void *ptr) {
    (void)user_context;
    if (!ptr) return;
    count_in_use(-1);
    block_header *b = block_of(ptr);
    if (b->capacity <= kSmallBlockBytes) {
        put_small(b);
    } else if (!loom_block_cache_put(b)) {
        release_block(b);
    }
}

void loom_memory_cache_release(void) {
    loom_block_cache_release(0);
    release_small_cache(&cache);
}
