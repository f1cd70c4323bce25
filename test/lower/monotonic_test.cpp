// Unit tests of the monotonicity analysis sliding window relies on: each expression's
// direction in y is checked against the value it computes at every y of a range (a claimed
// direction the values contradict fails), and the expected direction is stated too.
#include <gtest/gtest.h>

#include <loom.h>

#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Substitute.h"
#include "lower/Monotonic.h"
#include "lower/Simplify.h"

using namespace loom;
using namespace loom::Internal;

namespace {

Expr y() { return Variable::make(Int(32), "y"); }
Expr n() { return Variable::make(Int(32), "n"); }

const char *name(Monotonic m) {
    switch (m) {
    case Monotonic::Constant:
        return "Constant";
    case Monotonic::Increasing:
        return "Increasing";
    case Monotonic::Decreasing:
        return "Decreasing";
    default:
        return "Unknown";
    }
}

// e evaluated at y (n fixed at 5), by substitution and constant folding.
int64_t value_at(const Expr &e, int y_value) {
    Expr v = simplify(substitute({{"y", Expr(y_value)}, {"n", Expr(5)}}, e));
    const int64_t *c = as_const_int(v);
    EXPECT_NE(c, nullptr) << "does not fold to a constant: " << v;
    return c ? *c : 0;
}

void check(const Expr &e, Monotonic expected) {
    Monotonic m = is_monotonic(e, "y");
    EXPECT_EQ(name(m), std::string(name(expected))) << e;
    if (m == Monotonic::Unknown) return;
    // The claim must hold of the values.
    for (int v = -20; v < 20; v++) {
        int64_t here = value_at(e, v), next = value_at(e, v + 1);
        if (m == Monotonic::Constant) {
            EXPECT_EQ(here, next) << e << " at y = " << v;
        } else if (m == Monotonic::Increasing) {
            EXPECT_LE(here, next) << e << " at y = " << v;
        } else {
            EXPECT_GE(here, next) << e << " at y = " << v;
        }
    }
}

TEST(Monotonic, StencilAndUpsamplingBoundsIncrease) {
    check(y() - 1, Monotonic::Increasing);
    check(y() * 2 + 1, Monotonic::Increasing);
    check(y() / 2, Monotonic::Increasing);
    check((y() + 1) / 2, Monotonic::Increasing);
    check(((y() + 1) / 2 + 1) / 2, Monotonic::Increasing);
    check(min(y() + 3, n() * 4), Monotonic::Increasing);
    check(max(y() / 4, 0) + n(), Monotonic::Increasing);
    check(Let::make("t", y() / 2, Variable::make(Int(32), "t") + 1), Monotonic::Increasing);
    check(select(n() > 0, y(), y() + 4), Monotonic::Increasing);
}

TEST(Monotonic, NegationsDecreaseAndFixedValuesStay) {
    check(n() - y(), Monotonic::Decreasing);
    check(y() * -3, Monotonic::Decreasing);
    check(y() / -2, Monotonic::Decreasing);
    check(n() * 7 / 3, Monotonic::Constant);
}

TEST(Monotonic, UnknownWhereTheValueMayMoveBothWays) {
    check(y() % 4, Monotonic::Unknown);
    check(y() * n(), Monotonic::Unknown); // the sign of n is not known
    // These two do not decrease, but the analysis is syntactic: an operand moving up and one
    // moving down make Unknown.
    check(y() - y() / 2, Monotonic::Unknown);
    check(y() - y() + n(), Monotonic::Unknown);
    check(select(y() > 3, y(), 0 - y()), Monotonic::Unknown);
    check(Cast::make(Int(8), y()), Monotonic::Unknown); // a narrowing cast wraps
    check(Cast::make(Int(64), y() / 2), Monotonic::Increasing);
}

} // namespace
