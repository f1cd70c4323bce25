// Tracing and print() against Halide 14: the same algorithm and schedule in both, each run's
// printed lines (trace events through the default trace handler, print() and print_when()
// messages) captured through the print hook of each, compared line for line. Every schedule
// here fixes the order of the events (no parallel loop), so the whole texts must be equal.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cctype>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <loom.h>

#include "lower/PrintLoopNest.h"

namespace {

std::string halide_text, loom_text;

void halide_capture(Halide::JITUserContext *, const char *message) { halide_text += message; }
void loom_capture(void *, const char *message) { loom_text += message; }

// Realizes f over `sizes` (at `mins`), its printing captured. One overload per language, so that a
// case's body (below) is the same text for both.
void realize_traced(Halide::Pipeline p, const std::vector<int> &sizes,
                    const std::vector<int> &mins = {}) {
    p.jit_handlers().custom_print = halide_capture;
    Halide::Buffer<> out(p.outputs()[0].output_types()[0], sizes);
    if (!mins.empty()) out.set_min(mins);
    p.realize(out,
              Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
}

void realize_traced(Halide::Func f, const std::vector<int> &sizes,
                    const std::vector<int> &mins = {}) {
    realize_traced(Halide::Pipeline(f), sizes, mins);
}

void realize_traced(loom::Pipeline p, const std::vector<int> &sizes,
                    const std::vector<int> &mins = {}) {
    loom_print_handler_t old = loom_set_print_handler(loom_capture);
    loom::Buffer<> out(p.outputs()[0].output_types()[0], sizes);
    if (!mins.empty()) out.set_min(mins);
    // Every lowering pass's output verified, as in a debug build: the events name trace ids
    // that only the step after bounds inference binds.
    loom::CompileOptions verify = p.options();
    verify.verify_ir = true;
    p.set_options(verify);
    p.realize(out);
    loom_set_print_handler(old);
}

// With a target feature more (Target::TraceLoads, say).
void realize_traced_with(Halide::Pipeline p, const std::vector<int> &sizes,
                         Halide::Target::Feature feature) {
    p.jit_handlers().custom_print = halide_capture;
    Halide::Buffer<> out(p.outputs()[0].output_types()[0], sizes);
    p.realize(out, Halide::get_host_target()
                       .without_feature(Halide::Target::AVX512_SapphireRapids)
                       .with_feature(feature));
}

void realize_traced_with(loom::Pipeline p, const std::vector<int> &sizes,
                         loom::Target::Feature feature) {
    loom_print_handler_t old = loom_set_print_handler(loom_capture);
    loom::Buffer<> out(p.outputs()[0].output_types()[0], sizes);
    p.realize(out, loom::Target().with_feature(feature));
    loom_set_print_handler(old);
}

void realize_traced(loom::Func f, const std::vector<int> &sizes,
                    const std::vector<int> &mins = {}) {
    realize_traced(loom::Pipeline(f), sizes, mins);
}

// One test per case: the body, written once, runs with Halide's names and with Loom's.
#define TRACE_CASE(name, ...)                                                                      \
    void halide_case_##name() {                                                                    \
        using namespace Halide;                                                                    \
        __VA_ARGS__                                                                                \
    }                                                                                              \
    void loom_case_##name() {                                                                      \
        using namespace loom;                                                                      \
        __VA_ARGS__                                                                                \
    }                                                                                              \
    TEST(TracingVsHalide, name) {                                                                  \
        halide_text.clear();                                                                       \
        loom_text.clear();                                                                         \
        halide_case_##name();                                                                      \
        loom_case_##name();                                                                        \
        ASSERT_FALSE(halide_text.empty());                                                         \
        EXPECT_EQ(loom_text, halide_text);                                                         \
    }

TRACE_CASE(StoresOfAPureFunc, {
    Func f("gradient");
    Var x("x"), y("y");
    f(x, y) = x + y;
    f.trace_stores();
    realize_traced(f, {5, 3});
})

