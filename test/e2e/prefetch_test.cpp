// Func::prefetch (lower/InjectPrefetches): a prefetch of an image's next rows changes no value,
// sits at the loop it names with the region of the later iteration, one per cache line, and
// becomes llvm.prefetch; a region partly outside the image is skipped, clamped or fetched as
// the strategy says.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::HasSubstr;
using ::testing::Not;

const Target avx512("x86-64-linux-avx512-avx512_skylake");

float value_at(int x, int y) { return float((x * 7 + y * 13) % 1000) * 0.25f - 100.0f; }

struct RowPipeline {
    ImageParam in{Float(32), 2, "in"};
    Func f{"f"};
    Var x{"x"}, y{"y"};
    RowPipeline() {
        // Three rows of the input per output row, so the box has an outer dimension.
        f(x, y) = in(x, y - 1) + in(x, y) * 2.0f + in(x, y + 1);
        f.parallel(y).vectorize(x, 16);
    }
};

Buffer<float> image(int w, int h) {
    Buffer<float> b({w, h}, "in");
    for (int y = 0; y < h; y++)
        for (int x = 0; x < w; x++)
            b(x, y) = value_at(x, y);
    return b;
}

/** Runs f on a w x h image bound to `in`, for rows 1 .. h - 2, and checks every output against
 * expected(x, y). */
template <typename Expected>
void expect_output(const Func &f, ImageParam &in, int w, int h, Expected expected) {
    Buffer<float> input = image(w, h);
    in.set(input);
    Buffer<float> out({w, h - 2}, "out");
    out.set_min({0, 1});
    Pipeline(f).realize(RealizationArg(std::vector<Buffer<>>{out}));
    for (int y = 1; y < h - 1; y++) {
        for (int x = 0; x < w; x++) {
            ASSERT_EQ(out(x, y), expected(x, y)) << "at (" << x << ", " << y << ")";
        }
    }
}

/** Runs p on a w x h image and checks every output row against the sum it computes. */
void expect_rows_blurred(RowPipeline &p, int w, int h) {
    expect_output(p.f, p.in, w, h, [](int x, int y) {
        return value_at(x, y - 1) + value_at(x, y) * 2.0f + value_at(x, y + 1);
    });
}

/** Expects `step` to throw a CompileError whose message holds each of `says`. */
template <typename Step>
void expect_error(Step step, const std::string &what, std::initializer_list<const char *> says) {
    std::string error;
    try {
        step();
    } catch (const CompileError &e) {
        error = e.what();
    }
    EXPECT_FALSE(error.empty()) << what << " was accepted";
    for (const char *part : says)
        EXPECT_THAT(error, HasSubstr(part));
}

TEST(Prefetch, TheNextRowsAreFetchedLineByLineAndNoValueChanges) {
    for (auto strategy : {PrefetchBoundStrategy::GuardWithIf, PrefetchBoundStrategy::Clamp,
                          PrefetchBoundStrategy::NonFaulting}) {
        RowPipeline p;
        p.f.prefetch(p.in, p.x, p.y, 2, strategy);
        expect_rows_blurred(p, 256, 40);
    }
}

TEST(Prefetch, TheRegionIsTheLaterIterationsAtTheLoopNamed) {
    RowPipeline p;
    p.f.prefetch(p.in, p.x, p.y, 2);
    std::string stmt = Pipeline(p.f).lowered_stmt(avx512);
    // At f's vector loop over x: rows y + 1 .. y + 3 (y - 1 .. y + 1 two rows on), the loop's
    // 16 floats, one 64-byte line (its loop of one iteration simplified away), the three rows
    // one prefetch each (a loop of three is unrolled); guarded to stay inside the image.
    for (const char *row : {"+ 1)*in.stride.1)", "+ 2)*in.stride.1)", "+ 3)*in.stride.1)"}) {
        EXPECT_THAT(stmt,
                    HasSubstr("prefetch(in[(((f.min.0 + (((f.s0.y - in.min.1) " + std::string(row)))
            << stmt;
    }
    EXPECT_THAT(stmt, Not(HasSubstr("in.prefetch.line"))) << stmt;
    EXPECT_THAT(stmt, HasSubstr("<= ((in.extent.1 + in.min.1) - 1)")) << stmt;
    std::string ir = Pipeline(p.f).llvm_ir(avx512);
    EXPECT_THAT(ir, HasSubstr("@llvm.prefetch")) << ir;
}

