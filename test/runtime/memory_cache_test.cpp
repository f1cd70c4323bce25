// The process-wide cache of large free blocks (runtime/loom_memory_cache.c): a freed block
// above 4 MiB serves the next request it fits (best fit, at most a quarter of the request
// wasted), the cache never holds more than its bound, gives everything back on request and
// when an allocation fails, and counts nothing it holds as in use. Every test starts from an
// empty cache with the default bound and the default system allocator.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "loom_runtime.h"

namespace {

constexpr int64_t MiB = int64_t(1) << 20;
constexpr int64_t kHeader = 64; // the heap's per-block header, counted in cached_bytes

loom_memory_cache_stats_t stats() {
    loom_memory_cache_stats_t s;
    loom_memory_cache_get_stats(&s);
    return s;
}

// A system allocator with a budget: it refuses any allocation that would take the bytes it
// has handed out (and not taken back) over `budget`, as a process under a memory limit sees.
struct BudgetAllocator {
    static std::mutex lock;
    static std::map<void *, size_t> live;
    static size_t outstanding, budget;
    static int64_t refused;

    static void *allocate(size_t bytes) {
        std::lock_guard<std::mutex> guard(lock);
        if (outstanding + bytes > budget) {
            refused++;
            return nullptr;
        }
        void *p = std::aligned_alloc(64, bytes);
        if (p) {
            live[p] = bytes;
            outstanding += bytes;
        }
        return p;
    }
    static void release(void *block) {
        std::lock_guard<std::mutex> guard(lock);
        auto it = live.find(block);
        ASSERT_NE(it, live.end()) << "a block went back to an allocator that did not make it";
        outstanding -= it->second;
        live.erase(it);
        std::free(block);
    }
};
std::mutex BudgetAllocator::lock;
std::map<void *, size_t> BudgetAllocator::live;
size_t BudgetAllocator::outstanding = 0, BudgetAllocator::budget = 0;
int64_t BudgetAllocator::refused = 0;
const loom_system_allocator_t budget_allocator = {BudgetAllocator::allocate,
                                                  BudgetAllocator::release};

class MemoryCache : public ::testing::Test {
protected:
    void SetUp() override { reset(); }
    void TearDown() override {
        reset();
        loom_memory_cache_set_size(-1);
    }
    // A bound of its own, so that the tests do not depend on the machine's memory (the
    // default is a fraction of it).
    static void reset() {
        loom_set_system_allocator(nullptr);
        loom_memory_cache_release();
        loom_memory_cache_set_size(kTestBound);
    }
    static constexpr int64_t kTestBound = int64_t(1) << 30;
};

TEST_F(MemoryCache, AFreedLargeBlockServesTheNextRequestOfItsSize) {
    const int64_t in_use = loom_memory_blocks_in_use();
    void *p = loom_malloc(nullptr, 64 * MiB);
    ASSERT_NE(p, nullptr);
    std::memset(p, 1, 64 * MiB);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use + 1);
    loom_free(nullptr, p);
    // Cached, not in use.
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use);
    EXPECT_EQ(stats().cached_blocks, 1);
    EXPECT_EQ(stats().cached_bytes, 64 * MiB + kHeader);

    const int64_t hits = stats().hits;
    void *again = loom_malloc(nullptr, 64 * MiB);
    EXPECT_EQ(again, p) << "the second run of a compute_root intermediate should reuse its block";
    EXPECT_EQ(stats().hits, hits + 1);
    EXPECT_EQ(stats().cached_blocks, 0);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use + 1);
    loom_free(nullptr, again);
}

TEST_F(MemoryCache, BestFitWastesAtMostAQuarterOfTheRequest) {
    void *b8 = loom_malloc(nullptr, 8 * MiB);
    void *b16 = loom_malloc(nullptr, 16 * MiB);
    void *b40 = loom_malloc(nullptr, 40 * MiB);
    for (void *p : {b8, b16, b40})
        loom_free(nullptr, p);
    ASSERT_EQ(stats().cached_blocks, 3);

    // 15 MiB: the 16 MiB block (the 40 MiB one holds it too, with more slack).
    void *p = loom_malloc(nullptr, 15 * MiB);
    EXPECT_EQ(p, b16);
    // 30 MiB: 40 MiB would waste a third of it: fresh memory.
    const int64_t misses = stats().misses;
    void *q = loom_malloc(nullptr, 30 * MiB);
    EXPECT_NE(q, b40);
    EXPECT_EQ(stats().misses, misses + 1);
    // 32 MiB: 40 MiB wastes exactly a quarter: allowed.
    void *r = loom_malloc(nullptr, 32 * MiB);
    EXPECT_EQ(r, b40);
    // 5 MiB: 8 MiB would waste 60%.
    void *s = loom_malloc(nullptr, 5 * MiB);
    EXPECT_NE(s, b8);
    EXPECT_EQ(stats().cached_blocks, 1);
    for (void *x : {p, q, r, s})
        loom_free(nullptr, x);
}

