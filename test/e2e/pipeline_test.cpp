// Whole pipelines: Funcs calling Funcs (inlined and compute_root), a separable blur, inputs
// through Buffers, ImageParams and Params, Tuples, output buffers with non-zero mins, Funcs of
// zero to four dimensions, and reuse of compiled code across realizations.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include <unistd.h>

#include <gtest/gtest.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using namespace loom_test;

using Pos = std::vector<int>;

// ---------------------------------------------------------------------------------------------
// Funcs calling Funcs.

int producer_ref(int x, int y) { return x * 10 + y; }
int consumer_ref(int x, int y) { return producer_ref(x + 1, y) * 2 + producer_ref(x, y + 2); }

TEST(FuncsCallingFuncs, InlinedByDefault) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x + 1, y) * 2 + producer(x, y + 2);
    Buffer<int32_t> out = consumer.realize({6, 5});
    expect_buffer<int32_t>(out, [](const Pos &p) { return consumer_ref(p[0], p[1]); });
}

TEST(FuncsCallingFuncs, ComputeRoot) {
    Var x("x"), y("y");
    Func producer("producer"), consumer("consumer");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x + 1, y) * 2 + producer(x, y + 2);
    producer.compute_root();
    Buffer<int32_t> out = consumer.realize({6, 5});
    expect_buffer<int32_t>(out, [](const Pos &p) { return consumer_ref(p[0], p[1]); });
}

TEST(FuncsCallingFuncs, ChainMixingRootAndInline) {
    // a is computed at root over the region b needs; b is inlined into c.
    Var x("x");
    Func a("a"), b("b"), c("c");
    a(x) = x * x;
    b(x) = a(x - 1) + a(x + 1);
    c(x) = b(x) - b(2 * x) + a(x);
    a.compute_root();
    Buffer<int32_t> out = c.realize({9});
    auto a_ref = [](int v) { return v * v; };
    auto b_ref = [&](int v) { return a_ref(v - 1) + a_ref(v + 1); };
    expect_1d<int32_t>(out, [&](int i) { return b_ref(i) - b_ref(2 * i) + a_ref(i); });
}

TEST(FuncsCallingFuncs, ProducerOfAnotherType) {
    Var x("x");
    Func half("half"), total("total");
    half(x) = cast<float>(x) * 0.5f;
    total(x) = cast<int16_t>(half(x) * 4.0f) + cast<int16_t>(x);
    half.compute_root();
    Buffer<int16_t> out = total.realize({5});
    expect_1d<int16_t>(out, [](int i) { return (int16_t)(3 * i); });
}

// ---------------------------------------------------------------------------------------------
// A two-stage separable 3x3 box blur on uint16, from an input Buffer. The sums wrap at 2^16.

class Blur : public ::testing::TestWithParam<bool> {};

TEST_P(Blur, Separable3x3OnUint16) {
    const bool blur_x_at_root = GetParam();
    const int W = 37, H = 19;
    std::vector<uint16_t> values = random_values<uint16_t>((W + 2) * (H + 2), 21);
    Buffer<uint16_t> input(std::vector<int>{W + 2, H + 2}, "input");
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W + 2; x++)
            input(x, y) = values[y * (W + 2) + x];
    }

    Var x("x"), y("y");
    Func blur_x("blur_x"), blur_y("blur_y");
    blur_x(x, y) = (input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3;
    blur_y(x, y) = (blur_x(x, y) + blur_x(x, y + 1) + blur_x(x, y + 2)) / 3;
    if (blur_x_at_root) blur_x.compute_root();
    Buffer<uint16_t> out = blur_y.realize({W, H});

    auto bx = [&](int x, int y) {
        return (uint16_t)((uint16_t)(input(x, y) + input(x + 1, y) + input(x + 2, y)) / 3);
    };
    expect_buffer<uint16_t>(out, [&](const Pos &p) {
        int x = p[0], y = p[1];
        return (uint16_t)((uint16_t)(bx(x, y) + bx(x, y + 1) + bx(x, y + 2)) / 3);
    });
}

