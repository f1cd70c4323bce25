/* The thread pool behind parallel loops.
 *
 * loom_do_par_for runs f(user_context, i, closure) for every i in [min, min + extent). The
 * calling thread works on its own loop too, so a parallel loop nested inside another (called
 * from a worker) always makes progress even when every worker is busy: nesting never
 * deadlocks, it only shares the workers. The first nonzero return value is the loop's result;
 * the remaining iterations still run (they may hold no resources), which keeps the bookkeeping
 * simple.
 *
 * Which thread runs which iteration: the range is cut into one contiguous part per thread, and
 * each thread runs its part front to back, so a thread's iterations touch consecutive memory
 * (rows y, y + 1, ... of an image) and the hardware prefetcher's stream carries on from one
 * iteration into the next. Handing out iterations one at a time from a shared counter
 * interleaves the threads (thread 0 takes rows 0, 2, 4, ...), and every iteration starts a new
 * stream: a row softmax ran 25% slower that way. A thread whose part is done takes the back
 * half of the largest part left (work stealing), so the threads still finish together when
 * iterations take unequal time.
 *
 * Claiming iterations takes no lock: a part is one atomic word holding its unclaimed range,
 * which its owner shrinks from the front (a chunk at a time, LOOM_CLAIM_DIVISOR) and thieves
 * from the back, each by compare-and-swap. The pool's lock guards the stack of jobs, the
 * handing out of parts and the wake-ups. Each thread fences its streaming stores once per job
 * (fence_streaming_stores), which generated code leaves to the pool. */
#include "loom_runtime.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

/* At most this many parts per loop; threads beyond it steal single iterations. */
#define LOOM_MAX_PARTS 64

/* A part's unclaimed iterations [begin, end), as offsets from the loop's min: begin in the low
 * 32 bits, end in the high. No range is ever stored twice in one part (each holds iterations
 * no earlier value held unclaimed), so compare-and-swap on it cannot be fooled (no ABA). */
typedef struct loom_part {
    _Atomic uint64_t range;
    char padding[64 - sizeof(uint64_t)]; /* owners claiming side by side share no cache line */
} loom_part;

static uint64_t pack(uint32_t begin, uint32_t end) { return (uint64_t)end << 32 | begin; }
static uint32_t begin_of(uint64_t range) { return (uint32_t)range; }
static uint32_t end_of(uint64_t range) { return (uint32_t)(range >> 32); }

typedef struct loom_job {
    loom_part parts[LOOM_MAX_PARTS];
    loom_task_fn f;
    void *user_context;
    void *closure;
    int32_t min;
    int32_t part_count;
    int32_t parts_taken;        /* parts [0, parts_taken) have an owner; under the lock */
    int32_t workers;            /* workers inside work_on for this job; under the lock */
    _Atomic int32_t unfinished; /* iterations not yet completed */
    _Atomic int32_t result;
    struct loom_job *next_job;
} loom_job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work_available;
    pthread_cond_t job_done;
    loom_job *jobs; /* stack of jobs that may have unclaimed iterations */
    int threads_started;
    int desired_threads;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

/* A part of job for a thread joining it, or -1 when every part has an owner. Under the lock. */
static int32_t take_part(loom_job *job) {
    return job->parts_taken < job->part_count ? job->parts_taken++ : -1;
}

/* Takes job off the stack if it is still on it. Under the lock. */
static void unlist(loom_job *job) {
    loom_job **p = &pool.jobs;
    while (*p && *p != job)
        p = &(*p)->next_job;
    if (*p) *p = job->next_job;
}

/* An owner claims this share of its part's unclaimed iterations at once (at least one). A
 * claim is a locked instruction, which waits for the thread's streaming stores to reach
 * memory: claimed one at a time, every row of a row-parallel loop stalled on its own stores
 * before the next row's loads could start. A claimed chunk can't be stolen, so the share stays
 * small: a thread held up (a neighbour's burst on a shared machine) keeps at most 1/16 of what
 * its part had left. */
#define LOOM_CLAIM_DIVISOR 16

/* Claims iterations (offsets from min, packed [begin, end)) for a thread owning part `own`
 * (-1: none): a chunk from the front of its own part, else stolen from the largest part.
 * An empty range when every part is empty. */
