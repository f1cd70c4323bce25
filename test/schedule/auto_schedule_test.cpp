// Pipeline::auto_schedule with Halide 14's API, and Loom's heuristic scheduler: the results it
// returns, the errors for schedulers Loom does not have, the warnings for missing estimates,
// and on pipelines of each kind (stencils, pointwise chains, reductions, scatters, data-dependent
// reads, Tuples), outputs bit-identical to the same pipeline unscheduled, with the choices the
// cost model should make visible in the loop nest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>

#include <loom.h>

#include "CompileErrorOf.h"

namespace {

using namespace loom;
using loom_test::compile_error_of;
using ::testing::HasSubstr;
using ::testing::Not;

template <typename T> Buffer<T> pattern(int w, int h, int c = 0) {
    Buffer<T> b = c ? Buffer<T>(w, h, c) : Buffer<T>(w, h);
    uint32_t state = 12345;
    b.for_each_position([&](const std::vector<int> &pos) {
        state = state * 1664525u + 1013904223u;
        T v = (T)(state >> 9);
        if constexpr (std::is_floating_point_v<T>) v = (T)((state >> 8) % 1000) / 250.0f;
        b(pos) = v;
    });
    return b;
}

template <typename T> void expect_same_bytes(Buffer<T> a, Buffer<T> b) {
    ASSERT_EQ(a.number_of_elements(), b.number_of_elements());
    int64_t differ = 0;
    a.for_each_position([&](const std::vector<int> &pos) {
        differ += std::memcmp(&a(pos), &b(pos), sizeof(T)) != 0;
    });
    EXPECT_EQ(differ, 0) << "elements differ between the unscheduled and auto-scheduled runs";
}

// A separable 3x3 blur of a 16-bit image.
struct Blur {
    Func bx{"bx"}, by{"by"};
    Var x{"x"}, y{"y"};
    explicit Blur(const Buffer<uint16_t> &in) {
        Func clamped = BoundaryConditions::repeat_edge(in);
        bx(x, y) = cast<uint16_t>(
            (cast<uint32_t>(clamped(x - 1, y)) + clamped(x, y) + clamped(x + 1, y)) / 3);
        by(x, y) = cast<uint16_t>((cast<uint32_t>(bx(x, y - 1)) + bx(x, y) + bx(x, y + 1)) / 3);
    }
};

// The source auto_schedule writes for Blur with the estimates, machine and target of the next test,
// pasted here: applied to a fresh pipeline, it must give the same loop nest.
inline void apply_schedule_by(loom::Pipeline pipeline, const loom::Target & = loom::Target()) {
    using namespace loom;
    Func bx = pipeline.get_func(2);
    Func by = pipeline.get_func(3);
    Var x("x"), xv("xv"), y("y"), yo("yo"), yi("yi");
    bx.compute_at(by.at(yi));
    bx.store_at(by.at(yo));
    bx.split(x, x, xv, 32, TailStrategy::GuardWithIf);
    bx.reorder(xv, x, y);
    bx.vectorize(xv);
    by.set_estimate(x, 0, 4000);
    by.set_estimate(y, 0, 3000);
    by.split(y, yo, yi, 32, TailStrategy::GuardWithIf);
    by.split(x, x, xv, 32, TailStrategy::GuardWithIf);
    by.reorder(xv, x, yi, yo);
    by.vectorize(xv);
    by.parallel(yo);
}

const char *const pasted_blur_schedule =
    R"(inline void apply_schedule_by(loom::Pipeline pipeline, const loom::Target & = loom::Target()) {
    using namespace loom;
    Func bx = pipeline.get_func(2);
    Func by = pipeline.get_func(3);
    Var x("x"), xv("xv"), y("y"), yo("yo"), yi("yi");
    bx.compute_at(by.at(yi));
    bx.store_at(by.at(yo));
    bx.split(x, x, xv, 32, TailStrategy::GuardWithIf);
    bx.reorder(xv, x, y);
    bx.vectorize(xv);
    by.set_estimate(x, 0, 4000);
    by.set_estimate(y, 0, 3000);
    by.split(y, yo, yi, 32, TailStrategy::GuardWithIf);
    by.split(x, x, xv, 32, TailStrategy::GuardWithIf);
    by.reorder(xv, x, yi, yo);
    by.vectorize(xv);
    by.parallel(yo);
}
)";

