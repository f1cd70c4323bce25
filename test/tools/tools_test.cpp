// Loom's Tools, Halide 14's halide_image_io.h and halide_benchmark.h under Loom: images written
// and read back element by element in every format and sample type, Halide's conversion rules,
// the errors a user can get (each naming the file), and the two benchmark forms.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "Benchmark.h"
#include "HalideBuffer.h"

#include "ImageIO.h"
#include <loom.h>

namespace {

using namespace loom;
using namespace loom::Tools;
using ::testing::AllOf;
using ::testing::HasSubstr;

/** A fresh directory under GoogleTest's temporary directory, removed with its files. */
class ToolsTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = ::testing::TempDir() + "loom_tools_test_XXXXXX";
        ASSERT_NE(mkdtemp(pattern.data()), nullptr) << "can't create " << pattern;
        dir = pattern;
    }
    void TearDown() override {
        for (const std::string &f : files)
            unlink(f.c_str());
        rmdir(dir.c_str());
    }
    std::string path(const std::string &name) {
        files.push_back(dir + "/" + name);
        return files.back();
    }
    std::string dir;
    std::vector<std::string> files;
};

/** The message of the loom::Error that `body` throws, or a description of what it did. */
template <typename Body> std::string error_of(Body body) {
    try {
        body();
    } catch (const Error &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("<not a loom::Error: ") + e.what() + ">";
    }
    return "<no exception was thrown>";
}

