// Func::async (lower/AsyncProducers.h): a Func's productions run as a task of their own, beside
// the work that consumes them. Values against a plain C++ reference for every kind of storage
// (root, slid over the consumer's rows, folded, per iteration of a parallel loop, nested async
// Funcs, Tuples, updates (computed in order where stored apart), memoized, traced); the
// producer shown running ahead of the consumer;
// a failure on either side stopping the pipeline instead of hanging it; the lowered fork; and
// every misuse's error. ctest runs this file a second time with one thread (CMakeLists.txt).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <thread>
#include <vector>

#include <loom.h>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using loom_test::compile_error_of;
using ::testing::HasSubstr;

constexpr int kWidth = 37, kHeight = 29;

int input_value(int x, int y) { return (x * 7 + y * 13) % 23 - 11; }
// f = in * 3 + x - y; g a stencil of f; h one of g, then an update adding y to every other
// column.
int f_value(int x, int y) { return input_value(x + 2, y + 2) * 3 + x - y; }
int g_value(int x, int y) {
    return f_value(x - 1, y) + 2 * f_value(x, y + 1) - f_value(x + 1, y - 1);
}
int h_value(int x, int y) {
    int v = g_value(x, y - 1) + g_value(x, y + 1) * 3;
    return x % 2 == 0 ? v + y : v;
}

struct Chain {
    Var x{"x"}, y{"y"};
    Func f{"f"}, g{"g"}, h{"h"};
    Buffer<int> in{kWidth + 4, kHeight + 6, "in"};
    Chain() {
        for (int yy = 0; yy < in.height(); yy++) {
            for (int xx = 0; xx < in.width(); xx++)
                in(xx, yy) = input_value(xx, yy);
        }
        f(x, y) = in(x + 2, y + 2) * 3 + x - y;
        g(x, y) = f(x - 1, y) + 2 * f(x, y + 1) - f(x + 1, y - 1);
        h(x, y) = g(x, y - 1) + g(x, y + 1) * 3;
        RDom r(0, (kWidth + 1) / 2, "r");
        h(2 * r.x, y) = h(2 * r.x, y) + y;
    }
    // Every value of h over the output, against the reference; the first mismatch reported.
    void check(const std::string &schedule) {
        Buffer<int> out = h.realize({kWidth, kHeight});
        int wrong = 0;
        for (int yy = 0; yy < kHeight; yy++) {
            for (int xx = 0; xx < kWidth; xx++) {
                if (out(xx, yy) != h_value(xx, yy) && wrong++ == 0)
                    ADD_FAILURE() << schedule << ": h(" << xx << ", " << yy << ") = " << out(xx, yy)
                                  << ", expected " << h_value(xx, yy);
            }
        }
        EXPECT_EQ(wrong, 0) << schedule;
    }
};

