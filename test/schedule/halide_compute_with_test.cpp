// compute_with (horizontal fusion) against Halide 14: stages that share loops give the bytes
// Halide gives for the same algorithm and schedule, the lowered loop nest shows one loop where
// there were two, and each misuse is refused with a message naming both stages.

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <regex>

#include "CompileErrorOf.h"
#include "HalideScheduleDiff.h"
#include "StmtText.h"

namespace {

// Two consumers of one producer, both read by an output: the horizontal fusion of the fusion
// literature (the producer read once for both).
#define TWO_CONSUMERS                                                                              \
    Buffer<uint8_t> in = random_buffer<Buffer<uint8_t>>({108, 80}, 3, 0, 255, {-8, -8}, "in");     \
    Var x("x"), y("y"), xo("xo"), xi("xi"), yo("yo"), yi("yi");                                    \
    Func p("p"), a("a"), b("b"), out("out");                                                       \
    p(x, y) = cast<int32_t>(in(x, y)) * 3 - in(x + 1, y);                                          \
    a(x, y) = p(x - 1, y) + p(x, y + 1) * 2;                                                       \
    b(x, y) = p(x + 1, y) * 5 - p(x, y - 1);
#define TWO_CONSUMERS_ALGORITHM                                                                    \
    TWO_CONSUMERS out(x, y) = a(x, y) * 7 + b(x, y + 1) - a(x + 2, y);

TEST(ComputeWith, TwoRootConsumersShareTheirRows) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root();
                      b.compute_root(); b.compute_with(a, y); return out;),
        kOddRegions);
}

TEST(ComputeWith, SplitLoopsSharedAtTheOuterBlock) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root();
                      b.compute_root(); a.split(x, xo, xi, 8); b.split(x, xo, xi, 8);
                      b.compute_with(a, xo); return out;),
        kOddRegions);
}

TEST(ComputeWith, SharedRowsInsideTheConsumersTiles) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM out.tile(x, y, xo, yo, xi, yi, 16, 8);
                      a.compute_at(out, xo); b.compute_at(out, xo); a.vectorize(x, 4);
                      b.vectorize(x, 4); b.compute_with(a, y); p.compute_at(out, xo);
                      return out;),
        kOddRegions);
}

TEST(ComputeWith, ProducerComputedInTheSharedLoop) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM a.compute_root(); b.compute_root();
                      b.compute_with(a, y); p.compute_at(a, y); return out;),
        kOddRegions);
}

TEST(ComputeWith, ParallelSharedLoop) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root().parallel(y);
                      b.compute_root().parallel(y); b.compute_with(a, y); return out;),
        kOddRegions);
}

#define TWO_CONSUMERS_WITH_UPDATES                                                                 \
    TWO_CONSUMERS RDom r(0, 3);                                                                    \
    a(x, y) += p(x + r, y) * (r + 1);                                                              \
    b(x, y) = b(x, y) * 3 - p(x, y + 1);                                                           \
    out(x, y) = a(x, y) * 7 + b(x, y + 1) - a(x + 2, y);                                           \
    p.compute_root();                                                                              \
    a.compute_root();                                                                              \
    b.compute_root();                                                                              \
    b.compute_with(a, y);

TEST(ComputeWith, PureStagesSharedUpdatesApart) {
    expect_same_output<int32_t>(SAME_PIPELINE(TWO_CONSUMERS_WITH_UPDATES return out;),
                                kOddRegions);
}

TEST(ComputeWith, UpdatesSharedToo) {
    // Halide 14 runs the shared loop of the two updates over a.update(0)'s rows only, so that
    // b.update(0) skips the row b has past a's (17 of 153 points differ from Halide's own
    // result without this compute_with). A schedule never changes the values: the reference is
    // Halide without it.
    expect_same_output<int32_t>(
        [&]() {
            using namespace Halide;
            TWO_CONSUMERS_WITH_UPDATES
            return out;
        },
        [&]() {
            using namespace loom;
            TWO_CONSUMERS_WITH_UPDATES
            b.update(0).compute_with(a.update(0), y);
            return out;
        },
        kOddRegions);
}

