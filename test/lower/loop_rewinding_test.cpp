// Loop rewinding (lower/RewindLoop.h): random chains of stencils, each Func stored outside
// the loop it is computed in, over random windows, splits and loop kinds of the consumer; the
// outputs must equal C++'s whether or not a loop is rewound, and enough of the schedules must
// rewind one for the test to mean something (the schedule-invariance fuzzer's pipelines rarely
// slide over a loop that can start early).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include <loom.h>

#include "lower/PrintLoopNest.h"

namespace {

using namespace loom;

// Each stage reads at most 3 rows and 1 column away: three stages, 9 at most.
constexpr int kW = 23, kH = 19, kMargin = 12;

// A stage's taps: offsets (dx, dy) and weights.
struct Tap {
    int dx, dy, weight;
};

std::vector<Tap> random_taps(std::mt19937 &rng) {
    std::uniform_int_distribution<int> count(1, 3), dx(-1, 1), dy(-1, 1), weight(1, 4);
    std::vector<Tap> taps;
    for (int n = count(rng); n > 0; n--)
        taps.push_back({dx(rng), dy(rng), weight(rng)});
    // Always a second row, so that iterations over rows overlap.
    taps.push_back({0, taps[0].dy + 1 + (int)(rng() % 2), 1});
    return taps;
}

// A plane of values over [-kMargin, kW + kMargin) x [-kMargin, kH + kMargin).
struct Plane {
    std::vector<int> v = std::vector<int>((kW + 2 * kMargin) * (kH + 2 * kMargin), 0);
    int &at(int x, int y) { return v[(y + kMargin) * (kW + 2 * kMargin) + x + kMargin]; }
};

Plane apply(Plane &in, const std::vector<Tap> &taps, int shrink) {
    Plane out;
    for (int y = -kMargin + shrink; y < kH + kMargin - shrink; y++) {
        for (int x = -kMargin + shrink; x < kW + kMargin - shrink; x++) {
            int sum = 0;
            for (const Tap &t : taps)
                sum += in.at(x + t.dx, y + t.dy) * t.weight;
            out.at(x, y) = sum;
        }
    }
    return out;
}

Expr stencil(const Func &f, const Var &x, const Var &y, const std::vector<Tap> &taps) {
    Expr sum = 0;
    for (const Tap &t : taps)
        sum = sum + f(x + t.dx, y + t.dy) * t.weight;
    return sum;
}

TEST(LoopRewinding, RandomStencilChainsGiveCsValues) {
    int rewound = 0;
    for (int seed = 0; seed < 60; seed++) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        std::mt19937 rng(seed);
        const std::vector<Tap> taps1 = random_taps(rng), taps2 = random_taps(rng),
                               taps3 = random_taps(rng);
        Plane in;
        for (int y = -kMargin; y < kH + kMargin; y++) {
            for (int x = -kMargin; x < kW + kMargin; x++)
                in.at(x, y) = (x * 7 + y * 13) % 29 - 11;
        }
        Plane p1 = apply(in, taps1, 3), p2 = apply(p1, taps2, 6), p3 = apply(p2, taps3, 9);

        Buffer<int> input(kW + 2 * kMargin, kH + 2 * kMargin);
        input.set_min({-kMargin, -kMargin});
        for (int y = -kMargin; y < kH + kMargin; y++) {
            for (int x = -kMargin; x < kW + kMargin; x++)
                input(x, y) = in.at(x, y);
        }
        Var x("x"), y("y"), yo("yo"), yi("yi");
        Func source("source"), f1("f1"), f2("f2"), out("out");
        source(x, y) = input(x, y);
        f1(x, y) = stencil(source, x, y, taps1);
        f2(x, y) = stencil(f1, x, y, taps2);
        out(x, y) = stencil(f2, x, y, taps3);
        // The consumer's row loop: y, or the inner loop of a split (its strips parallel or
        // not); its columns vectorized or not.
        const int split = (int)(rng() % 3);
        const Var row = split > 0 ? yi : y;
        if (split > 0) {
            out.split(y, yo, yi, 4);
            if (split == 2) out.parallel(yo);
        }
        if (rng() % 2) out.vectorize(x, 4);
        // f2 reads f1: where f2 is computed per row, so is f1 (not per pixel).
        bool f2_per_row = false;
        for (Func *f : {&f2, &f1}) {
            int kind = (int)(rng() % 4);
            if (f == &f1 && f2_per_row && kind == 3) kind = 2;
            if (f == &f2) f2_per_row = kind == 1 || kind == 2;
            switch (kind) {
            case 0:
                break; // inlined
            case 1:
                f->compute_at(out, row);
                break;
            case 2: // stored per strip (or at the root), computed per row or per pixel
            case 3:
                if (split > 0)
                    f->store_at(out, yo);
                else
                    f->store_root();
                f->compute_at(out, kind == 2 ? row : x);
                break;
            }
        }
        const std::string nest = Internal::print_loop_nest({out.function()});
        rewound += nest.find(".:") != std::string::npos || nest.find(". in [") != std::string::npos;
        Buffer<int> result = out.realize({kW, kH});
        int wrong = 0;
        for (int yy = 0; yy < kH; yy++) {
            for (int xx = 0; xx < kW; xx++)
                wrong += result(xx, yy) != p3.at(xx, yy);
        }
        EXPECT_EQ(wrong, 0) << nest;
    }
    EXPECT_GE(rewound, 25); // 36 of the 60 when written
}

} // namespace
