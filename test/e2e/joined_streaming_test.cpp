// Joined streaming stores (codegen/JoinedStreamingStores.h): the vector stores of a row that
// starts anywhere in a cache line stream whole lines, put together from two vectors, across the
// ends of rows that follow one another in memory. Each case writes an output into memory it
// owns, filled with a sentinel, and checks every element against the formula and every byte
// around and between the rows for the sentinel: a lane stored late, twice, in the wrong line or
// outside the output shows. Most cases compile with CompileOptions::streaming_min_bytes = 0 (a
// few dozen rows stream); some are big enough to stream at the default (16 MiB). Rows start at
// every element boundary of a line; memory inside an element is refused (the last test).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using ::testing::HasSubstr;

constexpr uint8_t kSentinel = 0xA5;

// The schedules, each with its own loop that owns the joined lines.
enum class Shape {
    ParallelRows,       // rows in parallel tasks of 16 rows; a shifted last vector per row
    StripsWithProducer, // blur's: strips in parallel, a producer row computed between rows
    SerialRows,         // one loop nest in the entry function
    GuardedTail,        // the row's tail vector guarded instead of shifted
    PureThenUpdate,     // a pure definition and an update that overwrites it, both streamed
};

struct Case {
    int width, min_x, pad, byte_offset;
    Shape shape;
    bool default_threshold; // rows enough for 16 MiB, compiled with the default options
};

template <typename T> Expr formula(Expr x, Expr y, int salt) {
    Expr v = x * 7 + y * 13 + ((x * y) & 15) + salt;
    return cast<T>(v);
}

template <typename T> T expected_at(int x, int y, int salt) {
    const int v = x * 7 + y * 13 + ((x * y) & 15) + salt;
    if constexpr (std::is_floating_point<T>::value) {
        return T(v);
    } else {
        return T(uint64_t(int64_t(v)));
    }
}

template <typename T> std::string run_case(const Case &c) {
    const int stride = c.width + c.pad;
    const int64_t streamed_bytes = CompileOptions().streaming_min_bytes;
    const int height =
        c.default_threshold ? int(streamed_bytes / (int64_t(stride) * sizeof(T))) + 3 : 37;
    const size_t bytes = size_t(stride) * height * sizeof(T);
    std::vector<uint8_t> memory(bytes + 256, kSentinel);
    uint8_t *aligned = memory.data() + (64 - uintptr_t(memory.data()) % 64) % 64;
    uint8_t *first = aligned + 64 + c.byte_offset;
    Buffer<T> out(reinterpret_cast<T *>(first), {c.width, height}, "out");
    out.raw_buffer()->dim[1].stride = stride;
    out.set_min(c.min_x, -2);

    const int lanes = 64 / int(sizeof(T));
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");
    Func f("f"), g("g");
    int row_offset = 0; // the output's row y is the formula's row y + row_offset
    switch (c.shape) {
    case Shape::ParallelRows:
        f(x, y) = formula<T>(x, y, 0);
        f.parallel(y, 16).vectorize(x, lanes);
        break;
    case Shape::StripsWithProducer:
        g(x, y) = formula<T>(x, y, 0);
        f(x, y) = g(x, y - 1) + g(x, y + 1) - g(x, y - 1);
        f.split(y, yo, yi, 8).parallel(yo).vectorize(x, lanes);
        g.compute_at(f, yi).vectorize(x, lanes);
        row_offset = 1;
        break;
    case Shape::SerialRows:
        f(x, y) = formula<T>(x, y, 0);
        f.vectorize(x, lanes);
        break;
    case Shape::GuardedTail:
        f(x, y) = formula<T>(x, y, 0);
        f.split(x, xo, xi, lanes, TailStrategy::GuardWithIf).vectorize(xi).parallel(y, 8);
        break;
    case Shape::PureThenUpdate:
        f(x, y) = formula<T>(x, y, 5);
        f(x, y) = formula<T>(x, y, 0);
        f.parallel(y, 16).vectorize(x, lanes);
        // GuardWithIf: an update's pure loops round up by default (Halide's Auto), which
        // writes past an output the caller sized.
        f.update()
            .parallel(y, 16, TailStrategy::GuardWithIf)
            .vectorize(x, lanes, TailStrategy::GuardWithIf);
        break;
    }
    Pipeline pipeline(f);
    if (!c.default_threshold) {
        CompileOptions options;
        options.streaming_min_bytes = 0;
        pipeline.set_options(options);
    }
    pipeline.realize(RealizationArg(std::vector<Buffer<>>{out}));

    std::ostringstream wrong;
    int wrongs = 0;
    for (int yy = 0; yy < height && wrongs < 5; yy++) {
        for (int xx = 0; xx < c.width && wrongs < 5; xx++) {
            const int cx = xx + c.min_x, cy = yy - 2;
            const T expected = expected_at<T>(cx, cy + row_offset, 0);
            const T got = out(cx, cy);
            if (std::memcmp(&got, &expected, sizeof(T)) != 0) {
                wrong << "out(" << cx << ", " << cy << ") = " << loom_test::show(got)
                      << ", expected " << loom_test::show(expected) << "\n";
                wrongs++;
            }
        }
    }
    // Every byte outside the rows keeps the sentinel: before, between (the padding), after.
    const uint8_t *end = first + bytes;
    for (const uint8_t *p = memory.data(); p < memory.data() + memory.size() && wrongs < 5; p++) {
        const bool in_row =
            p >= first && p < end &&
            size_t(p - first) % (size_t(stride) * sizeof(T)) < size_t(c.width) * sizeof(T);
        if (!in_row && *p != kSentinel) {
            wrong << "byte " << (p - first) << " from the first element (outside the rows) is "
                  << int(*p) << "\n";
            wrongs++;
        }
    }
    return wrong.str();
}

