// Func::in (Halide 14's wrappers): which calls each wrapper takes over, wrappers scheduled like
// any Func, and the values unchanged by all of it (checked against C++).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include <loom.h>

#include "StmtText.h"

namespace {

using namespace loom;
using namespace loom_test;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr int W = 37, H = 19;

int f_value(int x, int y) { return x + 2 * y; }

/** out = g + h, both reading f; f is stored (compute_root) so that every read is a load. */
struct Diamond {
    Var x{"x"}, y{"y"};
    Func f{"f"}, g{"g"}, h{"h"}, out{"out"};
    Diamond() {
        f(x, y) = x + 2 * y;
        g(x, y) = f(x, y) + f(x + 1, y);
        h(x, y) = f(x, y) * 3;
        out(x, y) = g(x, y) + h(x, y);
        f.compute_root();
        g.compute_root();
        h.compute_root();
    }
    static void expect_values(const Buffer<int32_t> &b) {
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                const int want = f_value(x, y) + f_value(x + 1, y) + f_value(x, y) * 3;
                ASSERT_EQ(b(x, y), want) << x << ", " << y;
            }
        }
    }
};

/** Whether the produce block of `func` loads `name` (as `name[`). */
bool reads(const std::string &stmt, const std::string &func, const std::string &name) {
    return block(stmt, "produce " + func + " {").find(" " + name + "[") != std::string::npos ||
           block(stmt, "produce " + func + " {").find("(" + name + "[") != std::string::npos;
}

TEST(Wrappers, InAConsumerTakesOverOnlyItsCalls) {
    Diamond d;
    Func w = d.f.in(d.g);
    EXPECT_EQ(w.name(), "f_in_g");
    w.compute_root();
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "g", "f_in_g")) << stmt;
    EXPECT_FALSE(reads(stmt, "g", "f")) << stmt;
    EXPECT_TRUE(reads(stmt, "h", "f")) << stmt;
    EXPECT_TRUE(reads(stmt, "f_in_g", "f")) << stmt;
    // Asked again, the same wrapper.
    EXPECT_EQ(d.f.in(d.g).name(), "f_in_g");
}

TEST(Wrappers, TheGlobalWrapperTakesEveryOtherCallerAfterTheirOwn) {
    Diamond d;
    Func global = d.f.in();
    Func for_h = d.f.in(d.h);
    EXPECT_EQ(global.name(), "f_global_wrapper");
    global.compute_root();
    for_h.compute_root();
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "g", "f_global_wrapper")) << stmt;
    EXPECT_TRUE(reads(stmt, "h", "f_in_h")) << stmt;
    EXPECT_TRUE(reads(stmt, "f_global_wrapper", "f")) << stmt;
    EXPECT_TRUE(reads(stmt, "f_in_h", "f")) << stmt;
    EXPECT_EQ(d.f.in().name(), "f_global_wrapper");
}

TEST(Wrappers, OneWrapperForAListOfConsumers) {
    Diamond d;
    Func shared = d.f.in({d.g, d.h});
    shared.compute_root();
    EXPECT_EQ(d.f.in(d.g).name(), shared.name());
    EXPECT_EQ(d.f.in(d.h).name(), shared.name());
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "g", shared.name())) << stmt;
    EXPECT_TRUE(reads(stmt, "h", shared.name())) << stmt;
    EXPECT_EQ(occurrences(stmt, "produce " + shared.name() + " {"), 1) << stmt;
}

// The use wrappers are for: a tile's input copied into a buffer of the tile's own, computed
// per tile; f itself stays computed once, at root.
TEST(Wrappers, ATilesInputStagedInALocalBuffer) {
    Diamond d;
    Var xo("xo"), yo("yo"), xi("xi"), yi("yi");
    d.g.compute_root().tile(d.x, d.y, xo, yo, xi, yi, 8, 4).vectorize(xi, 4);
    d.f.in(d.g).compute_at(d.g, xo).vectorize(d.x, 4);
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    std::vector<std::string> loops = loops_around(stmt, "produce f_in_g {");
    ASSERT_FALSE(loops.empty()) << stmt;
    EXPECT_THAT(loops.back(), HasSubstr("xo")) << stmt;
    EXPECT_EQ(occurrences(stmt, "produce f {"), 1) << stmt;
}