TRACE_CASE(StoresOverAShiftedRegion, {
    Func f("shifted");
    Var x("x"), y("y");
    f(x, y) = x * 3 - y;
    f.trace_stores();
    realize_traced(f, {4, 3}, {100, -7});
})

TRACE_CASE(VectorStoresAreOneEventEach, {
    Func f("vectors");
    Var x("x"), y("y");
    f(x, y) = x * 2 + y;
    f.vectorize(x, 4);
    f.trace_stores();
    realize_traced(f, {8, 2});
})

TRACE_CASE(TiledAndUnrolled, {
    Func f("tiled");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    f(x, y) = x - y;
    f.tile(x, y, xo, yo, xi, yi, 2, 2).unroll(xi);
    f.trace_stores();
    realize_traced(f, {4, 4});
})

TRACE_CASE(ProducerComputedPerRowWithLoadsAndStores, {
    Func producer("producer"), consumer("consumer");
    Var x("x"), y("y");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y + 1);
    producer.compute_at(consumer, y);
    producer.trace_stores().trace_loads();
    consumer.trace_stores();
    realize_traced(consumer, {3, 3});
})

// (Each case names its Funcs apart: Halide renames a Func whose name another one in the process
// already had (producer$1), so the texts match where each test runs in a process of its own, as
// ctest runs them, and where no two cases share a name.)
TRACE_CASE(FloatValuesAndRealizations, {
    Func producer("float_producer"), consumer("float_consumer");
    Var x("x"), y("y");
    producer(x, y) = sin(cast<float>(x)) * 0.5f + cast<float>(y);
    consumer(x, y) = producer(x, y) - producer(x, y + 1);
    producer.compute_root().trace_realizations().trace_stores();
    consumer.trace_realizations();
    realize_traced(consumer, {3, 2});
})

TRACE_CASE(UpdatesTraceEachStore, {
    Func f("histogram_like");
    Var x("x");
    RDom r(0, 6, "r");
    f(x) = x;
    f(r.x % 3) += r.x * 2;
    f.trace_stores();
    realize_traced(f, {3});
})

TRACE_CASE(TupleElementsHaveTheirIndex, {
    Func f("pair");
    Var x("x");
    f(x) = Tuple(x * 2, cast<uint8_t>(x + 250));
    f.trace_stores();
    Func g("sum");
    g(x) = f(x)[0] + cast<int>(f(x)[1]);
    f.compute_root();
    g.trace_stores();
    realize_traced(g, {3});
})

TRACE_CASE(UserTagsFollowTheTypeTags, {
    Func f("tagged");
    Var x("x");
    f(x) = cast<int16_t>(x) - 2;
    f.trace_stores().add_trace_tag("first tag").add_trace_tag("second: 1 2 3");
    // Reported with traced realizations or loads (Halide 14 leaves them out for stores alone).
    Func g("tagged_consumer");
    g(x) = f(x) + f(x + 1);
    f.compute_root().trace_realizations();
    realize_traced(g, {2});
})

TRACE_CASE(PrintValuesWithContext, {
    Func f("printed");
    Var x("x"), y("y");
    f(x, y) = print(cast<float>(x) / 4.0f, "at", x, y, cast<uint8_t>(x + 200),
                    cast<double>(y) * Expr(1e10));
    realize_traced(f, {3, 2});
})

TRACE_CASE(PrintWhenOnlyWhereTheConditionHolds, {
    Func f("printed_when");
    Var x("x");
    Expr e = cos(cast<float>(x));
    f(x) = print_when(e < 0, e, "negative at", x);
    realize_traced(f, {8});
})

TRACE_CASE(PrintInAVectorizedLoopPrintsEachLane, {
    Func f("printed_vectors");
    Var x("x");
    f(x) = print(x * 3, "lane of", x);
    f.vectorize(x, 4);
    realize_traced(f, {8});
})

