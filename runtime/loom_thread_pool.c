/* The thread pool behind parallel loops.
 *
 * loom_do_par_for runs f(user_context, i, closure) for every i in [min, min + extent). The
 * calling thread works on its own loop too, so a parallel loop nested inside another (called
 * from a worker) always makes progress even when every worker is busy: nesting never
 * deadlocks, it only shares the workers. Iterations are claimed one at a time from a shared
 * counter. The first nonzero return value is the loop's result; the remaining iterations
 * still run (they may hold no resources), which keeps the bookkeeping simple. */
#include "loom_runtime.h"

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct loom_job {
    loom_task_fn f;
    void *user_context;
    void *closure;
    int32_t next, end;       /* next unclaimed index, one past the last */
    int32_t unfinished;      /* claimed or unclaimed iterations not yet completed */
    int32_t result;
    struct loom_job *next_job;
} loom_job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work_available;
    pthread_cond_t job_done;
    loom_job *jobs;          /* stack of jobs with unclaimed iterations */
    int threads_started;
    int desired_threads;
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, 0, 0};

/* Claims and runs one iteration of job; called and returns with the lock held. */
static void run_one(loom_job *job) {
    int32_t i = job->next++;
    if (job->next >= job->end) {
        /* Fully claimed: take it off the stack. */
        loom_job **p = &pool.jobs;
        while (*p && *p != job) p = &(*p)->next_job;
        if (*p) *p = job->next_job;
    }
    pthread_mutex_unlock(&pool.lock);
    int32_t r = job->f(job->user_context, i, job->closure);
    pthread_mutex_lock(&pool.lock);
    if (r != 0 && job->result == 0) job->result = r;
    if (--job->unfinished == 0) pthread_cond_broadcast(&pool.job_done);
}

static void *worker(void *arg) {
    (void)arg;
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        while (!pool.jobs) pthread_cond_wait(&pool.work_available, &pool.lock);
        run_one(pool.jobs);
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
    pthread_mutex_lock(&pool.lock);
    if (pool.desired_threads == 0) pool.desired_threads = thread_count();
    /* The caller is one of the threads; start the others once. */
    while (pool.threads_started < pool.desired_threads - 1) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0) break;
        pthread_detach(t);
        pool.threads_started++;
    }
    loom_job job = {f, user_context, closure, min, min + extent, extent, 0, pool.jobs};
    pool.jobs = &job;
    pthread_cond_broadcast(&pool.work_available);
    while (job.next < job.end) run_one(&job);
    while (job.unfinished > 0) pthread_cond_wait(&pool.job_done, &pool.lock);
    pthread_mutex_unlock(&pool.lock);
    return job.result;
}