static uint64_t claim(loom_job *job, int32_t own) {
    if (own >= 0) {
        uint64_t r = atomic_load(&job->parts[own].range);
        while (begin_of(r) < end_of(r)) {
            const uint32_t left = end_of(r) - begin_of(r);
            const uint32_t chunk = left / LOOM_CLAIM_DIVISOR > 0 ? left / LOOM_CLAIM_DIVISOR : 1;
            if (atomic_compare_exchange_weak(&job->parts[own].range, &r,
                                             pack(begin_of(r) + chunk, end_of(r))))
                return pack(begin_of(r), begin_of(r) + chunk);
        }
    }
    for (;;) {
        int32_t victim = -1;
        uint64_t vr = 0;
        for (int32_t k = 0; k < job->part_count; k++) {
            uint64_t r = atomic_load(&job->parts[k].range);
            if (end_of(r) - begin_of(r) > end_of(vr) - begin_of(vr)) victim = k, vr = r;
        }
        if (victim < 0) return 0;
        const uint32_t begin = begin_of(vr), end = end_of(vr);
        if (own >= 0 && end - begin >= 2) {
            /* The back half: the victim keeps going through its front half undisturbed. The
             * thief runs the first stolen iteration now and puts the rest in its own part,
             * which is empty, so no other thread writes it meanwhile. */
            const uint32_t middle = begin + (end - begin) / 2;
            if (atomic_compare_exchange_strong(&job->parts[victim].range, &vr,
                                               pack(begin, middle))) {
                atomic_store(&job->parts[own].range, pack(middle + 1, end));
                return pack(middle, middle + 1);
            }
        } else if (atomic_compare_exchange_strong(&job->parts[victim].range, &vr,
                                                  pack(begin, end - 1))) {
            return pack(end - 1, end);
        }
    }
}

/* Makes this thread's streaming (non-temporal) stores visible to other threads before what
 * it stores next. Generated code streams its outputs and leaves this fence to the pool: one
 * per thread and job, instead of one per iteration (codegen/CodeGen_LLVM.cpp). */
static void fence_streaming_stores(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_sfence();
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Runs iterations of job until none is left to claim. Called without the lock. The finished
 * iterations are counted off once at the end: a shared counter written after every iteration
 * moved its cache line between the cores each time (7% of a row softmax's time). */
static void work_on(loom_job *job, int32_t own) {
    int32_t finished = 0;
    for (uint64_t claimed; begin_of(claimed = claim(job, own)) < end_of(claimed);) {
        for (uint32_t i = begin_of(claimed); i < end_of(claimed); i++, finished++) {
            int32_t r = job->f(job->user_context, job->min + (int32_t)i, job->closure);
            int32_t no_error = 0;
            if (r != 0) atomic_compare_exchange_strong(&job->result, &no_error, r);
        }
    }
    fence_streaming_stores();
    atomic_fetch_sub(&job->unfinished, finished);
}

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.jobs) pthread_cond_wait(&pool.work_available, &pool.lock);
        /* Registered as one of the job's workers before the lock is released, so that its
         * caller waits for this thread to leave it before the job (on its stack) goes away. */
        loom_job *job = pool.jobs;
        job->workers++;
        int32_t own = take_part(job);
        pthread_mutex_unlock(&pool.lock);
        work_on(job, own);
        pthread_mutex_lock(&pool.lock);
        unlist(job); /* every part is empty */
        if (--job->workers == 0) pthread_cond_broadcast(&pool.job_done);
    }
    return NULL;
}

static int thread_count(void) {
    const char *env = getenv("LOOM_NUM_THREADS");
    int n = env ? atoi(env) : (int)sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : n;
}

void loom_set_num_threads(int n) {
    pthread_mutex_lock(&pool.lock);
    pool.desired_threads = n;
    pthread_mutex_unlock(&pool.lock);
}