std::string lowered_of(Func out) {
    const std::string file = ::testing::TempDir() + "async_lowered.stmt";
    out.compile_to_lowered_stmt(file, {});
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace

TEST(AsyncProducers, GiveTheSerialValuesForEveryStorage) {
    const std::vector<std::pair<std::string, std::function<void(Chain &)>>> schedules = {
        {"f at root", [](Chain &c) { c.f.compute_root().async(); }},
        {"f and g at root",
         [](Chain &c) {
             c.f.compute_root().async();
             c.g.compute_root().async();
         }},
        {"f stored at root, computed per row of g (slides)",
         [](Chain &c) {
             c.f.store_root().compute_at(c.g, c.y).async();
             c.g.compute_root();
         }},
        {"f folded to 4 rows",
         [](Chain &c) {
             c.f.store_root().compute_at(c.g, c.y).fold_storage(c.y, 4).async();
             c.g.compute_root();
         }},
        {"f per row of a parallel g",
         [](Chain &c) {
             c.f.compute_at(c.g, c.y).async();
             c.g.compute_root().parallel(c.y);
         }},
        {"f stored per strip of a parallel g, computed per row",
         [](Chain &c) {
             Var yo("yo"), yi("yi");
             c.g.compute_root().split(c.y, yo, yi, 8).parallel(yo);
             c.f.store_at(c.g, yo).compute_at(c.g, yi).async();
         }},
        {"f and g both slid down the rows of h",
         [](Chain &c) {
             c.f.store_root().compute_at(c.h, c.y).async();
             c.g.store_root().compute_at(c.h, c.y).async();
         }},
        {"f inside g's rows, g slid down h's",
         [](Chain &c) {
             c.f.compute_at(c.g, c.y).async();
             c.g.store_root().compute_at(c.h, c.y).async();
         }},
        {"f at root, g per row of a parallel, vectorized h",
         [](Chain &c) {
             c.f.compute_root().async();
             c.g.compute_at(c.h, c.y).vectorize(c.x, 8).async();
             c.h.parallel(c.y).vectorize(c.x, 8);
         }},
        // Halide 14 runs both at once; Loom computes g in order on f's consumer side, since
        // g's productions read f, whose producer side would be left out of g's producer task
        // (fuzz seed 8502 pair 4030: refused before).
        {"f stored per row of h outside g, computed inside g's rows; g stored at root",
         [](Chain &c) {
             c.g.store_root().compute_at(c.h, c.y).async();
             c.f.store_at(c.h, c.y).compute_at(c.g, c.y).async();
         }},
        {"async on an inlined Func and on the output: no effect",
         [](Chain &c) {
             c.g.async();
             c.h.async();
             c.f.compute_root();
         }},
    };
    for (const auto &[name, schedule] : schedules) {
        Chain c;
        schedule(c);
        c.check(name);
    }
}

TEST(AsyncProducers, TuplesUpdatesMemoizationAndTracesToo) {
    Var x("x"), y("y");
    Func pair("pair"), out("out");
    pair(x, y) = Tuple(x * 2 + y, x - y * 3);
    out(x, y) = pair(x, y)[0] * pair(x + 1, y - 1)[1];
    pair.store_root().compute_at(out, y).async();
    Buffer<int> o = out.realize({19, 11});
    for (int yy = 0; yy < 11; yy++) {
        for (int xx = 0; xx < 19; xx++)
            ASSERT_EQ(o(xx, yy), (xx * 2 + yy) * ((xx + 1) - (yy - 1) * 3)) << xx << ", " << yy;
    }

    Func m("m"), user("user");
    m(x, y) = x * y + 5;
    user(x, y) = m(x, y) + m(x + 1, y);
    m.compute_root().memoize().async();
    for (int run = 0; run < 2; run++) {
        Buffer<int> u = user.realize({9, 7});
        for (int yy = 0; yy < 7; yy++) {
            for (int xx = 0; xx < 9; xx++)
                ASSERT_EQ(u(xx, yy), xx * yy + 5 + (xx + 1) * yy + 5) << "run " << run;
        }
    }

    // A Func with an update, stored at the root and computed per row: each production
    // recomputes a row the one before computed, so it is computed in order (no fork).
    Func u("u"), below("below");
    u(x, y) = x + y;
    u(x, y) += 1;
    below(x, y) = u(x, y) + u(x, y + 1);
    u.store_root().compute_at(below, y).async();
    Buffer<int> b = below.realize({6, 5});
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 0; xx < 6; xx++)
            ASSERT_EQ(b(xx, yy), (xx + yy + 1) + (xx + yy + 2));
    }
    EXPECT_THAT(lowered_of(below), ::testing::Not(HasSubstr("u.fork")));

    // Traced stores come from the producer task: every point of t once.
    Func t("t"), reader("reader");
    t(x) = x * 5;
    reader(x) = t(x) + t(x + 2);
    t.compute_root().async().trace_stores();
    static std::atomic<int> stores_of_t{0};
    stores_of_t = 0;
    loom_trace_handler_t previous =
        loom_set_trace_handler([](void *, const loom_trace_event_t *e) -> int32_t {
            if (e->event == loom_trace_store && std::string(e->func) == "t") stores_of_t++;
            return 0;
        });
    Buffer<int> r = reader.realize({16});
    loom_set_trace_handler(previous);
    for (int i = 0; i < 16; i++)
        ASSERT_EQ(r(i), i * 5 + (i + 2) * 5);
    EXPECT_EQ(stores_of_t.load(), 18);
}

namespace {
// The producer of AsyncProducers.ProducerRunsAheadOfTheConsumer: its fourth row waits (up to
// 10 s) until the consumer has used the first, which only a consumer running beside it can.
std::atomic<bool> consumer_started{false};
std::atomic<int> producer_rows{0};
bool producer_overlapped = false;
int fail_at_row = -1;
} // namespace