TEST(ComputeWith, AlignStartAndEnd) {
    // b is read over more rows than a: the shared loop covers both, each stage its own rows.
    for (loom::LoopAlignStrategy strategy :
         {loom::LoopAlignStrategy::AlignStart, loom::LoopAlignStrategy::AlignEnd,
          loom::LoopAlignStrategy::NoAlign}) {
        SCOPED_TRACE((int)strategy);
        expect_same_output<int32_t>(
            [&]() {
                using namespace Halide;
                TWO_CONSUMERS
                out(x, y) = a(x, y) + b(x, y + 4) - b(x - 3, y - 2);
                p.compute_root(); a.compute_root(); b.compute_root();
                b.compute_with(a, y, (Halide::LoopAlignStrategy)(int)strategy);
                return out;
            },
            [&]() {
                using namespace loom;
                TWO_CONSUMERS
                out(x, y) = a(x, y) + b(x, y + 4) - b(x - 3, y - 2);
                p.compute_root(); a.compute_root(); b.compute_root();
                b.compute_with(a, y, strategy);
                return out;
            },
            kOddRegions);
    }
}

// Three consumers of p, computed at the root, read by an output.
#define THREE_CONSUMERS_AT_ROOT                                                                    \
    TWO_CONSUMERS Func c("c");                                                                     \
    c(x, y) = p(x, y) - p(x + 2, y - 1);                                                           \
    out(x, y) = a(x, y) + b(x, y + 3) * c(x - 1, y - 2);                                           \
    for (Func f : {p, a, b, c})                                                                    \
        f.compute_root();

TEST(ComputeWith, ChainOfThreeStages) {
    // c with b, b with a: one loop over the union of the three.
    expect_same_output<int32_t>(SAME_PIPELINE(THREE_CONSUMERS_AT_ROOT b.compute_with(a, y);
                                              c.compute_with(b, y); return out;),
                                kOddRegions);
}

TEST(ComputeWith, TwoStagesWithOneParentAtDifferentLoops) {
    expect_same_output<int32_t>(SAME_PIPELINE(THREE_CONSUMERS_AT_ROOT b.compute_with(a, x);
                                              c.compute_with(a, y); return out;),
                                kOddRegions);
}

TEST(ComputeWith, ParentSpecialized) {
    // Each version of the parent's stage holds the child in its shared loop.
    for (int value : {3, 1}) {
        SCOPED_TRACE(value);
        expect_same_output<int32_t>(
            SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM Param<int> k("k"); k.set(value);
                          p.compute_root(); a.compute_root(); b.compute_root();
                          a.specialize(k > 2).parallel(y); b.compute_with(a, y); return out;),
            kOddRegions);
    }
}

TEST(ComputeWith, GuardWithIfTailOnTheSharedLoop) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root();
                      b.compute_root(); a.split(y, yo, yi, 4, TailStrategy::GuardWithIf);
                      b.split(y, yo, yi, 4, TailStrategy::GuardWithIf); b.compute_with(a, yo);
                      return out;),
        kOddRegions);
}

TEST(ComputeWith, SharedLoopsOfReductions) {
    // Two histograms over the same RDom share its loops.
    expect_same_output<int32_t>(
        SAME_PIPELINE(
            Buffer<uint8_t> in = random_buffer<Buffer<uint8_t>>({40, 30}, 5, 0, 255, {0, 0}, "in");
            Var x("x"); Func h("h"), g("g"), out("out"); RDom r(0, 40, 0, 30);
            h(x) = 0; h(cast<int>(in(r.x, r.y)) / 16) += 1; g(x) = 0;
            g(cast<int>(in(r.x, r.y)) % 16) += 2; out(x) = h(x) * 100 + g(x);
            h.compute_root(); g.compute_root(); g.compute_with(h, x);
            g.update(0).compute_with(h.update(0), r.y); return out;),
        {{{16}, {0}}, {{9}, {3}}});
}

TEST(ComputeWith, AtTheOutermostLevel) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root();
                      b.compute_root(); b.compute_with(a, Var::outermost()); return out;),
        kOddRegions);
}

// The elements of a Loom and a Halide (or another Loom) buffer of the same w x h region, one
// by one.
template <typename Other>
void expect_same_elements(const loom::Buffer<int> &l, const Other &h, int w, int rows) {
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < w; x++)
            ASSERT_EQ(l(x, y), h(x, y)) << x << ", " << y;
}