TEST(AutoSchedule, ResultsNameTheSchedulerAndTheirSourceAppliesTheSchedule) {
    Buffer<uint16_t> in = pattern<uint16_t>(300, 200);
    Blur b(in);
    b.by.set_estimates({{0, 4000}, {0, 3000}});
    Pipeline p(b.by);
    // Scheduled for AVX-512 (32 lanes of 16 bits) whatever this machine has: the schedule is
    // the pasted one below; its code runs on any x86-64 (a 32-lane vector is split as needed).
    const Target avx512 = get_host_target().with_feature(Target::AVX512);
    AutoSchedulerResults r = p.auto_schedule(avx512, MachineParams(2, 32 << 20, 40));
    EXPECT_EQ(r.scheduler_name, "Heuristic");
    EXPECT_EQ(r.machine_params_string, "2,33554432,40");
    EXPECT_TRUE(r.featurization.empty());
    // Why each Func is where it is, as comments, then the function.
    EXPECT_THAT(r.schedule_source, HasSubstr("// Heuristic auto-schedule for 2 cores"));
    EXPECT_THAT(r.schedule_source, HasSubstr("//   by: output"));
    EXPECT_THAT(r.schedule_source, HasSubstr("//   bx: stored: inlined it would cost"));
    EXPECT_THAT(r.schedule_source, HasSubstr(pasted_blur_schedule));

    Blur fresh(in);
    Pipeline q(fresh.by);
    apply_schedule_by(q);
    EXPECT_EQ(q.lowered_stmt(), p.lowered_stmt());
    expect_same_bytes(Buffer<uint16_t>(p.realize({300, 200})),
                      Buffer<uint16_t>(q.realize({300, 200})));
}

TEST(AutoSchedule, StencilIsFusedIntoParallelVectorStrips) {
    Buffer<uint16_t> in = pattern<uint16_t>(300, 200);
    Blur plain(in), autos(in);
    // Estimates of a large image, where a root bx would not stay in the cache.
    autos.by.set_estimates({{0, 4000}, {0, 3000}});
    Pipeline p(autos.by);
    p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    const std::string stmt = p.lowered_stmt();
    // bx is computed row by row inside by's parallel strips, sliding down each strip.
    EXPECT_NE(stmt.find("parallel (by.s0.y.yo"), std::string::npos);
    EXPECT_NE(stmt.find("produce bx"), std::string::npos);
    EXPECT_THAT(p.schedule_source(), HasSubstr("bx.compute_at(by.at(yi));"));
    EXPECT_THAT(p.schedule_source(), HasSubstr("bx.store_at(by.at(yo));"));
    expect_same_bytes(Buffer<uint16_t>(plain.by.realize({300, 200})),
                      Buffer<uint16_t>(p.realize({300, 200})));
    // Sizes other than the estimates give the same bytes too (strip and vector tails).
    Blur plain2(in), autos2(in);
    autos2.by.set_estimates({{0, 4000}, {0, 3000}});
    Pipeline(autos2.by).auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    expect_same_bytes(Buffer<uint16_t>(plain2.by.realize({37, 5})),
                      Buffer<uint16_t>(autos2.by.realize({37, 5})));
}

// Five pointwise steps: nothing is worth storing.
struct Chain {
    Func f[5];
    Var x{"x"}, y{"y"};
    explicit Chain(const Buffer<float> &in) {
        f[0](x, y) = in(x, y) * 1.5f + 0.25f;
        for (int i = 1; i < 5; i++)
            f[i](x, y) = max(f[i - 1](x, y) * 0.75f - 0.5f, 0.125f * i);
    }
};

