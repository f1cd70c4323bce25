/* The process-wide cache of large free blocks: why a pipeline run again and again costs its
 * memory traffic and not page faults.
 *
 * A compute_root intermediate of a 4096x4096 float pipeline is a 64 MiB block. The C library
 * serves blocks that large with fresh mmap'd pages and unmaps them at free, so every run of
 * the pipeline faults in every page of every intermediate again: the seeds' chain with every
 * stage at root took about 600 ms a run where its traffic needs about 30 ms. Here, a freed
 * block above kSmallBlockBytes is kept (its pages stay mapped and faulted in) and handed to the
 * next request it fits, as an eager framework's caching allocator does.
 *
 * Invariants, all under `lock`:
 *  - `cached_bytes` is the sum of footprint_of over the list and never exceeds `limit` after a
 *    call returns (blocks are evicted, least recently cached first, to make room);
 *  - the list holds each cached block once, most recently cached first, its payload poisoned
 *    under AddressSanitizer;
 *  - a block serves a request of r bytes only if its capacity is within [r, r + r/4]: the
 *    smallest such block (best fit), so that a 1 GiB block is never tied up by a 1 MiB
 *    request and the slack a request may waste is a quarter of what it asked for.
 * Blocks are given back to their allocator outside the lock (munmap of a large block is a
 * system call; other threads need not wait for it). */
#include "loom_memory_block.h"

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static block_header *cached; /* most recently cached first */
static int64_t cached_bytes; /* footprints of the cached blocks */
static int64_t cached_blocks;
static int64_t limit = -1; /* the bound in bytes; -1 until first read from the default */
static int64_t hits, misses, releases_under_pressure;

/* Without LOOM_MEMORY_CACHE_SIZE: an eighth of physical memory, at most 2 GiB. Enough for
 * the intermediates of the apps' unfused schedules at benchmark size (the chain's four are
 * 256 MiB), small beside what a machine has, since the cache holds memory no pipeline uses. */
static int64_t computed_default_size(void) {
    const int64_t cap = (int64_t)2 << 30;
    long pages = sysconf(_SC_PHYS_PAGES), page_bytes = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_bytes <= 0) return cap;
    int64_t eighth = (int64_t)pages * page_bytes / 8;
    return eighth < cap ? eighth : cap;
}

/* Parses a byte count with an optional K, M or G suffix (powers of 1024). Returns -1 when
 * `text` is not one. */
static int64_t parse_size(const char *text) {
    errno = 0;
    char *end;
    long long value = strtoll(text, &end, 10);
    if (end == text || errno || value < 0) return -1;
    /* K, M or G: 10, 20 or 30 bits. */
    static const char units[] = "KMG";
    const char *unit = *end ? strchr(units, toupper((unsigned char)*end)) : NULL;
    int shift = 0;
    if (unit) {
        shift = 10 * (int)(unit - units + 1);
        end++;
    }
    if (*end != '\0' || value > (INT64_MAX >> shift)) return -1;
    return (int64_t)value << shift;
}

int64_t loom_memory_cache_default_size(void) {
    const int64_t computed = computed_default_size();
    const char *env = getenv("LOOM_MEMORY_CACHE_SIZE");
    if (!env || !*env) return computed;
    int64_t parsed = parse_size(env);
    if (parsed >= 0) return parsed;
    /* Reported once per process: the default is read at the first large allocation and at
     * each reset, and the runtime has no exception to throw from inside a pipeline. */
    static atomic_int reported;
    if (!atomic_exchange(&reported, 1)) {
        fprintf(stderr,
                "loom: LOOM_MEMORY_CACHE_SIZE=%s is not a byte count; write e.g. 512M, 2G or 0 "
                "(no cache). Using the default, %lld bytes.\n",
                env, (long long)computed);
    }
    return computed;
}

/* Reads the default on first use. Called with `lock` held. */
static void ensure_limit(void) {
    if (limit < 0) limit = loom_memory_cache_default_size();
}

/* Unlinks blocks from the tail (least recently cached) until `cached_bytes + room <= limit`,
 * or the list is empty. Returns them as a list for the caller to release outside the lock.
 * Called with `lock` held. */
static block_header *evict_for(int64_t room) {
    block_header *evicted = NULL;
    while (cached && cached_bytes + room > limit) {
        block_header **last = &cached;
        while ((*last)->next)
            last = &(*last)->next;
        block_header *b = *last;
        *last = NULL;
        cached_bytes -= (int64_t)footprint_of(b);
        cached_blocks--;
        b->next = evicted;
        evicted = b;
    }
    return evicted;
}

static void release_list(block_header *b) {
    while (b) {
        block_header *next = b->next;
        release_block(b);
        b = next;
    }
}

block_header *loom_block_cache_take(size_t capacity) {
    const size_t most = capacity + capacity / 4;
    pthread_mutex_lock(&lock);
    block_header **best = NULL;
    for (block_header **p = &cached; *p; p = &(*p)->next) {
        size_t c = (*p)->capacity;
        if (c >= capacity && c <= most && (!best || c < (*best)->capacity)) best = p;
    }
    block_header *b = NULL;
    if (best) {
        b = *best;
        *best = b->next;
        b->next = NULL;
        cached_bytes -= (int64_t)footprint_of(b);
        cached_blocks--;
        hits++;
    } else {
        misses++;
    }
    pthread_mutex_unlock(&lock);
    if (b) unpoison_payload(b);
    return b;
}

int loom_block_cache_put(block_header *b) {
    const int64_t footprint = (int64_t)footprint_of(b);
    pthread_mutex_lock(&lock);
    ensure_limit();
    if (footprint > limit) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    block_header *evicted = evict_for(footprint);
    poison_payload(b);
    b->next = cached;
    cached = b;
    cached_bytes += footprint;
    cached_blocks++;
    pthread_mutex_unlock(&lock);
    release_list(evicted);
    return 1;
}

int64_t loom_block_cache_release(int under_pressure) {
    pthread_mutex_lock(&lock);
    block_header *all = cached;
    int64_t bytes = cached_bytes;
    cached = NULL;
    cached_bytes = 0;
    cached_blocks = 0;
    if (under_pressure) releases_under_pressure++;
    pthread_mutex_unlock(&lock);
    release_list(all);
    return bytes;
}

void loom_memory_cache_set_size(int64_t bytes) {
    pthread_mutex_lock(&lock);
    limit = bytes < 0 ? loom_memory_cache_default_size() : bytes;
    block_header *evicted = evict_for(0);
    pthread_mutex_unlock(&lock);
    release_list(evicted);
}

void loom_memory_cache_get_stats(loom_memory_cache_stats_t *stats) {
    pthread_mutex_lock(&lock);
    ensure_limit();
    stats->size_limit = limit;
    stats->cached_bytes = cached_bytes;
    stats->cached_blocks = cached_blocks;
    stats->hits = hits;
    stats->misses = misses;
    stats->releases_under_pressure = releases_under_pressure;
    pthread_mutex_unlock(&lock);
}