// Pipeline({f, g}) realized into buffers of different sizes in both languages (Halide 14's
// documentation of compute_with: g half the size of f, fused at y).
TEST(ComputeWith, TwoOutputsOfDifferentSizes) {
    auto pipeline = [](auto in, auto f, auto g, auto x, auto y) {
        f(x, y) = in(x, y) * 3 + in(x + 1, y);
        g(x, y) = in(2 * x, (y + 2) / 2) - in(x, y);
    };
    Halide::Buffer<int> hin = random_buffer<Halide::Buffer<int>>({80, 60}, 8, -99, 99);
    loom::Buffer<int> lin = random_buffer<loom::Buffer<int>>({80, 60}, 8, -99, 99);
    for (bool align_end : {false, true}) {
        Halide::Func hf("f"), hg("g");
        Halide::Var hx("x"), hy("y");
        pipeline(hin, hf, hg, hx, hy);
        loom::Func lf("f"), lg("g");
        loom::Var lx("x"), ly("y");
        pipeline(lin, lf, lg, lx, ly);
        hg.compute_with(hf, hy, align_end ? Halide::LoopAlignStrategy::AlignEnd
                                          : Halide::LoopAlignStrategy::Auto);
        lg.compute_with(lf, ly, align_end ? loom::LoopAlignStrategy::AlignEnd
                                          : loom::LoopAlignStrategy::Auto);
        Halide::Buffer<int> hfo(40, 30), hgo(20, 15);
        loom::Buffer<int> lfo(40, 30), lgo(20, 15);
        Halide::Pipeline({hf, hg}).realize({hfo, hgo}, halide_target());
        loom::Pipeline({lf, lg}).realize({lfo, lgo});
        expect_same_elements(lfo, hfo, 40, 30);
        expect_same_elements(lgo, hgo, 20, 15);
    }
}

// An output sharing its rows with a Func that is not one (computed at the root), which another
// output reads.
TEST(ComputeWith, AnOutputWithAFuncThatIsNotOne) {
    auto pipeline = [](auto in, auto f, auto g, auto h, auto x, auto y) {
        f(x, y) = in(x, y) * 3 + in(x + 1, y);
        g(x, y) = in(x, y + 1) - in(x, y) * 2;
        h(x, y) = g(x, y) + g(x + 1, y + 1);
        g.compute_root();
    };
    Halide::Buffer<int> hin = random_buffer<Halide::Buffer<int>>({80, 60}, 9, -99, 99);
    loom::Buffer<int> lin = random_buffer<loom::Buffer<int>>({80, 60}, 9, -99, 99);
    for (bool g_is_parent : {false, true}) {
        SCOPED_TRACE(g_is_parent);
        Halide::Func hf("f"), hg("g"), hh("h");
        Halide::Var hx("x"), hy("y");
        pipeline(hin, hf, hg, hh, hx, hy);
        loom::Func lf("f"), lg("g"), lh("h");
        loom::Var lx("x"), ly("y");
        pipeline(lin, lf, lg, lh, lx, ly);
        if (g_is_parent) {
            hf.compute_with(hg, hy);
            lf.compute_with(lg, ly);
        } else {
            hg.compute_with(hf, hy);
            lg.compute_with(lf, ly);
        }
        Halide::Buffer<int> hfo(40, 30), hho(33, 20);
        loom::Buffer<int> lfo(40, 30), lho(33, 20);
        Halide::Pipeline({hf, hh}).realize({hfo, hho}, halide_target());
        loom::Pipeline({lf, lh}).realize({lfo, lho});
        expect_same_elements(lfo, hfo, 40, 30);
        expect_same_elements(lho, hho, 33, 20);
    }
}