TEST(AutoSchedule, PointwiseChainIsInlined) {
    Buffer<float> in = pattern<float>(256, 64);
    Chain plain(in), autos(in);
    autos.f[4].set_estimates({{0, 256}, {0, 64}});
    Pipeline p(autos.f[4]);
    AutoSchedulerResults r = p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(r.schedule_source, HasSubstr("inlined (1 evaluations a point"));
    EXPECT_THAT(p.lowered_stmt(), Not(HasSubstr("produce f$")));
    expect_same_bytes(Buffer<float>(plain.f[4].realize({256, 64})),
                      Buffer<float>(p.realize({256, 64})));
}

// A root Func whose point takes many vector operations (exp's expansion) over dense reads is
// vectorized 4 native vectors wide; a light one, or one reading with a stride, natively.
TEST(AutoSchedule, HeavyDensePointsGetWideVectors) {
    Buffer<float> in = pattern<float>(512, 64);
    const Target avx2("x86-64-linux-avx2-fma");
    auto vectors_of = [&](int stride, bool heavy) {
        Var x("x"), y("y");
        Func sum("sum"), out("out");
        sum(x, y) = in(x * stride, y) * 2.0f + 1.0f;
        out(x, y) = heavy ? 1.0f / (1.0f + exp(-sum(x, y))) : max(sum(x, y), 0.5f);
        out.set_estimates({{0, 256}, {0, 64}});
        Pipeline p(out);
        p.auto_schedule(avx2, MachineParams(2, 32 << 20, 40));
        Buffer<float> got = p.realize({256, 64}, avx2);
        for (int yy = 0; yy < 64; yy++)
            for (int xx = 0; xx < 256; xx++) {
                const float v = in(xx * stride, yy) * 2.0f + 1.0f;
                // exp is Loom's own expansion (within an ulp): compare the light one exactly.
                if (heavy) {
                    EXPECT_NEAR(got(xx, yy), 1.0f / (1.0f + std::exp(-v)), 1e-6f)
                        << xx << " " << yy;
                } else {
                    EXPECT_EQ(got(xx, yy), std::max(v, 0.5f)) << xx << " " << yy;
                }
            }
        return p.schedule_source();
    };
    EXPECT_THAT(vectors_of(1, true), HasSubstr("out.split(x, x, xv, 32, "));
    EXPECT_THAT(vectors_of(1, false), HasSubstr("out.split(x, x, xv, 8, "));
    EXPECT_THAT(vectors_of(2, true), HasSubstr("out.split(x, x, xv, 8, "));
}

// An image's channels, where each channel computes something of its own (a select on the
// channel, directly or through a Func inlined), run unrolled just outside the vector: each copy
// keeps its channel's branch. Left a loop where the channel is only a coordinate, or where its
// extent is an estimate rather than a bound (any count of channels may come).
TEST(AutoSchedule, ChannelsThatSelectAreUnrolledInsideTheRows) {
    Buffer<uint16_t> in = pattern<uint16_t>(256, 66, 3);
    auto schedule_of = [&](bool selects, bool bounded) -> std::string {
        Var x("x"), y("y"), c("c");
        Func mixed("mixed"), out("out");
        if (selects) {
            mixed(x, y, c) = select(c == 0, in(x, y, 0) * 3 + in(x, y, 1), c == 1,
                                    in(x, y, 1) - in(x, y, 2), in(x, y, 2) / 2);
        } else {
            mixed(x, y, c) = in(x, y, c) * 3 + 1;
        }
        out(x, y, c) = mixed(x, y, c) + mixed(x, y + 1, c) / 4;
        if (bounded) out.bound(c, 0, 3);
        out.set_estimates({{0, 256}, {0, 64}, {0, 3}});
        Pipeline p(out);
        p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
        Buffer<uint16_t> got = p.realize({256, 64, 3});
        int differ = 0;
        for (int cc = 0; cc < 3; cc++)
            for (int yy = 0; yy < 64; yy++)
                for (int xx = 0; xx < 256; xx++) {
                    auto m = [&](int yr) -> uint16_t {
                        if (!selects) return (uint16_t)(in(xx, yr, cc) * 3 + 1);
                        if (cc == 0) return (uint16_t)(in(xx, yr, 0) * 3 + in(xx, yr, 1));
                        if (cc == 1) return (uint16_t)(in(xx, yr, 1) - in(xx, yr, 2));
                        return (uint16_t)(in(xx, yr, 2) / 2);
                    };
                    differ += got(xx, yy, cc) != (uint16_t)(m(yy) + m(yy + 1) / 4);
                }
        EXPECT_EQ(differ, 0) << "selects " << selects << ", bounded " << bounded;
        return p.schedule_source();
    };
    const std::string unrolled = schedule_of(true, true);
    // mixed, read at two rows, is stored per row of out's strips; its extent along c is out's
    // bound.
    EXPECT_THAT(unrolled, HasSubstr("mixed.reorder(xv, c, x, y);"));
    EXPECT_THAT(unrolled, HasSubstr("mixed.unroll(c);"));
    EXPECT_THAT(schedule_of(false, true), Not(HasSubstr(".unroll(c)")));
    EXPECT_THAT(schedule_of(true, false), Not(HasSubstr(".unroll(c)")));
}

