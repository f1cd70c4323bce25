/* The memoization cache of Func::memoize (lower/Memoize.h): regions of memoized Funcs kept
 * between runs, shared by every pipeline of the process, keyed by the Func's name and a key
 * the compiled code builds (a hash of its production, its region, the Params and input
 * buffers it depends on). At most `capacity` bytes of regions; the least recently used go
 * first. One mutex guards it: pipelines may run on several threads at once. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "loom_runtime.h"

typedef struct memo_entry {
    struct memo_entry *prev, *next; /* most recently used first */
    char *func;
    int64_t *key;
    int32_t key_count;
    void *data;
    int64_t bytes;
    uint64_t eviction_key;
    int32_t has_eviction_key;
} memo_entry;

static pthread_mutex_t memo_lock = PTHREAD_MUTEX_INITIALIZER;
static memo_entry *memo_first = NULL, *memo_last = NULL;
static int64_t memo_bytes = 0, memo_capacity = 1 << 20;

static void unlink_entry(memo_entry *e) {
    if (e->prev)
        e->prev->next = e->next;
    else
        memo_first = e->next;
    if (e->next)
        e->next->prev = e->prev;
    else
        memo_last = e->prev;
    e->prev = e->next = NULL;
}

static void push_front(memo_entry *e) {
    e->prev = NULL;
    e->next = memo_first;
    if (memo_first)
        memo_first->prev = e;
    else
        memo_last = e;
    memo_first = e;
}

static void free_entry(memo_entry *e) {
    unlink_entry(e);
    memo_bytes -= e->bytes;
    free(e->func);
    free(e->key);
    free(e->data);
    free(e);
}

static int same_key(const memo_entry *e, const char *func, const int64_t *key, int32_t key_count,
                    int64_t bytes) {
    return e->key_count == key_count && e->bytes == bytes && strcmp(e->func, func) == 0 &&
           memcmp(e->key, key, sizeof(int64_t) * (size_t)key_count) == 0;
}

/* Evicts the least recently used entries until `incoming` more bytes fit. */
static void make_room(int64_t incoming) {
    while (memo_last && memo_bytes + incoming > memo_capacity)
        free_entry(memo_last);
}

int32_t loom_memoization_cache_lookup(void *user_context, const char *func, const int64_t *key,
                                      int32_t key_count, void *host, int64_t bytes) {
    (void)user_context;
    pthread_mutex_lock(&memo_lock);
    for (memo_entry *e = memo_first; e; e = e->next) {
        if (!same_key(e, func, key, key_count, bytes)) continue;
        memcpy(host, e->data, (size_t)bytes);
        unlink_entry(e);
        push_front(e);
        pthread_mutex_unlock(&memo_lock);
        return 1;
    }
    pthread_mutex_unlock(&memo_lock);
    return 0;
}

int32_t loom_memoization_cache_store(void *user_context, const char *func, const int64_t *key,
                                     int32_t key_count, const void *host, int64_t bytes,
                                     uint64_t eviction_key, int32_t has_eviction_key) {
    (void)user_context;
    pthread_mutex_lock(&memo_lock);
    for (memo_entry *e = memo_first; e; e = e->next) {
        if (same_key(e, func, key, key_count, bytes)) { /* stored by another run meanwhile */
            pthread_mutex_unlock(&memo_lock);
            return 0;
        }
    }
    if (bytes > memo_capacity) { /* never fits: not kept */
        pthread_mutex_unlock(&memo_lock);
        return 0;
    }
    make_room(bytes);
    memo_entry *e = (memo_entry *)calloc(1, sizeof(memo_entry));
    const size_t name_size = strlen(func) + 1;
    if (e) {
        e->func = (char *)malloc(name_size);
        e->key = (int64_t *)malloc(sizeof(int64_t) * (size_t)(key_count > 0 ? key_count : 1));
        e->data = malloc(bytes > 0 ? (size_t)bytes : 1);
    }
    if (!e || !e->func || !e->key || !e->data) { /* out of memory: not kept */
        if (e) {
            free(e->func);
            free(e->key);
            free(e->data);
            free(e);
        }
        pthread_mutex_unlock(&memo_lock);
        return 0;
    }
    memcpy(e->func, func, name_size);
    memcpy(e->key, key, sizeof(int64_t) * (size_t)key_count);
    memcpy(e->data, host, (size_t)bytes);
    e->key_count = key_count;
    e->bytes = bytes;
    e->eviction_key = eviction_key;
    e->has_eviction_key = has_eviction_key;
    push_front(e);
    memo_bytes += bytes;
    pthread_mutex_unlock(&memo_lock);
    return 0;
}

void loom_memoization_cache_set_size(int64_t bytes) {
    pthread_mutex_lock(&memo_lock);
    memo_capacity = bytes > 0 ? bytes : 0;
    make_room(0);
    pthread_mutex_unlock(&memo_lock);
}

void loom_memoization_cache_evict(void *user_context, uint64_t eviction_key) {
    (void)user_context;
    pthread_mutex_lock(&memo_lock);
    for (memo_entry *e = memo_first; e;) {
        memo_entry *next = e->next;
        if (e->has_eviction_key && e->eviction_key == eviction_key) free_entry(e);
        e = next;
    }
    pthread_mutex_unlock(&memo_lock);
}

void loom_memoization_cache_cleanup(void) {
    pthread_mutex_lock(&memo_lock);
    while (memo_first)
        free_entry(memo_first);
    pthread_mutex_unlock(&memo_lock);
}

int64_t loom_memoization_cache_entries(void) {
    pthread_mutex_lock(&memo_lock);
    int64_t n = 0;
    for (memo_entry *e = memo_first; e; e = e->next)
        n++;
    pthread_mutex_unlock(&memo_lock);
    return n;
}
