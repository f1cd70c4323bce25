// Unit tests of interval arithmetic and of the region a statement reads.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <loom.h>

#include "ChainTestUtil.h"

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/Bounds.h"
#include "lower/ConstantBounds.h"
#include "lower/Simplify.h"

using namespace loom;
using namespace loom::Internal;

namespace {

Expr i32(const char *name) { return Variable::make(Int(32), name); }

void check_interval(const Expr &e, const Scope<Interval> &scope, const Expr &lo, const Expr &hi) {
    Interval i = bounds_of_expr_in_scope(e, scope);
    ASSERT_TRUE(i.is_bounded()) << "unbounded: " << e;
    EXPECT_TRUE(deep_equal(i.min, simplify(lo))) << e << ": min " << i.min << ", expected " << lo;
    EXPECT_TRUE(deep_equal(i.max, simplify(hi))) << e << ": max " << i.max << ", expected " << hi;
}

TEST(Bounds, LinearExpressions) {
    Scope<Interval> s;
    s.push("x", Interval(Expr(0), Expr(9)));
    Expr x = i32("x");
    check_interval(x + 1, s, 1, 10);
    check_interval(x * 2 - 3, s, -3, 15);
    check_interval(10 - x, s, 1, 10);
    check_interval(x * -2, s, -18, 0);
}

TEST(Bounds, DivModMinMaxSelect) {
    Scope<Interval> s;
    s.push("x", Interval(Expr(-5), Expr(9)));
    Expr x = i32("x");
    check_interval(x / 2, s, -3, 4);       // Euclidean: -5 / 2 == -3
    check_interval(x % 4, s, 0, 3);
    check_interval(min(x, 3), s, -5, 3);
    check_interval(max(x, 0), s, 0, 9);
    check_interval(clamp(x * 100, 0, 50), s, 0, 50);
    check_interval(select(x > 0, x, 0 - x), s, -9, 9);
}

TEST(Bounds, DifferenceOfQuotientsOfNumeratorsAConstantApart) {
    // (y + c) / k - y / k moves in [floor(c / k), floor((c + k - 1) / k)] whatever y is;
    // bounding the two quotients apart would give [-49, 51] here.
    Scope<Interval> s;
    s.push("y", Interval(Expr(-3), Expr(100)));
    Expr y = i32("y");
    check_interval((y + 1) / 2 - y / 2, s, 0, 1);
    check_interval(((y + 7) / 4 + 3) - y / 4, s, 4, 5);
    check_interval((y - 5) / 3 - y / 3, s, -2, -1);
    check_interval((y * 2 + y / 2) - (y - 2) / 2, s, -5, 201);  // the rest bounded as before
}

TEST(Bounds, ConstantBoundsWhoseSumLeavesInt32AreUnbounded) {
    // Loom's int32 wraps: int32(2e9) - int32(-2e9) may be any int32, and folding the bounds
    // would give the reversed [294967296, -294967296], then [5, 4] for a clamp to [4, 5]
    // (a producer's region computed from it missed the rows it read: fuzz seed 131).
    Scope<Interval> s;
    s.push("f", Interval::everything());
    s.push("g", Interval::everything());
    Expr f = Variable::make(Float(32), "f"), g = Variable::make(Float(32), "g");
    Expr wide = cast<int32_t>(clamp(f, Expr(-2e9f), Expr(2e9f))) - cast<int32_t>(clamp(g, Expr(-2e9f), Expr(2e9f)));
    Interval i = bounds_of_expr_in_scope(wide, s);
    EXPECT_FALSE(i.min.defined()) << i.min;
    EXPECT_FALSE(i.max.defined()) << i.max;
    check_interval(clamp(wide, 4, 5), s, 4, 5);
    check_interval(clamp(wide * 3, -7, 9), s, -7, 9);
    // In range, the bounds stay exact.
    Expr narrow = cast<int32_t>(clamp(f, Expr(-1e9f), Expr(1e9f))) - cast<int32_t>(clamp(g, Expr(-1e3f), Expr(1e3f)));
    check_interval(narrow, s, -1000001000, 1000001000);
}

TEST(Bounds, SymbolicIntervals) {
    Scope<Interval> s;
    Expr lo = i32("lo"), hi = i32("hi");
    s.push("x", Interval(lo, hi));
    Expr x = i32("x");
    check_interval(x + 1, s, lo + 1, hi + 1);
    check_interval(x - 1, s, lo - 1, hi - 1);
}

TEST(Bounds, NarrowTypesAreBoundedByTheirRange) {
    Scope<Interval> s;
    Expr v = Variable::make(UInt(8), "v");
    check_interval(cast<int>(v + cast<uint8_t>(Expr(1))), s, 0, 255);
}

TEST(Bounds, UnboundedIndexIsReported) {
    Scope<Interval> s;
    Expr f = Variable::make(Float(32), "f");
    Interval i = bounds_of_expr_in_scope(Variable::make(Int(32), "free") * i32("other"), s);
    // Free variables are symbols: their product is a point, hence bounded.
    EXPECT_TRUE(i.is_bounded());
    Expr call = Call::make(Int(32), "g", {i32("x")}, Call::Halide);
    Interval j = bounds_of_expr_in_scope(call, s);
    EXPECT_FALSE(j.is_bounded()) << "a 32-bit value read from a Func has no bound";
}

// Constant ranges from the expression alone, computed exactly and widened to the type's range
// where the arithmetic may wrap.
TEST(ConstantRange, WidenedNarrowValuesAndWrapping) {
    auto range = [](const Expr &e) {
        ConstantRange r = constant_range(e);
        return std::vector<int64_t>{r.min, r.max};
    };
    auto u16 = [](const char *n) { return Variable::make(UInt(16), n); };
    Expr a = cast<uint32_t>(u16("a")), b = cast<uint32_t>(u16("b")), c = cast<uint32_t>(u16("c"));
    using R = std::vector<int64_t>;
    EXPECT_EQ(range(a + b + c), (R{0, 196605}));
    EXPECT_EQ(range((a + b + c) / 3), (R{0, 65535}));
    EXPECT_EQ(range(a * b), (R{0, 65535LL * 65535}));
    // Three such products may exceed 2^32 and wrap: any uint32.
    EXPECT_EQ(range(a * b + a * b + a * b), (R{0, 4294967295LL}));
    // As int32, one product may already wrap.
    Expr sa = cast<int32_t>(u16("a")), sb = cast<int32_t>(u16("b"));
    EXPECT_EQ(range(sa * sb), (R{INT32_MIN, INT32_MAX}));
    EXPECT_EQ(range(sa - sb), (R{-65535, 65535}));
    EXPECT_EQ(range(i32("x")), (R{INT32_MIN, INT32_MAX}));
    EXPECT_EQ(range(clamp(i32("x"), 4, 9) % 5), (R{0, 4}));
    EXPECT_EQ(range(clamp(i32("x"), 1, 3) % 5), (R{1, 3}));
    EXPECT_EQ(range(i32("x") & 255), (R{0, 255}));
    EXPECT_EQ(
        range(Call::make_intrinsic(UInt(32), Call::shift_right, {a + b, make_const(UInt(32), 1)})),
        (R{0, 65535}));
    Expr s = Variable::make(UInt(32), "s");
    EXPECT_EQ(range(Let::make("s", a + b, s * 2)), (R{0, 262140}));
    // An inner Let of the same name shadows the outer one only in its body.
    EXPECT_EQ(range(Let::make("s", a, Let::make("s", a + b, s) + s)), (R{0, 196605}));
    EXPECT_EQ(range(Broadcast::make(clamp(i32("x"), -7, 7), 8) * -3), (R{-21, 21}));
}

TEST(Bounds, BoxesRequiredThroughLoopsAndLets) {
    // for (y, 0, 4) { let k = y * 2; for (x, 1, 8) { out[x] = in(x - 1, k) + in(x + 1, k) } }
    Expr x = i32("x"), y = i32("y"), k = i32("k");
    Expr read = Call::make(UInt(8), "in", {x - 1, k}, Call::Image) +
                Call::make(UInt(8), "in", {x + 1, k}, Call::Image);
    Stmt inner = For::make("x", 1, 8, ForType::Serial, DeviceAPI::Host, Store::make("out", read, x));
    Stmt s = For::make("y", 0, 4, ForType::Serial, DeviceAPI::Host, LetStmt::make("k", y * 2, inner));
    std::map<std::string, Box> boxes = boxes_required(s);
    ASSERT_EQ(boxes.count("in"), 1u);
    const Box &b = boxes["in"];
    ASSERT_EQ(b.size(), 2u);
    EXPECT_TRUE(deep_equal(b[0].min, Expr(0))) << b[0].min;
    EXPECT_TRUE(deep_equal(b[0].max, Expr(9))) << b[0].max;
    EXPECT_TRUE(deep_equal(b[1].min, Expr(0))) << b[1].min;
    EXPECT_TRUE(deep_equal(b[1].max, Expr(6))) << b[1].max;
}

// box_required walks only the statements that read the Func asked for; the box is the one
// the full walk gives, and a Func read nowhere has an empty box.
TEST(Bounds, OneFuncsBoxIsTheFullWalksBox) {
    // for (y, 0, 4) { let k = y * 2; if (k < 5) { for (x, 1, 8) { out[x] = f(x - 1, k) } }
    //                 for (x, 2, 3) { out[x] = g(x, y) + f(x + 3, 0) } }
    Expr x = i32("x"), y = i32("y"), k = i32("k");
    Expr f1 = Call::make(Int(32), "f", {x - 1, k}, Call::Halide);
    Expr f2 = Call::make(Int(32), "f", {x + 3, 0}, Call::Halide);
    Expr g = Call::make(Int(32), "g", {x, y}, Call::Halide);
    Stmt first = IfThenElse::make(k < 5, For::make("x", 1, 8, ForType::Serial, DeviceAPI::Host,
                                                   Store::make("out", f1, x)));
    Stmt second = For::make("x", 2, 3, ForType::Serial, DeviceAPI::Host, Store::make("out", g + f2, x));
    Stmt s = For::make("y", 0, 4, ForType::Serial, DeviceAPI::Host,
                       LetStmt::make("k", y * 2, Block::make(first, second)));
    std::map<std::string, Box> all = boxes_required(s);
    for (const char *name : {"f", "g"}) {
        Box one = box_required(s, name);
        ASSERT_EQ(one.size(), all[name].size()) << name;
        for (size_t d = 0; d < one.size(); d++) {
            EXPECT_TRUE(deep_equal(one[d].min, all[name][d].min)) << name << d << ": " << one[d].min;
            EXPECT_TRUE(deep_equal(one[d].max, all[name][d].max)) << name << d << ": " << one[d].max;
        }
    }
    // f: x - 1 over [0, 7] and x + 3 over [5, 7]; k = y * 2 < 5 over y in [0, 4), and 0.
    Box f = box_required(s, "f");
    ASSERT_EQ(f.size(), 2u);
    EXPECT_TRUE(deep_equal(f[0].min, Expr(0))) << f[0].min;
    EXPECT_TRUE(deep_equal(f[0].max, Expr(7))) << f[0].max;
    EXPECT_TRUE(deep_equal(f[1].min, Expr(0))) << f[1].min;
    EXPECT_TRUE(deep_equal(f[1].max, Expr(4))) << f[1].max;
    EXPECT_TRUE(box_required(s, "h").empty());
}

// A chain of Funcs computed at one loop of the output, each vectorized (ShiftInwards splits):
// each one's region is written in the names of its consumers' region lets, placed together at
// the top of that loop. Expanded into one another instead, the regions grew geometrically down
// the chain (8 stages: 2.7 MB of statement and 40 s to lower; now 25 KB).
TEST(BoundsInference, ProducersAtOneLoopNameTheirConsumersRegions) {
    const int stages = 8, w = 40, h = 20;
    ImageParam in(Float(32), 2, "in");
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func prev = BoundaryConditions::repeat_edge(in);
    std::vector<Func> chain;
    for (int i = 0; i < stages; i++) {
        Func g("f" + std::to_string(i));
        g(x, y) = prev(x, y) + prev(x + 1, y + 1);
        chain.push_back(g);
        prev = g;
    }
    Func out = prev;
    out.split(y, yo, yi, 8).vectorize(x, 8);
    for (int i = 0; i + 1 < stages; i++) chain[i].compute_at(out, yo).vectorize(x, 8);
    Pipeline p(out);
    std::string stmt = p.lowered_stmt();
    EXPECT_LT(stmt.size(), 100000u) << stmt;

    loom_test::expect_chain_values(p, in, w, h, stages, 1, 1);
}

}  // namespace