// An ImageParam's loads, traced by its own trace_loads with its tags (Halide 14 traces them
// through the image's hidden Func, with the pipeline as parent).
TRACE_CASE(ImageParamLoadsAndTheirTags, {
    ImageParam input(UInt(8), 2, "traced_input");
    Buffer<uint8_t> data(4, 3);
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            data(i, j) = (uint8_t)(i * 3 + j * 40);
    input.set(data);
    input.trace_loads();
    input.add_trace_tag("input tag");
    Func f("reads_traced_input");
    Var x("x"), y("y");
    f(x, y) = input(x, y) + input(x + 1, y);
    f.trace_stores();
    realize_traced(f, {3, 3});
})

// Target::TraceLoads traces the loads of every input, a Buffer read directly among them (with
// no type tag: Halide 14 gives those to ImageParams only).
TRACE_CASE(TheTargetFeatureTracesLoadsOfABuffer, {
    Buffer<int16_t> data(std::vector<int>{5}, "traced_buffer");
    for (int i = 0; i < 5; i++)
        data(i) = (int16_t)(i * i - 7);
    Func f("reads_traced_buffer");
    Var x("x");
    // (Halide 14's simplifier puts a product second in a sum: written so, the loads keep
    // their order.)
    f(x) = data(x + 2) + data(x) * 2;
    Pipeline p(f);
    realize_traced_with(p, {3}, Target::TraceLoads);
})

// Sliding window with Halide 14's warm-up: the consumer's loops start early (loop rewinding),
// the first iterations computing the producer's first rows alone, and every iteration then
// only the rows past the last one's (lesson 08's schedules). Over both of the consumer's loops,
// then over its rows alone, then over a region that moves by two rows an iteration (three rows
// long: the first iteration is bounded below).
TRACE_CASE(SlidOverBothLoopsWithAWarmUp, {
    Func producer("slid_producer"), consumer("slid_consumer");
    Var x("x"), y("y");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x, y) + producer(x, y + 1) + producer(x + 1, y) * 3;
    producer.store_root().compute_at(consumer, x);
    producer.trace_stores();
    consumer.trace_stores();
    realize_traced(consumer, {4, 4});
})

TRACE_CASE(SlidOverRowsWithAWarmUp, {
    Func producer("rows_producer"), consumer("rows_consumer");
    Var x("x"), y("y");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x, y) + producer(x + 1, y + 2) * 3;
    producer.store_root().compute_at(consumer, y);
    producer.trace_stores();
    consumer.trace_stores();
    realize_traced(consumer, {3, 4}, {0, 2});
})

TRACE_CASE(SlidTwoRowsAnIterationWithAWarmUp, {
    Func producer("strided_producer"), consumer("strided_consumer");
    Var x("x"), y("y");
    producer(x, y) = x * 10 + y;
    consumer(x, y) = producer(x, 2 * y) + producer(x, 2 * y + 2) * 3;
    producer.store_root().compute_at(consumer, y);
    producer.trace_stores();
    consumer.trace_stores();
    realize_traced(consumer, {2, 4});
})