TEST(Prefetch, NonFaultingHasNoGuardAndClampKeepsTheBoxInside) {
    RowPipeline a, b;
    a.f.prefetch(a.in, a.x, a.y, 2, PrefetchBoundStrategy::NonFaulting);
    b.f.prefetch(b.in, b.x, b.y, 2, PrefetchBoundStrategy::Clamp);
    std::string non_faulting = Pipeline(a.f).lowered_stmt(avx512);
    std::string clamped = Pipeline(b.f).lowered_stmt(avx512);
    // Three rows, unguarded, one prefetch each; clamped, a loop over the rows inside.
    EXPECT_THAT(non_faulting, HasSubstr("(f.s0.y - in.min.1) + 3)*in.stride.1)")) << non_faulting;
    // Nothing in the production is guarded (the bounds query's branch is outside it).
    EXPECT_THAT(non_faulting.substr(non_faulting.find("produce f {")), Not(HasSubstr("if (")))
        << non_faulting;
    EXPECT_THAT(clamped, HasSubstr("for (in.prefetch.1, max((f.s0.y + 1), in.min.1)")) << clamped;
}

TEST(Prefetch, ABoxOfAFewLinesIsPrefetchedWithoutALoop) {
    // The taps x - 1 .. x + 1 of a 16-float vector: 18 floats, two lines a vector, prefetched by
    // two statements (a loop of two steps per vector was a branch more, twice).
    ImageParam in(Float(32), 2, "in");
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = in(x - 1, y) + in(x + 1, y);
    f.vectorize(x, 16).prefetch(in, x, y, 1, PrefetchBoundStrategy::NonFaulting);
    std::string stmt = Pipeline(f).lowered_stmt(avx512);
    EXPECT_THAT(stmt, Not(HasSubstr("in.prefetch.line"))) << stmt;
    size_t prefetches = 0;
    for (size_t at = stmt.find("prefetch(in["); at != std::string::npos;
         at = stmt.find("prefetch(in[", at + 1))
        prefetches++;
    EXPECT_EQ(prefetches, 2u) << stmt;
    Buffer<float> input = image(70, 5);
    in.set(input);
    Buffer<float> out({68, 5}, "out");
    out.set_min({1, 0});
    Pipeline(f).realize(RealizationArg(std::vector<Buffer<>>{out}));
    for (int yy = 0; yy < 5; yy++) {
        for (int xx = 1; xx < 69; xx++) {
            ASSERT_EQ(out(xx, yy), value_at(xx - 1, yy) + value_at(xx + 1, yy))
                << "at (" << xx << ", " << yy << ")";
        }
    }
}

TEST(Prefetch, ANearbyRowOfALongRowIsManyLines) {
    // at = y: the whole row two rows on, 1024 floats = 64 lines, in each of its 3 rows.
    RowPipeline p;
    p.f.prefetch(p.in, p.y, p.y, 2);
    std::string stmt = Pipeline(p.f).lowered_stmt(avx512);
    EXPECT_THAT(stmt, HasSubstr("in.prefetch.line")) << stmt;
    expect_rows_blurred(p, 1024, 12);
}

TEST(Prefetch, TheScheduleSourceSaysIt) {
    RowPipeline p;
    p.f.prefetch(p.in, p.x, p.y, 2, PrefetchBoundStrategy::Clamp);
    std::string source = Pipeline(p.f).schedule_source();
    EXPECT_THAT(source, HasSubstr(".prefetch(in, x, y, 2, PrefetchBoundStrategy::Clamp);"))
        << source;
}

// A Func computed into a buffer: g = 3 * in at root, f sums g's rows y - 1 and y + 1.
struct FuncPipeline {
    ImageParam in{Float(32), 2, "in"};
    Func g{"g"}, f{"f"};
    Var x{"x"}, y{"y"};
    FuncPipeline() {
        g(x, y) = in(x, y) * 3.0f;
        f(x, y) = g(x, y - 1) + g(x, y + 1);
        g.compute_root().parallel(y).vectorize(x, 16);
        f.parallel(y).vectorize(x, 16);
    }
};

