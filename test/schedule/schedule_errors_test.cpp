// Illegal schedules must be rejected with a loom::CompileError (at the directive, or when the
// pipeline compiles) whose message names the Func and the directive and, where there is a
// choice, lists the legal ones; a schedule whose legality depends on the realized size fails
// at realize with a loom::RuntimeError naming the output. Never an InternalError, a crash or
// wrong output. Funcs and Vars get distinctive names so that a match cannot be an accident.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <typeinfo>
#include <vector>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;
using ::testing::Not;

/** Runs `body`, which must throw an E. Returns its message; otherwise a description of what
 * happened instead, which then shows in the failed EXPECT_THAT. */
template<typename E, typename Body>
std::string message_of(Body body) {
    try {
        body();
    } catch (const E &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("<expected a ") + typeid(E).name() + ", but got a " + typeid(e).name() +
               ": " + e.what() + ">";
    } catch (...) {
        return "<threw something that is not a std::exception>";
    }
    return "<no exception was thrown>";
}

// ---------------------------------------------------------------------------------------------
// compute_at / store_at a loop that is not around any use.

TEST(ComputeAtErrors, LoopOfAFuncThatDoesNotUseTheProducer) {
    // producer is read only by its_consumer; bystander is another stage of the pipeline.
    Var x("x"), y("y");
    Func producer("producer"), its_consumer("its_consumer"), bystander("bystander"), out("out");
    producer(x, y) = x + y;
    its_consumer(x, y) = producer(x, y) * 2;
    bystander(x, y) = x - y;
    out(x, y) = its_consumer(x, y) + bystander(x, y);
    its_consumer.compute_root();
    bystander.compute_root();
    producer.compute_at(bystander, x);
    std::string message = message_of<CompileError>([&] { out.realize({8, 8}); });
    EXPECT_THAT(message, HasSubstr("producer")) << message;
    EXPECT_THAT(message, HasSubstr("bystander.x")) << message;
    // The legal locations: root and the consumer's loops.
    EXPECT_THAT(message,
                AllOf(HasSubstr("root"), HasSubstr("its_consumer.y"), HasSubstr("its_consumer.x")))
        << message;
}

TEST(ComputeAtErrors, LegalLocationsLookThroughAnInlinedConsumer) {
    // producer's direct caller is inlined into out: out's loops are where producer is used.
    Var x("x"), y("y");
    Func producer("producer"), inlined_caller("inlined_caller"), bystander("bystander"), out("out");
    producer(x, y) = x + y;
    inlined_caller(x, y) = producer(x, y) * 2;
    bystander(x, y) = x - y;
    out(x, y) = inlined_caller(x, y) + bystander(x, y);
    bystander.compute_root();
    producer.compute_at(bystander, x);
    std::string message = message_of<CompileError>([&] { out.realize({8, 8}); });
    EXPECT_THAT(message, AllOf(HasSubstr("producer"), HasSubstr("bystander.x"))) << message;
    EXPECT_THAT(message, AllOf(HasSubstr("out.y"), HasSubstr("out.x"))) << message;
    // inlined_caller has no loops of its own.
    EXPECT_THAT(message, Not(HasSubstr("inlined_caller.x"))) << message;
}

TEST(ComputeAtErrors, InsideOneConsumerWhileAnotherConsumerOutsideItAlsoReadsIt) {
    // shared is read by first_reader and by second_reader; both are computed per row of out.
    // Computing shared inside second_reader's loop leaves first_reader without it.
    Var x("x"), y("y");
    Func shared("shared"), first_reader("first_reader"), second_reader("second_reader"), out("out");
    shared(x, y) = x + y;
    first_reader(x, y) = shared(x, y) * 2;
    second_reader(x, y) = first_reader(x, y) + shared(x, y);
    out(x, y) = second_reader(x, y);
    second_reader.compute_at(out, y);
    first_reader.compute_at(out, y);
    shared.compute_at(second_reader, x);
    std::string message = message_of<CompileError>([&] { out.realize({8, 8}); });
    EXPECT_THAT(message, AllOf(HasSubstr("shared"), HasSubstr("second_reader.x"))) << message;
    EXPECT_THAT(message, AllOf(HasSubstr("root"), HasSubstr("out.y"))) << message;
}