// The loop nests those schedules print (Func::print_loop_nest's text): the rewound loop is
// named with a trailing dot, and a producer computing one row an iteration has no loop over
// its rows.
} // namespace
namespace Halide::Internal {
// Func::print_loop_nest's text, which Halide.h leaves out (libHalide exports it).
std::string print_loop_nest(const std::vector<Function> &output_funcs);
} // namespace Halide::Internal
namespace {

std::string loop_nest(const Halide::Func &f) {
    return Halide::Internal::print_loop_nest({f.function()});
}
std::string loop_nest(const loom::Func &f) {
    return loom::Internal::print_loop_nest({f.function()});
}

#define SLID_LOOP_NESTS(NS)                                                                        \
    [](int which) {                                                                                \
        using namespace NS;                                                                        \
        Func producer("nest_producer"), consumer("nest_consumer");                                 \
        Var x("x"), y("y"), yo("yo"), yi("yi");                                                    \
        producer(x, y) = x * 10 + y;                                                               \
        consumer(x, y) = producer(x, y) + producer(x + 1, y + 1);                                  \
        if (which == 0) producer.store_root().compute_at(consumer, y);                             \
        if (which == 1) producer.store_root().compute_at(consumer, x);                             \
        if (which == 2) {                                                                          \
            consumer.split(y, yo, yi, 16).parallel(yo);                                            \
            producer.store_at(consumer, yo).compute_at(consumer, yi);                              \
        }                                                                                          \
        return loop_nest(consumer);                                                                \
    }

TEST(LoopNestVsHalide, SlidingWindowsRewindTheirLoops) {
    for (int which = 0; which < 3; which++) {
        SCOPED_TRACE(which);
        const std::string halide = SLID_LOOP_NESTS(Halide)(which);
        const std::string loom = SLID_LOOP_NESTS(loom)(which);
        EXPECT_EQ(loom, halide);
        // A rewound loop: "for y.:", or "for y.yi. in [-1, 15]:".
        EXPECT_TRUE(halide.find(".:") != std::string::npos ||
                    halide.find(". in [") != std::string::npos)
            << halide;
    }
}

// vectorize(x, n), unroll(x, n) and parallel(x, n) split with a fresh Var (an RVar for an
// RVar), which names the inner loop: x.v7.
#define UNNAMED_INNER_LOOPS(NS)                                                                    \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Func f("unnamed_f"), g("unnamed_g");                                                       \
        Var x("x"), y("y");                                                                        \
        RDom r(0, 16, "r");                                                                        \
        g(x, y) = x + y;                                                                           \
        f(x, y) = g(x, y) * 2;                                                                     \
        f(r.x, y) += g(r.x, y);                                                                    \
        f.vectorize(x, 4).unroll(y, 2).parallel(y, 4);                                             \
        f.update(0).unroll(r.x, 4);                                                                \
        g.compute_at(f, y).vectorize(x, 8);                                                        \
        return loop_nest(f);                                                                       \
    }()

// `text` with each fresh name of a loop (".v12", ".r3") numbered by its rank among the
// text's fresh names of that letter: the two libraries' counters start apart in one process,
// and what must agree is which loops draw one, and in which order.
std::string ranked_fresh_names(const std::string &text) {
    std::map<char, std::set<long>> drawn;
    auto scan = [&](auto on_name) {
        std::string out;
        for (size_t i = 0; i < text.size(); i++) {
            out += text[i];
            if (text[i] != '.' || i + 2 >= text.size() ||
                (text[i + 1] != 'v' && text[i + 1] != 'r') ||
                !std::isdigit((unsigned char)text[i + 2]))
                continue;
            size_t end = i + 2;
            while (end < text.size() && std::isdigit((unsigned char)text[end]))
                end++;
            out += on_name(text[i + 1], std::stol(text.substr(i + 2, end - i - 2)));
            i = end - 1;
        }
        return out;
    };
    scan([&](char letter, long n) {
        drawn[letter].insert(n);
        return std::string();
    });
    return scan([&](char letter, long n) {
        const std::set<long> &all = drawn[letter];
        return std::string(1, letter) + "#" +
               std::to_string(std::distance(all.begin(), all.find(n)));
    });
}

TEST(LoopNestVsHalide, InnerLoopsOfVectorizeUnrollAndParallelAreNamedAsHalides) {
    const std::string halide = UNNAMED_INNER_LOOPS(Halide);
    const std::string loom = UNNAMED_INNER_LOOPS(loom);
    EXPECT_EQ(ranked_fresh_names(loom), ranked_fresh_names(halide)) << loom << "\n" << halide;
    EXPECT_THAT(loom, testing::ContainsRegex("vectorized x\\.v[0-9]+ in \\[0, 3\\]")) << loom;
}

// Halide's JITUserContext: one run's print() and trace lines through its own custom_print.
#define PRINTED_THROUGH_A_CONTEXT(NS)                                                              \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        struct Captured : JITUserContext {                                                         \
            std::string text;                                                                      \
        };                                                                                         \
        Captured context;                                                                          \
        context.handlers.custom_print = [](JITUserContext *c, const char *message) {               \
            static_cast<Captured *>(c)->text += message;                                           \
        };                                                                                         \
        Func f("printed_in_context");                                                              \
        Var x("x");                                                                                \
        f(x) = print(x * 2, "twice", x) + 1;                                                       \
        f.trace_stores();                                                                          \
        f.realize(&context, {3}, get_jit_target_from_environment());                               \
        return context.text;                                                                       \
    }()

