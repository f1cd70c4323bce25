// align_bounds, align_extent, align_storage and bound_storage against Halide 14: the same values
// whatever the alignment, the widened region where it can be seen (an output's buffer must cover
// it, in both systems), and the padded or bounded storage in Loom's lowered statement.

#include "CompileErrorOf.h"
#include "HalideScheduleDiff.h"

namespace {

TEST(AlignBounds, ValuesOfAProducerWithAlignedRegions) {
    for (int modulus : {2, 4, 8}) {
        for (int remainder : {0, 1, 3}) {
            SCOPED_TRACE(std::to_string(modulus) + " " + std::to_string(remainder));
            // (The input has margins for the widest region the alignments ask for.)
            expect_same_output<uint16_t>(
                SAME_PIPELINE(
                    Buffer<uint8_t> in =
                        random_buffer<Buffer<uint8_t>>({140, 110}, 1, 0, 255, {-30, -30}, "in");
                    Var x("x"), y("y"); Func g("g"), f("f");
                    g(x, y) = cast<uint16_t>(in(x, y)) * 3 + in(x + 1, y) - in(x, y + 1);
                    f(x, y) = g(x - 1, y) + g(x, y) * 2 + g(x + 1, y + 2);
                    g.compute_root().align_bounds(x, modulus, remainder).align_extent(y, modulus);
                    return f;),
                kOddRegions);
        }
    }
}

// The widened region reads the input where the unaligned one does not: an input with no margin
// for it is refused, by Halide and by Loom.
TEST(AlignBounds, TheWidenedRegionReadsTheInputThere) {
    auto pipeline = [](auto in, auto g, auto f, auto x, auto y, bool align) {
        g(x, y) = in(x, y) * 3;
        f(x, y) = g(x, y) + g(x + 1, y);
        g.compute_root();
        if (align) g.align_bounds(x, 8, 3);
    };
    for (bool align : {false, true}) {
        SCOPED_TRACE(align);
        Halide::Buffer<int> hin(21, 4);
        loom::Buffer<int> lin(21, 4);
        Halide::Func hg("g"), hf("f");
        Halide::Var hx("x"), hy("y");
        pipeline(hin, hg, hf, hx, hy, align);
        loom::Func lg("g"), lf("f");
        loom::Var lx("x"), ly("y");
        pipeline(lin, lg, lf, lx, ly, align);
        bool halide_ok = true;
        try {
            hf.realize({20, 4}, halide_target());
        } catch (const std::exception &) {
            halide_ok = false;
        }
        std::string loom_error;
        try {
            lf.realize({20, 4});
        } catch (const std::exception &e) {
            loom_error = e.what();
        }
        // g's region [0, 20] widens to [-5, 26].
        EXPECT_EQ(halide_ok, !align);
        EXPECT_EQ(loom_error.empty(), !align) << loom_error;
    }
}

TEST(AlignBounds, ProducerComputedPerRowWithUpdates) {
    expect_same_output<int32_t>(
        SAME_PIPELINE(Buffer<uint8_t> in =
                          random_buffer<Buffer<uint8_t>>({120, 90}, 4, 0, 255, {-20, -20}, "in");
                      Var x("x"), y("y"); Func g("g"), f("f"); g(x, y) = cast<int32_t>(in(x, y));
                      g(x, y) += in(x + 1, y) * 2; f(x, y) = g(x - 1, y) + g(x + 2, y + 1);
                      g.compute_at(f, y).align_bounds(x, 8, 5).align_bounds(y, 2); return f;),
        kOddRegions);
}

// An output's region is its buffer: widened, it runs past a buffer that is not aligned, which
// both systems refuse; an aligned buffer runs.
TEST(AlignBounds, AnOutputsBufferMustCoverTheAlignedRegion) {
    Halide::Func hf("f");
    Halide::Var hx("x");
    hf(hx) = hx * 3;
    hf.align_bounds(hx, 4, 1);
    loom::Func lf("f");
    loom::Var lx("x");
    lf(lx) = lx * 3;
    lf.align_bounds(lx, 4, 1);
    for (int mn : {1, 5, 2}) {
        for (int extent : {8, 6}) {
            SCOPED_TRACE(std::to_string(mn) + " " + std::to_string(extent));
            Halide::Buffer<int> hb(extent);
            hb.set_min(std::vector<int>{mn});
            loom::Buffer<int> lb(extent);
            lb.set_min({mn});
            bool halide_ok = true;
            try {
                hf.realize(hb, halide_target());
            } catch (const std::exception &) {
                halide_ok = false;
            }
            std::string loom_error;
            try {
                lf.realize(lb);
            } catch (const std::exception &e) {
                loom_error = e.what();
            }
            const bool aligned = (mn - 1) % 4 == 0 && extent % 4 == 0;
            EXPECT_EQ(halide_ok, aligned);
            EXPECT_EQ(loom_error.empty(), aligned) << loom_error;
            if (!aligned) {
                EXPECT_NE(loom_error.find("f"), std::string::npos) << loom_error;
            }
            if (aligned) {
                for (int i = mn; i < mn + extent; i++)
                    ASSERT_EQ(lb(i), hb(i));
            }
        }
    }
}

// f(x, y) = g(x, y) + g(x + 1, y) with g(x, y) = x + y, for schedules whose lowered storage
// is checked.
struct NeighbourSum {
    loom::Func g{"g"}, f{"f"};
    loom::Var x{"x"}, y{"y"};
    NeighbourSum() {
        g(x, y) = x + y;
        f(x, y) = g(x, y) + g(x + 1, y);
    }
};

TEST(AlignStorage, PadsTheStoredRowsAndKeepsTheValues) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM g.compute_root().align_storage(x, 16); return f;),
        kOddRegions);
    NeighbourSum p;
    p.g.compute_root().bound(p.x, 0, 11).align_storage(p.x, 16);
    p.f.bound(p.x, 0, 10);
    const std::string stmt = loom::Pipeline(p.f).lowered_stmt();
    // 11 columns of g stored in rows of 16.
    EXPECT_NE(stmt.find("allocate g[int32 * 16 *"), std::string::npos) << stmt;
}

