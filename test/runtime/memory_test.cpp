// The heap of intermediate Funcs (runtime/loom_memory.c): 64-byte aligned memory of the size
// asked for, and a freed block reused by the same thread's next request that fits.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "loom_runtime.h"

namespace {

TEST(LoomMalloc, AlignedAndWritableForEverySize) {
    std::vector<void *> blocks;
    for (int64_t bytes : {int64_t(0), int64_t(1), int64_t(63), int64_t(64), int64_t(65),
                          int64_t(4096), int64_t(100000), int64_t(5) << 20}) {
        void *p = loom_malloc(nullptr, bytes);
        ASSERT_NE(p, nullptr) << bytes << " bytes";
        EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 64, 0u) << bytes << " bytes";
        std::memset(p, 0xab, bytes);
        blocks.push_back(p);
    }
    // Distinct live blocks.
    EXPECT_EQ(std::set<void *>(blocks.begin(), blocks.end()).size(), blocks.size());
    for (void *p : blocks)
        loom_free(nullptr, p);
    loom_free(nullptr, nullptr);
}

TEST(LoomMalloc, AFreedBlockServesTheThreadsNextRequestThatFits) {
    void *row = loom_malloc(nullptr, 16384);
    loom_free(nullptr, row);
    void *again = loom_malloc(nullptr, 16000);
    EXPECT_EQ(again, row) << "a loop's per-iteration allocation should reuse the block";
    // A larger request cannot use it.
    void *larger = loom_malloc(nullptr, 20000);
    EXPECT_NE(larger, row);
    loom_free(nullptr, larger);
    loom_free(nullptr, again);
}

TEST(LoomMalloc, LiveBlocksAreNeverHandedOutTwice) {
    // Many blocks freed and reallocated in turn on two threads: no two live blocks overlap.
    auto churn = [] {
        std::vector<std::pair<char *, int64_t>> live;
        for (int round = 0; round < 2000; round++) {
            int64_t bytes = 64 + (round * 977) % 30000;
            char *p = static_cast<char *>(loom_malloc(nullptr, bytes));
            std::memset(p, round & 0xff, bytes);
            live.push_back({p, bytes});
            if (live.size() > 6) {
                auto [q, n] = live[(round * 7) % live.size()];
                // Untouched by anyone else since it was written.
                char expected = q[0];
                for (int64_t k = 0; k < n; k++)
                    ASSERT_EQ(q[k], expected);
                loom_free(nullptr, q);
                live.erase(live.begin() + (round * 7) % live.size());
            }
        }
        for (auto &[p, n] : live)
            loom_free(nullptr, p);
    };
    std::thread other(churn);
    churn();
    other.join();
}

TEST(LoomMalloc, BlocksInUseAreCountedAcrossThreadsAndTheirExits) {
    // Each thread counts its own allocations and frees; a block may be freed by another
    // thread than the one that allocated it, and a thread may exit holding blocks.
    const int64_t in_use = loom_memory_blocks_in_use();
    std::vector<void *> blocks(8);
    std::thread allocating([&] {
        for (void *&p : blocks)
            p = loom_malloc(nullptr, 1000);
    });
    allocating.join();
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use + 8) << "an exited thread's blocks are in use";
    std::thread freeing([&] {
        for (int k = 0; k < 4; k++)
            loom_free(nullptr, blocks[k]);
    });
    freeing.join();
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use + 4);
    void *mine = loom_malloc(nullptr, 64);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use + 5);
    for (int k = 4; k < 8; k++)
        loom_free(nullptr, blocks[k]);
    loom_free(nullptr, mine);
    EXPECT_EQ(loom_memory_blocks_in_use(), in_use);
}

} // namespace
