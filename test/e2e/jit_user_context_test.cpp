// Halide 14's JITUserContext and JITHandlers: a run's own hooks for printing, errors, tracing,
// heap allocations and parallel loops, each receiving the context, and a pipeline's hooks for
// every run (jit_handlers()). Each is checked against what the run must do without it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::HasSubstr;

struct CountingContext : JITUserContext {
    std::string printed, errors;
    int mallocs = 0, frees = 0, traces = 0, par_fors = 0, tasks = 0;
    static CountingContext &of(JITUserContext *c) { return *static_cast<CountingContext *>(c); }
};

void counting_print(JITUserContext *c, const char *message) {
    CountingContext::of(c).printed += message;
}
void counting_error(JITUserContext *c, const char *message) {
    CountingContext::of(c).errors += message;
}
void *counting_malloc(JITUserContext *c, size_t bytes) {
    CountingContext::of(c).mallocs++;
    // As aligned as the runtime's own blocks, which the compiled code may assume.
    return std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}
void counting_free(JITUserContext *c, void *block) {
    CountingContext::of(c).frees++;
    std::free(block);
}
int32_t counting_trace(JITUserContext *c, const loom_trace_event_t *) {
    return ++CountingContext::of(c).traces;
}
int counting_par_for(JITUserContext *c, int (*task)(JITUserContext *, int, uint8_t *), int min,
                     int extent, uint8_t *closure) {
    CountingContext::of(c).par_fors++;
    for (int i = min; i < min + extent; i++) {
        if (int result = task(c, i, closure)) return result;
    }
    return 0;
}
int counting_task(JITUserContext *c, int (*task)(JITUserContext *, int, uint8_t *), int i,
                  uint8_t *closure) {
    CountingContext::of(c).tasks++;
    return task(c, i, closure);
}

TEST(JITUserContexts, EachRunsHandlersTakeItsPrintsErrorsTracesAndAllocations) {
    Var x("x"), y("y");
    Func printed("ctx_printed");
    printed(x) = print(x * 2, "at", x);
    CountingContext first, second;
    first.handlers.custom_print = counting_print;
    second.handlers.custom_print = counting_print;
    Buffer<int> values = printed.realize(&first, {3});
    printed.realize(&second, {2});
    EXPECT_EQ(first.printed, "0 at 0\n2 at 1\n4 at 2\n");
    EXPECT_EQ(second.printed, "0 at 0\n2 at 1\n");
    EXPECT_EQ(values(2), 4);

    // Errors go to custom_error, and the run returns; without it they are exceptions.
    Func required("ctx_required");
    required(x) = require(x < 2, x, "is too large");
    CountingContext failing;
    failing.handlers.custom_error = counting_error;
    EXPECT_NO_THROW(required.realize(&failing, {4}));
    EXPECT_THAT(failing.errors, HasSubstr("is too large"));
    EXPECT_THROW(required.realize({4}), RuntimeError);

    // A heap allocation (a size known only when the run starts) through custom_malloc/free,
    // and a parallel loop through custom_do_par_for.
    Param<int> width("ctx_width");
    Func producer("ctx_producer"), consumer("ctx_consumer");
    producer(x, y) = x + y * width;
    consumer(x, y) = producer(x, y) + producer(x + 1, y);
    producer.compute_root();
    consumer.parallel(y);
    width.set(1000);
    CountingContext allocating;
    allocating.handlers.custom_malloc = counting_malloc;
    allocating.handlers.custom_free = counting_free;
    allocating.handlers.custom_do_par_for = counting_par_for;
    Buffer<int> sums = consumer.realize(&allocating, {1000, 4});
    EXPECT_GE(allocating.mallocs, 1);
    EXPECT_EQ(allocating.frees, allocating.mallocs);
    EXPECT_EQ(allocating.par_fors, 1);
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 1000; i += 97)
            EXPECT_EQ(sums(i, j), 2 * (i + j * 1000) + 1) << i << ", " << j;
    }
    // custom_do_task alone: each iteration through it.
    CountingContext tasked;
    tasked.handlers.custom_do_task = counting_task;
    consumer.realize(&tasked, {8, 4});
    EXPECT_EQ(tasked.tasks, 4);

    // Trace events printed through custom_print where custom_trace is unset; with it, each
    // event goes to custom_trace and nothing is printed.
    Func traced("ctx_traced");
    traced(x) = x * 3;
    traced.trace_stores();
    CountingContext printing, tracing;
    printing.handlers.custom_print = counting_print;
    traced.realize(&printing, {4});
    EXPECT_THAT(printing.printed, HasSubstr("Store ctx_traced.0(1) = 3\n"));
    const int lines = (int)std::count(printing.printed.begin(), printing.printed.end(), '\n');
    tracing.handlers.custom_trace = counting_trace;
    tracing.handlers.custom_print = counting_print;
    traced.realize(&tracing, {4});
    EXPECT_EQ(tracing.traces, lines);
    EXPECT_EQ(tracing.printed, "");
}