// bound_storage: the storage of g's rows is 64 elements whatever region f asks for; the values
// are Halide's, the allocation is fixed, and a region wider than the bound stops the run with
// an error naming g.
TEST(BoundStorage, AFixedAllocationKeepsTheValuesAndRefusesALargerRegion) {
    expect_same_output<uint16_t>(
        SAME_PIPELINE(STENCIL_ALGORITHM g.compute_root().bound_storage(x, 64).bound_storage(y, 40);
                      return f;),
        kOddRegions);
    NeighbourSum p;
    p.g.compute_root().bound_storage(p.x, 16);
    const std::string stmt = loom::Pipeline(p.f).lowered_stmt();
    EXPECT_NE(stmt.find("allocate g[int32 * 16 *"), std::string::npos) << stmt;
    loom::Buffer<int> out = p.f.realize({15, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 15; i++)
            ASSERT_EQ(out(i, j), 2 * (i + j) + 1) << i << " " << j;
    try {
        p.f.realize({16, 3}); // g needs 17 columns
        FAIL() << "expected the bound to stop the run";
    } catch (const loom::RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("Func g needs more storage in dimension x than its "
                                             "bound_storage gives it"),
                  std::string::npos)
            << e.what();
    }
}

TEST(Alignment, MisusesAreRefusedByName) {
    using namespace loom;
    Func f("f");
    Var x("x"), y("y");
    f(x) = x;
    auto thrown = [](auto call) { return loom_test::error_of(call); };
    EXPECT_NE(thrown([&] { f.align_bounds(y, 4); }).find("y of Func f: it is not one of its pure"),
              std::string::npos);
    EXPECT_NE(thrown([&] { f.align_storage(x, 0); }).find("needs a positive alignment"),
              std::string::npos);
    EXPECT_NE(thrown([&] { f.align_extent(x, 2.5f); }).find("needs integer arguments"),
              std::string::npos);
    EXPECT_NE(thrown([&] { f.bound_storage(x, 0); }).find("needs a positive bound, not 0"),
              std::string::npos);
    EXPECT_NE(thrown([&] { f.bound_storage(y, 8); }).find("y of Func f: it is not one of its pure"),
              std::string::npos);
}

} // namespace