std::string file_bytes(const std::string &filename) {
    std::ifstream in(filename, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string &filename, const std::string &bytes) {
    std::ofstream(filename, std::ios::binary) << bytes;
}

/** A width x height (x channels) image whose samples differ from their neighbours' and cover
 * T's range: row and channel change the high bits, x the low ones. */
template <typename T> Buffer<T> test_image(int width, int height, int channels) {
    Buffer<T> b = channels ? Buffer<T>(width, height, channels) : Buffer<T>(width, height);
    const uint32_t max = (uint32_t)(T)~T(0);
    b.for_each_position([&](const std::vector<int> &p) {
        uint32_t c = p.size() > 2 ? p[2] : 0;
        b(p) = T((p[0] * 7u + p[1] * 131u + c * 40503u + (p[0] * p[1]) * 2654435761u) & max);
    });
    return b;
}

/** Expects `actual` to have `expected`'s shape (planar, mins zero) and elements. */
template <typename T> void expect_same_image(Buffer<T> expected, Buffer<T> actual) {
    ASSERT_EQ(actual.dimensions(), expected.dimensions());
    for (int i = 0; i < expected.dimensions(); i++) {
        EXPECT_EQ(actual.dim(i).min(), 0) << "dimension " << i;
        EXPECT_EQ(actual.dim(i).extent(), expected.dim(i).extent()) << "dimension " << i;
    }
    if (actual.dimensions() == 3) {
        EXPECT_EQ(actual.dim(2).stride(), actual.width() * actual.height()) << "planar";
    }
    int mismatches = 0;
    expected.for_each_position([&](const std::vector<int> &p) {
        std::vector<int> q = p;
        for (int i = 0; i < (int)q.size(); i++)
            q[i] -= expected.dim(i).min();
        if (actual(q) != expected(p) && mismatches++ < 10) {
            ADD_FAILURE() << "at (" << p[0] << ", " << p[1] << (p.size() > 2 ? ", " : "")
                          << (p.size() > 2 ? std::to_string(p[2]) : "") << "): expected "
                          << +expected(p) << ", read " << +actual(q);
        }
    });
    EXPECT_EQ(mismatches, 0);
}

// --- round trips --------------------------------------------------------------------------------

TEST_F(ToolsTest, Png8BitGrayRoundTrip) {
    Buffer<uint8_t> gray = test_image<uint8_t>(37, 23, 0);
    save_image(gray, path("gray.png"));
    Buffer<uint8_t> loaded = load_image(path("gray.png"));
    expect_same_image(gray, loaded);
}

TEST_F(ToolsTest, Png8BitRgbRoundTrip) {
    Buffer<uint8_t> rgb = test_image<uint8_t>(31, 17, 3);
    save_image(rgb, path("rgb.png"));
    Buffer<uint8_t> loaded = load_image(path("rgb.png"));
    expect_same_image(rgb, loaded);
}

TEST_F(ToolsTest, Png16BitRgbaRoundTrip) {
    Buffer<uint16_t> rgba = test_image<uint16_t>(19, 29, 4);
    save_image(rgba, path("rgba16.png"));
    Buffer<uint16_t> loaded = load_image(path("rgba16.png"));
    expect_same_image(rgba, loaded);
}

TEST_F(ToolsTest, PngGrayAlphaRoundTripAndUntypedLoad) {
    Buffer<uint16_t> ga = test_image<uint16_t>(8, 5, 2);
    save_image(ga, path("ga.PNG")); // the extension's case does not matter
    Buffer<> loaded = load_image(path("ga.PNG"));
    EXPECT_EQ(loaded.type(), UInt(16));
    expect_same_image(ga, Buffer<uint16_t>(loaded));
}

TEST_F(ToolsTest, SavesTheBuffersOwnRegion) {
    // A buffer whose mins are not zero is written from its mins; it reads back with mins zero.
    Buffer<uint8_t> shifted = test_image<uint8_t>(6, 4, 3);
    shifted.set_min(10, -3, 0);
    save_image(shifted, path("shifted.png"));
    Buffer<uint8_t> loaded = load_image(path("shifted.png"));
    expect_same_image(shifted, loaded);
}

TEST_F(ToolsTest, PgmAndPpmRoundTrips) {
    Buffer<uint8_t> gray8 = test_image<uint8_t>(13, 7, 0);
    Buffer<uint16_t> gray16 = test_image<uint16_t>(13, 7, 0);
    Buffer<uint8_t> rgb8 = test_image<uint8_t>(11, 9, 3);
    Buffer<uint16_t> rgb16 = test_image<uint16_t>(11, 9, 3);
    save_image(gray8, path("gray8.pgm"));
    save_image(gray16, path("gray16.pgm"));
    save_image(rgb8, path("rgb8.ppm"));
    save_image(rgb16, path("rgb16.ppm"));
    expect_same_image(gray8, Buffer<uint8_t>(load_image(path("gray8.pgm"))));
    expect_same_image(gray16, Buffer<uint16_t>(load_image(path("gray16.pgm"))));
    expect_same_image(rgb8, Buffer<uint8_t>(load_image(path("rgb8.ppm"))));
    expect_same_image(rgb16, Buffer<uint16_t>(load_image(path("rgb16.ppm"))));
}

TEST_F(ToolsTest, PpmBytesAreInterleavedAndBigEndian) {
    Buffer<uint16_t> rgb(2, 1, 3);
    rgb(0, 0, 0) = 0x0102, rgb(0, 0, 1) = 0x0304, rgb(0, 0, 2) = 0x0506;
    rgb(1, 0, 0) = 0xa1a2, rgb(1, 0, 1) = 0xb1b2, rgb(1, 0, 2) = 0xc1c2;
    save_image(rgb, path("two.ppm"));
    const std::string pixels = "\x01\x02\x03\x04\x05\x06\xa1\xa2\xb1\xb2\xc1\xc2";
    EXPECT_EQ(file_bytes(path("two.ppm")), "P6\n2 1\n65535\n" + pixels);
}

TEST_F(ToolsTest, PgmHeaderMayHoldComments) {
    write_bytes(path("comments.pgm"), "P5 # made by hand\n# a whole comment line\n3\n2 255\n"
                                      "\x01\x02\x03\x04\x05\xff");
    Buffer<uint8_t> loaded = load_image(path("comments.pgm"));
    ASSERT_EQ(loaded.dimensions(), 2);
    ASSERT_EQ(loaded.width(), 3);
    ASSERT_EQ(loaded.height(), 2);
    EXPECT_EQ(loaded(0, 0), 1);
    EXPECT_EQ(loaded(2, 0), 3);
    EXPECT_EQ(loaded(0, 1), 4);
    EXPECT_EQ(loaded(2, 1), 255);
}

// --- conversions --------------------------------------------------------------------------------

TEST_F(ToolsTest, LoadAndConvert8BitToFloatDividesBy255) {
    Buffer<uint8_t> ramp(256, 1);
    for (int x = 0; x < 256; x++)
        ramp(x, 0) = (uint8_t)x;
    save_image(ramp, path("ramp.png"));
    Buffer<float> f = load_and_convert_image(path("ramp.png"));
    ASSERT_EQ(f.dimensions(), 2);
    ASSERT_EQ(f.width(), 256);
    for (int x = 0; x < 256; x++)
        EXPECT_EQ(f(x, 0), x / 255.0f) << "x = " << x;
    // Halide widens a uint8 to a double through the same float division.
    Buffer<double> d = load_and_convert_image(path("ramp.png"));
    for (int x = 0; x < 256; x++)
        EXPECT_EQ(d(x, 0), (double)(x / 255.0f)) << "x = " << x;
}

TEST_F(ToolsTest, LoadAndConvertBetweenIntegerWidths) {
    Buffer<uint16_t> wide(5, 1);
    const uint16_t samples[5] = {0x0000, 0x0080, 0x0081, 0x7f80, 0xffff};
    for (int x = 0; x < 5; x++)
        wide(x, 0) = samples[x];
    save_image(wide, path("wide.pgm"));
    // 16 -> 8 rounds v / 257 (Halide's ((v + 128) * 255 + 255) >> 16).
    Buffer<uint8_t> narrow = load_and_convert_image(path("wide.pgm"));
    const uint8_t expected[5] = {0x00, 0x00, 0x01, 0x7f, 0xff};
    for (int x = 0; x < 5; x++)
        EXPECT_EQ(narrow(x, 0), expected[x]) << "x = " << x;
    // 8 -> 16 and 8 -> 32 repeat the byte.
    save_image(narrow, path("narrow.pgm"));
    Buffer<uint16_t> back = load_and_convert_image(path("narrow.pgm"));
    Buffer<uint32_t> back32 = load_and_convert_image(path("narrow.pgm"));
    EXPECT_EQ(back(4, 0), 0xffff);
    EXPECT_EQ(back(3, 0), 0x7f7f);
    EXPECT_EQ(back32(3, 0), 0x7f7f7f7fu);
    // The file's own type needs no conversion.
    Buffer<uint16_t> same = load_and_convert_image(path("wide.pgm"));
    EXPECT_EQ(same(3, 0), 0x7f80);
}

TEST_F(ToolsTest, ConvertAndSaveFloatWritesRounded16Bit) {
    // Halide picks the format type that loses the fewest bits: uint16 for float32.
    Buffer<float> f(4, 2);
    const float values[4] = {0.0f, 0.25f, 0.5f, 1.0f};
    for (int y = 0; y < 2; y++) {
        for (int x = 0; x < 4; x++)
            f(x, y) = values[x];
    }
    convert_and_save_image(f, path("float.png"));
    Buffer<uint16_t> loaded = load_image(path("float.png"));
    const uint16_t expected[4] = {0, 16384, 32768, 65535}; // lround(v * 65535)
    for (int x = 0; x < 4; x++)
        EXPECT_EQ(loaded(x, 1), expected[x]) << "x = " << x;
    EXPECT_EQ(f(1, 0), 0.25f) << "the saved buffer itself is unchanged";
}

TEST_F(ToolsTest, ConvertAndSaveAddsMissingDimensions) {
    Buffer<int8_t> line(6);
    for (int x = 0; x < 6; x++)
        line(x) = (int8_t)(x - 3);
    convert_and_save_image(line, path("line.pgm"));
    Buffer<uint8_t> loaded = load_image(path("line.pgm"));
    ASSERT_EQ(loaded.dimensions(), 2);
    EXPECT_EQ(loaded.width(), 6);
    EXPECT_EQ(loaded.height(), 1);
    for (int x = 0; x < 6; x++)
        EXPECT_EQ(loaded(x, 0), (uint8_t)(x - 3)) << "bit pattern kept";
}

// --- errors -------------------------------------------------------------------------------------

TEST_F(ToolsTest, LoadIntoWrongElementTypeSaysWhatToUse) {
    save_image(test_image<uint8_t>(4, 4, 3), path("rgb.png"));
    const std::string file = path("rgb.png");
    std::string message = error_of([&] { Buffer<float> f = load_image(file); });
    EXPECT_THAT(message, AllOf(HasSubstr(file), HasSubstr("Buffer<uint8_t>"),
                               HasSubstr("Buffer<float>"), HasSubstr("load_and_convert_image")));
}

TEST_F(ToolsTest, MissingFileErrorNamesTheFile) {
    const std::string file = path("no_such_image.png");
    std::string message = error_of([&] { Buffer<uint8_t> b = load_image(file); });
    EXPECT_THAT(message, AllOf(HasSubstr(file), HasSubstr("No such file")));
}

TEST_F(ToolsTest, SaveErrorsNameTheFileAndTheRemedy) {
    const std::string png = path("float.png");
    EXPECT_THAT(
        error_of([&] { save_image(Buffer<float>(4, 4), png); }),
        AllOf(HasSubstr(png), HasSubstr("Buffer<float>"), HasSubstr("convert_and_save_image")));
    const std::string pgm = path("rgb.pgm");
    EXPECT_THAT(error_of([&] { save_image(Buffer<uint8_t>(4, 4, 3), pgm); }),
                AllOf(HasSubstr(pgm), HasSubstr("3-D"), HasSubstr("2-D (x, y)")));
    const std::string ppm = path("gray.ppm");
    EXPECT_THAT(error_of([&] { convert_and_save_image(Buffer<uint8_t>(4, 4), ppm); }),
                AllOf(HasSubstr(ppm), HasSubstr("1-channel"), HasSubstr(".png")));
    const std::string many = path("five.png");
    EXPECT_THAT(error_of([&] { save_image(Buffer<uint8_t>(4, 4, 5), many); }),
                AllOf(HasSubstr(many), HasSubstr("5-channel")));
    const std::string bmp = path("picture.bmp");
    EXPECT_THAT(error_of([&] { save_image(Buffer<uint8_t>(4, 4), bmp); }),
                AllOf(HasSubstr(bmp), HasSubstr("\"bmp\""), HasSubstr(".png")));
}

TEST_F(ToolsTest, DamagedFilesErrorNameTheFile) {
    const std::string fake = path("fake.png");
    write_bytes(fake, "P5\n1 1\n255\n\x01");
    EXPECT_THAT(error_of([&] { Buffer<uint8_t> b = load_image(fake); }),
                AllOf(HasSubstr(fake), HasSubstr("not a PNG")));

    Buffer<uint8_t> rgb = test_image<uint8_t>(32, 32, 3);
    save_image(rgb, path("whole.png"));
    const std::string bytes = file_bytes(path("whole.png"));
    const std::string cut = path("cut.png");
    write_bytes(cut, bytes.substr(0, bytes.size() / 2));
    EXPECT_THAT(error_of([&] { Buffer<uint8_t> b = load_image(cut); }), HasSubstr(cut));

    const std::string short_pgm = path("short.pgm");
    write_bytes(short_pgm, "P5\n4 4\n255\n\x01\x02");
    EXPECT_THAT(error_of([&] { Buffer<uint8_t> b = load_image(short_pgm); }),
                AllOf(HasSubstr(short_pgm), HasSubstr("truncated")));

    const std::string ascii = path("ascii.pgm");
    write_bytes(ascii, "P2\n1 1\n255\n7\n");
    EXPECT_THAT(error_of([&] { Buffer<uint8_t> b = load_image(ascii); }),
                AllOf(HasSubstr(ascii), HasSubstr("P5")));
}

// --- benchmark ----------------------------------------------------------------------------------

/** Some work the optimizer can't remove. */
void spin(int n) {
    volatile uint64_t sink = 0;
    for (int i = 0; i < n; i++)
        sink = sink + i;
}

TEST(BenchmarkTest, FixedCountsCallTheOpSamplesTimesIterations) {
    uint64_t calls = 0;
    double t = benchmark(3, 4, [&] {
        calls++;
        spin(1000);
    });
    EXPECT_EQ(calls, 3u * 4u);
    EXPECT_GT(t, 0.0);
    EXPECT_LT(t, 1.0);
}

TEST(BenchmarkTest, AdaptiveMeetsItsConfig) {
    uint64_t calls = 0;
    BenchmarkConfig config;
    config.min_time = 0.002;
    config.max_time = 0.05;
    const auto start = benchmark_now();
    BenchmarkResult r = benchmark(
        [&] {
            calls++;
            spin(1000);
        },
        config);
    const double elapsed = benchmark_duration_seconds(start, benchmark_now());
    EXPECT_GT(r.wall_time, 0.0);
    EXPECT_EQ((double)r, r.wall_time);
    EXPECT_GE(r.samples, 3u);
    EXPECT_GE(r.iterations, r.samples);
    EXPECT_GE(calls, r.iterations) << "calibration calls come on top";
    EXPECT_GE(r.accuracy, 0.0);
    // The counted samples lasted at least min_time, and nothing ran much past max_time.
    EXPECT_GE(elapsed, config.min_time);
    EXPECT_LT(elapsed, 1.0);
    std::ostringstream printed;
    printed << r;
    EXPECT_THAT(printed.str(), AllOf(HasSubstr("sec/iter"), HasSubstr("samples"),
                                     HasSubstr("iterations"), HasSubstr("accuracy")));
}

} // namespace

// Halide's Buffer(Runtime::Buffer): a view of the Runtime::Buffer's memory, which a pipeline
// reads and writes in place.
TEST(RuntimeBuffers, ABufferViewsARuntimeBuffersMemory) {
    loom::Runtime::Buffer<int32_t> input(6, 3), output(6, 3);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 6; x++)
            input(x, y) = x * 10 + y;
    }
    loom::Buffer<int32_t> in_view(input, "in_view");
    EXPECT_EQ(in_view.name(), "in_view");
    EXPECT_EQ(in_view.width(), 6);
    EXPECT_EQ(in_view.height(), 3);
    loom::Func twice("twice");
    loom::Var x("x"), y("y");
    twice(x, y) = in_view(x, y) * 2;
    loom::Buffer<int32_t> out_view(output);
    twice.realize(out_view);
    for (int y = 0; y < 3; y++) {
        for (int x = 0; x < 6; x++)
            EXPECT_EQ(output(x, y), (x * 10 + y) * 2) << x << ", " << y;
    }
    EXPECT_THROW(loom::Buffer<float>{input}, loom::Error);
}