TEST(ComputeAtErrors, OneOfItsOwnLoops) {
    Var x("x");
    Func self_computed("self_computed"), f("f");
    self_computed(x) = x;
    f(x) = self_computed(x);
    std::string message =
        message_of<CompileError>([&] { self_computed.compute_at(self_computed, x); });
    EXPECT_THAT(message, HasSubstr("self_computed")) << message;
    EXPECT_THAT(message, HasSubstr("own loops")) << message;
}

TEST(ComputeAtErrors, StoreLevelInsideTheComputeLevel) {
    Var x("x"), y("y");
    Func misplaced("misplaced"), f("f");
    misplaced(x, y) = x + y;
    f(x, y) = misplaced(x, y) + misplaced(x + 1, y);
    misplaced.store_at(f, x).compute_at(f, y);
    std::string message = message_of<CompileError>([&] { f.realize({8, 8}); });
    EXPECT_THAT(message, HasSubstr("misplaced")) << message;
    EXPECT_THAT(message, AllOf(HasSubstr("stored at f.x"), HasSubstr("computed at f.y")))
        << message;
}

TEST(ComputeAtErrors, StoredOutsideAParallelLoopButComputedInsideIt) {
    // Halide 14 rejects this ("stored outside the parallel loop over f.y but computed within
    // it. This is a potential race condition."): iterations running at once would write the
    // rows they share in one buffer.
    Var x("x"), y("y");
    Func racy_rows("racy_rows"), f("f");
    racy_rows(x, y) = x + y;
    f(x, y) = racy_rows(x, y - 1) + racy_rows(x, y + 1);
    f.parallel(y);
    racy_rows.store_root().compute_at(f, y);
    std::string message = message_of<CompileError>([&] { f.realize({8, 8}); });
    EXPECT_THAT(message, HasSubstr("racy_rows")) << message;
    EXPECT_THAT(message, HasSubstr("parallel")) << message;
}

// ---------------------------------------------------------------------------------------------
// A loop the stage does not have: the message lists the loops it does have.

// compute_at / store_at may resolve the loop at the directive or, as in Halide (so that the
// consumer may still be split afterwards), when the pipeline compiles.
TEST(UnknownLoopErrors, ComputeAtAVarTheConsumerDoesNotHave) {
    Var x("x"), y("y"), not_a_loop("not_a_loop");
    Func g("g"), consumer_f("consumer_f");
    g(x, y) = x + y;
    consumer_f(x, y) = g(x, y);
    std::string message = message_of<CompileError>([&] {
        g.compute_at(consumer_f, not_a_loop);
        consumer_f.realize({4, 4});
    });
    EXPECT_THAT(message,
                AllOf(HasSubstr("compute"), HasSubstr("consumer_f"), HasSubstr("not_a_loop")))
        << message;
    // The loops it could have named, outermost first.
    EXPECT_THAT(message, AnyOf(HasSubstr("y, x"), HasSubstr("consumer_f.y, consumer_f.x")))
        << message;
}

TEST(UnknownLoopErrors, StoreAtAVarTheConsumerDoesNotHave) {
    Var x("x"), y("y"), not_a_loop("not_a_loop");
    Func g("g"), consumer_f("consumer_f");
    g(x, y) = x + y;
    consumer_f(x, y) = g(x, y);
    std::string message = message_of<CompileError>([&] {
        g.store_at(consumer_f, not_a_loop).compute_at(consumer_f, x);
        consumer_f.realize({4, 4});
    });
    EXPECT_THAT(message, AllOf(HasSubstr("stor"), HasSubstr("consumer_f"), HasSubstr("not_a_loop")))
        << message;
    EXPECT_THAT(message, AnyOf(HasSubstr("y, x"), HasSubstr("consumer_f.y, consumer_f.x")))
        << message;
}

