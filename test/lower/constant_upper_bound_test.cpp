// Unit tests of constant_upper_bound (lower/BoundGPUExtents), which sizes a GPU kernel's
// blocks and shared storage: every bound found is checked against the expression's values over
// a grid of its variables (a bound some value exceeds fails), and where the tile gives an exact
// bound, that bound is expected.
#include <gtest/gtest.h>

#include <loom.h>

#include "dsl/IROperator.h"
#include "dsl/Substitute.h"
#include "lower/BoundGPUExtents.h"
#include "lower/Simplify.h"

using namespace loom;
using namespace loom::Internal;

namespace {

Expr bx() { return Variable::make(Int(32), "bx"); }
Expr w() { return Variable::make(Int(32), "w"); }
Expr lo() { return Variable::make(Int(32), "lo"); }

// The largest value of e over bx in [0, 40), w in [1, 300), lo in {-7, 0, 13}, with `lets`.
int64_t largest_value(const Expr &e, const std::map<std::string, Expr> &lets) {
    Expr whole = e;
    for (int i = 0; i < 8; i++)
        whole = substitute(lets, whole);
    int64_t largest = INT64_MIN;
    for (int b = 0; b < 40; b++) {
        for (int width = 1; width < 300; width += 7) {
            for (int low : {-7, 0, 13}) {
                Expr v = simplify(
                    substitute({{"bx", Expr(b)}, {"w", Expr(width)}, {"lo", Expr(low)}}, whole));
                const int64_t *c = as_const_int(v);
                EXPECT_NE(c, nullptr) << "does not fold: " << v;
                if (c) largest = std::max(largest, *c);
            }
        }
    }
    return largest;
}

void expect_bound(const Expr &e, int64_t expected, const std::map<std::string, Expr> &lets = {}) {
    std::optional<int64_t> bound = constant_upper_bound(e, lets);
    ASSERT_TRUE(bound.has_value()) << "no bound for " << e;
    EXPECT_GE(*bound, largest_value(e, lets)) << e;
    EXPECT_EQ(*bound, expected) << e;
}

TEST(ConstantUpperBound, GuardWithIfTileClampedToTheImage) {
    // A 32-wide tile's last column, clamped to the image's: at most 32 points, fewer at the edge.
    Expr start = lo() + bx() * 32;
    expect_bound(min(start + 31, lo() + w() - 1) - start + 1, 32);
    // A stencil's producer needs two more.
    expect_bound(min(start + 31, lo() + w() - 1) + 2 - start + 1, 34);
}

TEST(ConstantUpperBound, ThroughLets) {
    std::map<std::string, Expr> lets = {
        {"g.max", min(lo() + bx() * 16 + 15, w() - 1) + 1},
        {"g.min", lo() + bx() * 16 - 1},
    };
    expect_bound(Variable::make(Int(32), "g.max") - Variable::make(Int(32), "g.min") + 1, 18, lets);
}

TEST(ConstantUpperBound, MaxInTheSubtrahendAndAQuotient) {
    // The tile's start clamped from below: a max subtracted is bounded below by either operand.
    Expr end = bx() * 8 + 7;
    expect_bound(end - max(bx() * 8, lo()) + 1, 8);
    expect_bound((min(bx() * 64 + 63, w()) - bx() * 64) / 2, 31);
}

TEST(ConstantUpperBound, RemainderAndTheLoopsRange) {
    // An upsampled row's producer rows: [min(a, b), max(a, b)] with a = y / 2 + (y % 2) * 2 - 1
    // and b = y / 2 (2 rows, bounded by 3 through the quotients' rounding).
    Expr y = bx();
    Expr a = y / 2 + (y % 2) * 2 - 1, b = y / 2;
    expect_bound(max(a, b) - min(a, b) + 1, 3);
    // What is left of a clamped tile's end, bounded by the tile loop's last iteration:
    // bx * 16 + 15 - w is at most 15 - w + 16 * ((w + 15) / 16 - 1) <= 14.
    std::map<std::string, Range> loops = {{"bx", Range(0, (w() + 15) / 16)}};
    std::optional<int64_t> bound = constant_upper_bound(bx() * 16 + 15 - w(), {}, loops);
    ASSERT_TRUE(bound.has_value());
    EXPECT_EQ(*bound, 14);
}

TEST(ConstantUpperBound, UnboundedExpressionsHaveNone) {
    EXPECT_FALSE(constant_upper_bound(bx() * 2, {}).has_value());
    EXPECT_FALSE(constant_upper_bound(min(w(), bx()), {}).has_value());
    // A min subtracted cannot be dropped: w - min(w, 32) grows with w.
    EXPECT_FALSE(constant_upper_bound(w() - min(w(), 32), {}).has_value());
}

} // namespace
