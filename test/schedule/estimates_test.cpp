// The inputs of auto-schedulers, with Halide 14's names and semantics: estimates of a Func's
// region, of a Param's value and of an ImageParam's shape, which change no code, and
// MachineParams. Each test reads back what was set, checks that the compiled code and its
// outputs are the same with and without estimates, and checks every misuse's message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <loom.h>

#include "CompileErrorOf.h"

namespace {

using namespace loom;
using Internal::is_const;
using loom_test::compile_error_of;
using ::testing::HasSubstr;
using ::testing::Not;

// A two-stage pipeline over an ImageParam, scaled by a Param.
struct Scaled {
    ImageParam in{UInt(8), 2, "in"};
    Param<int> gain{"gain"};
    Var x{"x"}, y{"y"};
    Func g{"g"}, f{"f"};
    Scaled() {
        g(x, y) = cast<int>(in(x, y)) * gain;
        f(x, y) = g(x, y) + g(x + 1, y);
    }
};

Buffer<uint8_t> ramp_input(int w, int h) {
    Buffer<uint8_t> b({w, h}, "input");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            b(x, y) = uint8_t(x * 3 + y * 5);
    return b;
}

TEST(Estimates, ChangeNoCodeAndNoOutput) {
    Scaled plain, estimated;
    estimated.f.set_estimates({{0, 1920}, {0, 1080}});
    estimated.g.set_estimate(estimated.x, 0, 1921);
    estimated.in.set_estimates({{0, 1921}, {0, 1080}});
    estimated.gain.set_estimate(3);
    EXPECT_EQ(Pipeline(plain.f).lowered_stmt(), Pipeline(estimated.f).lowered_stmt());

    Buffer<uint8_t> input = ramp_input(33, 9);
    for (Scaled *s : {&plain, &estimated}) {
        s->in.set(input);
        s->gain.set(7);
    }
    Buffer<int> a = plain.f.realize({32, 9}), b = estimated.f.realize({32, 9});
    for (int y = 0; y < 9; y++) {
        for (int x = 0; x < 32; x++) {
            ASSERT_EQ(a(x, y), (input(x, y) + input(x + 1, y)) * 7);
            ASSERT_EQ(b(x, y), a(x, y));
        }
    }
}

TEST(Estimates, AreReadBackAsSet) {
    Scaled s;
    s.f.set_estimates({{-2, 640}, {4, 480}});
    s.in.dim(1).set_estimate(0, 481);
    s.gain.set_estimate(12);

    const std::string source = Pipeline(s.f).schedule_source();
    EXPECT_THAT(source, HasSubstr("f.set_estimate(x, -2, 640);"));
    EXPECT_THAT(source, HasSubstr("f.set_estimate(y, 4, 480);"));

    const Internal::Region &image = s.in.parameter()->buffer_estimates;
    ASSERT_EQ(image.size(), 2u);
    EXPECT_FALSE(image[0].min.defined()); // dimension 0 was given none
    EXPECT_TRUE(is_const(image[1].min, 0));
    EXPECT_TRUE(is_const(image[1].extent, 481));

    const Expr &gain = s.gain.parameter()->scalar_estimate;
    ASSERT_TRUE(gain.defined());
    EXPECT_EQ(gain.type(), Int(32));
    EXPECT_TRUE(is_const(gain, 12));

    // A second estimate of a dimension replaces the first.
    s.f.set_estimate(s.x, 0, 100);
    EXPECT_THAT(Pipeline(s.f).schedule_source(), HasSubstr("f.set_estimate(x, 0, 100);"));
    EXPECT_THAT(Pipeline(s.f).schedule_source(), Not(HasSubstr("f.set_estimate(x, -2, 640);")));
}

TEST(Estimates, MisusesSayWhatToGive) {
    Scaled s;
    EXPECT_THAT(compile_error_of([&] {
                    s.f.set_estimates({{0, 10}});
                }),
                HasSubstr("In set_estimates of Func f: 1 ranges given for its 2 dimensions"));
    EXPECT_THAT(
        compile_error_of([&] {
            s.in.set_estimates({{0, 10}, {0, 10}, {0, 3}});
        }),
        HasSubstr("In set_estimates of ImageParam in: 3 ranges given for its 2 dimensions"));
    EXPECT_THAT(compile_error_of([&] { s.in.dim(0).set_estimate(0.5f, 10); }),
                HasSubstr("set_estimate of dimension 0 of ImageParam in: give an integer min"));
    EXPECT_THAT(compile_error_of([&] { s.in.dim(2).set_estimate(0, 10); }),
                HasSubstr("ImageParam in has 2 dimensions; dim(2) does not exist"));
    Var z("z");
    EXPECT_THAT(compile_error_of([&] { s.f.set_estimate(z, 0, 10); }),
                HasSubstr("In set_estimate of Func f: z is not one of its pure Vars (x, y)"));
}

TEST(MachineParams, GenericIsHalides) {
    MachineParams m = MachineParams::generic();
    EXPECT_EQ(m.parallelism, 16);
    EXPECT_EQ(m.last_level_cache_size, uint64_t(16) * 1024 * 1024);
    EXPECT_EQ(m.balance, 40.0f);
    EXPECT_EQ(m.to_string(), "16,16777216,40");
}

TEST(MachineParams, StringFormRoundTrips) {
    MachineParams m(2, 33554432, 12.5f);
    MachineParams back(m.to_string());
    EXPECT_EQ(back.parallelism, 2);
    EXPECT_EQ(back.last_level_cache_size, 33554432u);
    EXPECT_EQ(back.balance, 12.5f);
    EXPECT_EQ(back.to_string(), "2,33554432,12.5");
}

TEST(MachineParams, MalformedStringsSayTheExpectedForm) {
    for (const char *bad : {"", "16,1024", "16,1024,40,1", "x,1024,40", "0,1024,40", "-4,1024,40",
                            "16,-1,40", "16,1024,0", "16,1024,nan", "16,1024,40x", "16,,40"}) {
        const std::string message = compile_error_of([&] { MachineParams m{std::string(bad)}; });
        EXPECT_THAT(message, HasSubstr("MachineParams(\"" + std::string(bad) + "\")")) << bad;
        EXPECT_THAT(message, HasSubstr("\"parallelism,last_level_cache_size,balance\"")) << bad;
    }
}

} // namespace