TEST_F(MemoryCache, ReleaseOnRequestEmptiesIt) {
    std::vector<void *> blocks;
    for (int64_t mib : {6, 12, 24})
        blocks.push_back(loom_malloc(nullptr, mib * MiB));
    void *kept = loom_malloc(nullptr, 10 * MiB); // in use across the release
    for (void *p : blocks)
        loom_free(nullptr, p);
    EXPECT_EQ(stats().cached_blocks, 3);
    const int64_t in_use = loom_memory_blocks_in_use();

    loom_memory_cache_release();
    EXPECT_EQ(stats().cached_blocks, 0);
    EXPECT_EQ(stats().cached_bytes, 0);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use) << "blocks in use are not the cache's";
    std::memset(kept, 2, 10 * MiB);
    loom_free(nullptr, kept);
    EXPECT_EQ(stats().cached_blocks, 1);
}

TEST_F(MemoryCache, NeverHoldsMoreThanItsBound) {
    const int64_t bound = 100 * MiB;
    loom_memory_cache_set_size(bound);
    EXPECT_EQ(stats().size_limit, bound);
    // Many distinct sizes, all live at once, then freed: the cache keeps the most recently
    // freed that fit and never more than the bound.
    std::vector<std::pair<void *, int64_t>> blocks;
    for (int k = 0; k < 16; k++) {
        int64_t bytes = 5 * MiB + k * 3 * MiB + k * 4096;
        blocks.push_back({loom_malloc(nullptr, bytes), bytes});
    }
    int64_t last_freed = 0;
    for (auto &[p, bytes] : blocks) {
        loom_free(nullptr, p);
        EXPECT_LE(stats().cached_bytes, bound) << "after freeing a block of " << bytes;
        last_freed = bytes;
    }
    EXPECT_GT(stats().cached_blocks, 0);
    // The last block freed is the most recent: it was kept.
    const int64_t hits = stats().hits;
    loom_free(nullptr, loom_malloc(nullptr, last_freed));
    EXPECT_EQ(stats().hits, hits + 1);

    // A block larger than the bound is not kept at all.
    const int64_t cached = stats().cached_bytes;
    loom_free(nullptr, loom_malloc(nullptr, 2 * bound));
    EXPECT_EQ(stats().cached_bytes, cached);
}

TEST_F(MemoryCache, LoweringTheBoundGivesBackAtOnceAndZeroTurnsItOff) {
    for (int64_t mib : {20, 30, 40})
        loom_free(nullptr, loom_malloc(nullptr, mib * MiB));
    // Different sizes, one after the other: a request takes no block of another size.
    EXPECT_EQ(stats().cached_blocks, 3);
    loom_memory_cache_set_size(50 * MiB);
    // The least recently cached (20 and 30 MiB) went; 40 MiB stays.
    EXPECT_EQ(stats().cached_blocks, 1);
    EXPECT_EQ(stats().cached_bytes, 40 * MiB + kHeader);

    loom_memory_cache_set_size(0);
    EXPECT_EQ(stats().cached_blocks, 0);
    loom_free(nullptr, loom_malloc(nullptr, 8 * MiB));
    EXPECT_EQ(stats().cached_blocks, 0) << "size 0 keeps nothing";
}

TEST_F(MemoryCache, AFailedAllocationReleasesTheCacheAndIsRetried) {
    BudgetAllocator::budget = 160 * MiB;
    loom_set_system_allocator(&budget_allocator);
    // A 100 MiB intermediate of an earlier pipeline, cached.
    loom_free(nullptr, loom_malloc(nullptr, 100 * MiB));
    ASSERT_EQ(stats().cached_blocks, 1);
    const int64_t pressure = stats().releases_under_pressure;
    const int64_t refused = BudgetAllocator::refused;

    // 70 MiB does not fit the cached block (more than a quarter wasted) and, fresh, would go
    // over the budget beside it: the cache is given back and the allocation succeeds.
    void *p = loom_malloc(nullptr, 70 * MiB);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(BudgetAllocator::refused, refused + 1);
    EXPECT_EQ(stats().releases_under_pressure, pressure + 1);
    EXPECT_EQ(stats().cached_blocks, 0);
    std::memset(p, 3, 70 * MiB);

    // More than the budget even with nothing cached: reported as failure (NULL), after one
    // retry.
    EXPECT_EQ(loom_malloc(nullptr, 200 * MiB), nullptr);
    EXPECT_EQ(stats().releases_under_pressure, pressure + 2);
    loom_free(nullptr, p);
    // Blocks go back to the allocator that made them, also after it is replaced.
    loom_set_system_allocator(nullptr);
    loom_memory_cache_release();
    EXPECT_EQ(BudgetAllocator::outstanding, 0u);
}