// Softmax over rows: a maximum and a sum along x (RDoms), exp stored for both.
struct Softmax {
    Func mx{"mx"}, e{"e"}, sum{"sum"}, out{"out"};
    Var x{"x"}, y{"y"};
    explicit Softmax(const Buffer<float> &in) {
        RDom r(0, in.width());
        mx(y) = -1e30f;
        mx(y) = max(mx(y), in(r, y));
        e(x, y) = exp(in(x, y) - mx(y));
        sum(y) = 0.0f;
        sum(y) += e(r, y);
        out(x, y) = e(x, y) / sum(y);
    }
};

TEST(AutoSchedule, RowReductionsAreComputedPerRow) {
    Buffer<float> in = pattern<float>(128, 96);
    Softmax plain(in), autos(in);
    autos.out.set_estimates({{0, 128}, {0, 96}});
    Pipeline p(autos.out);
    p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(p.schedule_source(), HasSubstr("sum.compute_at(out.at(yi));"));
    EXPECT_THAT(p.schedule_source(), HasSubstr("mx.compute_at(out.at(yi));"));
    expect_same_bytes(Buffer<float>(plain.out.realize({128, 96})),
                      Buffer<float>(p.realize({128, 96})));
}

// A matrix product: the update's vector and four rows run inside the reduction.
struct MatMul {
    Func c{"c"};
    Var x{"x"}, y{"y"};
    MatMul(const Buffer<float> &a, const Buffer<float> &b) {
        RDom k(0, a.width(), "k");
        c(x, y) = 0.0f;
        c(x, y) += a(k, y) * b(x, k);
    }
};

TEST(AutoSchedule, ReductionGetsARegisterTileAndKeepsItsOrder) {
    Buffer<float> a = pattern<float>(64, 96), b = pattern<float>(80, 64);
    MatMul plain(a, b), autos(a, b);
    autos.c.set_estimates({{0, 80}, {0, 96}});
    Pipeline p(autos.c);
    p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(p.schedule_source(), HasSubstr("c.update(0).unroll(yiu);"));
    // A tile of rows by vectors in registers (RegisterTileFillsTheVectorRegisters), inside k;
    // the columns of tiles outside the strip's rows, which reuse them.
    EXPECT_THAT(p.schedule_source(),
                HasSubstr("c.update(0).reorder(xv, xc, yiu, k.x, yi, x, yo);"));
    expect_same_bytes(Buffer<float>(plain.c.realize({80, 96})), Buffer<float>(p.realize({80, 96})));
}