INSTANTIATE_TEST_SUITE_P(BlurXInlineOrRoot, Blur, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &info) {
                             return info.param ? "BlurXComputeRoot" : "BlurXInline";
                         });

// ---------------------------------------------------------------------------------------------
// Inputs bound at run time.

TEST(ImageParamInput, SetThenRebindToAnotherBuffer) {
    ImageParam in(UInt(8), 2, "img");
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = cast<uint16_t>(in(x, y)) * 3 + cast<uint16_t>(in(x + 1, y));

    Buffer<uint8_t> first(std::vector<int>{9, 4}, "first");
    first.for_each_position([&](const Pos &p) { first(p) = (uint8_t)(p[0] * 20 + p[1]); });
    in.set(first);
    Buffer<uint16_t> out1 = f.realize({8, 4});
    expect_buffer<uint16_t>(out1, [&](const Pos &p) {
        return (uint16_t)(first(p[0], p[1]) * 3 + first(p[0] + 1, p[1]));
    });

    // Another buffer of other sizes and values: same Func, no redefinition.
    Buffer<uint8_t> second(std::vector<int>{6, 2}, "second");
    second.for_each_position([&](const Pos &p) { second(p) = (uint8_t)(255 - p[0] - 7 * p[1]); });
    in.set(second);
    Buffer<uint16_t> out2 = f.realize({5, 2});
    expect_buffer<uint16_t>(out2, [&](const Pos &p) {
        return (uint16_t)(second(p[0], p[1]) * 3 + second(p[0] + 1, p[1]));
    });
}

TEST(ParamInput, ChangedBetweenRunsWithoutRedefining) {
    Param<int32_t> offset("offset");
    Param<float> scale("scale");
    Var x("x");
    Func f("f");
    f(x) = cast<float>(x + offset) * scale;

    offset.set(3);
    scale.set(0.5f);
    Buffer<float> out1 = f.realize({5});
    expect_1d<float>(out1, [](int i) { return (float)(i + 3) * 0.5f; });

    offset.set(-7);
    scale.set(2.0f);
    Buffer<float> out2 = f.realize({5});
    expect_1d<float>(out2, [](int i) { return (float)(i - 7) * 2.0f; });
    // The first result is its own buffer, untouched by the second run.
    expect_1d<float>(out1, [](int i) { return (float)(i + 3) * 0.5f; });
}

TEST(ParamInput, NarrowAndWideScalarTypes) {
    Param<uint8_t> p8("p8");
    Param<int16_t> p16("p16");
    Param<double> pd("pd");
    Param<uint64_t> p64("p64");
    Buffer<uint8_t> in = buffer_of<uint8_t>({0, 100, 200, 255}, "in");
    Var x("x");
    Func f("f");
    f(x) = Tuple(in(x) + p8, cast<int16_t>(in(x)) * p16, cast<double>(in(x)) * pd,
                 cast<uint64_t>(in(x)) + p64);
    p8.set(100);
    p16.set(-300);
    pd.set(0.1);
    p64.set(UINT64_MAX - 100);
    Realization r = f.realize({4});
    const std::vector<uint8_t> v = {0, 100, 200, 255};
    expect_1d<uint8_t>(r[0], [&](int i) { return (uint8_t)(v[i] + 100); });
    expect_1d<int16_t>(r[1], [&](int i) { return (int16_t)(v[i] * -300); });
    expect_1d<double>(r[2], [&](int i) { return (double)v[i] * 0.1; });
    expect_1d<uint64_t>(r[3], [&](int i) { return (uint64_t)v[i] + (UINT64_MAX - 100); });
}

