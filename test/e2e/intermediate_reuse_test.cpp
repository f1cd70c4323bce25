// A compute_root intermediate of a pipeline run again and again reuses its memory: the second
// run takes the block the first run freed from Loom's heap cache (loom/MemoryCache.h) instead
// of fresh pages, with the same output; runs on several threads at once each get their own
// block; loom::release_memory_cache() gives the memory back. Asserted through the cache's
// counters, not through time.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <loom.h>

namespace {

using namespace loom;

// 1536 x 1536 float32: 9 MiB, above the 4 MiB a thread keeps in its own small cache.
constexpr int kSide = 1536;

/** out(x, y) = f(x, y) + f(x + 1, y), f computed at root into one large intermediate. */
struct TwoStage {
    Func f{"f"}, out{"out"};
    Pipeline pipeline;
    explicit TwoStage(int seed) {
        Var x("x"), y("y");
        f(x, y) = cast<float>(x * 3 + y * 5 + seed);
        out(x, y) = f(x, y) + f(x + 1, y) * 0.5f;
        f.compute_root().parallel(y, 16).vectorize(x, 16);
        out.parallel(y, 16).vectorize(x, 16);
        pipeline = Pipeline(out);
        pipeline.compile_jit();
    }
    Buffer<float> run() { return pipeline.realize({kSide, kSide}); }
    static float expected(int x, int y, int seed) {
        return float(x * 3 + y * 5 + seed) + float((x + 1) * 3 + y * 5 + seed) * 0.5f;
    }
};

::testing::AssertionResult correct(const Buffer<float> &b, int seed) {
    for (int y = 0; y < kSide; y += 7) {
        for (int x = 0; x < kSide; x += 5) {
            if (b(x, y) != TwoStage::expected(x, y, seed)) {
                return ::testing::AssertionFailure()
                       << "seed " << seed << ": out(" << x << ", " << y << ") = " << b(x, y)
                       << ", expected " << TwoStage::expected(x, y, seed);
            }
        }
    }
    return ::testing::AssertionSuccess();
}

class IntermediateReuse : public ::testing::Test {
protected:
    void SetUp() override {
        release_memory_cache();
        set_memory_cache_size(int64_t(1) << 30);
    }
    void TearDown() override {
        release_memory_cache();
        reset_memory_cache_size();
    }
};

TEST_F(IntermediateReuse, SecondRunReusesTheFirstRunsBlock) {
    TwoStage p(1);
    const int64_t in_use = loom_memory_blocks_in_use();
    const MemoryCacheStats before = memory_cache_stats();
    Buffer<float> first = p.run();
    const MemoryCacheStats after_first = memory_cache_stats();
    EXPECT_EQ(after_first.misses, before.misses + 1) << "f's block is fresh on the first run";
    EXPECT_EQ(after_first.cached_blocks, 1) << "and cached when the run frees it";
    EXPECT_GE(after_first.cached_bytes, int64_t(kSide + 1) * kSide * 4);

    Buffer<float> second = p.run();
    const MemoryCacheStats after_second = memory_cache_stats();
    EXPECT_EQ(after_second.hits, after_first.hits + 1) << "the second run takes it back";
    EXPECT_EQ(after_second.misses, after_first.misses) << "and draws no fresh memory";
    EXPECT_EQ(after_second.cached_blocks, 1);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use) << "a cached block is not in use";

    EXPECT_TRUE(correct(first, 1));
    for (int y = 0; y < kSide; y++) {
        for (int x = 0; x < kSide; x++) {
            ASSERT_EQ(first(x, y), second(x, y)) << "at (" << x << ", " << y << ")";
        }
    }

    release_memory_cache();
    EXPECT_EQ(memory_cache_stats().cached_blocks, 0);
    EXPECT_EQ(memory_cache_stats().cached_bytes, 0);
    // After the release the next run starts from fresh memory again.
    Buffer<float> third = p.run();
    EXPECT_EQ(memory_cache_stats().misses, after_second.misses + 1);
    EXPECT_TRUE(correct(third, 1));
}

TEST_F(IntermediateReuse, WithTheCacheOffEveryRunTakesFreshMemory) {
    TwoStage p(2);
    set_memory_cache_size(0);
    const MemoryCacheStats before = memory_cache_stats();
    EXPECT_TRUE(correct(p.run(), 2));
    EXPECT_TRUE(correct(p.run(), 2));
    const MemoryCacheStats after = memory_cache_stats();
    EXPECT_EQ(after.misses, before.misses + 2);
    EXPECT_EQ(after.hits, before.hits);
    EXPECT_EQ(after.cached_blocks, 0);
}

TEST_F(IntermediateReuse, PipelinesRunningAtOnceOnSeveralThreads) {
    constexpr int kThreads = 4, kRuns = 5;
    std::vector<std::unique_ptr<TwoStage>> pipelines;
    for (int t = 0; t < kThreads; t++)
        pipelines.push_back(std::make_unique<TwoStage>(10 + t));
    const int64_t in_use = loom_memory_blocks_in_use();
    const MemoryCacheStats before = memory_cache_stats();
    std::vector<int> wrong(kThreads, 0);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; t++) {
        threads.emplace_back([&, t] {
            for (int run = 0; run < kRuns; run++) {
                if (!correct(pipelines[t]->run(), 10 + t)) wrong[t]++;
            }
        });
    }
    for (auto &th : threads)
        th.join();
    for (int t = 0; t < kThreads; t++)
        EXPECT_EQ(wrong[t], 0) << "thread " << t;
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use);
    const MemoryCacheStats s = memory_cache_stats();
    // At most kThreads blocks are live at once (one per thread), so a run finds none free only
    // while fewer than kThreads exist: at most kThreads runs take fresh memory, every other
    // run reuses a block, and no more than kThreads end up cached.
    EXPECT_LE(s.misses - before.misses, kThreads);
    EXPECT_EQ((s.hits - before.hits) + (s.misses - before.misses), kThreads * kRuns);
    EXPECT_LE(s.cached_blocks, kThreads);
    EXPECT_GE(s.cached_blocks, 1);
}

TEST_F(IntermediateReuse, NegativeSizeIsAnErrorSayingWhatToDo) {
    try {
        set_memory_cache_size(-5);
        FAIL() << "a negative bound was accepted";
    } catch (const CompileError &e) {
        EXPECT_NE(std::string(e.what()).find("reset_memory_cache_size()"), std::string::npos)
            << e.what();
    }
}

} // namespace