TEST(UnknownLoopErrors, ComputeAtALoopSplitAwayLater) {
    // x is split after compute_at names it: x is no longer a loop of the consumer, and the
    // message lists the loops it has now.
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func g("g"), consumer_f("consumer_f");
    g(x, y) = x + y;
    consumer_f(x, y) = g(x, y);
    std::string message = message_of<CompileError>([&] {
        g.compute_at(consumer_f, x);
        consumer_f.split(x, xo, xi, 4);
        consumer_f.realize({8, 4});
    });
    EXPECT_THAT(message, AllOf(HasSubstr("consumer_f"), HasSubstr("x.xo"), HasSubstr("x.xi")))
        << message;
}

TEST(UnknownLoopErrors, EachLoopDirectiveNamesItselfAndListsTheLoops) {
    Var x("x"), y("y"), z("z"), xo("xo"), xi("xi"), t("t");
    struct Case {
        const char *directive;
        std::function<void(Func &)> apply;
    };
    std::vector<Case> cases = {
        {"split", [&](Func &f) { f.split(z, xo, xi, 4); }},
        {"fuse", [&](Func &f) { f.fuse(x, z, t); }},
        {"reorder", [&](Func &f) { f.reorder(z, x); }},
        {"vectorize", [&](Func &f) { f.vectorize(z); }},
        {"vectorize", [&](Func &f) { f.vectorize(z, 8); }},
        {"unroll", [&](Func &f) { f.unroll(z); }},
        {"unroll", [&](Func &f) { f.unroll(z, 2); }},
        {"parallel", [&](Func &f) { f.parallel(z); }},
        {"serial", [&](Func &f) { f.serial(z); }},
        {"rename", [&](Func &f) { f.rename(z, t); }},
    };
    for (const Case &c : cases) {
        Func two_d("two_d");
        two_d(x, y) = x + y;
        std::string message = message_of<CompileError>([&] { c.apply(two_d); });
        EXPECT_THAT(message, AllOf(HasSubstr(c.directive), HasSubstr("two_d"), HasSubstr("z"),
                                   HasSubstr("y, x")))
            << c.directive << ": " << message;
    }
}

TEST(UnknownLoopErrors, LoopsOfASplitStageAreListed) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), missing("missing");
    Func split_f("split_f");
    split_f(x, y) = x + y;
    split_f.split(x, xo, xi, 4);
    std::string message = message_of<CompileError>([&] { split_f.parallel(missing); });
    EXPECT_THAT(message, AllOf(HasSubstr("split_f"), HasSubstr("missing"))) << message;
    EXPECT_THAT(message, HasSubstr("y, x.xo, x.xi")) << message;
    // x itself is gone: it was split.
    EXPECT_THAT(message_of<CompileError>([&] { split_f.vectorize(x); }), HasSubstr("x.xo, x.xi"));
}

TEST(UnknownLoopErrors, UpdateStageListsItsRVarsAndPureVars) {
    Var x("x"), y("y"), missing("missing");
    RDom r(0, 4, "rd");
    Func updated("updated");
    updated(x, y) = x;
    updated(x, y) += r;
    std::string message = message_of<CompileError>([&] { updated.update(0).parallel(missing); });
    EXPECT_THAT(message, AllOf(HasSubstr("updated.update(0)"), HasSubstr("missing"))) << message;
    EXPECT_THAT(message, HasSubstr(r.x.name())) << message;
    EXPECT_THAT(message, HasSubstr("y")) << message;
}

TEST(UnknownLoopErrors, UpdateThatDoesNotExist) {
    Var x("x");
    Func one_update("one_update");
    one_update(x) = x;
    one_update(x) += 1;
    std::string message = message_of<CompileError>([&] { one_update.update(3); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("one_update"), HasSubstr("update(3)"), HasSubstr("1 update")))
        << message;
}

// ---------------------------------------------------------------------------------------------
// Split factors.