TEST(CompiledCode, RealizingTwiceReusesItAndSeesTheNewParamValue) {
    Param<int32_t> k("k");
    Var x("x");
    Func f("f");
    f(x) = x * k;

    k.set(2);
    Buffer<int32_t> out1 = f.realize({4});
    k.set(5);
    Buffer<int32_t> out2 = f.realize({4});
    EXPECT_EQ(f.pipeline().last_compile_seconds(), 0.0)
        << "the second realize of the same Func must reuse the compiled code";
    Buffer<int32_t> out3 = f.realize({7});
    EXPECT_EQ(f.pipeline().last_compile_seconds(), 0.0)
        << "new output sizes must not recompile either";

    expect_1d<int32_t>(out1, [](int i) { return 2 * i; });
    expect_1d<int32_t>(out2, [](int i) { return 5 * i; });
    expect_1d<int32_t>(out3, [](int i) { return 5 * i; });
}

// A program alternating two definitions (the autotuner races a candidate schedule against the
// best, run by run) compiles each once: the compilation before the last is taken back. A third
// compiles; the first is then two back and compiles again. The definitions here differ in
// their targets, which the definition's key holds as it holds the schedules. Without the
// persistent JIT cache, which would hide the recompiles.
TEST(CompiledCode, ReturningToThePreviousDefinitionReusesItsCode) {
    ImageParam in(Int(32), 1, "in");
    Buffer<int32_t> data(std::vector<int>{64}, "data");
    for (int i = 0; i < 64; i++)
        data(i) = i * 3 - 50;
    in.set(data);
    Var x("x");
    Func f("f");
    f(x) = in(x)*7 + 1;
    f.vectorize(x, 8);
    Pipeline p(f);
    CompileOptions options;
    options.jit_cache = false;
    p.set_options(options);
    const Target targets[] = {get_host_target(),
                              get_host_target().with_feature(Target::NoBoundsQuery),
                              Target("x86-64-linux")};
    auto run = [&](int t) {
        p.compile_jit(targets[t]);
        const double seconds = p.last_compile_seconds();
        Buffer<int32_t> out = p.realize({64}, targets[t]);
        expect_1d<int32_t>(out, [&](int i) { return data(i) * 7 + 1; });
        return seconds;
    };
    EXPECT_GT(run(0), 0.0);
    EXPECT_GT(run(1), 0.0);
    EXPECT_EQ(run(0), 0.0) << "the previous definition's code, taken back";
    EXPECT_EQ(run(1), 0.0) << "and back again";
    EXPECT_GT(run(2), 0.0);
    EXPECT_EQ(run(1), 0.0);
    EXPECT_GT(run(0), 0.0) << "two definitions back: compiled again";
    EXPECT_EQ(run(0), 0.0);
    // Halide's invalidate_cache drops the code this Pipeline holds: compiled again.
    p.invalidate_cache();
    EXPECT_GT(run(0), 0.0);
    EXPECT_TRUE(p.defined());
    EXPECT_FALSE(Pipeline().defined());
    // output_buffers: one per Tuple element, sharing the Func's constraints.
    Func pair("pair");
    pair(x) = Tuple(x, x * 2);
    std::vector<OutputImageParam> outs = pair.output_buffers();
    ASSERT_EQ(outs.size(), 2u);
    outs[1].dim(0).set_min(0);
    Realization r = pair.realize({4});
    EXPECT_EQ(Buffer<int>(r[1])(3), 6);
}

// ---------------------------------------------------------------------------------------------
// Tuples.

TEST(TupleFunc, RealizesIntoARealizationOfTwoBuffers) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = Tuple(x + y, cast<float>(x) * 0.5f);
    Realization r = f.realize({4, 3});
    ASSERT_EQ(r.size(), 2u);
    ASSERT_EQ(r[0].type(), Int(32));
    ASSERT_EQ(r[1].type(), Float(32));
    Buffer<int32_t> sum = r[0];
    Buffer<float> half = r[1];
    expect_buffer<int32_t>(sum, [](const Pos &p) { return p[0] + p[1]; });
    expect_buffer<float>(half, [](const Pos &p) { return (float)p[0] * 0.5f; });
}

