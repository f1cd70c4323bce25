// Structural comparison of expressions (dsl/IREquality.h): equal structures built separately
// compare equal, any difference in kind, type, name, constant or operand orders them.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "dsl/IR.h"
#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace {

using namespace loom;
using namespace loom::Internal;

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

Expr sample(int k) {
    Expr x = var("x"), y = var("y");
    return select(x < y, min(x * k, y + 1), Load::make(Int(32), "buf", x + k));
}

TEST(ExprStructure, SeparatelyBuiltCopiesAreEqual) {
    EXPECT_TRUE(deep_equal(sample(3), sample(3)));
    EXPECT_EQ(compare_exprs(sample(3), sample(3)), 0);
    Expr call = Call::make(Float(32), "exp_f32", {cast<float>(var("x"))}, Call::PureExtern);
    Expr again = Call::make(Float(32), "exp_f32", {cast<float>(var("x"))}, Call::PureExtern);
    EXPECT_TRUE(deep_equal(call, again));
    EXPECT_TRUE(deep_equal(Ramp::make(var("b"), 2, 8), Ramp::make(var("b"), 2, 8)));
}

TEST(ExprStructure, EveryDifferenceCounts) {
    Expr x = var("x");
    std::vector<Expr> distinct = {
        sample(3),
        sample(4), // a constant deep inside
        x + 1,
        x - 1,
        1 + x,                                // kind, operand order
        var("x", Int(64)) + Expr((int64_t)1), // type
        var("z") + 1,                         // name
        Ramp::make(x, 1, 8),
        Ramp::make(x, 1, 16), // lanes
        Broadcast::make(x, 8),
        Load::make(Int(32), "a", x),
        Load::make(Int(32), "b", x),
        make_const(Float(32), 0.0),
        make_const(Float(32), -0.0), // by bits
        Expr(),                      // undefined
    };
    for (size_t i = 0; i < distinct.size(); i++) {
        for (size_t j = 0; j < distinct.size(); j++) {
            int c = compare_exprs(distinct[i], distinct[j]);
            if (i == j) {
                EXPECT_EQ(c, 0) << i;
            } else {
                EXPECT_NE(c, 0) << (distinct[i].defined() ? to_string(distinct[i]) : "undefined")
                                << " vs "
                                << (distinct[j].defined() ? to_string(distinct[j]) : "undefined");
                // Antisymmetric: the order is total.
                EXPECT_EQ(c<0, compare_exprs(distinct[j], distinct[i])> 0) << i << ", " << j;
            }
        }
    }
}

TEST(ExprStructure, NaNEqualsItself) {
    Expr nan = make_const(Float(32), std::numeric_limits<double>::quiet_NaN());
    Expr other = make_const(Float(32), std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(deep_equal(nan, other));
}

TEST(ExprStructure, OrderIsTransitiveOverASortedSet) {
    std::vector<Expr> v;
    for (int k = 0; k < 6; k++) {
        v.push_back(sample(k));
        v.push_back(var("v" + std::to_string(k)) * k);
    }
    std::sort(v.begin(), v.end(), ExprStructureLess());
    for (size_t i = 0; i + 1 < v.size(); i++) {
        for (size_t j = i + 1; j < v.size(); j++)
            EXPECT_LT(compare_exprs(v[i], v[j]), 0) << i << " " << j;
    }
}

} // namespace