TEST(AutoSchedule, RegisterTileFillsTheVectorRegisters) {
    // AVX2's 16 vector registers hold 6 rows by 2 vectors of accumulators, the 2 vectors of B
    // and a broadcast of A: 8 loads for 12 multiply-adds (4 x 2 loads 6 for 8; 3 x 4 would
    // need 17 registers). AVX-512's 32 hold 6 rows by 4 vectors (10 loads for 24).
    Buffer<float> a = pattern<float>(64, 96), b = pattern<float>(80, 64);
    MatMul plain(a, b), autos(a, b);
    autos.c.set_estimates({{0, 80}, {0, 96}});
    Pipeline p(autos.c);
    const Target avx2("x86-64-linux-avx2-fma");
    p.auto_schedule(avx2, MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(p.schedule_source(), HasSubstr("c.update(0).split(x, x, xt, 16, "));
    EXPECT_THAT(p.schedule_source(), HasSubstr("c.update(0).split(yi, yi, yiu, 6, "));
    expect_same_bytes(Buffer<float>(plain.c.realize({80, 96})),
                      Buffer<float>(p.realize({80, 96}, avx2)));

    MatMul wide(a, b);
    wide.c.set_estimates({{0, 80}, {0, 96}});
    Pipeline q(wide.c);
    q.auto_schedule(Target("x86-64-linux-avx512-avx2-fma"), MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(q.schedule_source(), HasSubstr("c.update(0).split(x, x, xt, 64, "));
    EXPECT_THAT(q.schedule_source(), HasSubstr("c.update(0).split(yi, yi, yiu, 6, "));
}

// A histogram (scatter update) and a lookup through it (a data-dependent read).
struct Equalize {
    Func hist{"hist"}, cdf{"cdf"}, out{"out"};
    Var x{"x"}, y{"y"}, i{"i"};
    explicit Equalize(const Buffer<uint8_t> &in) {
        RDom r(0, in.width(), 0, in.height());
        hist(i) = 0;
        hist(cast<int>(in(r.x, r.y))) += 1;
        RDom j(0, 256);
        cdf(i) = 0;
        cdf(j) = select(j == 0, 0, cdf(max(j - 1, 0))) + hist(j);
        out(x, y) = cast<uint8_t>(cdf(cast<int>(in(x, y))) * 255 / (in.width() * in.height()));
    }
};

TEST(AutoSchedule, ScattersAndDataDependentReadsStayLegal) {
    Buffer<uint8_t> in = pattern<uint8_t>(77, 53);
    Equalize plain(in), autos(in);
    autos.out.set_estimates({{0, 77}, {0, 53}});
    Pipeline p(autos.out);
    p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    EXPECT_THAT(p.schedule_source(), HasSubstr("cdf.compute_root();"));
    expect_same_bytes(Buffer<uint8_t>(plain.out.realize({77, 53})),
                      Buffer<uint8_t>(p.realize({77, 53})));
}

TEST(AutoSchedule, MissingEstimatesWarnAndAssumeTheStatedDefault) {
    ImageParam in(Float(32), 2, "in");
    Param<int> shift("shift");
    Func f("f"), g("g");
    Var x("x"), y("y");
    f(x, y) = in(x + shift, y) * 2.0f;
    g(x, y) = f(x, y) + f(x, y + 1);
    Pipeline p(g);
    testing::internal::CaptureStderr();
    p.auto_schedule(Target(), MachineParams(2, 32 << 20, 40));
    const std::string said = testing::internal::GetCapturedStderr();
    EXPECT_THAT(said, HasSubstr("Output Func g has no estimate for x: auto_schedule assumes min 0, "
                                "extent 1024. Call g.set_estimate(x, min, extent)."));
    EXPECT_THAT(said,
                HasSubstr("Param shift has no estimate: auto_schedule assumes its value now, 0."));
    // The schedule it made runs.
    Buffer<float> input = pattern<float>(40, 30);
    in.set(input);
    shift.set(1);
    Buffer<float> out = p.realize({39, 29});
    for (int yy = 0; yy < 29; yy++) {
        for (int xx = 0; xx < 39; xx++) {
            ASSERT_EQ(out(xx, yy), input(xx + 1, yy) * 2.0f + input(xx + 1, yy + 1) * 2.0f);
        }
    }
}

TEST(AutoSchedule, HalidesSchedulersAndUnknownNamesAreClearErrors) {
    Buffer<uint16_t> in = pattern<uint16_t>(30, 20);
    Blur b(in);
    Pipeline p(b.by);
    EXPECT_THAT(compile_error_of([&] { p.auto_schedule("Mullapudi2016", Target()); }),
                HasSubstr("auto_schedule(\"Mullapudi2016\"): Mullapudi2016 is one of Halide's "
                          "auto-schedulers, which schedule Halide's IR and do not run on Loom's. "
                          "Loom's auto-schedulers are: Autotune, Heuristic, Search"));
    EXPECT_THAT(
        compile_error_of([&] { Pipeline::set_default_autoscheduler_name("Adams2019"); }),
        HasSubstr("set_default_autoscheduler_name(\"Adams2019\"): Adams2019 is one of Halide's"));
    EXPECT_THAT(
        compile_error_of([&] { p.auto_schedule("Greedy", Target()); }),
        HasSubstr("auto_schedule(\"Greedy\"): no auto-scheduler has that name. Loom's are: "));
    EXPECT_THAT(compile_error_of([&] { load_plugin("autoschedule_li2018"); }),
                HasSubstr("load_plugin(\"autoschedule_li2018\"): that is Halide's Li2018 "
                          "auto-scheduler"));
    EXPECT_THAT(compile_error_of([&] {
                    load_plugin("/usr/lib/x86_64-linux-gnu/halide14/libautoschedule_adams2019.so");
                }),
                HasSubstr("Remove the load_plugin call and name one of them in auto_schedule."));
    EXPECT_THAT(
        compile_error_of([&] { load_plugin("no_such_scheduler"); }),
        HasSubstr("load_plugin(\"no_such_scheduler\"): can't load libno_such_scheduler.so"));
    // The heuristic schedules for CUDA (test/gpu/gpu_auto_schedule_test.cpp); the search's
    // model is the CPU's.
    EXPECT_THAT(
        compile_error_of([&] { p.auto_schedule("Search", Target().with_feature(Target::CUDA)); }),
        HasSubstr("costs schedules with a model of the CPU"));
}

TEST(AutoSchedule, ProgramsAddTheirOwnSchedulers) {
    Buffer<uint16_t> in = pattern<uint16_t>(30, 20);
    Blur plain(in), b(in);
    int calls = 0;
    Pipeline::add_autoscheduler("RootEverything", [&](const Pipeline &p, const Target &,
                                                      const MachineParams &params,
                                                      AutoSchedulerResults *results) {
        calls++;
        for (const Func &out : p.outputs())
            out.function()->schedule.compute_level = LoopLevel::root();
        b.bx.compute_root();
        results->schedule_source =
            "bx.compute_root(); // parallelism " + std::to_string(params.parallelism);
    });
    EXPECT_THAT(compile_error_of([&] {
                    Pipeline::add_autoscheduler(
                        "RootEverything", [](const Pipeline &, const Target &,
                                             const MachineParams &, AutoSchedulerResults *) {});
                }),
                HasSubstr("a scheduler of that name exists already"));
    Pipeline p(b.by);
    Pipeline::set_default_autoscheduler_name("RootEverything");
    AutoSchedulerResults r = p.auto_schedule(Target(), MachineParams(3, 1 << 20, 40));
    Pipeline::set_default_autoscheduler_name("Heuristic");
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(r.scheduler_name, "RootEverything");
    EXPECT_EQ(r.schedule_source, "bx.compute_root(); // parallelism 3");
    EXPECT_THAT(p.lowered_stmt(), HasSubstr("produce bx"));
    expect_same_bytes(Buffer<uint16_t>(plain.by.realize({30, 20})),
                      Buffer<uint16_t>(p.realize({30, 20})));
}

} // namespace