TEST(TupleFunc, ConsumerReadsItsElements) {
    for (bool root : {false, true}) {
        SCOPED_TRACE(root ? "producer compute_root" : "producer inlined");
        Var x("x"), y("y");
        Func f("f"), g("g");
        f(x, y) = Tuple(x - y, cast<float>(y) * 1.5f);
        g(x, y) = f(x, y)[0] * 10 + cast<int32_t>(f(x + 1, y)[1] * 2.0f);
        if (root) f.compute_root();
        Buffer<int32_t> out = g.realize({5, 4});
        expect_buffer<int32_t>(out, [](const Pos &p) {
            return (p[0] - p[1]) * 10 + (int32_t)((float)p[1] * 1.5f * 2.0f);
        });
    }
}

TEST(TupleFunc, RealizesIntoGivenBuffersWithMins) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = Tuple(x * y, cast<uint8_t>(x + y));
    Buffer<int32_t> product(std::vector<int>{3, 2}, "product");
    Buffer<uint8_t> sum(std::vector<int>{3, 2}, "sum");
    product.set_min(1, 4);
    sum.set_min(1, 4);
    f.realize(Realization(product, sum));
    expect_buffer<int32_t>(product, [](const Pos &p) { return p[0] * p[1]; });
    expect_buffer<uint8_t>(sum, [](const Pos &p) { return (uint8_t)(p[0] + p[1]); });
}

// ---------------------------------------------------------------------------------------------
// Output and input coordinates.

TEST(RealizeIntoBuffer, NonZeroMinsGiveTheBuffersCoordinates) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x * 100 + y;
    Buffer<int32_t> out(std::vector<int>{5, 4}, "out");
    out.set_min(10, -3);
    f.realize(out);
    EXPECT_EQ(out(10, -3), 997);
    EXPECT_EQ(out(14, 0), 1400);
    expect_buffer<int32_t>(out, [](const Pos &p) { return p[0] * 100 + p[1]; });
}

TEST(RealizeIntoBuffer, InputWithNonZeroMinIsReadAtItsCoordinates) {
    Buffer<int16_t> in(std::vector<int>{10}, "shifted");
    in.set_min(-5);
    for (int i = -5; i < 5; i++)
        in(i) = (int16_t)(i * 3);
    Var x("x");
    Func f("f");
    f(x) = in(x)*2 + in(x + 1);
    Buffer<int16_t> out(std::vector<int>{6}, "out");
    out.set_min(-4);
    f.realize(out);
    expect_1d<int16_t>(out, [](int i) { return (int16_t)(i * 3 * 2 + (i + 1) * 3); });
}

TEST(RealizeIntoBuffer, SameFuncIntoBuffersOfDifferentPlacement) {
    Var x("x");
    Func f("f");
    f(x) = x * x - 3;
    Buffer<int32_t> a(std::vector<int>{4}, "a"), b(std::vector<int>{7}, "b");
    b.set_min(-100);
    f.realize(a);
    f.realize(b);
    expect_1d<int32_t>(a, [](int i) { return i * i - 3; });
    expect_1d<int32_t>(b, [](int i) { return i * i - 3; });
}

// ---------------------------------------------------------------------------------------------
// Dimensions.

TEST(Dimensions, OneD) {
    Var x("x");
    Func f("f");
    f(x) = x * 3 - 1;
    Buffer<int32_t> out = f.realize({7});
    ASSERT_EQ(out.dimensions(), 1);
    EXPECT_EQ(out.width(), 7);
    expect_1d<int32_t>(out, [](int i) { return i * 3 - 1; });
}

TEST(Dimensions, TwoD) {
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = x - 2 * y;
    Buffer<int32_t> out = f.realize({5, 3});
    ASSERT_EQ(out.dimensions(), 2);
    EXPECT_EQ(out.width(), 5);
    EXPECT_EQ(out.height(), 3);
    expect_buffer<int32_t>(out, [](const Pos &p) { return p[0] - 2 * p[1]; });
}