TEST(TracingVsHalide, AJITUserContextTakesTheRunsPrintsAndTraceLines) {
    const std::string halide = PRINTED_THROUGH_A_CONTEXT(Halide);
    const std::string loom = PRINTED_THROUGH_A_CONTEXT(loom);
    ASSERT_NE(halide.find("twice"), std::string::npos) << halide;
    EXPECT_EQ(loom, halide);
}

// Loom's own hooks: the trace handler receives the structured events (the default only prints
// them), and the runtime formats any event as the default handler does.
std::vector<std::string> events_seen;
int32_t record_event(void *, const loom_trace_event_t *e) {
    char line[512];
    loom_trace_event_to_string(e, line, sizeof line);
    events_seen.push_back(line);
    return (int32_t)events_seen.size();
}

TEST(Tracing, ACustomTraceHandlerSeesEveryEventAndNothingIsPrinted) {
    loom::Func f("custom");
    loom::Var x("x");
    f(x) = x * x;
    f.trace_stores();
    events_seen.clear();
    loom_text.clear();
    loom_trace_handler_t old_trace = loom_set_trace_handler(record_event);
    loom_print_handler_t old_print = loom_set_print_handler(loom_capture);
    loom::Buffer<int> out = f.realize({3});
    loom_set_trace_handler(old_trace);
    loom_set_print_handler(old_print);
    EXPECT_TRUE(loom_text.empty());
    EXPECT_THAT(events_seen,
                testing::ElementsAre("Begin pipeline custom.0()",
                                     "Tag custom.0() tag = \"func_type_and_dim: 1 0 32 1 1 0 3\"",
                                     "Store custom.0(0) = 0", "Store custom.0(1) = 1",
                                     "Store custom.0(2) = 4", "End pipeline custom.0()"));
    EXPECT_EQ(out(2), 4);
}

TEST(Tracing, TheTargetFeatureTracesEveryFunc) {
    loom::Func f("all_a"), g("all_b");
    loom::Var x("x");
    f(x) = x + 1;
    g(x) = f(x) * 2;
    f.compute_root();
    events_seen.clear();
    loom_trace_handler_t old = loom_set_trace_handler(record_event);
    loom::Buffer<int> out(2);
    // Every lowering pass's output verified (as in a debug build): the events name trace ids
    // that only the step after bounds inference binds.
    loom::Pipeline p(g);
    loom::CompileOptions verify = p.options();
    verify.verify_ir = true;
    p.set_options(verify);
    p.realize(out, loom::get_host_target().with_feature(loom::Target::TraceStores));
    loom_set_trace_handler(old);
    // Tracing every store traces every realization too (Halide's rule).
    EXPECT_THAT(events_seen, testing::Contains("Begin realization all_a.0(0, 2)"));
    EXPECT_THAT(events_seen, testing::Contains("Store all_a.0(1) = 2"));
    EXPECT_THAT(events_seen, testing::Contains("Store all_b.0(1) = 4"));
    EXPECT_EQ(out(1), 4);
}

// A Func with an update left unscheduled is computed where it is used, here inside a
// vectorized loop: its realization and production events carry its region once (as the first
// lane sees it), not a vector per coordinate (which overran the event's coordinate array:
// schedule-invariance fuzz seed 7001, pipeline 280).
TEST(Tracing, RealizationsInsideAVectorizedLoopReportTheirRegion) {
    loom::Func k("inner_k"), g("outer_g");
    loom::Var x("x");
    loom::RDom r(0, 2, "r");
    k(x) = x * 3;
    k(x) += r.x;
    g(x) = k(x) + k(x + 1);
    g.vectorize(x, 4);
    k.trace_realizations();
    events_seen.clear();
    loom_trace_handler_t old = loom_set_trace_handler(record_event);
    loom::Buffer<int> out = g.realize({8});
    loom_set_trace_handler(old);
    for (int i = 0; i < 8; i++)
        EXPECT_EQ(out(i), i * 3 + 1 + (i + 1) * 3 + 1) << i;
    int productions = 0;
    for (const std::string &e : events_seen) {
        if (e.rfind("Produce inner_k.0(", 0) == 0) {
            productions++;
            EXPECT_THAT(e, testing::MatchesRegex("Produce inner_k\\.0\\(-?[0-9]+, [0-9]+\\)"));
        }
    }
    EXPECT_GT(productions, 0);
}