namespace {

// A select on a condition of constants alone requires only the side it takes: g computed per
// row of f is one row, not the rows x - 1 of the side never taken (fuzz seed 2026 pair 106
// computed 850 rows per row).
TEST(BoxesRequired, ASelectOnAConstantConditionRequiresOnlyTheSideTaken) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x * 5 + y;
    f(x, y) = select(cast<uint8_t>(173) < cast<uint8_t>(0), g(x, x - 1), g(x - 2, y));
    g.compute_at(f, y);
    Pipeline p(f);
    std::string stmt = p.lowered_stmt();
    size_t at = stmt.find("allocate g[");
    ASSERT_NE(at, std::string::npos) << stmt;
    std::string allocation = stmt.substr(at, stmt.find('\n', at) - at);
    EXPECT_EQ(allocation.substr(allocation.size() - 4), "* 1]") << allocation;
    Buffer<int> out = p.realize({40, 30});
    for (int yy = 0; yy < 30; yy++)
        for (int xx = 0; xx < 40; xx++) ASSERT_EQ(out(xx, yy), (xx - 2) * 5 + yy) << xx << ", " << yy;
}

}  // namespace

// What an extern stage reads of an input in one iteration of a loop (its query with that
// iteration's output region) lies within what the query over every iteration's region gives,
// anywhere there: the bounds of one corner are the union query's min to its max, never one
// point, so the difference of the two corners (the region's extent) is not taken as fixed
// (fuzz seed 8202 pair 543: storage sized by such an extent, written before its start).
TEST(Bounds, AnExternStageQueryInALoopLiesAnywhereInTheUnionQuery) {
    Expr x = Variable::make(Int(32), "x");
    auto query = [&](int corner) {
        Expr out = Call::make_intrinsic(
            Handle(), Call::make_buffer,
            {StringImm::make(""), Expr(0), Expr(0), Expr(0), x, Expr(1), Expr(0)});
        return Call::make_intrinsic(Int(32), Call::extern_bounds_query,
                                    {StringImm::make("f"), Expr(0), Expr(0), Expr(corner), out});
    };
    Scope<Interval> scope;
    scope.push("x", Interval(Expr(0), Expr(9)));
    const Interval lo = bounds_of_expr_in_scope(query(0), scope);
    EXPECT_FALSE(lo.is_single_point()) << lo.min << " .. " << lo.max;
    ASSERT_TRUE(lo.min.defined() && lo.max.defined());
    // The union query: the output region x in [0, 9], its min corner below, its max above.
    const Call *min_query = lo.min.as<Call>(), *max_query = lo.max.as<Call>();
    ASSERT_TRUE(min_query && max_query);
    EXPECT_TRUE(is_const_zero(min_query->args[3]));
    EXPECT_TRUE(is_const_one(max_query->args[3]));
    const Call *region = min_query->args[4].as<Call>();
    ASSERT_TRUE(region && region->is_intrinsic(Call::make_buffer));
    EXPECT_TRUE(is_const_zero(region->args[4]));
    EXPECT_EQ(as_const_int(region->args[5]) ? *as_const_int(region->args[5]) : -1, 10);
    const Interval extent = bounds_of_expr_in_scope(query(1) - query(0), scope);
    EXPECT_FALSE(extent.is_single_point());
    // Where the region does not move over the scope, the query is exactly its own value (the
    // interval lost what a storage's extent needs: fuzz seed 7006 pair 46, wrong values).
    Scope<Interval> fixed;
    EXPECT_TRUE(bounds_of_expr_in_scope(query(0), fixed).is_single_point());
}
