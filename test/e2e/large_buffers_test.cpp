// Target::LargeBuffers: buffers and Func storage past 2^31 - 1 elements are addressed with
// 64-bit offsets and give the values C++ gives; without the feature each is refused with a
// message naming it (at entry for a buffer, at allocation or compile time for storage),
// never addressed with wrapped 32-bit offsets. Its own executable: the buffers take 2 GiB
// each, more than the sanitized suite should hold.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using loom_test::error_of;
using ::testing::AllOf;
using ::testing::HasSubstr;

// 2^31 + 2^16 elements of one byte: the last rows lie past what 32-bit offsets address.
constexpr int kWidth = 65536, kHeight = 32769;

Target large_buffers() { return get_host_target().with_feature(Target::LargeBuffers); }

uint8_t pattern(int64_t x, int64_t y) { return (uint8_t)(x * 3 + y * 5 + (x >> 8) * 7); }

TEST(LargeBuffers, TheFeatureIsHalidesAndRaisesTheMaximumBufferSize) {
    EXPECT_FALSE(get_host_target().has_large_buffers());
    EXPECT_EQ(get_host_target().maximum_buffer_size(), INT32_MAX);
    EXPECT_TRUE(large_buffers().has_large_buffers());
    EXPECT_EQ(large_buffers().maximum_buffer_size(), INT64_MAX);
    EXPECT_EQ(Target("x86-64-linux-large_buffers").to_string(), "x86-64-linux-large_buffers");
}

// A pipeline writes an output of 2^31 + 2^16 bytes through a root Func of the same size (the
// stores and the storage), and a second reads the last rows of that output as its input (the
// loads); both vectorized, so 64-bit indices stay dense vectors.
TEST(LargeBuffers, OutputsStorageAndInputsPastTwoToThe31ElementsHoldCsValues) {
    Var x("x"), y("y");
    Func g("g"), written("written");
    g(x, y) = cast<uint8_t>(x * 3 + y * 5 + (x >> 8) * 7);
    written(x, y) = g(x, y) + cast<uint8_t>(1);
    g.compute_root().vectorize(x, 64).parallel(y);
    written.vectorize(x, 64).parallel(y);
    Buffer<uint8_t> big(kWidth, kHeight);
    written.realize(big, large_buffers());
    int64_t wrong = 0;
    for (int yy = 0; yy < kHeight; yy++) {
        const uint8_t *row = &big(0, yy);
        for (int xx = 0; xx < kWidth; xx++)
            wrong += row[xx] != (uint8_t)(pattern(xx, yy) + 1);
    }
    EXPECT_EQ(wrong, 0);

    ImageParam in(UInt(8), 2, "in");
    Func read("read");
    read(x, y) = in(x, y + kHeight - 4) ^ in(kWidth - 1 - x, y);
    read.vectorize(x, 32);
    in.set(big);
    Buffer<uint8_t> out = read.realize({kWidth, 4}, large_buffers());
    for (int yy = 0; yy < 4; yy++) {
        for (int xx = 0; xx < kWidth; xx++) {
            const uint8_t expected = (uint8_t)(pattern(xx, yy + kHeight - 4) + 1) ^
                                     (uint8_t)(pattern(kWidth - 1 - xx, yy) + 1);
            ASSERT_EQ(out(xx, yy), expected) << "at (" << xx << ", " << yy << ")";
        }
    }
    // The same input without the feature is refused at entry, naming it.
    EXPECT_THAT(error_of([&] {
                    read.realize({kWidth, 4});
                }),
                AllOf(HasSubstr("Input buffer in spans, in dimension 1 (extent times stride), "
                                "2147549184 elements"),
                      HasSubstr("LargeBuffers")));
}

// Storage whose size is known only at run time: the allocation is checked before it is made.
TEST(LargeBuffers, StorageSizedAtRunTimeIsCheckedBeforeItsAllocation) {
    Var x("x"), y("y");
    Func g("wide"), h("h");
    g(x, y) = cast<uint8_t>(x + y);
    h(x, y) = g(x * (kWidth - 1), y);
    g.compute_root();
    // h over 2 x kHeight reads g over kWidth x kHeight.
    EXPECT_THAT(error_of([&] {
                    h.realize({2, kHeight});
                }),
                AllOf(HasSubstr("Func wide's storage holds 2147549184 elements"),
                      HasSubstr("more than the 2147483647 that 32-bit offsets address"),
                      HasSubstr("LargeBuffers")));
    Buffer<uint8_t> out = h.realize({2, kHeight}, large_buffers());
    for (int yy = 0; yy < kHeight; yy++) {
        ASSERT_EQ(out(0, yy), (uint8_t)yy);
        ASSERT_EQ(out(1, yy), (uint8_t)(kWidth - 1 + yy));
    }
}

// Storage of constant size past the limit is refused when the pipeline compiles, and a stride
// past 32 bits even with the feature.
TEST(LargeBuffers, StorageOfConstantSizeIsRefusedAtCompileTime) {
    Var x("x"), y("y"), z("z");
    Func g("fixed"), h("h");
    g(x, y) = cast<uint8_t>(x + y);
    h(x, y) = g(x, y);
    g.compute_root();
    h.bound(x, 0, kWidth).bound(y, 0, kHeight);
    EXPECT_THAT(error_of([&] { h.compile_jit(); }),
                AllOf(HasSubstr("Func fixed's storage holds 2147549184 elements"),
                      HasSubstr("LargeBuffers")));

    Func v("volume"), w("w");
    v(x, y, z) = cast<uint8_t>(x + y + z);
    w(x, y, z) = v(x, y, z);
    v.compute_root();
    w.bound(x, 0, kWidth).bound(y, 0, kHeight).bound(z, 0, 2);
    EXPECT_THAT(error_of([&] { w.compile_jit(large_buffers()); }),
                HasSubstr("Func volume's storage has, in dimension z, a stride of 2147549184 "
                          "elements, more than the 2147483647 a stride may be"));
}

// An input buffer whose extents multiply past 2^31 - 1 (here over one row of memory, stride 0
// along y) is refused at entry without the feature, as Halide 14 refuses it.
TEST(LargeBuffers, AnInputWhoseExtentsMultiplyPastTheLimitIsRefused) {
    std::vector<uint8_t> row(kWidth);
    for (int xx = 0; xx < kWidth; xx++)
        row[xx] = (uint8_t)(xx * 7);
    loom_dimension_t shape[2] = {{0, kWidth, 1, 0}, {0, 65536, 0, 0}};
    loom_buffer_t raw{};
    raw.host = row.data();
    raw.type = UInt(8).to_runtime();
    raw.dimensions = 2;
    raw.dim = shape;
    Buffer<uint8_t> tall(raw, "tall");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = tall(x, y * 1000);
    f.vectorize(x, 16);
    EXPECT_THAT(error_of([&] {
                    f.realize({16, 4});
                }),
                AllOf(HasSubstr("Input buffer tall holds, in dimensions 0 to 1, 4294967296 "
                                "elements"),
                      HasSubstr("LargeBuffers")));
    Buffer<uint8_t> out = f.realize({16, 4}, large_buffers());
    for (int yy = 0; yy < 4; yy++) {
        for (int xx = 0; xx < 16; xx++)
            EXPECT_EQ(out(xx, yy), (uint8_t)(xx * 7));
    }
}

} // namespace