TEST(FactorErrors, ZeroAndNegativeSplitFactors) {
    Var x("x"), y("y"), xo("xo"), xi("xi"), yi("yi");
    struct Case {
        const char *what, *factor;
        std::function<void(Func &)> apply;
    };
    std::vector<Case> cases = {
        {"split by 0", "0", [&](Func &f) { f.split(x, xo, xi, 0); }},
        {"split by -3", "-3", [&](Func &f) { f.split(x, xo, xi, -3); }},
        {"vectorize by 0", "0", [&](Func &f) { f.vectorize(x, 0); }},
        {"unroll by -2", "-2", [&](Func &f) { f.unroll(x, -2); }},
        {"tile by 0", "0", [&](Func &f) { f.tile(x, y, xi, yi, 0, 4); }},
        {"parallel with task size 0", "0", [&](Func &f) { f.parallel(y, 0); }},
    };
    for (const Case &c : cases) {
        Func bad_factor("bad_factor");
        bad_factor(x, y) = x + y;
        std::string message = message_of<CompileError>([&] { c.apply(bad_factor); });
        EXPECT_THAT(message,
                    AllOf(HasSubstr("bad_factor"), HasSubstr(std::string("by ") + c.factor),
                          HasSubstr("strictly positive")))
            << c.what << ": " << message;
    }
}

TEST(FactorErrors, ZeroFactorMessageNamesTheDirectiveUsed) {
    // vectorize(x, 0) is a split underneath, but the user wrote vectorize. (Halide 14 says
    // "Can't split x by 0" here too; Loom's messages name the directive the user called.)
    Var x("x"), y("y");
    Func vec_f("vec_f"), unroll_f("unroll_f");
    vec_f(x, y) = x;
    unroll_f(x, y) = x;
    EXPECT_THAT(message_of<CompileError>([&] { vec_f.vectorize(x, 0); }), HasSubstr("vectorize"));
    EXPECT_THAT(message_of<CompileError>([&] { unroll_f.unroll(x, 0); }), HasSubstr("unroll"));
}

TEST(FactorErrors, NonIntegerFactor) {
    Var x("x"), xo("xo"), xi("xi");
    Func float_factor("float_factor");
    float_factor(x) = x;
    std::string message =
        message_of<CompileError>([&] { float_factor.split(x, xo, xi, Expr(2.5f)); });
    EXPECT_THAT(message, AllOf(HasSubstr("float_factor"), HasSubstr("split"), HasSubstr("integer")))
        << message;
}

TEST(FactorErrors, SplitIntoTwoLoopsOfTheSameName) {
    Var x("x"), same("same");
    Func twin_split("twin_split");
    twin_split(x) = x;
    std::string message = message_of<CompileError>([&] { twin_split.split(x, same, same, 4); });
    EXPECT_THAT(message, AllOf(HasSubstr("twin_split"), HasSubstr("split"), HasSubstr("distinct")))
        << message;
}

// A new loop may not take a name that a loop of the stage already ends in: a later directive
// naming it could not tell the two apart. Halide 14 rejects the same schedules at the split.
TEST(FactorErrors, NewLoopNamedLikeALoopTheStageHas) {
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi_twice("yi_twice"), t("t");
    Func after_tile("after_tile");
    after_tile(x, y) = x + y;
    std::string message = message_of<CompileError>(
        [&] { after_tile.tile(x, y, xo, yo, xi, yi_twice, 8, 8).split(xi, t, yi_twice, 2); });
    EXPECT_THAT(message, AllOf(HasSubstr("after_tile"), HasSubstr("split"), HasSubstr("y.yi_twice"),
                               HasSubstr("another name")))
        << message;

    Func onto_a_var("onto_a_var");
    onto_a_var(x, y) = x + y;
    message = message_of<CompileError>([&] { onto_a_var.split(x, y, xi, 8); });
    EXPECT_THAT(message, AllOf(HasSubstr("onto_a_var"), HasSubstr("new loop y"))) << message;

    Var fused_name("fused_name"), c("c");
    Func fused_twice("fused_twice");
    fused_twice(x, y, c) = x + y + c;
    message = message_of<CompileError>(
        [&] { fused_twice.split(c, fused_name, t, 2).fuse(x, y, fused_name); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("fused_twice"), HasSubstr("fuse"), HasSubstr("c.fused_name")))
        << message;
}