std::string describe(const Case &c, const char *type) {
    std::ostringstream s;
    s << type << ", width " << c.width << ", min " << c.min_x << ", padding " << c.pad
      << " elements, first element at byte " << c.byte_offset << " of a line, shape "
      << int(c.shape) << (c.default_threshold ? ", 16 MiB" : ", streamed from 0 bytes");
    return s.str();
}

// Rows of every width class: below one vector, a vector and a bit, thousands; row starts at
// every offset into a line (adjacent rows, rows apart), a first element off its lane size.
template <typename T> void check_many(const char *type, int cases, uint32_t seed) {
    std::mt19937 rng(seed);
    const int lanes = 64 / int(sizeof(T));
    for (int i = 0; i < cases; i++) {
        Case c;
        const int widths[] = {lanes, lanes + 1, 2 * lanes - 1, 3 * lanes + 5, 1000, 4094};
        c.width = i < 6 ? widths[i] : lanes + int(rng() % 5000);
        c.min_x = int(rng() % 7) - 3;
        c.pad = rng() % 3 == 0 ? int(rng() % 40) : 0;
        c.shape = Shape(i % 5);
        // On every element boundary of a line (a Buffer refuses memory inside an element).
        c.byte_offset = int(rng() % (64 / sizeof(T))) * int(sizeof(T));
        c.default_threshold = i % 8 == 3;
        std::string wrong = run_case<T>(c);
        EXPECT_EQ(wrong, "") << describe(c, type);
    }
}

// A Buffer over memory that starts inside an element (an odd address for 16-bit words) is
// refused with a message naming it: compiled code and element access read whole elements.
TEST(JoinedStreamingStores, MemoryInsideAnElementIsRefused) {
    std::vector<uint16_t> memory(64);
    uint16_t *odd = reinterpret_cast<uint16_t *>(reinterpret_cast<uint8_t *>(memory.data()) + 1);
    try {
        Buffer<uint16_t> out(odd, {16, 2}, "odd_words");
        FAIL() << "a Buffer of 2-byte elements at an odd address was accepted";
    } catch (const loom::Error &e) {
        EXPECT_THAT(e.what(), HasSubstr("odd_words"));
        EXPECT_THAT(e.what(), HasSubstr("not aligned to its 2-byte elements"));
    }
    Buffer<uint8_t> bytes(reinterpret_cast<uint8_t *>(odd), {16, 2}, "odd_bytes"); // 1-byte: fine
    EXPECT_EQ(bytes.width(), 16);
}

TEST(JoinedStreamingStores, BytesEveryShape) { check_many<uint8_t>("uint8", 40, 11); }
TEST(JoinedStreamingStores, WordsEveryShape) { check_many<uint16_t>("uint16", 48, 12); }
TEST(JoinedStreamingStores, FloatsEveryShape) { check_many<float>("float", 40, 13); }
TEST(JoinedStreamingStores, DoublesEveryShape) { check_many<double>("double", 40, 14); }

TEST(JoinedStreamingStores, ANegativeThresholdIsAnError) {
    CompileOptions options;
    options.streaming_min_bytes = -1;
    Func f("f");
    Var x("x");
    f(x) = x;
    Pipeline p(f);
    try {
        p.set_options(options);
        ADD_FAILURE() << "a negative streaming_min_bytes was accepted";
    } catch (const CompileError &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("streaming_min_bytes is -1"));
    }
}

// blur's shape: 16-bit rows in strips of a parallel loop, a producer row between output rows.
// The strip's row loop owns the state (a slot of the task); the outlined row loop of 32-lane
// stores joins lines with a two-source word permute and streams them.
TEST(JoinedStreamingStores, StripRowLoopOwnsTheStateAndRowsStreamJoinedLines) {
    const Target sapphire_rapids("x86-64-linux-avx512-avx512_skylake-avx512_sapphirerapids");
    ImageParam in(UInt(16), 2, "in");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = in(x, y) + in(x + 1, y);
    f(x, y) = g(x, y) + g(x, y + 1);
    f.split(y, yo, yi, 32).parallel(yo).vectorize(x, 32);
    g.compute_at(f, yi).vectorize(x, 32);
    std::string ir = Pipeline(f).llvm_ir(sapphire_rapids);
    EXPECT_THAT(ir, HasSubstr("%f.joined = alloca"));
    EXPECT_THAT(ir, HasSubstr("call <32 x i16> @llvm.x86.avx512.vpermi2var.hi.512"));
    EXPECT_THAT(ir, HasSubstr("!nontemporal"));
    // A row's ends, and what waits after the strip's last row, are stored masked to their
    // lanes, in functions of their own.
    EXPECT_THAT(ir, HasSubstr("call void @loom.joined_store_apart."));
    EXPECT_THAT(ir, HasSubstr("call void @loom.joined_store_flush."));
    EXPECT_THAT(ir, HasSubstr("@llvm.masked.store.v32i16"));
}

} // namespace