TEST(Prefetch, AFuncsBufferIsFetchedInItsCoordinatesAndNoValueChanges) {
    for (auto strategy : {PrefetchBoundStrategy::GuardWithIf, PrefetchBoundStrategy::Clamp,
                          PrefetchBoundStrategy::NonFaulting}) {
        FuncPipeline p;
        p.f.prefetch(p.g, p.x, p.y, 2, strategy);
        std::string stmt = Pipeline(p.f).lowered_stmt(avx512);
        // Rows y + 1 .. y + 3 of g, from g's own allocation.
        EXPECT_THAT(stmt, HasSubstr("prefetch(g[")) << stmt;
        expect_output(p.f, p.in, 96, 30, [](int x, int y) {
            return value_at(x, y - 1) * 3.0f + value_at(x, y + 1) * 3.0f;
        });
    }
    // g is realized over rows f.min.1 - 1 .. f.min.1 + f.extent.1: GuardWithIf tests the box
    // against them, Clamp shrinks it to them, NonFaulting takes it as it is.
    FuncPipeline guarded, clamped, non_faulting;
    guarded.f.prefetch(guarded.g, guarded.x, guarded.y, 2);
    clamped.f.prefetch(clamped.g, clamped.x, clamped.y, 2, PrefetchBoundStrategy::Clamp);
    non_faulting.f.prefetch(non_faulting.g, non_faulting.x, non_faulting.y, 2,
                            PrefetchBoundStrategy::NonFaulting);
    std::string guarded_stmt = Pipeline(guarded.f).lowered_stmt(avx512);
    EXPECT_THAT(guarded_stmt, HasSubstr("((f.s0.y + 1) >= (f.min.1 - 1))")) << guarded_stmt;
    EXPECT_THAT(guarded_stmt, HasSubstr("((f.s0.y + 3) <= (f.extent.1 + f.min.1))"))
        << guarded_stmt;
    std::string clamped_stmt = Pipeline(clamped.f).lowered_stmt(avx512);
    EXPECT_THAT(clamped_stmt, HasSubstr("for (g.prefetch.1, max((f.s0.y + 1), (f.min.1 - 1))"))
        << clamped_stmt;
    std::string non_faulting_stmt = Pipeline(non_faulting.f).lowered_stmt(avx512);
    // Rows y + 1 .. y + 3 of g's buffer (which starts at row f.min.1 - 1), one prefetch each.
    for (const char *row : {"+ 2)*g.extent.0)", "+ 3)*g.extent.0)", "+ 4)*g.extent.0)"}) {
        EXPECT_THAT(non_faulting_stmt,
                    HasSubstr("prefetch(g[(((f.min.0 + (((f.s0.y - f.min.1) " + std::string(row)))
            << non_faulting_stmt;
    }
    EXPECT_THAT(non_faulting_stmt, Not(HasSubstr("g.prefetch.1"))) << non_faulting_stmt;
    EXPECT_THAT(Pipeline(clamped.f).schedule_source(),
                HasSubstr(".prefetch(g, x, y, 2, PrefetchBoundStrategy::Clamp);"));
}

TEST(Prefetch, AFuncWithoutABufferOutsideTheLoopIsAnError) {
    FuncPipeline inlined;
    inlined.g.compute_inline();
    inlined.f.prefetch(inlined.g, inlined.x, inlined.y, 1);
    expect_error([&] { Pipeline(inlined.f).lowered_stmt(avx512); }, "a prefetch of an inlined Func",
                 {"g is computed inline"});
    FuncPipeline inside;
    inside.g.compute_at(inside.f, inside.x);
    inside.f.prefetch(inside.g, inside.y, inside.y, 1);
    expect_error([&] { Pipeline(inside.f).lowered_stmt(avx512); },
                 "a prefetch of a Func computed inside the loop",
                 {"g is not computed into a buffer outside"});
    FuncPipeline self;
    expect_error([&] { self.f.prefetch(self.f, self.x, self.y, 1); }, "a Func prefetching itself",
                 {"can't prefetch its own buffer"});
}

TEST(Prefetch, MistakesNameTheLoopsAndSayWhatToDo) {
    RowPipeline p;
    expect_error([&] { p.f.prefetch(p.in, p.y, p.x, 1); }, "from inside at",
                 {"('from') must be 'at' or a loop outside it", "in"});
    Var z("z");
    expect_error([&] { p.f.prefetch(p.in, z, p.y, 1); }, "a loop the stage lacks",
                 {"z is not a loop of this stage"});
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y"), xo("xo"), xi("xi");
    Func v("v");
    v(x, y) = in(x, y) * 2.0f;
    v.split(x, xo, xi, 16).vectorize(xi).prefetch(in, xi, y, 1);
    expect_error([&] { Pipeline(v).lowered_stmt(avx512); }, "a prefetch at a vectorized loop",
                 {"is vectorized"});
    // A loop inside a vector loop: its prefetch would make the lanes scalar code.
    Func g("g");
    g(x, y) = in(x, y) * 2.0f;
    g.split(x, xo, xi, 16).reorder(y, xi, xo).vectorize(xi);
    g.prefetch(in, y, xo, 1);
    expect_error([&] { Pipeline(g).lowered_stmt(avx512); }, "a prefetch inside a vectorized loop",
                 {"inside the vectorized loop", "xi"});
    // A reorder after the prefetch puts 'from' inside 'at': caught where the names resolve.
    Func h("h");
    h(x, y) = in(x, y) * 2.0f;
    h.split(x, xo, xi, 16).vectorize(xi).prefetch(in, xo, y, 1).reorder(xi, y, xo);
    expect_error([&] { Pipeline(h).lowered_stmt(avx512); }, "from inside at after a reorder",
                 {"loop y is inside loop x.xo", "a reorder after the prefetch"});
}

} // namespace