// Reusing the name of the loop being split is the usual way to keep a name, and is legal.
TEST(FactorErrors, SplitKeepingTheSplitLoopsName) {
    Var x("x"), xi("xi"), t("t"), u("u");
    Func kept("kept");
    kept(x) = x * 3;
    kept.split(x, x, xi, 8).split(x, x, t, 2).split(xi, xi, u, 4);
    Buffer<int> out = kept.realize({40});
    for (int i = 0; i < 40; i++)
        ASSERT_EQ(out(i), i * 3) << "at " << i;
}

// ---------------------------------------------------------------------------------------------
// Loops whose extent must be a constant.

TEST(ConstantExtentErrors, UnrollALoopOfNonConstantExtent) {
    Var x("x");
    Func unrolled_f("unrolled_f");
    unrolled_f(x) = x;
    unrolled_f.unroll(x);
    std::string message = message_of<CompileError>([&] { unrolled_f.realize({16}); });
    EXPECT_THAT(message, AllOf(HasSubstr("unroll"), HasSubstr("unrolled_f.s0.x"),
                               HasSubstr("not a constant")))
        << message;
}

TEST(ConstantExtentErrors, VectorizeALoopOfNonConstantExtent) {
    Var x("x"), y("y");
    Func vectorized_f("vectorized_f");
    vectorized_f(x, y) = x + y;
    vectorized_f.vectorize(y);
    std::string message = message_of<CompileError>([&] { vectorized_f.realize({16, 16}); });
    EXPECT_THAT(message, AllOf(HasSubstr("vectorize"), HasSubstr("vectorized_f.s0.y"),
                               HasSubstr("not a constant")))
        << message;
}

TEST(ConstantExtentErrors, VectorizeTheOuterLoopOfASplit) {
    Var x("x"), xo("xo"), xi("xi");
    Func outer_vec("outer_vec");
    outer_vec(x) = x;
    outer_vec.split(x, xo, xi, 8).vectorize(xo);
    std::string message = message_of<CompileError>([&] { outer_vec.realize({64}); });
    EXPECT_THAT(message, AllOf(HasSubstr("vectorize"), HasSubstr("outer_vec.s0.x.xo"))) << message;
}

TEST(ConstantExtentErrors, UnrollAnRVarOfParamExtent) {
    Param<int> count("count", 5);
    Var x("x");
    RDom r(0, count);
    Func param_rdom("param_rdom");
    param_rdom(x) = x;
    param_rdom(x) += r;
    param_rdom.update(0).unroll(r);
    std::string message = message_of<CompileError>([&] { param_rdom.realize({4}); });
    EXPECT_THAT(message, AllOf(HasSubstr("unroll"), HasSubstr("param_rdom.s1"), HasSubstr("count")))
        << message;
}

// ---------------------------------------------------------------------------------------------
// RVars whose iterations would race, and tail strategies an update can't use.

TEST(RaceErrors, ParallelScan) {
    Var x("x");
    RDom r(1, 9, "scan_r");
    Func scan("scan");
    scan(x) = x;
    scan(r) = scan(r - 1) + 1;  // reads the element the previous iteration wrote
    std::string message = message_of<CompileError>([&] { scan.update(0).parallel(r); });
    EXPECT_THAT(message, AllOf(HasSubstr("parallel"), HasSubstr("scan.update(0)"),
                               HasSubstr(r.x.name()), HasSubstr("race")))
        << message;
}

TEST(RaceErrors, VectorizedHistogram) {
    // Two iterations may increment the same bin.
    Buffer<uint8_t> pixels(std::vector<int>{64}, "pixels");
    Var x("x");
    RDom r(0, 64, "hist_r");
    Func histogram("histogram");
    histogram(x) = 0;
    histogram(cast<int32_t>(pixels(r))) += 1;
    std::string message = message_of<CompileError>([&] { histogram.update(0).vectorize(r, 8); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("vectorize"), HasSubstr("histogram.update(0)"), HasSubstr("race")))
        << message;
    EXPECT_THAT(message_of<CompileError>([&] { histogram.update(0).parallel(r); }),
                AllOf(HasSubstr("parallel"), HasSubstr("histogram.update(0)")));
}