TEST(Tracing, UntracedPipelinesHaveNoTraceCalls) {
    loom::Func f("plain");
    loom::Var x("x");
    f(x) = x;
    std::string stmt = loom::Pipeline(f).lowered_stmt();
    EXPECT_THAT(stmt, testing::Not(testing::HasSubstr("trace(")));
}

} // namespace

// require(): the value where the condition holds; where it fails, realize() throws Halide's
// message for the first failing point (in a vector, the first failing lane; in a parallel loop,
// some failing point's). Halide's text is "Error: Requirement Failed: ..."; Loom's ends the same.
template <typename F, typename V, typename B>
std::string realize_error(F f, V x, B out, int vector) {
    if (vector > 1) f.vectorize(x, vector);
    try {
        f.realize(out);
    } catch (const std::exception &e) {
        std::string m = e.what();
        const size_t at = m.find("Requirement Failed");
        return at == std::string::npos ? m : m.substr(at, m.find('\n', at) - at);
    }
    return "";
}

TEST(RequireVsHalide, TheValueWhereItHoldsAndHalidesMessageWhereItFails) {
    for (int vector : {1, 4, 8}) {
        SCOPED_TRACE(vector);
        Halide::Func hf("f");
        Halide::Var hx("x");
        Halide::Param<int> hp("p");
        hf(hx) = Halide::require(hx < hp, hx * 2, "x must be below", hp, "got", hx);
        loom::Func lf("f");
        loom::Var lx("x");
        loom::Param<int> lp("p");
        lf(lx) = loom::require(lx < lp, lx * 2, "x must be below", lp, "got", lx);
        hp.set(5);
        lp.set(5);
        Halide::Buffer<int> hout(16);
        loom::Buffer<int> lout(16);
        const std::string halide_message = realize_error(hf, hx, hout, vector);
        EXPECT_EQ(halide_message, "Requirement Failed: (false) 10 x must be below 5 got 5");
        EXPECT_EQ(realize_error(lf, lx, lout, vector), halide_message);
        hp.set(100);
        lp.set(100);
        EXPECT_EQ(realize_error(lf, lx, lout, 0), "");
        for (int i = 0; i < 16; i++)
            EXPECT_EQ(lout(i), 2 * i) << i;
    }
}

TEST(RequireVsHalide, AFailureInAParallelLoopStopsThePipeline) {
    loom::Func f("f");
    loom::Var x("x"), y("y");
    loom::Buffer<float> in(32, 32, "in");
    in.fill(1.0f);
    in(7, 19) = -3.0f;
    f(x, y) = loom::require(in(x, y) >= 0.0f, in(x, y) * 2.0f, "in is negative at", x, y);
    f.parallel(y).vectorize(x, 8);
    std::string error;
    try {
        f.realize({32, 32});
    } catch (const std::exception &e) {
        error = e.what();
    }
    EXPECT_NE(error.find("Requirement Failed: (false) -6.000000 in is negative at 7 19"),
              std::string::npos)
        << error;
    in(7, 19) = 4.0f;
    loom::Buffer<float> out = f.realize({32, 32});
    EXPECT_EQ(out(7, 19), 8.0f);
    EXPECT_EQ(out(31, 31), 2.0f);
}

// Pipeline::trace_pipeline: the begin and end of every run, where no Func is traced (a traced
// Func brings them anyway).
TRACE_CASE(TracePipelineAddsItsBeginAndEnd, {
    Func f("traced_pipeline");
    Var x("x");
    f(x) = x * 3;
    Pipeline p(f);
    p.trace_pipeline();
    realize_traced(p, {4});
})