// f's blocks of 8 columns share their loop with g's columns, so the shared loop runs over g's 64
// iterations, and f's stage is guarded to its own 8. p, computed per block of f and vectorized
// by 16 (ShiftInwards), reads the 8 columns before the block: the input is asked for exactly
// what the blocks read (before, the guards' clamps at the two ends of p's region, taken apart,
// asked for columns far before the image: fuzz seed 6161 pair 532).
TEST(ComputeWith, AProducerInsideAStageOfAWiderSharedLoopAsksOnlyForWhatItReads) {
    auto pipeline = [](auto in, auto f, auto g, auto p, auto x, auto y, auto xi) {
        p(x, y) = in(x, y) * 2 + 1;
        f(x, y) = p(x, y) - p(x - 8, y);
        g(x, y) = in(x, y) * 5;
        // The blocks' loop keeps the name x, which g's columns share (as parallel(x, 8) does).
        f.split(x, x, xi, 8);
        p.compute_at(f, x).vectorize(x, 16);
        g.compute_with(f, x);
    };
    // Columns -8 .. 63: what p's first vector reads, and no more.
    Halide::Buffer<int> hin = random_buffer<Halide::Buffer<int>>({72, 4}, 12, -99, 99, {-8, 0});
    loom::Buffer<int> lin = random_buffer<loom::Buffer<int>>({72, 4}, 12, -99, 99, {-8, 0});
    Halide::Func hf("f"), hg("g"), hp("p");
    Halide::Var hx("x"), hy("y"), hxi("xi");
    pipeline(hin, hf, hg, hp, hx, hy, hxi);
    loom::Func lf("f"), lg("g"), lp("p");
    loom::Var lx("x"), ly("y"), lxi("xi");
    pipeline(lin, lf, lg, lp, lx, ly, lxi);
    Halide::Buffer<int> hfo(64, 4), hgo(64, 4);
    loom::Buffer<int> lfo(64, 4), lgo(64, 4);
    Halide::Pipeline({hf, hg}).realize({hfo, hgo}, halide_target());
    loom::Pipeline({lf, lg}).realize({lfo, lgo});
    expect_same_elements(lfo, hfo, 64, 4);
    expect_same_elements(lgo, hgo, 64, 4);
    for (int x = 0; x < 64; x++)
        ASSERT_EQ(lfo(x, 0), (lin(x, 0) * 2 + 1) - (lin(x - 8, 0) * 2 + 1)) << x;
}

// A producer computed at a loop of a stage that is computed with another, where the loop is
// one they share: it is computed in the shared loop, as at the parent's, before the stages
// inside it that read it (fuzz seed 8501 pair 889: placed at c's body instead, after c's inline
// reduction that reads it, and refused as read outside its loop). Halide 14 refuses the level
// and lists the parent's loops; Loom takes it as the parent's loop it is.
#define REDUCTION_COMPUTED_WITH                                                                    \
    TWO_CONSUMERS RDom r(-1, 3, "r");                                                              \
    Func c("c");                                                                                   \
    c(x, y) = sum(p(x + r, y));                                                                    \
    out(x, y) = a(x, y) + c(x, y);                                                                 \
    a.compute_root();                                                                              \
    c.compute_root();                                                                              \
    c.compute_with(a, x);

TEST(ComputeWith, ProducerAtASharedLoopOfTheStageComputedWith) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(REDUCTION_COMPUTED_WITH p.compute_at(a, y); return out;), kOddRegions);
    using namespace loom;
    auto realized = [](bool at_the_parents_loop) {
        REDUCTION_COMPUTED_WITH
        if (at_the_parents_loop) {
            p.compute_at(a, y);
        } else {
            p.compute_at(c, y);
        }
        Buffer<int32_t> result = out.realize({37, 11});
        return std::make_pair(result, Pipeline(out).lowered_stmt());
    };
    const auto [at_a, stmt_a] = realized(true);
    const auto [at_c, stmt_c] = realized(false);
    expect_same_elements(at_c, at_a, 37, 11);
    // The same nest, but for the inline reduction's name (a fresh one per definition).
    const std::regex reduction_name("sum_f[0-9]+");
    EXPECT_EQ(std::regex_replace(stmt_c, reduction_name, "sum"),
              std::regex_replace(stmt_a, reduction_name, "sum"));
    // p's rows are computed once per shared row, outside the shared columns.
    const std::vector<std::string> around_p = loom_test::loops_around(stmt_c, "produce p");
    ASSERT_FALSE(around_p.empty()) << stmt_c;
    EXPECT_EQ(around_p.back(), "a.s0.y") << stmt_c;
}

// ---------------------------------------------------------------------------------------------
// The lowered loop nest.

TEST(ComputeWith, LoweredNestHasOneSharedLoop) {
    using namespace loom;
    TWO_CONSUMERS_ALGORITHM
    p.compute_root();
    a.compute_root();
    b.compute_root();
    auto loops_of = [&](const std::string &stmt, const std::string &what) {
        return loom_test::loops_around(stmt, what);
    };
    // The stores of a and b (not their allocations).
    const std::string store_a = "a[((a.s0.x", store_b = "b[((b.s0.x";
    const std::string apart = Pipeline(out).lowered_stmt();
    ASSERT_FALSE(loops_of(apart, store_a).empty()) << apart;
    ASSERT_FALSE(loops_of(apart, store_b).empty()) << apart;
    EXPECT_EQ(loops_of(apart, store_a)[0], "a.s0.y") << apart;
    EXPECT_EQ(loops_of(apart, store_b)[0], "b.s0.y") << apart;
    b.compute_with(a, y);
    const std::string fused = Pipeline(out).lowered_stmt();
    // Inside the shared rows (the steady state, where both run), one a.s0.y loop holds both
    // stages' x loops.
    bool found = false;
    for (const std::string &loop_around_b : loops_of(fused, store_b)) {
        found = found || loop_around_b == "a.s0.y";
    }
    EXPECT_TRUE(found) << fused;
    EXPECT_EQ(fused.find("for (b.s0.y"), std::string::npos) << fused;
}