TEST(RaceErrors, TheMessageNamesTheWayToVouchForTheStage) {
    Buffer<int32_t> order(std::vector<int>{16}, "order");
    Var x("x");
    RDom r(0, 16, "scatter_r");
    Func scattered("scattered");
    scattered(x) = 0;
    scattered(order(r)) = r;
    std::string message = message_of<CompileError>([&] { scattered.update(0).parallel(r); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("scattered.update(0)"), HasSubstr("allow_race_conditions")))
        << message;
    // Vouched for first, the directive is taken.
    EXPECT_NO_THROW(scattered.update(0).allow_race_conditions().parallel(r));
}

// A scatter through a permutation writes each element once, which the checks cannot see:
// allowed to race, its RVar runs in parallel and in vectors and the values equal C++'s.
TEST(RacesAllowed, AScatterThroughAPermutationRunsInParallelAndInVectors) {
    constexpr int n = 1000;
    Buffer<int32_t> order(std::vector<int>{n}, "order");
    for (int i = 0; i < n; i++)
        order(i) = (i * 617 + 11) % n; // 617 is prime to 1000
    for (int schedule = 0; schedule < 3; schedule++) {
        Var x("x");
        RDom r(0, n, "perm_r");
        Func scattered("scattered");
        scattered(x) = -1;
        scattered(clamp(order(r), 0, n - 1)) = r * 3 + 1; // bounds: [0, n - 1], as Halide
        Stage update = scattered.update(0).allow_race_conditions();
        if (schedule == 1) update.parallel(r, 64);
        if (schedule == 2) update.vectorize(r, 8);
        Buffer<int32_t> out = scattered.realize({n});
        for (int i = 0; i < n; i++) {
            ASSERT_EQ(out(order(i)), i * 3 + 1) << "schedule " << schedule << ", r = " << i;
        }
    }
}

TEST(RaceErrors, ParallelRVarReadingANeighbour) {
    // The RVar is a bare argument on the left, but the right reads another element.
    Var x("x"), y("y");
    RDom r(1, 8, "nb_r");
    Func neighbour("neighbour");
    neighbour(x, y) = x + y;
    neighbour(r, y) = neighbour(r + 1, y) * 2;
    std::string message = message_of<CompileError>([&] { neighbour.update(0).parallel(r); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("parallel"), HasSubstr("neighbour.update(0)"), HasSubstr("race")))
        << message;
    // The pure Var y of the same update is free of races.
    EXPECT_NO_THROW(neighbour.update(0).parallel(y));
}

TEST(RaceErrors, RaceFreeRVarsMayRunAtOnce) {
    Var x("x"), y("y");
    RDom r(0, 16, 0, 4, "free_r");
    Func pointwise("pointwise");
    pointwise(x, y) = x + y;
    pointwise(r.x, r.y) = pointwise(r.x, r.y) * 3 + 1;
    EXPECT_NO_THROW(pointwise.update(0).parallel(r.y).vectorize(r.x, 8));
    Buffer<int32_t> out;
    ASSERT_NO_THROW(out = pointwise.realize({16, 4}));
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 16; i++) EXPECT_EQ(out(i, j), (i + j) * 3 + 1) << i << ", " << j;
    }
}

TEST(RaceErrors, ReorderingTheRVarsOfARecurrence) {
    // Each point reads the one up and to the right, which the row before updated when r.x runs
    // inside r.y; with r.y inside r.x that point is not updated yet, and 49 of the 100 values
    // change. Halide 14: "In schedule for f.update(0), can't reorder RVars r.y and r.x because
    // it may change the meaning of the algorithm."
    Var x("x"), y("y");
    RDom r(0, 8, 1, 8, "rec_r");
    Func recurrence("recurrence");
    recurrence(x, y) = x + y;
    recurrence(r.x, r.y) = recurrence(r.x + 1, r.y - 1) * 2 + recurrence(r.x, r.y);
    std::string message = message_of<CompileError>([&] {
        recurrence.update(0).reorder(r.y, r.x);
        recurrence.realize({10, 10});
    });
    EXPECT_THAT(message, AllOf(HasSubstr("recurrence.update(0)"), HasSubstr("reorder"))) << message;
}