TEST(Dimensions, ThreeD) {
    Var x("x"), y("y"), c("c");
    Func f("f");
    f(x, y, c) = cast<uint16_t>(x + 10 * y + 100 * c);
    Buffer<uint16_t> out = f.realize({4, 3, 2});
    ASSERT_EQ(out.dimensions(), 3);
    EXPECT_EQ(out.channels(), 2);
    expect_buffer<uint16_t>(out,
                            [](const Pos &p) { return (uint16_t)(p[0] + 10 * p[1] + 100 * p[2]); });
}

TEST(Dimensions, FourD) {
    Var x("x"), y("y"), z("z"), w("w");
    Func f("f");
    f(x, y, z, w) = x + 10 * y + 100 * z + 1000 * w;
    Buffer<int32_t> out = f.realize({3, 2, 2, 3});
    ASSERT_EQ(out.dimensions(), 4);
    EXPECT_EQ(out.dim(3).extent(), 3);
    expect_buffer<int32_t>(
        out, [](const Pos &p) { return p[0] + 10 * p[1] + 100 * p[2] + 1000 * p[3]; });
}

TEST(Dimensions, ZeroD) {
    Func f("f");
    f() = 42;
    Buffer<int32_t> out = f.realize();
    ASSERT_EQ(out.dimensions(), 0);
    EXPECT_EQ(out(), 42);
}

TEST(Dimensions, ZeroDFromAParamAndFuncOfExpr) {
    Param<float> p("p");
    Func f("f");
    f() = p * 1.5f;
    p.set(4.0f);
    Buffer<float> out = f.realize();
    EXPECT_EQ(out(), 6.0f);

    Func g(Expr(7) * 6); // Halide's Func(Expr): a zero-dimensional Func of that value
    Buffer<int32_t> out_g = g.realize();
    EXPECT_EQ(out_g(), 42);
}

// ---------------------------------------------------------------------------------------------
// LOOM_PERF_MAP: every JIT-compiled function listed for perf, at an address in this process.

TEST(PerfMap, ListsEveryCompiledFunctionWhenAsked) {
    std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    std::remove(path.c_str());
    setenv("LOOM_PERF_MAP", "1", 1);
    Var x("x"), y("y");
    Func profiled("profiled");
    profiled(x, y) = x + y;
    profiled.parallel(y);
    profiled.compile_jit();
    unsetenv("LOOM_PERF_MAP");
    std::ifstream map(path);
    ASSERT_TRUE(map.good()) << path;
    std::set<std::string> names;
    std::string address, size, name;
    while (map >> address >> size >> name) {
        EXPECT_NE(std::stoull(address, nullptr, 16), 0u) << name;
        EXPECT_GT(std::stoull(size, nullptr, 16), 0u) << name;
        names.insert(name);
    }
    std::remove(path.c_str());
    // The entry and the body of the parallel loop.
    EXPECT_EQ(names.count("loom_pipelineprofiled"), 1u) << path;
    EXPECT_EQ(names.count("loom_pipelineprofiled.profiled.s0.y.task"), 1u) << path;
    // Without the variable, no map.
    Func quiet("quiet");
    quiet(x) = x;
    quiet.compile_jit();
    EXPECT_FALSE(std::ifstream(path).good());
}

} // namespace