extern "C" int loom_test_async_rows(halide_buffer_t *out) {
    if (out->is_bounds_query()) return 0;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        if (y == fail_at_row) return 9;
        if (producer_rows++ == 3) {
            const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
            while (!consumer_started && std::chrono::steady_clock::now() < deadline)
                std::this_thread::sleep_for(std::chrono::microseconds(50));
            producer_overlapped = consumer_started;
        }
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            int *p = (int *)out->host + (x - out->dim[0].min) * out->dim[0].stride +
                     (y - out->dim[1].min) * out->dim[1].stride;
            *p = x * 100 + y;
        }
    }
    return 0;
}

extern "C" int loom_test_async_consume(halide_buffer_t *in, halide_buffer_t *out) {
    if (in->is_bounds_query()) {
        for (int d = 0; d < 2; d++) {
            in->dim[d].min = out->dim[d].min;
            in->dim[d].extent = out->dim[d].extent;
        }
        return 0;
    }
    consumer_started = true;
    for (int y = out->dim[1].min; y < out->dim[1].min + out->dim[1].extent; y++) {
        for (int x = out->dim[0].min; x < out->dim[0].min + out->dim[0].extent; x++) {
            const int *p = (const int *)in->host + (x - in->dim[0].min) * in->dim[0].stride +
                           (y - in->dim[1].min) * in->dim[1].stride;
            int *q = (int *)out->host + (x - out->dim[0].min) * out->dim[0].stride +
                     (y - out->dim[1].min) * out->dim[1].stride;
            *q = *p + 1;
        }
    }
    return 0;
}

namespace {
// rows (extern, async, stored at root, one row per row of out) -> used (extern, per row) -> out.
Buffer<int> run_rows_pipeline() {
    Var x("x"), y("y");
    Func rows("rows"), used("used"), out("out");
    rows.define_extern("loom_test_async_rows", {}, Int(32), 2);
    used.define_extern("loom_test_async_consume", {rows}, Int(32), 2);
    out(x, y) = used(x, y) * 2;
    used.compute_at(out, y);
    rows.store_root().compute_at(out, y).async();
    consumer_started = false;
    producer_rows = 0;
    producer_overlapped = false;
    return out.realize({10, 12});
}
} // namespace

TEST(AsyncProducers, ProducerRunsAheadOfTheConsumer) {
    if (std::thread::hardware_concurrency() < 2 || getenv("LOOM_NUM_THREADS"))
        GTEST_SKIP() << "needs a thread pool of two or more threads";
    fail_at_row = -1;
    Buffer<int> out = run_rows_pipeline();
    for (int y = 0; y < 12; y++) {
        for (int x = 0; x < 10; x++)
            ASSERT_EQ(out(x, y), (x * 100 + y + 1) * 2);
    }
    EXPECT_EQ(producer_rows.load(), 12);
    EXPECT_TRUE(producer_overlapped)
        << "the producer's fourth row never saw the consumer start: the tasks did not overlap";
}

TEST(AsyncProducers, AFailureOnEitherSideStopsThePipeline) {
    // The producer fails: the consumer, waiting for that row, stops instead of hanging.
    fail_at_row = 5;
    try {
        run_rows_pipeline();
        ADD_FAILURE() << "a failing async producer did not stop the pipeline";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("loom_test_async_rows returned 9"));
    }
    fail_at_row = -1;

    // The consumer fails while the producer runs ahead: the producer finishes, and the
    // pipeline reports the consumer's error.
    Var x("x"), y("y");
    Func f("f"), g("g");
    f(x, y) = x + y;
    g(x, y) = require(y != 6, f(x, y) + f(x, y + 1), "row", y, "refused");
    f.store_root().compute_at(g, y).async();
    try {
        g.realize({8, 12});
        ADD_FAILURE() << "a failing consumer did not stop the pipeline";
    } catch (const RuntimeError &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("row 6 refused"));
    }
}