TEST(RaceErrors, ReorderingTheRVarsOfACommutativeUpdateIsAllowed) {
    Var x("x");
    RDom r(0, 4, 0, 3, "sum_r");
    Func summed("summed");
    summed(x) = 0;
    summed(x) += r.x * 10 + r.y + x;
    EXPECT_NO_THROW(summed.update(0).reorder(r.y, r.x));
    Buffer<int32_t> out;
    ASSERT_NO_THROW(out = summed.realize({3}));
    for (int i = 0; i < 3; i++) EXPECT_EQ(out(i), 180 + 12 + 12 * i) << i;
}

TEST(TailErrors, ShiftInwardsOnAnUpdateStage) {
    Var x("x"), xo("xo"), xi("xi");
    Func accumulated("accumulated");
    accumulated(x) = x;
    accumulated(x) += 1;
    std::string message = message_of<CompileError>(
        [&] { accumulated.update(0).split(x, xo, xi, 4, TailStrategy::ShiftInwards); });
    EXPECT_THAT(message, AllOf(HasSubstr("accumulated.update(0)"), HasSubstr("ShiftInwards"),
                               HasSubstr("split")))
        << message;
    // The same through vectorize's and unroll's split.
    EXPECT_THAT(message_of<CompileError>(
                    [&] { accumulated.update(0).vectorize(x, 4, TailStrategy::ShiftInwards); }),
                AllOf(HasSubstr("accumulated.update(0)"), HasSubstr("ShiftInwards")));
    EXPECT_THAT(message_of<CompileError>(
                    [&] { accumulated.update(0).unroll(x, 2, TailStrategy::ShiftInwards); }),
                AllOf(HasSubstr("accumulated.update(0)"), HasSubstr("ShiftInwards")));
}

TEST(TailErrors, RoundUpOnAnRVar) {
    Var x("x");
    RDom r(0, 10, "ru_r");
    Func rounded("rounded");
    rounded(x) = x;
    rounded(r) += 1;
    std::string message = message_of<CompileError>([&] {
        rounded.update(0).split(r, std::string("ro"), std::string("ri"), 4, TailStrategy::RoundUp);
    });
    EXPECT_THAT(message,
                AllOf(HasSubstr("rounded.update(0)"), HasSubstr("RoundUp"), HasSubstr(r.x.name())))
        << message;
    EXPECT_THAT(
        message_of<CompileError>([&] { rounded.update(0).vectorize(r, 4, TailStrategy::RoundUp); }),
        AllOf(HasSubstr("rounded.update(0)"), HasSubstr("RoundUp")));
}

TEST(TailErrors, RoundUpOnAPureVarOfAnUpdateIsAllowed) {
    Var x("x"), xo("xo"), xi("xi");
    Func pure_round("pure_round");
    pure_round(x) = x;
    pure_round(x) += 1;
    EXPECT_NO_THROW(pure_round.update(0).split(x, xo, xi, 4, TailStrategy::RoundUp));
    Buffer<int32_t> out;
    ASSERT_NO_THROW(out = pure_round.realize({12}));
    for (int i = 0; i < 12; i++) EXPECT_EQ(out(i), i + 1) << i;
}

// ---------------------------------------------------------------------------------------------
// Errors that depend on the realized size.