TEST(Wrappers, TupleValuedAndUpdatedFuncsAreCopiedWhole) {
    Var x("x");
    RDom r(0, 3, "r");
    Func f("tf"), g("tg");
    f(x) = Tuple(x, x * 10);
    f(x) = Tuple(f(x)[0] + r, f(x)[1] - r);
    g(x) = f(x)[0] * 100 + f(x)[1];
    f.compute_root();
    Func w = f.in(g);
    w.compute_at(g, x);
    Buffer<int32_t> out = g.realize({20});
    for (int i = 0; i < 20; i++)
        EXPECT_EQ(out(i), (i + 3) * 100 + (i * 10 - 3)) << i;
    EXPECT_TRUE(reads(Pipeline(g).lowered_stmt(), "tg", "tf_in_tg.0"));
}

// A clone computes the values again for its consumer, under its own schedule: f stays at root
// for h, the clone is computed per row of g.
TEST(Wrappers, AClonedFuncComputesItsOwnCopyForItsConsumer) {
    Diamond d;
    Func clone = d.f.clone_in(d.g);
    EXPECT_EQ(clone.name(), "f_clone_in_g");
    clone.compute_at(d.g, d.y);
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "g", "f_clone_in_g")) << stmt;
    EXPECT_TRUE(reads(stmt, "h", "f")) << stmt;
    EXPECT_FALSE(reads(stmt, "f_clone_in_g", "f")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce f_clone_in_g {").back(), HasSubstr("g.s0.y")) << stmt;
    EXPECT_EQ(d.f.clone_in(d.g).name(), "f_clone_in_g");
}

TEST(Wrappers, AClonedUpdateReadsTheCloneItself) {
    Var x("x");
    RDom r(1, 9, "scan");
    Func f("scanned"), g("reads_scan"), h("reads_original"), out("both");
    f(x) = x;
    f(r) = f(r - 1) + f(r);
    g(x) = f(x) * 2;
    h(x) = f(x) + 1;
    out(x) = g(x) + h(x);
    f.compute_root();
    f.clone_in(g).compute_root();
    Buffer<int32_t> b = out.realize({10});
    int prefix = 0;
    for (int i = 0; i < 10; i++) {
        prefix += i;
        EXPECT_EQ(b(i), prefix * 2 + prefix + 1) << i;
    }
    const std::string stmt = Pipeline(out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "scanned_clone_in_reads_scan", "scanned_clone_in_reads_scan")) << stmt;
    EXPECT_FALSE(reads(stmt, "scanned_clone_in_reads_scan", "scanned")) << stmt;
}

// The wrapped Func lives as long as its consumers, though only the wrapper reads it.
TEST(Wrappers, TheWrappedFuncOutlivesItsHandles) {
    Func out("kept_out");
    {
        Var x("x");
        Func f("kept_f"), g("kept_g");
        f(x) = x * 7;
        g(x) = f(x) + 1;
        out(x) = g(x) * 2;
        f.compute_root();
        g.compute_root();
        f.in(g).compute_root();
        out.realize({4}); // collected here: g now reads kept_f through the wrapper
    }
    Buffer<int32_t> b = out.realize({16});
    for (int i = 0; i < 16; i++)
        EXPECT_EQ(b(i), (i * 7 + 1) * 2) << i;
}

// One clone shared by two consumers (Halide's clone_in({g, h})): f itself is no longer read.
TEST(Wrappers, OneCloneForAListOfConsumers) {
    Diamond d;
    Func clone = d.f.clone_in({d.g, d.h});
    clone.compute_root();
    EXPECT_EQ(d.f.clone_in(d.h).name(), clone.name());
    Diamond::expect_values(d.out.realize({W, H}));
    const std::string stmt = Pipeline(d.out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "g", clone.name())) << stmt;
    EXPECT_TRUE(reads(stmt, "h", clone.name())) << stmt;
    EXPECT_EQ(occurrences(stmt, "produce f {"), 0) << stmt;
}