TEST(AsyncProducers, LoweringForksATaskPerProducer) {
    Chain c;
    c.f.store_root().compute_at(c.g, c.y).async();
    c.g.compute_root();
    const std::string s = lowered_of(c.h);
    EXPECT_THAT(s, HasSubstr("parallel (f.fork, 0, 2)"));
    EXPECT_THAT(s, HasSubstr("if ((f.fork == 0))"));
    EXPECT_THAT(s, HasSubstr("semaphore_release(\"f.produced\", 1)"));
    EXPECT_THAT(s, HasSubstr("semaphore_acquire(\"f.produced\", 1)"));
    // The storage is not folded (by storage folding, which an async Func skips), or the
    // producer running ahead would overwrite rows the consumer has yet to read.
    EXPECT_THAT(s, HasSubstr("allocate f[int32 * (h.extent.0 + 2) * (h.extent.1 + 4)]"));

    // Folded by the schedule: computed in order, no fork.
    Chain folded;
    folded.f.store_root().compute_at(folded.g, folded.y).fold_storage(folded.y, 4).async();
    folded.g.compute_root();
    EXPECT_THAT(lowered_of(folded.h), ::testing::Not(HasSubstr("f.fork")));

    // g reads f, which is async too: g's producer waits for f's productions on a copy of f's
    // semaphore, released with it, and g's fork is inside f's, on the consumer side.
    Chain both;
    both.f.store_root().compute_at(both.h, both.y).async();
    both.g.store_root().compute_at(both.h, both.y).async();
    const std::string t = lowered_of(both.h);
    EXPECT_THAT(t, HasSubstr("semaphore_acquire(\"f.produced.copy0\", 1)"));
    EXPECT_THAT(t, HasSubstr("semaphore_release(\"f.produced.copy0\", 1)"));
    EXPECT_LT(t.find("parallel (f.fork"), t.find("parallel (g.fork"));
}

TEST(AsyncProducers, MisusesAreRefusedWithTheirReason) {
    {
        Var x("x"), y("y");
        Func p("p"), q("q"), out("out");
        p(x, y) = x + y;
        q(x, y) = x * y;
        out(x, y) = p(x, y) + q(x, y);
        p.compute_root().async();
        q.compute_root().compute_with(p, y);
        EXPECT_THAT(compile_error_of([&] {
                        out.realize({8, 8});
                    }),
                    HasSubstr("Func p is async and computed together with q (compute_with)"));
    }
    {
        // k is computed per row of h, outside f, and f's production reads it.
        Var x("x"), y("y");
        Func k("k"), f("f"), h("h");
        k(x, y) = x + y;
        f(x, y) = k(x, y) * 2;
        h(x, y) = f(x, y) + k(x, y);
        k.compute_at(h, y);
        f.store_root().compute_at(h, y).async();
        EXPECT_THAT(compile_error_of([&] {
                        h.realize({8, 8});
                    }),
                    HasSubstr("Func f is async, but its production reads k, which is computed "
                              "beside it"));
    }
    {
        Var x("x"), y("y"), xo("xo"), xi("xi");
        Func f("f"), h("h");
        f(x, y) = x + y;
        h(x, y) = f(x, y) * 2;
        h.split(x, xo, xi, 8).vectorize(xi);
        f.compute_at(h, xi).async();
        EXPECT_THAT(compile_error_of([&] {
                        h.realize({16, 4});
                    }),
                    HasSubstr("Func f is async, but it is computed inside the vectorized loop "
                              "h.s0.x.xi"));
    }
    for (bool inside_the_kernel : {false, true}) {
        Var x("x"), y("y"), bx("bx"), by("by"), tx("tx"), ty("ty");
        Func f("f"), h("h");
        f(x, y) = x + y;
        h(x, y) = f(x, y) * 2;
        h.gpu_tile(x, y, bx, by, tx, ty, 8, 8);
        if (inside_the_kernel) {
            f.compute_at(h, bx).async();
        } else {
            f.compute_root().async();
        }
        EXPECT_THAT(
            compile_error_of([&] {
                h.compile_to_lowered_stmt(::testing::TempDir() + "async_gpu.stmt", {},
                                          StmtOutputFormat::Text, Target("x86-64-linux-cuda"));
            }),
            HasSubstr(inside_the_kernel ? "Func f is async, but it is computed inside the GPU loop"
                                        : "Func f is async, and the work between its storage and "
                                          "its productions runs the GPU loop"));
    }
}