// ---------------------------------------------------------------------------------------------
// Misuses, each refused with a message that names both stages and what to change.

std::string compute_with_error(const std::function<void(loom::Func &, loom::Func &, loom::Var &,
                                                        loom::Var &, loom::Func &)> &schedule) {
    using namespace loom;
    Buffer<int> in(20, 20);
    Var x("x"), y("y");
    Func a("a"), b("b"), out("out");
    a(x, y) = in(x, y) + 1;
    b(x, y) = in(x, y) * 2;
    out(x, y) = a(x, y) + b(x, y);
    schedule(a, b, x, y, out);
    return loom_test::compile_error_of([&] { out.realize({8, 8}); });
}

TEST(ComputeWithErrors, EachMisuseNamesBothStages) {
    using loom::Func;
    using loom::Var;
    struct Case {
        const char *what;
        std::function<void(Func &, Func &, Var &, Var &, Func &)> schedule;
        std::vector<std::string> message;
    };
    const std::vector<Case> cases = {
        {"inlined",
         [](Func &a, Func &b, Var &, Var &y, Func &) { b.compute_root().compute_with(a, y); },
         {"compute_with of b with a", "a is inlined", "same level"}},
        {"different levels",
         [](Func &a, Func &b, Var &, Var &y, Func &out) {
             a.compute_root();
             b.compute_at(out, y).compute_with(a, y);
         },
         {"b is computed at out.y", "a at root", "same compute_root() or compute_at"}},
        {"loop missing",
         [](Func &a, Func &b, Var &, Var &y, Func &) {
             a.compute_root();
             b.compute_root().split(y, Var("yo"), Var("yi"), 2).compute_with(a, y);
         },
         {"compute_with of b at a's loop y", "y is not a loop of b", "y.yo"}},
        {"different loop types",
         [](Func &a, Func &b, Var &, Var &y, Func &) {
             a.compute_root().parallel(y);
             b.compute_root().compute_with(a, y);
         },
         {"shared loop y is parallel in a but serial in b", "same loop type"}},
        {"different orders",
         [](Func &a, Func &b, Var &x, Var &y, Func &) {
             a.compute_root();
             b.compute_root().reorder(y, x).compute_with(a, y);
         },
         {"as many in each", "a has y, x", "b has x, y"}},
        {"vectorized",
         [](Func &a, Func &b, Var &x, Var &, Func &) {
             a.compute_root().vectorize(x);
             b.compute_root().vectorize(x).compute_with(a, x);
         },
         {"shared loop x is vectorized", "compute_with at an outer loop"}},
        {"align a loop not shared",
         [](Func &a, Func &b, Var &x, Var &y, Func &) {
             a.compute_root();
             b.compute_root().compute_with(a, y, {{x, loom::LoopAlignStrategy::AlignStart}});
         },
         {"alignment names loop x", "not one of the loops the stages share (y)"}},
        {"dependency",
         [](Func &a, Func &, Var &, Var &y, Func &out) {
             a.compute_root();
             out.compute_with(a, y);
         },
         {"compute_with: out reads a (directly or through other Funcs)"}},
    };
    for (const Case &c : cases) {
        SCOPED_TRACE(c.what);
        const std::string message = compute_with_error(c.schedule);
        for (const std::string &part : c.message)
            EXPECT_NE(message.find(part), std::string::npos) << message;
    }
}

TEST(ComputeWithErrors, StagesThatReadEachOther) {
    using namespace loom;
    Buffer<int> in(20, 20);
    Var x("x"), y("y");
    Func a("a"), b("b"), c("c"), out("out");
    a(x, y) = in(x, y) + 1;
    c(x, y) = a(x, y) * 2;
    b(x, y) = c(x, y) - 1;
    out(x, y) = a(x, y) + b(x, y);
    a.compute_root();
    b.compute_root().compute_with(a, y);
    const std::string message = loom_test::compile_error_of([&] { out.realize({8, 8}); });
    EXPECT_NE(message.find("b reads a (directly or through other Funcs)"), std::string::npos)
        << message;
}

