// Unit tests of the simplifier: each builds an Expr or Stmt, simplifies it, and compares with
// the expected result, printing all three on failure.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <loom.h>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/Simplify.h"

using namespace loom;
using namespace loom::Internal;
using testing::HasSubstr;

namespace {

void check(const Expr &input, const Expr &expected) {
    Expr output = simplify(input);
    EXPECT_TRUE(deep_equal(output, expected)) << "input:    " << input << "\n"
                                              << "expected: " << expected << "\n"
                                              << "got:      " << output;
}

Expr i32(const char *name) { return Variable::make(Int(32), name); }
Expr u8(const char *name) { return Variable::make(UInt(8), name); }
Expr f32(const char *name) { return Variable::make(Float(32), name); }

TEST(Simplify, FoldsIntegerConstantsWithEuclideanSemantics) {
    check(Expr(7) / Expr(2), 3);
    check(Expr(-7) / Expr(2), -4);
    check(Expr(-7) / Expr(-2), 4);
    check(Expr(7) % Expr(-2), 1);
    check(Expr(-7) % Expr(2), 1);
    check(Expr(5) / Expr(0), 0);
    check(Expr(5) % Expr(0), 0);
    check(Expr(INT32_MIN) / Expr(-1), Expr(INT32_MIN));
}

TEST(Simplify, FoldsNarrowTypesWithWrapAround) {
    check(cast<uint8_t>(Expr(250)) + cast<uint8_t>(Expr(10)), Expr((uint8_t)4));
    check(cast<int8_t>(Expr(-128)) / cast<int8_t>(Expr(-1)), Expr((int8_t)-128));
    check(cast<uint8_t>(Expr(3)) - cast<uint8_t>(Expr(5)), Expr((uint8_t)254));
}

// min(min(x, c1), c2) and max(max(x, c1), c2) of vectors: the broadcast constants fold by
// their values (this threw "Max of undefined Expr", fuzz seed 313, pipeline 317).
TEST(Simplify, NestedMinMaxOfBroadcastConstantsFold) {
    Expr x = Variable::make(Int(16).with_lanes(4), "x");
    auto i16x4 = [](int v) { return Broadcast::make(cast<int16_t>(Expr(v)), 4); };
    check(Min::make(Min::make(x, i16x4(5)), i16x4(3)), Min::make(x, i16x4(3)));
    check(Max::make(Max::make(x, i16x4(-10)), i16x4(-4)), Max::make(x, i16x4(-4)));
    check(Max::make(Max::make(x, i16x4(7)), i16x4(-4)), Max::make(x, i16x4(7)));
    Expr y = Variable::make(UInt(8).with_lanes(8), "y");
    auto u8x8 = [](int v) { return Broadcast::make(cast<uint8_t>(Expr(v)), 8); };
    check(Min::make(Min::make(y, u8x8(200)), u8x8(250)), Min::make(y, u8x8(200)));
}

TEST(Simplify, CancelsLinearIntegerTerms) {
    Expr x = i32("x"), y = i32("y");
    check((x + 5) - (x + 2), 3);
    check((x + y * 2) - (y + x), y);
    check(x + (y - x) + 1, y + 1);
    check(((x - 1) + 1) * 3, x * 3);
}

// A chain of sums is flattened once, at its top, into one linear form: terms cancel across
// all its levels, nested left or right, and a sum inside a non-linear operand (a min) of the
// chain is normalized on its own.
TEST(Simplify, CancelsTermsAcrossEveryLevelOfADeepChain) {
    Expr x = i32("x"), y = i32("y");
    Expr left = 0, right = y;
    for (int k = 0; k < 50; k++) {
        left = (left + x) - (x - 1);
        right = x - (x - right) + 1;
    }
    check(left, 50);
    check(right, y + 50);
    check(Min::make(((x + 1) - x) + y, y + 3) + left, y + 51);
    check((x * 2 + (y - x)) - (Min::make(x - (x - y), y + 3) - (x - 1)), x * 2 - 1);
}

TEST(Simplify, DivisionByAConstantTakesOutMultiplesOfIt) {
    Expr x = i32("x"), y = i32("y");
    check((x + y * 2 + 2) / 2, y + x / 2 + 1); // terms in structural order: variables first
    check((x * 4 - 7) / 4, x - 2);
    // Euclidean: (x - 7) / 4 == (x + 1) / 4 - 2.
    check((x - 7) / 4, (x + 1) / 4 - 2);
    check((x * 6) / 3, x * 2);
    // Consecutive rows: the step is a constant, whatever x is.
    check(((x + y * 2 + 2) / 2) * 2 - ((x + y * 2) / 2) * 2, 2);
    // uint8 wraps: (a + 2) / 2 is not a / 2 + 1 when a == 255.
    Expr a = u8("a");
    Expr e = (a + cast<uint8_t>(Expr(2))) / cast<uint8_t>(Expr(2));
    check(e, e);
}

TEST(Simplify, MinMaxOfConstantDifferenceOnlyForWideInts) {
    Expr x = i32("x");
    check(min(x, x + 1), x);
    check(max(x - 3, x), x);
    // uint8 wraps, so min(a, a + 1) is not a when a == 255.
    Expr a = u8("a");
    Expr e = min(a, a + cast<uint8_t>(Expr(1)));
    check(e, e);
}

TEST(Simplify, MinMaxOfQuotientsWithConstantlyDifferentNumerators) {
    Expr x = i32("x"), y = i32("y");
    // A pyramid's upsampling reads x / 2 and (x + 1) / 2: division rounds down, so the first
    // is never the larger.
    check(min(x / 2, (x + 1) / 2), x / 2);
    check(max(x / 2, (x + 1) / 2), (x + 1) / 2);
    check(min((x + 1) / 2, x / 2 + 1), (x + 1) / 2);
    // The same with other terms and constants around the quotients: (x + 1) / 2 + 7 is at most
    // x / 2 + 8.
    check(max(y + (x + 1) / 2 + 7, y + x / 2 + 8), simplify(y + x / 2 + 8));
    check(min(y * 3 + (x - 5) / 4, y * 3 + (x + 3) / 4 - 2), simplify(y * 3 + (x - 5) / 4));
    // (x + 1) / 2 - x / 2 is 0 or 1, so (x + 1) / 2 - 1 is never the larger.
    check(min(x / 2, (x + 1) / 2 - 1), (x + 1) / 2 - 1);
    // Unknown order: numerators without a constant difference; different divisors.
    Expr e = min(x / 2, (y + 1) / 2);
    check(e, e);
    e = min(x / 2, (x + 1) / 3);
    check(e, e);
}

TEST(Simplify, MinMaxOfOperandsClampedAlike) {
    Expr x = i32("x"), w = i32("w");
    // The union of a boundary condition's reads at x and x + 1 is one clamped interval.
    check(min(max(min(x, w), 0), max(min(x + 1, w), 0)), max(min(x, w), 0));
    check(max(max(min(x, w), 0), max(min(x - 2, w), 0)), max(min(x, w), 0));
    // Different bounds: nothing to share.
    Expr e = min(max(x, 0), max(x + 1, 1));
    check(e, e);
}

TEST(Simplify, LeavesFloatIdentitiesThatChangeBits) {
    Expr f = f32("f");
    // -0.0f + 0.0f is +0.0f, so x + 0 is not x.
    Expr add_zero = f + 0.0f;
    check(add_zero, add_zero);
    // NaN * 0 is NaN.
    Expr mul_zero = f * 0.0f;
    check(mul_zero, mul_zero);
    // x * 1 is exactly x.
    check(f * 1.0f, f);
    // Float constants fold in their own precision.
    check(Expr(0.1f) + Expr(0.2f), Expr(0.1f + 0.2f));
}

TEST(Simplify, FoldsComparisonsAndSelects) {
    Expr x = i32("x");
    check(x + 1 > x, const_true());
    check(select(x < x, 1, 2), 2);
    check(Expr(3) < Expr(4) && (x == x), const_true());
}

TEST(Simplify, SubstitutesConstantLetsAndDropsUnusedOnes) {
    Expr x = i32("x");
    check(Let::make("k", 4, x * Variable::make(Int(32), "k")), x * 4);
    check(Let::make("unused", x * x, x + 1), x + 1);
}

TEST(Simplify, RemovesEmptyLoopsAndTrueAssertions) {
    Expr x = i32("x");
    Stmt store = Store::make("buf", x, x);
    Stmt empty_loop = For::make("i", 0, 0, ForType::Serial, DeviceAPI::Host, store);
    EXPECT_TRUE(is_no_op(simplify(empty_loop))) << simplify(empty_loop);
    Stmt s = Block::make(AssertStmt::make(Expr(1) < Expr(2), Call::make(Int(32), "loom_error",
                                                                        {Expr("m")}, Call::Extern)),
                         store);
    EXPECT_EQ(to_string(simplify(s)), to_string(store));
}

// A clamp the loops around it decide: the recovered variable of a fused loop of 16, clamped to
// [-1, 2], is r / 4 - 1 for r in [0, 15]. Over 17 iterations the min is needed (r / 4 - 1 = 3
// at r = 16); the max still is not.
TEST(Simplify, DropsAMinOrMaxTheLoopRangesDecide) {
    Expr r = i32("r");
    auto loop = [&](int extent, const Expr &value) {
        Stmt body = LetStmt::make("t", value, Store::make("buf", i32("t") * 3, r));
        return For::make("r", 0, extent, ForType::Serial, DeviceAPI::Host, body);
    };
    Expr clamped = max(min(r / 4 - 1, 2), -1);
    EXPECT_EQ(to_string(simplify(loop(16, clamped))), to_string(simplify(loop(16, r / 4 - 1))));
    EXPECT_EQ(to_string(simplify(loop(17, clamped))),
              to_string(simplify(loop(17, min(r / 4 - 1, 2)))));
    // The let's range decides a min of the let too.
    Stmt through_let =
        For::make("r", 0, 16, ForType::Serial, DeviceAPI::Host,
                  LetStmt::make("t", r % 4, Store::make("buf", min(i32("t"), 5) + i32("n"), r)));
    Stmt without = For::make("r", 0, 16, ForType::Serial, DeviceAPI::Host,
                             LetStmt::make("t", r % 4, Store::make("buf", i32("t") + i32("n"), r)));
    EXPECT_EQ(to_string(simplify(through_let)), to_string(simplify(without)));
}

// A min or max of two sums with a common unknown term (x) is decided by the range of their
// difference over the loop around: min(x - 1, x + r) is x - 1 for r in [-1, 1]; and an
// allocation's extent that the loop's range bounds, here r + 2, is allocated at its largest
// value, 3, a constant size.
TEST(Simplify, DecidesAMinByItsDifferenceAndSizesAllocationsByTheLoopRange) {
    Expr r = i32("r"), x = i32("x");
    auto loop = [&](const Expr &value) {
        return For::make("r", -1, 3, ForType::Serial, DeviceAPI::Host,
                         Store::make("buf", value, r));
    };
    EXPECT_EQ(to_string(simplify(loop(min(x - 1, x + r)))), to_string(simplify(loop(x - 1))));
    EXPECT_EQ(to_string(simplify(loop(max(x - 1, x + r)))), to_string(simplify(loop(x + r))));
    // Over r in [-1, 1] neither side of min(x, x + r) is the smaller one throughout.
    EXPECT_THAT(to_string(simplify(loop(min(x, x + r)))), HasSubstr("min("));

    Expr extent = max(x - 1, x + r) - min(x - 1, x + r) + 1;
    Stmt alloc = For::make(
        "r", -1, 3, ForType::Serial, DeviceAPI::Host,
        Allocate::make("sum", UInt(8), {extent}, Store::make("sum", make_zero(UInt(8)), 0)));
    std::string text = to_string(simplify(alloc));
    EXPECT_THAT(text, HasSubstr("allocate sum[uint8 * 3]")) << text;
    // Outside a loop of known range the extent stays as it is.
    Stmt free_extent =
        Allocate::make("sum", UInt(8), {x + 2}, Store::make("sum", make_zero(UInt(8)), 0));
    EXPECT_THAT(to_string(simplify(free_extent)), HasSubstr("(x + 2)"));
}

// An if on likely(c) of a constant c (an RDom's where() that always holds) is its branch.
TEST(Simplify, LikelyOfAConstantConditionDecidesTheIf) {
    Stmt store = Store::make("buf", i32("x"), 0);
    Stmt other = Store::make("buf", i32("x") + 1, 0);
    EXPECT_EQ(to_string(simplify(IfThenElse::make(likely(const_true()), store, other))),
              to_string(store));
    EXPECT_EQ(to_string(simplify(IfThenElse::make(likely(const_false()), store, other))),
              to_string(other));
    Stmt varying = IfThenElse::make(likely(i32("x") < 3), store);
    EXPECT_EQ(to_string(simplify(varying)), to_string(varying));
}

// Bounds inference writes a region's min and max as two lets of one expression (max = min +
// 31): the max is rewritten as the min's name plus the constant, so the extent folds to 32.
TEST(Simplify, ReusesAnEnclosingLetsValueUpToAConstant) {
    Expr x = i32("x"), y = i32("y"), n = i32("n");
    Expr lo = x + min(y * 32, n - 32);
    Expr extent = Variable::make(Int(32), "hi") - Variable::make(Int(32), "lo") + 1;
    Stmt use = Store::make("buf", extent, 0);
    Stmt s = LetStmt::make("lo", lo, LetStmt::make("hi", lo + 31, use));
    EXPECT_EQ(to_string(simplify(s)), to_string(Store::make("buf", 32, 0))) << simplify(s);

    // Inside a larger value too: min(lo's value, lo) is lo.
    Expr lo_var = Variable::make(Int(32), "lo");
    Stmt inner = LetStmt::make("m", min(lo, lo_var),
                               Store::make("buf", Variable::make(Int(32), "m") - lo_var, 0));
    Stmt s2 = LetStmt::make("lo", lo, inner);
    EXPECT_EQ(to_string(simplify(s2)), to_string(Store::make("buf", 0, 0))) << simplify(s2);

    // In the body of a let expression too: the union of a region with itself, `let n = e in
    // min(e, n)`, is e (and `let n = e + 2 in max(e, n)` is e + 2), so that an extent
    // written with two such unions folds to a constant.
    Expr n0 = Variable::make(Int(32), "n0");
    EXPECT_EQ(to_string(simplify(Let::make("n0", lo, min(lo, n0)))), to_string(simplify(lo)));
    EXPECT_EQ(to_string(simplify(Let::make("n0", lo + 2, max(lo, n0)))),
              to_string(simplify(lo + 2)));
    EXPECT_EQ(to_string(simplify(Let::make("n0", lo + 2, min(lo, n0)))), to_string(simplify(lo)));
    Expr union_extent = Let::make("n1", lo, max(lo, Variable::make(Int(32), "n1"))) -
                        Let::make("n0", lo, min(lo, n0)) + 1;
    EXPECT_EQ(to_string(simplify(union_extent)), "1") << simplify(union_extent);
}

// A value that reads memory may change between two lets; a name that shadows an outer one
// hides what is known about the outer one.
TEST(Simplify, DoesNotReuseValuesThatReadMemoryOrAreShadowed) {
    Expr x = i32("x"), y = i32("y");
    Expr a = Variable::make(Int(32), "a"), b = Variable::make(Int(32), "b");
    Stmt store_difference = Store::make("out", b - a, 0);

    Expr loaded = Load::make(Int(32), "buf", x) + min(x, y);
    Stmt s = LetStmt::make(
        "a", loaded,
        Block::make(Store::make("buf", 7, x), LetStmt::make("b", loaded + 1, store_difference)));
    EXPECT_NE(to_string(simplify(s)).find(to_string(store_difference)), std::string::npos)
        << simplify(s);

    // Inside the loop over a, "a" is the loop variable, not the outer let's value.
    Expr v = x + min(x, y);
    Stmt loop = For::make("a", 0, 10, ForType::Serial, DeviceAPI::Host,
                          LetStmt::make("b", v + 1, store_difference));
    Stmt s2 = LetStmt::make("a", v, loop);
    EXPECT_NE(to_string(simplify(s2)).find(to_string(store_difference)), std::string::npos)
        << simplify(s2);
}

// An unrolled loop's guarded tail leaves one if per statement with the same condition: they
// merge into one if. A condition that reads memory is left alone, as the first if may store
// to what it reads.
// The cheap test bounds inference tries before simplifying a difference: where it finds a
// constant, simplify(a - b) is that constant; it does not look inside other subexpressions.
TEST(Simplify, DifferenceOfTwoExpressionsAsWrittenIsConstantWhereTheirTermsCancel) {
    Expr x = i32("x"), y = i32("y");
    const std::vector<std::pair<Expr, Expr>> cancelling = {
        {x + 3, x - 2},
        {(x + y * 4) - 1, y * 4 + x + 6},
        {min(x, y) * 2 + 5, min(x, y) * 2},
        {(x + 1) * 3 - x * 3, Expr(0)},
    };
    for (const auto &[a, b] : cancelling) {
        int64_t d = 0;
        ASSERT_TRUE(difference_is_constant(a, b, &d)) << a << " - " << b;
        Expr simplified = simplify(a - b);
        ASSERT_NE(as_const_int(simplified), nullptr) << simplified;
        EXPECT_EQ(d, *as_const_int(simplified)) << a << " - " << b;
    }
    int64_t d = 0;
    EXPECT_FALSE(difference_is_constant(x + y, x - y, &d));
    // Constant only once min(x + 1, x + 1) is simplified to x + 1: left to simplify().
    EXPECT_FALSE(difference_is_constant(min(x + 1, x + 1), x, &d));
    EXPECT_TRUE(deep_equal(simplify(min(x + 1, x + 1) - x), Expr(1)));
}

TEST(Simplify, MergesAdjacentIfsWithTheSameCondition) {
    Expr k = i32("k"), n = i32("n");
    Stmt a = Store::make("buf", 1, k), b = Store::make("buf", 2, k + 1),
         c = Store::make("out", 3, k);
    Stmt s = Block::make({IfThenElse::make(k < n, a), IfThenElse::make(k < n, b), c});
    Stmt expected = Block::make(IfThenElse::make(k < n, Block::make(a, b)), c);
    EXPECT_EQ(to_string(simplify(s)), to_string(expected)) << simplify(s);

    // Else branches merge in the same order.
    Stmt with_else = Block::make(IfThenElse::make(k < n, a, c), IfThenElse::make(k < n, b));
    EXPECT_EQ(to_string(simplify(with_else)),
              to_string(IfThenElse::make(k < n, Block::make(a, b), c)))
        << simplify(with_else);

    Expr reads = Load::make(Int(32), "buf", k) < n;
    Stmt not_merged = Block::make(IfThenElse::make(reads, a), IfThenElse::make(reads, b));
    EXPECT_EQ(to_string(simplify(not_merged)), to_string(not_merged)) << simplify(not_merged);

    Stmt different = Block::make(IfThenElse::make(k < n, a), IfThenElse::make(k + 1 < n, b));
    EXPECT_EQ(to_string(simplify(different)), to_string(different)) << simplify(different);
}

// Pure intrinsics of constants fold with the generated code's semantics: a negative shift
// amount shifts the other way, a right shift of a signed value is arithmetic, counts look at
// the type's width; a shift by the width or more (undefined in the generated code) stays.
TEST(Simplify, FoldsIntrinsicsOfConstants) {
    check(Expr(-81) >> 8, -1);
    check(Expr(81) >> 3, 10);
    check(Expr(3) << 4, 48);
    check(Expr(48) << Expr(-4), 3);
    check(cast<uint8_t>(Expr(200)) >> cast<uint8_t>(Expr(3)), Expr((uint8_t)25));
    check(cast<int8_t>(Expr(-128)) >> cast<int8_t>(Expr(7)), Expr((int8_t)-1));
    check(cast<uint8_t>(Expr(3)) << cast<uint8_t>(Expr(7)), Expr((uint8_t)128));
    check(Expr(0x0ff0) & Expr(0x00ff), 0x00f0);
    check(Expr(0x0f00) | Expr(0x00f0), 0x0ff0);
    check(cast<int16_t>(Expr(-6)) ^ cast<int16_t>(Expr(3)), Expr((int16_t)-7));
    check(~cast<uint8_t>(Expr(5)), Expr((uint8_t)250));
    check(popcount(cast<uint16_t>(Expr(0xf0f1))), Expr((uint16_t)9));
    check(count_leading_zeros(cast<uint8_t>(Expr(1))), Expr((uint8_t)7));
    check(count_leading_zeros(cast<int32_t>(Expr(0))), 32);
    check(count_trailing_zeros(cast<int16_t>(Expr(-32768))), Expr((int16_t)15));
    check(abs(Expr(INT32_MIN)), Expr((uint32_t)2147483648u));
    check(abs(Expr(-2.5f)), Expr(2.5f));
    check(absd(cast<int8_t>(Expr(-128)), cast<int8_t>(Expr(127))), Expr((uint8_t)255));
    check(absd(cast<uint8_t>(Expr(3)), cast<uint8_t>(Expr(250))), Expr((uint8_t)247));
    Expr too_far = Expr(1) << 32;
    check(too_far, too_far);
    Expr too_far_back = Expr(1) >> Expr(-40);
    check(too_far_back, too_far_back);
}

// An operation on selects between constants (under one condition) and constants folds each
// side: one constant where both agree. A select between non-constants, or two selects under
// different conditions, are left as they are.
TEST(Simplify, FoldsThroughSelectsOfConstants) {
    Expr x = i32("x"), y = i32("y");
    Expr c = x < y;
    check(select(c, -81, -78) >> 8, -1);
    check(select(c, 1, 2) + 3, select(c, 4, 5));
    check(10 - select(c, 1, 2), select(c, 9, 8));
    check(select(c, 8, 9) / 2 == 4, const_true());
    check(cast<uint8_t>(select(c, 300, 44)), Expr((uint8_t)44));
    check(cast<int16_t>(Expr(-30729)) % cast<int16_t>(Expr(-8)) <= cast<int16_t>(Expr(-2)),
          const_false());
    check(select(c, 3, 5) * select(c, 2, 4), select(c, 6, 20));
    check(min(select(c, 3, 9), 5), select(c, 3, 5));
    Expr different_conditions = simplify(select(c, 3, 5) + select(x < 2, 1, 2));
    const Add *sum = different_conditions.as<Add>();
    ASSERT_NE(sum, nullptr) << different_conditions;
    EXPECT_TRUE(sum->a.as<Select>() && sum->b.as<Select>()) << different_conditions;
    Expr not_constant = select(c, x, 5) + 1;
    check(not_constant, not_constant);
}

} // namespace

// The union of a GuardWithIf split's vectors and its tail, as bounds inference writes it:
// min(e, e + max(n, 0) * 16) is e and the max is the other, whatever n; a difference whose
// terms may be negative (n itself), or whose coefficients differ in sign, decides nothing.
TEST(Simplify, MinAndMaxDecidedByADifferenceOfNonNegativeTerms) {
    Expr e = i32("x_min") * 3 + i32("y"), n = i32("n");
    Expr vectors = Max::make(n / 16, 0) * 16;
    check(Min::make(e, e + vectors), e);
    check(Min::make(e + vectors + 2, e), e);
    check(Max::make(e, e + vectors), e + vectors);
    check(Max::make(e - vectors, e), e);
    Expr undecided[] = {Min::make(e, e + n), Min::make(e, e + vectors - Max::make(n, 0)),
                        Max::make(e, e + vectors - 1)};
    for (const Expr &u : undecided) {
        Expr output = simplify(u);
        EXPECT_TRUE(output.as<Min>() || output.as<Max>()) << u << " -> " << output;
    }
}
