// The thread pool (runtime/loom_thread_pool.c): every iteration of a parallel loop runs once,
// nested loops finish, the first error is the loop's result, each thread runs a contiguous
// part front to back, and what a held-up thread has not claimed is stolen.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <climits>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "loom_runtime.h"

namespace {

// Sets the pool's size for one test and restores the default (the core count) after it.
class ThreadPool : public ::testing::Test {
protected:
    void TearDown() override { loom_set_num_threads(0); }
};

struct Counts {
    int32_t min;
    std::vector<std::atomic<int>> runs;
    Counts(int32_t min, int32_t extent) : min(min), runs(extent) {}
};

int32_t count_run(void *, int32_t i, void *closure) {
    auto *c = static_cast<Counts *>(closure);
    c->runs[i - c->min]++;
    return 0;
}

TEST_F(ThreadPool, EveryIterationRunsOnce) {
    for (int threads : {1, 2, 3, 8}) {
        loom_set_num_threads(threads);
        for (int32_t extent : {1, 2, 7, 1000, 20011}) {
            Counts c(-37, extent);
            ASSERT_EQ(loom_do_par_for(nullptr, count_run, -37, extent, &c), 0);
            for (int32_t i = 0; i < extent; i++)
                ASSERT_EQ(c.runs[i].load(), 1) << "iteration " << i - 37 << " of " << extent
                                               << " on " << threads << " threads";
        }
    }
}

TEST_F(ThreadPool, IterationsNearTheTopOfTheIntRange) {
    // Parts hold offsets from min: a loop ending at INT32_MAX must not overflow.
    loom_set_num_threads(3);
    const int32_t extent = 5000, min = INT32_MAX - extent + 1;
    Counts c(min, extent);
    ASSERT_EQ(loom_do_par_for(nullptr, count_run, min, extent, &c), 0);
    for (int32_t i = 0; i < extent; i++)
        ASSERT_EQ(c.runs[i].load(), 1) << "iteration " << min + i;
}

struct Nested {
    std::vector<std::atomic<int>> runs;
    Nested() : runs(8 * 300) {}
};

int32_t inner_run(void *, int32_t i, void *closure) {
    static_cast<Nested *>(closure)->runs[i]++;
    return 0;
}

int32_t outer_run(void *user_context, int32_t i, void *closure) {
    return loom_do_par_for(user_context, inner_run, i * 300, 300, closure);
}

TEST_F(ThreadPool, NestedLoopsFinish) {
    for (int threads : {1, 2, 4}) {
        loom_set_num_threads(threads);
        Nested n;
        ASSERT_EQ(loom_do_par_for(nullptr, outer_run, 0, 8, &n), 0);
        for (size_t i = 0; i < n.runs.size(); i++)
            ASSERT_EQ(n.runs[i].load(), 1) << "inner iteration " << i << " on " << threads;
    }
}

int32_t fail_at_five(void *, int32_t i, void *closure) {
    static_cast<Counts *>(closure)->runs[i]++;
    return i == 5 ? -7 : 0;
}

TEST_F(ThreadPool, AnErrorIsTheLoopsResultAndTheOtherIterationsStillRun) {
    loom_set_num_threads(2);
    Counts c(0, 64);
    EXPECT_EQ(loom_do_par_for(nullptr, fail_at_five, 0, 64, &c), -7);
    for (int32_t i = 0; i < 64; i++)
        EXPECT_EQ(c.runs[i].load(), 1) << "iteration " << i;
}

// Records, per thread, the order in which it ran iterations.
struct Order {
    std::mutex lock;
    std::map<std::thread::id, std::vector<int32_t>> by_thread;
};

int32_t record_order(void *, int32_t i, void *closure) {
    auto *o = static_cast<Order *>(closure);
    // A little work, so that every thread gets to run.
    volatile double sink = 0;
    for (int k = 0; k < 2000; k++)
        sink = sink + k * 0.5;
    std::lock_guard<std::mutex> guard(o->lock);
    o->by_thread[std::this_thread::get_id()].push_back(i);
    return 0;
}

TEST_F(ThreadPool, EachThreadRunsConsecutiveIterations) {
    // A thread takes i + 1 after i except where it starts on a part or steals half of one:
    // a few times per thread, never once per iteration (as a shared counter would make it).
    loom_set_num_threads(4);
    Order o;
    const int32_t extent = 4096;
    ASSERT_EQ(loom_do_par_for(nullptr, record_order, 0, extent, &o), 0);
    size_t ran = 0, jumps = 0;
    for (const auto &[thread, order] : o.by_thread) {
        ran += order.size();
        for (size_t k = 1; k < order.size(); k++)
            jumps += order[k] != order[k - 1] + 1;
    }
    EXPECT_EQ(ran, size_t(extent));
    EXPECT_LT(jumps, size_t(extent / 16)) << "threads ran scattered iterations";
}

// The first iteration waits until the other threads have run all but its thread's claimed
// chunk: the rest of that thread's part must be stolen while it is held up.
struct HeldUp {
    int32_t extent, others_must_run;
    std::atomic<int32_t> done{0};
    std::atomic<bool> timed_out{false};
};

int32_t hold_up_first(void *, int32_t i, void *closure) {
    auto *h = static_cast<HeldUp *>(closure);
    if (i == 0) {
        const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (h->done.load() < h->others_must_run) {
            if (std::chrono::steady_clock::now() > give_up) {
                h->timed_out = true;
                break;
            }
            std::this_thread::yield();
        }
    }
    h->done++;
    return 0;
}

TEST_F(ThreadPool, AHeldUpThreadKeepsOnlyTheChunkItClaimed) {
    // Owners claim 1/16 of what their part has left at a time (fewer locked instructions per
    // row); the rest stays for thieves. With 2 parts of 512, the held-up thread's first chunk
    // is iterations 0-31: the other 992 must run without it.
    loom_set_num_threads(2);
    HeldUp h;
    h.extent = 1024;
    h.others_must_run = h.extent - h.extent / 2 / 16;
    ASSERT_EQ(loom_do_par_for(nullptr, hold_up_first, 0, h.extent, &h), 0);
    EXPECT_FALSE(h.timed_out.load()) << "the held-up thread's part was not stolen";
    EXPECT_EQ(h.done.load(), h.extent);
}

} // namespace