TEST_F(MemoryCache, SmallBlocksCachedByTheThreadAreReleasedUnderPressureToo) {
    BudgetAllocator::budget = 2 * MiB;
    loom_set_system_allocator(&budget_allocator);
    // A 1 MiB block kept by this thread's cache of small blocks.
    loom_free(nullptr, loom_malloc(nullptr, MiB));
    ASSERT_GT(BudgetAllocator::outstanding, 0u);
    const int64_t refused = BudgetAllocator::refused;
    // 1.5 MiB does not fit in it, and beside it would go over the budget: the thread's cache
    // is given back first.
    void *p = loom_malloc(nullptr, 3 * MiB / 2);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(BudgetAllocator::refused, refused + 1);
    loom_free(nullptr, p);
    loom_set_system_allocator(nullptr);
    loom_memory_cache_release();
    EXPECT_EQ(BudgetAllocator::outstanding, 0u);
}

TEST_F(MemoryCache, ThreadsAllocatingAndFreeingAtOnce) {
    // A bound that holds a few of the blocks, so that evictions race with takes too.
    const int64_t bound = 48 * MiB;
    loom_memory_cache_set_size(bound);
    const int64_t in_use = loom_memory_blocks_in_use();
    std::atomic<int> corrupted{0};
    auto churn = [&](int seed) {
        for (int round = 0; round < 30; round++) {
            // 5, 7, 9 or 11 MiB.
            const int64_t bytes = (5 + 2 * ((round * 7 + seed * 3) % 4)) * MiB;
            auto *p = static_cast<unsigned char *>(loom_malloc(nullptr, bytes));
            if (!p) {
                corrupted++;
                return;
            }
            const unsigned char mark = (unsigned char)(seed * 31 + round);
            std::memset(p, mark, bytes);
            // Nobody else wrote it while this thread held it.
            for (int64_t k = 0; k < bytes; k += 4093) {
                if (p[k] != mark) corrupted++;
            }
            loom_free(nullptr, p);
        }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++)
        threads.emplace_back(churn, t);
    for (auto &t : threads)
        t.join();
    EXPECT_EQ(corrupted.load(), 0);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use);
    EXPECT_LE(stats().cached_bytes, bound);
    EXPECT_GT(stats().hits, 0);
}

TEST_F(MemoryCache, DefaultSizeFromTheEnvironment) {
    const char *saved = std::getenv("LOOM_MEMORY_CACHE_SIZE");
    const std::string saved_value = saved ? saved : "";
    unsetenv("LOOM_MEMORY_CACHE_SIZE");
    const int64_t computed = loom_memory_cache_default_size();
    EXPECT_GT(computed, 0);
    EXPECT_LE(computed, int64_t(2) << 30);

    setenv("LOOM_MEMORY_CACHE_SIZE", "512M", 1);
    EXPECT_EQ(loom_memory_cache_default_size(), 512 * MiB);
    loom_memory_cache_set_size(-1);
    EXPECT_EQ(stats().size_limit, 512 * MiB);
    setenv("LOOM_MEMORY_CACHE_SIZE", "3G", 1);
    EXPECT_EQ(loom_memory_cache_default_size(), int64_t(3) << 30);
    setenv("LOOM_MEMORY_CACHE_SIZE", "0", 1);
    EXPECT_EQ(loom_memory_cache_default_size(), 0);
    // Not a byte count: the computed default (and a message on stderr).
    setenv("LOOM_MEMORY_CACHE_SIZE", "lots", 1);
    EXPECT_EQ(loom_memory_cache_default_size(), computed);

    if (saved) {
        setenv("LOOM_MEMORY_CACHE_SIZE", saved_value.c_str(), 1);
    } else {
        unsetenv("LOOM_MEMORY_CACHE_SIZE");
    }
}

// A pipeline's buffer read after its run freed it must still be reported under
// AddressSanitizer, though the heap keeps the block: cached blocks are poisoned.
#if defined(__SANITIZE_ADDRESS__)
TEST_F(MemoryCache, ACachedBlockIsPoisonedUnderAddressSanitizer) {
    // The thread pool's threads of earlier tests may be alive in this process.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    for (int64_t bytes : {int64_t(64) << 10, 8 * MiB}) { // a thread's small block, a large one
        auto *p = static_cast<volatile char *>(loom_malloc(nullptr, bytes));
        p[100] = 1;
        loom_free(nullptr, const_cast<char *>(p));
        EXPECT_DEATH((void)p[100], "use-after-poison") << bytes << " bytes";
        // Handed out again, it is writable.
        auto *q = static_cast<volatile char *>(loom_malloc(nullptr, bytes));
        EXPECT_EQ(q, p);
        q[100] = 2;
        loom_free(nullptr, const_cast<char *>(q));
    }
}
#endif

} // namespace