// ImageParam::in: the image's reads in blur go through a wrapper computed per tile; the values
// are the image's.
TEST(Wrappers, AnImageParamsWrapperStagesATileOfTheInput) {
    ImageParam img(Int(32), 2, "img");
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func blur("blur"), other("other"), out("img_out");
    blur(x, y) = img(x, y) + img(x + 1, y) + img(x, y + 1);
    other(x, y) = img(x, y) * 2;
    out(x, y) = blur(x, y) - other(x, y);
    blur.compute_root().tile(x, y, xo, yo, xi, yi, 8, 8);
    other.compute_root();
    Func staged = img.in(blur);
    EXPECT_EQ(staged.name(), "img_im_in_blur");
    staged.compute_at(blur, xo).vectorize(_0, 4);
    Buffer<int32_t> input(W + 1, H + 1);
    for (int j = 0; j <= H; j++)
        for (int i = 0; i <= W; i++)
            input(i, j) = i * 31 + j * j;
    img.set(input);
    Buffer<int32_t> b = out.realize({W, H});
    for (int j = 0; j < H; j++) {
        for (int i = 0; i < W; i++) {
            const int want = input(i, j) + input(i + 1, j) + input(i, j + 1) - input(i, j) * 2;
            ASSERT_EQ(b(i, j), want) << i << ", " << j;
        }
    }
    const std::string stmt = Pipeline(out).lowered_stmt();
    EXPECT_TRUE(reads(stmt, "blur", "img_im_in_blur")) << stmt;
    // blur's own stores read the staged tile only; the wrapper reads the image.
    EXPECT_THAT(block(stmt, "consume img_im_in_blur {"), Not(HasSubstr(" img["))) << stmt;
    EXPECT_TRUE(reads(stmt, "img_im_in_blur", "img")) << stmt;
    EXPECT_TRUE(reads(stmt, "other", "img")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce img_im_in_blur {").back(), HasSubstr("xo")) << stmt;
    // Asking again gives the same wrapper; the global one takes every other caller.
    EXPECT_EQ(img.in(blur).name(), "img_im_in_blur");
    img.in().compute_root();
    Buffer<int32_t> again = out.realize({W, H});
    EXPECT_EQ(again(3, 4), b(3, 4));
    const std::string with_global = Pipeline(out).lowered_stmt();
    EXPECT_TRUE(reads(with_global, "other", "img_im_global_wrapper")) << with_global;
    EXPECT_TRUE(reads(with_global, "blur", "img_im_in_blur")) << with_global;
}

TEST(Wrappers, MisusesAreNamed) {
    Diamond d;
    try {
        d.f.in(d.f);
        FAIL() << "f.in(f) was accepted";
    } catch (const std::exception &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("Func f can't wrap its own calls"))
            << e.what();
    }
    EXPECT_THROW(d.f.in(std::vector<Func>{}), std::exception);
    Func for_g = d.f.in(d.g);
    try {
        d.f.in({d.h, d.out}).name();
        d.f.in({d.g, d.h});
        FAIL() << "consumers with different wrappers were wrapped together";
    } catch (const std::exception &e) {
        EXPECT_THAT(std::string(e.what()), HasSubstr("different wrappers")) << e.what();
    }
    Func undefined("undefined");
    EXPECT_THROW(undefined.in(), std::exception);
}

} // namespace

namespace {

// Func(Buffer) (Halide's): a Func reading the buffer at its own coordinates (_0, _1), whose
// wrapper in blur stages a tile of the buffer; the values are the buffer's.
TEST(Wrappers, AFuncOfABufferIsWrappedLikeAnyFunc) {
    Buffer<int32_t> input(W + 1, H + 1, "input");
    for (int j = 0; j <= H; j++)
        for (int i = 0; i <= W; i++)
            input(i, j) = i * 17 - j * 5;
    Func in(input);
    EXPECT_EQ(in.dimensions(), 2);
    Var x("x"), y("y"), xo("xo"), yo("yo"), xi("xi"), yi("yi");
    Func blur("blur");
    blur(x, y) = in(x, y) + in(x + 1, y + 1);
    blur.tile(x, y, xo, yo, xi, yi, 8, 8);
    Func staged = in.in(blur);
    staged.compute_at(blur, xo).vectorize(_0, 4);
    Buffer<int32_t> b = blur.realize({W, H});
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            ASSERT_EQ(b(i, j), input(i, j) + input(i + 1, j + 1)) << i;
    const std::string stmt = Pipeline(blur).lowered_stmt();
    EXPECT_TRUE(reads(stmt, staged.name(), "input")) << stmt;
    EXPECT_THAT(loops_around(stmt, "produce " + staged.name() + " {").back(), HasSubstr("xo"))
        << stmt;
}

} // namespace