TEST(ComputeWithErrors, ParentNotInThePipelineAndStorageInside) {
    using namespace loom;
    Buffer<int> in(20, 20);
    Var x("x"), y("y");
    {
        Func a("a"), b("b"), unused("unused");
        a(x, y) = in(x, y) + 1;
        unused(x, y) = in(x, y) * 2;
        b(x, y) = a(x, y) * 3;
        unused.compute_root();
        a.compute_root().compute_with(unused, y);
        const std::string message = loom_test::compile_error_of([&] { b.realize({8, 8}); });
        EXPECT_NE(message.find("unused is not a Func this pipeline computes"), std::string::npos)
            << message;
    }
    {
        // b is computed with a in out's rows but stored inside them, at its own loop.
        Func a("a"), b("b"), out("out");
        a(x, y) = in(x, y) + 1;
        b(x, y) = in(x, y) * 2;
        out(x, y) = a(x, y) + b(x, y);
        a.compute_at(out, y);
        b.compute_at(out, y).store_at(out, x).compute_with(a, y);
        const std::string message = loom_test::compile_error_of([&] { out.realize({8, 8}); });
        EXPECT_NE(message.find("Func b is stored at out.x, which is not around its "
                               "computation: it is computed with a at out.y"),
                  std::string::npos)
            << message;
    }
}

TEST(ComputeWithErrors, CrossingStageOrders) {
    // a's pure stage runs after b's update, and a's update before b's pure stage: no order runs
    // each Func's stages in turn.
    using namespace loom;
    Buffer<int> in(20, 20);
    Var x("x"), y("y");
    Func a("a"), b("b"), out("out");
    a(x, y) = in(x, y) + 1;
    a(x, y) += 2;
    b(x, y) = in(x, y) * 2;
    b(x, y) += 3;
    out(x, y) = a(x, y) + b(x, y);
    a.compute_root();
    b.compute_root();
    a.compute_with(b.update(0), y);
    a.update(0).compute_with(b, y);
    const std::string message = loom_test::compile_error_of([&] { out.realize({8, 8}); });
    EXPECT_NE(message.find("a is computed with b.update(0), and the later a.update(0) with the "
                           "earlier b"),
              std::string::npos)
        << message;
}