TEST(RealizeErrors, RoundUpOnAnOutputWhoseSizeIsNotAMultiple) {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func rounded_f("rounded_f");
    rounded_f(x, y) = x + y;
    rounded_f.split(x, xo, xi, 4, TailStrategy::RoundUp);
    Buffer<int32_t> odd_output(std::vector<int>{10, 3}, "odd_output");
    std::string message = message_of<RuntimeError>([&] { rounded_f.realize(odd_output); });
    EXPECT_THAT(message, AnyOf(HasSubstr("Output buffer rounded_f"), HasSubstr("odd_output")))
        << message;
    EXPECT_THAT(message, AllOf(HasSubstr("RoundUp"), HasSubstr("[0, 11]"), HasSubstr("[0, 9]")))
        << message;
    // A multiple of 4 is fine, with any min.
    Buffer<int32_t> good(std::vector<int>{12, 3}, "good");
    good.set_min(-5, 2);
    ASSERT_NO_THROW(rounded_f.realize(good));
    EXPECT_EQ(good(-5, 2), -3);
    EXPECT_EQ(good(6, 4), 10);
}

// realize(sizes) asks the pipeline first which region its schedule writes (Halide's bounds
// query), runs it over that region and returns the requested part; a buffer the caller gives
// must hold the whole region the schedule writes.
TEST(RealizeErrors, ShiftInwardsOnAnOutputSmallerThanTheFactor) {
    Var x("x"), xo("xo"), xi("xi");
    Func shifted_f("shifted_f");
    shifted_f(x) = x;
    shifted_f.split(x, xo, xi, 8, TailStrategy::ShiftInwards);
    Buffer<int32_t> five = shifted_f.realize({5});
    ASSERT_EQ(five.width(), 5);
    EXPECT_EQ(five.dim(0).min(), 0);
    for (int i = 0; i < 5; i++) EXPECT_EQ(five(i), i);
    Buffer<int32_t> given(5);
    std::string message = message_of<RuntimeError>([&] { shifted_f.realize(given); });
    EXPECT_THAT(message, AllOf(HasSubstr("shifted_f"), HasSubstr("ShiftInwards"))) << message;
}

TEST(RealizeErrors, PipelineStillWorksAfterARoundUpError) {
    Var x("x"), xo("xo"), xi("xi");
    Func retried("retried");
    retried(x) = x * 2;
    retried.split(x, xo, xi, 4, TailStrategy::RoundUp);
    Buffer<int32_t> six(6);
    EXPECT_THAT(message_of<RuntimeError>([&] { retried.realize(six); }), HasSubstr("retried"));
    Buffer<int32_t> rounded = retried.realize({6}); // bounds query: run over 8, keep 6
    ASSERT_EQ(rounded.width(), 6);
    for (int i = 0; i < 6; i++) EXPECT_EQ(rounded(i), 2 * i);
    Buffer<int32_t> out;
    ASSERT_NO_THROW(out = retried.realize({8}));
    for (int i = 0; i < 8; i++) EXPECT_EQ(out(i), 2 * i);
}

// ---------------------------------------------------------------------------------------------
// Other loop-structure mistakes.

TEST(StructureErrors, FuseLoopsThatAreNotAdjacent) {
    Var x("x"), y("y"), c("c"), t("t");
    Func three_d("three_d");
    three_d(x, y, c) = x + y + c;
    std::string message = message_of<CompileError>([&] { three_d.fuse(x, c, t); });
    EXPECT_THAT(message,
                AllOf(HasSubstr("fuse"), HasSubstr("three_d"), HasSubstr("directly outside")))
        << message;
}

TEST(StructureErrors, ReorderListingALoopTwice) {
    Var x("x"), y("y");
    Func twice("twice");
    twice(x, y) = x + y;
    std::string message = message_of<CompileError>([&] { twice.reorder(x, y, x); });
    EXPECT_THAT(message, AllOf(HasSubstr("reorder"), HasSubstr("twice"), HasSubstr("listed twice")))
        << message;
}

TEST(StructureErrors, SchedulingAnUndefinedFunc) {
    Var x("x");
    Func never_defined("never_defined");
    std::string message = message_of<CompileError>([&] { never_defined.vectorize(x, 8); });
    EXPECT_THAT(message, HasSubstr("never_defined")) << message;
}

}  // namespace