CountingContext *pipeline_wide = nullptr;
void pipeline_print(JITUserContext *, const char *message) { pipeline_wide->printed += message; }
void *never_called(const char *) { return nullptr; }

TEST(JITUserContexts, APipelinesHandlersServeRunsWithoutTheirOwn) {
    Var x("x");
    Func f("ctx_pipeline_printed");
    f(x) = print(x + 10);
    CountingContext captured;
    pipeline_wide = &captured;
    Pipeline p(f);
    p.jit_handlers().custom_print = pipeline_print;
    p.realize({2});
    EXPECT_EQ(captured.printed, "10\n11\n");
    // A run's own handler takes precedence.
    CountingContext own;
    own.handlers.custom_print = counting_print;
    p.realize(&own, {1});
    EXPECT_EQ(own.printed, "10\n");
    EXPECT_EQ(captured.printed, "10\n11\n");

    CountingContext symbols;
    symbols.handlers.custom_get_symbol = never_called;
    try {
        p.realize(&symbols, {1});
        ADD_FAILURE() << "custom_get_symbol was accepted";
    } catch (const loom::Error &e) {
        EXPECT_THAT(e.what(), HasSubstr("custom_get_symbol"));
        EXPECT_THAT(e.what(), HasSubstr("set_jit_externs"));
    }
}

// Param::user_context_value(): an extern stage given it receives the run's JITUserContext.
const void *expected_context = nullptr;
int record_context(void *user_context, halide_buffer_t *out) {
    if (out->is_bounds_query()) return 0;
    for (int i = 0; i < out->dim[0].extent; i++) {
        ((int32_t *)out->host)[i * out->dim[0].stride] = user_context == expected_context ? 1
                                                         : user_context == nullptr        ? 2
                                                                                          : 3;
    }
    return 0;
}

TEST(JITUserContexts, TheUserContextValueIsTheRunsContext) {
    Var x("x");
    Func seen("ctx_seen"), doubled("ctx_seen_doubled");
    seen.define_extern("ctx_record_context", {Param<>::user_context_value()}, Int(32), 1);
    doubled(x) = seen(x) * 2;
    // In a parallel loop's task too.
    seen.compute_at(doubled, x);
    doubled.split(x, Var("xo"), x, 2).parallel(Var("xo"));
    Pipeline p(doubled);
    p.set_jit_externs({{"ctx_record_context", JITExtern(record_context)}});
    CountingContext context;
    expected_context = &context;
    Buffer<int> given = p.realize(&context, {6});
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(given(i), 2) << i; // 1, doubled: the context given
    // Without one the run has its own: not the one before, not null.
    Buffer<int> own = p.realize({6});
    for (int i = 0; i < 6; i++)
        EXPECT_EQ(own(i), 6) << i;
}

} // namespace