TEST(ComputeWithErrors, AtTheDirective) {
    using namespace loom;
    Var x("x"), y("y");
    Func a("a"), b("b");
    a(x, y) = x + y;
    b(x, y) = x - y;
    auto thrown = [](auto f) { return loom_test::error_of(f); };
    EXPECT_NE(thrown([&] { b.compute_with(LoopLevel::root()); }).find("not root or inline"),
              std::string::npos);
    EXPECT_NE(thrown([&] { b.compute_with(b, y); }).find("names a loop of b itself"),
              std::string::npos);
    b.specialize(Param<bool>() == true);
    EXPECT_NE(thrown([&] { b.compute_with(a, y); }).find("must not be specialized"),
              std::string::npos);
    a.compute_with(b, y);
    EXPECT_NE(thrown([&] { a.specialize(Param<bool>() == true); }).find("must not be specialized"),
              std::string::npos);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// print_loop_nest, line for line against Halide 14's, for schedules whose loops all have names
// the user gave (Halide names the loops its directives make from a process-wide counter).

namespace {

std::string halide_loop_nest(Halide::Func f) {
    // Halide 14 writes it with its debug(0) stream, to the process's standard error: capture
    // file descriptor 2.
    std::fflush(stderr);
    char path[] = "/tmp/loom_loop_nest_XXXXXX";
    const int file = mkstemp(path);
    const int saved = dup(2);
    dup2(file, 2);
    f.print_loop_nest();
    std::cerr.flush();
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    close(file);
    std::remove(path);
    return text;
}

#define LOOP_NEST_CASE(...)                                                                        \
    {                                                                                              \
        Halide::Func hf = [&]() {                                                                  \
            using namespace Halide;                                                                \
            __VA_ARGS__                                                                            \
        }();                                                                                       \
        loom::Func lf = [&]() {                                                                    \
            using namespace loom;                                                                  \
            __VA_ARGS__                                                                            \
        }();                                                                                       \
        EXPECT_EQ(loom::Pipeline(lf).loop_nest(), halide_loop_nest(hf));                          \
    }

TEST(PrintLoopNest, SameLinesAsHalide) {
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM return out;)
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_at(out, y);
                   b.compute_at(out, y).store_root(); return out;)
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM out.tile(x, y, xo, yo, xi, yi, 16, 8).parallel(yo);
                   a.compute_at(out, xo).unroll(y); p.compute_root().split(x, xo, xi, 16);
                   return out;)
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root(); b.compute_root();
                   b.compute_with(a, y); return out;)
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM p.compute_root(); a.compute_root().split(x, xo, xi, 8);
                   b.compute_root().split(x, xo, xi, 8); b.compute_with(a, xo); return out;)
    LOOP_NEST_CASE(TWO_CONSUMERS RDom r(0, 3, "r"); out(x, y) = a(x, y) + b(x, y);
                   out(x, y) += p(x + r, y); out.update(0).unroll(r); a.compute_root();
                   return out;)
    // tile of any number of dimensions, and the GPU forms (the loops' kinds as Halide prints
    // them, without compiling for a GPU; Loom resolves Default_GPU to CUDA when the directive
    // is given, so these name CUDA).
    LOOP_NEST_CASE(TWO_CONSUMERS_ALGORITHM out.tile({x, y}, {xo, yo}, {xi, yi}, {16, 8});
                   p.compute_root().tile({x, y}, {xi, yi}, {4, 4}); return out;)
    LOOP_NEST_CASE(
        Var x("x"), y("y"), z("z"), bx("bx"), by("by"), bz("bz"), tx("tx"), ty("ty"), tz("tz");
        Func v("v"); v(x, y, z) = x + y * z;
        v.gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, 8, 4, 2, TailStrategy::Auto, DeviceAPI::CUDA);
        return v;)
    LOOP_NEST_CASE(Var x("x"), y("y"), z("z"), tx("tx"), ty("ty"), tz("tz"); Func v("v");
                   v(x, y, z) = x + y * z;
                   v.gpu_tile(x, y, z, tx, ty, tz, 8, 4, 2, TailStrategy::Auto, DeviceAPI::CUDA);
                   return v;)
    LOOP_NEST_CASE(Var x("x"), y("y"), tx("tx"); Func v("v"); v(x, y) = x - y;
                   v.gpu_tile(x, tx, 32, TailStrategy::Auto, DeviceAPI::CUDA); return v;)
    // gpu(bx, tx) is gpu_blocks(bx) and gpu_threads(tx) (Halide 14 prints its loops as
    // Default_GPU whatever API it is given, so it is compared with Loom's own directives).
    auto split_loops = [](bool with_gpu) {
        using namespace loom;
        Var x("x"), y("y"), xo("xo"), xi("xi");
        Func v("v");
        v(x, y) = x - y;
        v.split(x, xo, xi, 16);
        if (with_gpu) {
            v.gpu(xo, xi);
        } else {
            v.gpu_blocks(xo).gpu_threads(xi);
        }
        return Pipeline(v).loop_nest();
    };
    EXPECT_EQ(split_loops(true), split_loops(false));
    EXPECT_NE(split_loops(true).find("gpu_thread x.xi in [0, 15]<CUDA>"), std::string::npos);
}

}  // namespace

namespace {

TEST(ComputeWith, ScheduleSourceRecreatesIt) {
    using namespace loom;
    TWO_CONSUMERS_ALGORITHM
    p.compute_root();
    a.compute_root();
    b.compute_root();
    b.compute_with(a, y, LoopAlignStrategy::AlignEnd);
    const std::string source = Pipeline(out).schedule_source();
    EXPECT_NE(source.find("b.compute_with(a.at(y), LoopAlignStrategy::AlignEnd);"),
              std::string::npos)
        << source;
    Func c("c");
    c(x, y) = x * y;
    c.compute_root();
    Func both("both");
    both(x, y) = b(x, y) + c(x, y);
    c.compute_with(b, x, {{x, LoopAlignStrategy::AlignStart}});
    const std::string listed = Pipeline(both).schedule_source();
    EXPECT_NE(listed.find("c.compute_with(b.at(x), {{x, LoopAlignStrategy::AlignStart}});"),
              std::string::npos)
        << listed;
}

}  // namespace