namespace {

/** The message of the RuntimeError f.realize({8}) throws, or "" where it runs. */
std::string run_error(loom::Func &f) {
    try {
        f.realize({8});
    } catch (const loom::RuntimeError &e) {
        return e.what();
    }
    return "";
}

// Halide 14's Param ranges: every run checks the value first, with the Param, its value and
// the bound in the message; the same compiled code runs again once the value is back in range.
TEST(ParamRange, EachRunChecksTheValue) {
    loom::Param<int32_t> offset("offset", 3, 0, 10);
    loom::Var x("x");
    loom::Func f("shifted_by_offset");
    f(x) = x + offset;
    loom::Buffer<int32_t> b = f.realize({8});
    EXPECT_EQ(b(5), 8);
    offset.set(-1);
    EXPECT_NE(run_error(f).find("Param offset is -1, below its minimum 0"), std::string::npos)
        << run_error(f);
    offset.set(11);
    EXPECT_NE(run_error(f).find("Param offset is 11, above its maximum 10"), std::string::npos)
        << run_error(f);
    offset.set(10);
    EXPECT_EQ(run_error(f), "");
    EXPECT_TRUE(loom::Internal::is_const(offset.min_value(), 0));
    EXPECT_TRUE(loom::Internal::is_const(offset.max_value(), 10));
}

TEST(ParamRange, OneSidedAndFromAnotherParam) {
    loom::Param<float> gain("gain", 0.5f);
    loom::Param<float> ceiling("ceiling", 2.0f);
    gain.set_min_value(0.25f);
    gain.set_max_value(ceiling);
    loom::Var x("x");
    loom::Func f("gained");
    f(x) = loom::cast<float>(x) * gain;
    EXPECT_EQ(run_error(f), "");
    gain.set(0.125f);
    EXPECT_NE(run_error(f).find("Param gain is 0.125, below its minimum 0.25"), std::string::npos)
        << run_error(f);
    gain.set(1.5f);
    ceiling.set(1.0f);
    EXPECT_NE(run_error(f).find("Param gain is 1.5, above its maximum 1"), std::string::npos)
        << run_error(f);
    gain.set_max_value(loom::Expr()); // no maximum any more
    EXPECT_EQ(run_error(f), "");
}

} // namespace

namespace {

TEST(Introspection, UpdateDefinitionsArgsValuesAndRVars) {
    loom::Var x("x");
    loom::RDom r(0, 4, 1, 3, "box");
    loom::Func f("introspected");
    f(x) = x;
    EXPECT_FALSE(f.has_update_definition());
    f(x) += r.x * r.y;
    f(r.x) = f(r.x) * 2;
    EXPECT_TRUE(f.has_update_definition());
    ASSERT_EQ(f.num_update_definitions(), 2);
    EXPECT_EQ(f.rvars(0).size(), 2u);
    EXPECT_EQ(f.rvars(0)[1].name(), r.y.name());
    ASSERT_EQ(f.update_args(1).size(), 1u);
    EXPECT_EQ(loom::Internal::to_string(f.update_args(1)[0]), r.x.name());
    EXPECT_EQ(f.update_values(0).size(), 1u);
    EXPECT_NE(loom::Internal::to_string(f.update_value(1)).find("*2"), std::string::npos);
    try {
        f.update_value(2);
        FAIL() << "update 2 of a Func with 2 updates was found";
    } catch (const std::exception &e) {
        EXPECT_NE(std::string(e.what()).find("introspected has 2 update definitions"),
                  std::string::npos)
            << e.what();
    }
}

// unsafe_promise_clamped: the user's promise bounds a read at data-dependent coordinates that
// bounds inference could not bound by itself (refused without it).
TEST(Promises, UnsafePromiseClampedBoundsADataDependentRead) {
    loom::Buffer<int32_t> table(std::vector<int>{10}, "table");
    loom::Buffer<int32_t> index(std::vector<int>{32}, "index");
    for (int i = 0; i < 10; i++)
        table(i) = 100 + i * i;
    for (int i = 0; i < 32; i++)
        index(i) = (i * 7) % 10;
    loom::Var x("x");
    loom::Func unbounded("looked_up_unbounded"), promised("looked_up");
    unbounded(x) = table(index(x));
    EXPECT_THROW(unbounded.realize({32}), std::exception);
    promised(x) =
        table(loom::unsafe_promise_clamped(index(x), 0, 9)) + loom::likely_if_innermost(x);
    loom::Buffer<int32_t> out = promised.realize({32});
    for (int i = 0; i < 32; i++) {
        const int k = (i * 7) % 10;
        EXPECT_EQ(out(i), 100 + k * k + i) << i;
    }
}

} // namespace