int32_t loom_do_par_for(void *user_context, loom_task_fn f, int32_t min, int32_t extent,
                        void *closure) {
    if (extent <= 0) return 0;
    loom_job job;
    job.f = f;
    job.user_context = user_context;
    job.closure = closure;
    job.min = min;
    job.parts_taken = 0;
    job.workers = 0;
    atomic_init(&job.unfinished, extent);
    atomic_init(&job.result, 0);

    pthread_mutex_lock(&pool.lock);
    if (pool.desired_threads == 0) pool.desired_threads = thread_count();
    /* The caller is one of the threads; start the others once. */
    while (pool.threads_started < pool.desired_threads - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0) break;
        pthread_detach(t);
        pool.threads_started++;
    }
    int32_t parts = pool.threads_started + 1;
    if (parts > LOOM_MAX_PARTS) parts = LOOM_MAX_PARTS;
    if (parts > extent) parts = extent;
    job.part_count = parts;
    for (int32_t k = 0; k < parts; k++) {
        /* 64-bit products: extent * parts overflows 32 bits for long loops. */
        atomic_init(&job.parts[k].range, pack((uint32_t)((int64_t)extent * k / parts),
                                              (uint32_t)((int64_t)extent * (k + 1) / parts)));
    }
    job.next_job = pool.jobs;
    pool.jobs = &job;
    int32_t own = take_part(&job);
    if (parts > 1) pthread_cond_broadcast(&pool.work_available);
    pthread_mutex_unlock(&pool.lock);

    work_on(&job, own);

    pthread_mutex_lock(&pool.lock);
    unlist(&job);
    while (atomic_load(&job.unfinished) > 0 || job.workers > 0)
        pthread_cond_wait(&pool.job_done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    return atomic_load(&job.result);
}

/* Func::async's semaphores. One lock and one condition for all of them: a release (once per
 * production) wakes every waiter, each of which checks its own semaphore. Waiting threads are
 * the pool's: a consumer task blocked here holds its thread, which is safe because the
 * producer it waits for never waits (loom_do_fork). */
static pthread_mutex_t semaphore_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t semaphore_changed = PTHREAD_COND_INITIALIZER;

int32_t loom_semaphore_init(void *user_context, int32_t *semaphore, int32_t count) {
    (void)user_context;
    pthread_mutex_lock(&semaphore_lock);
    semaphore[0] = count;
    semaphore[1] = 0;
    pthread_mutex_unlock(&semaphore_lock);
    return 0;
}

int32_t loom_semaphore_release(void *user_context, int32_t *semaphore, int32_t count) {
    (void)user_context;
    pthread_mutex_lock(&semaphore_lock);
    semaphore[0] += count;
    pthread_cond_broadcast(&semaphore_changed);
    pthread_mutex_unlock(&semaphore_lock);
    return 0;
}

int32_t loom_semaphore_acquire(void *user_context, int32_t *semaphore, int32_t count) {
    (void)user_context;
    pthread_mutex_lock(&semaphore_lock);
    while (semaphore[0] < count && semaphore[1] == 0)
        pthread_cond_wait(&semaphore_changed, &semaphore_lock);
    const int32_t failed = semaphore[1];
    if (!failed) semaphore[0] -= count;
    pthread_mutex_unlock(&semaphore_lock);
    return failed;
}

typedef struct loom_fork {
    loom_task_fn f;
    void *closure;
    int32_t **semaphores;
    int32_t count;
} loom_fork;

static int32_t fork_task(void *user_context, int32_t i, void *closure) {
    loom_fork *fork = (loom_fork *)closure;
    int32_t r = fork->f(user_context, i, fork->closure);
    if (r != 0) {
        pthread_mutex_lock(&semaphore_lock);
        for (int32_t k = 0; k < fork->count; k++) {
            if (fork->semaphores[k][1] == 0) fork->semaphores[k][1] = r;
        }
        pthread_cond_broadcast(&semaphore_changed);
        pthread_mutex_unlock(&semaphore_lock);
    }
    return r;
}

/* loom_do_par_for gives its caller the first part, iteration 0: the producer starts at once on
 * this thread, and the consumer runs on a worker that is free, or after the producer here. */
int32_t loom_do_fork(void *user_context, loom_task_fn f, void *closure, int32_t **semaphores,
                     int32_t count) {
    loom_fork fork = {f, closure, semaphores, count};
    return loom_do_par_for(user_context, fork_task, 0, 2, &fork);
}
