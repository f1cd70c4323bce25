// The operators' type-coercion rules, which must be Halide 14's (each expectation below was
// checked against libHalide14): the result type of each operator, and the casts inserted to
// get there, shown as the printed Expr.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace {

using Internal::to_string;
using ::testing::HasSubstr;

// One variable of each type, named after it.
Expr v(Type t) { return Internal::Variable::make(t, type_to_string(t)); }
const Expr i8 = v(Int(8)), i16 = v(Int(16)), i32 = v(Int(32)), i64 = v(Int(64));
const Expr u8 = v(UInt(8)), u16 = v(UInt(16)), u32 = v(UInt(32)), u64 = v(UInt(64));
const Expr f32 = v(Float(32)), f64 = v(Float(64));

TEST(TypeCoercion, SignedWithUnsignedGivesSignedOfTheWiderWidth) {
    EXPECT_EQ((i8 + u16).type(), Int(16));
    EXPECT_EQ(to_string(i8 + u16), "(int16(int8) + int16(uint16))");
    EXPECT_EQ((i32 + u32).type(), Int(32));
    EXPECT_EQ((i64 + u32).type(), Int(64));
    EXPECT_EQ((u64 + i8).type(), Int(64));
    EXPECT_EQ((i16 * u8).type(), Int(16));
}

TEST(TypeCoercion, TwoUnsignedGiveTheWiderUnsigned) {
    EXPECT_EQ((u8 + u32).type(), UInt(32));
    EXPECT_EQ(to_string(u8 + u32), "(uint32(uint8) + uint32)");
    EXPECT_EQ((u16 - u8).type(), UInt(16));
}

TEST(TypeCoercion, TwoSignedGiveTheWiderSigned) {
    EXPECT_EQ((i8 + i32).type(), Int(32));
    EXPECT_EQ(to_string(i8 + i32), "(int32(int8) + int32)");
}

TEST(TypeCoercion, IntegerWithFloatGivesTheFloat) {
    EXPECT_EQ((u8 + f32).type(), Float(32));
    EXPECT_EQ(to_string(u8 + f32), "(float32(uint8) + float32)");
    EXPECT_EQ((i64 * f32).type(), Float(32));
    EXPECT_EQ((f64 - i8).type(), Float(64));
}

TEST(TypeCoercion, TwoFloatsGiveTheWider) {
    EXPECT_EQ((f64 + f32).type(), Float(64));
    EXPECT_EQ(to_string(f64 + f32), "(float64 + float64(float32))");
    EXPECT_EQ((f32 * f64).type(), Float(64));
}

TEST(TypeCoercion, CppIntTakesTheExprTypeWhenRepresentable) {
    EXPECT_EQ((5 + u8).type(), UInt(8));
    EXPECT_EQ(to_string(5 + u8), "((uint8)5 + uint8)");
    EXPECT_EQ((u8 + 255).type(), UInt(8));
    EXPECT_EQ((i16 * 3).type(), Int(16));
    EXPECT_EQ(to_string(i16 * 3), "(int16*(int16)3)");
    EXPECT_EQ((f64 + 1).type(), Float(64));
    EXPECT_EQ((u8 / 2).type(), UInt(8));
    EXPECT_EQ((i8 < 3).type(), Bool());
    EXPECT_EQ(min(u8, 3).type(), UInt(8));
    EXPECT_EQ(max(7, i16).type(), Int(16));
}

TEST(TypeCoercion, CppIntThatDoesNotFitIsAnError) {
    // Halide 14: "Integer constant 300 will be implicitly coerced to type uint8, which changes
    // its value". Loom must refuse it too rather than silently wrap.
    try {
        Expr e = u8 + 300;
        ADD_FAILURE() << "uint8 + 300 gave " << e;
    } catch (const CompileError &e) {
        EXPECT_THAT(e.what(), HasSubstr("300"));
        EXPECT_THAT(e.what(), HasSubstr("uint8"));
    }
    EXPECT_THROW(u8 + (-1), CompileError);
    EXPECT_THROW(i8 * 200, CompileError);
}

TEST(TypeCoercion, IntExprFollowsTheExprRules) {
    // An Expr holding an int32 constant is an int32 operand, not a C++ int: Halide 14 gives
    // int32 for Expr(5) + uint8 and Expr(300) + uint8 alike.
    EXPECT_EQ((Expr(5) + u8).type(), Int(32));
    EXPECT_EQ(to_string(Expr(5) + u8), "(5 + int32(uint8))");
    EXPECT_EQ((Expr(300) + u8).type(), Int(32));
}

TEST(TypeCoercion, CppFloatIsAFloat32Operand) {
    EXPECT_EQ((u8 + 2.5f).type(), Float(32));
    EXPECT_EQ(to_string(u8 + 2.5f), "(float32(uint8) + 2.5f)");
    EXPECT_EQ((f64 + 2.5f).type(), Float(64));
    EXPECT_EQ((u8 * 2.0f).type(), Float(32));
}

TEST(TypeCoercion, ComparisonsGiveBool) {
    EXPECT_EQ((u8 < u16).type(), Bool());
    EXPECT_EQ((f32 == i32).type(), Bool());
    EXPECT_EQ(to_string(f32 == i32), "(float32 == float32(int32))");
    Expr vec = Internal::Ramp::make(i32, Expr(1), 4);
    EXPECT_EQ((vec < 3).type(), Bool(4));
}

TEST(TypeCoercion, ScalarIsBroadcastToTheVectorsLanes) {
    Expr vec = Internal::Ramp::make(i32, Expr(1), 4);
    EXPECT_EQ((vec + i32).type(), Int(32, 4));
    EXPECT_EQ(to_string(vec + i32), "(ramp(int32, 1, 4) + x4(int32))");
    EXPECT_EQ((vec + f32).type(), Float(32, 4));
}

TEST(TypeCoercion, UnaryMinusKeepsTheType) {
    EXPECT_EQ((-u8).type(), UInt(8));
    EXPECT_EQ((-i16).type(), Int(16));
}

TEST(TypeCoercion, AbsOfSignedIsUnsigned) {
    EXPECT_EQ(abs(i8).type(), UInt(8));
    EXPECT_EQ(abs(i32).type(), UInt(32));
    EXPECT_EQ(abs(u16).type(), UInt(16));
    EXPECT_EQ(abs(f32).type(), Float(32));
    EXPECT_EQ(absd(i8, i8).type(), UInt(8));
    EXPECT_EQ(absd(u8, u8).type(), UInt(8));
    EXPECT_EQ(absd(f32, f32).type(), Float(32));
}

TEST(TypeCoercion, ShiftsKeepTheTypeOfTheValue) {
    EXPECT_EQ((i16 >> 3).type(), Int(16));
    EXPECT_EQ(to_string(i16 >> 3), "shift_right(int16, (int16)3)");
    EXPECT_EQ((u8 << u8).type(), UInt(8));
    EXPECT_EQ((u8 >> 2).type(), UInt(8));
    // A narrower amount is widened to the value's width, keeping its signedness.
    EXPECT_EQ((i16 << i8).type(), Int(16));
    EXPECT_EQ(to_string(i16 << i8), "shift_left(int16, int16(int8))");
    EXPECT_EQ((u32 << u8).type(), UInt(32));
}

TEST(TypeCoercion, BitwiseOperators) {
    EXPECT_EQ((i8 & 3).type(), Int(8));
    EXPECT_EQ((u8 & u16).type(), UInt(16));
    EXPECT_EQ(to_string(u8 | u16), "bitwise_or(uint16(uint8), uint16)");
    EXPECT_EQ((~u8).type(), UInt(8));
    // Halide 14: "Arguments to bitwise and must be both be signed or both be unsigned".
    EXPECT_THROW(i8 & u8, CompileError);
    EXPECT_THROW(f32 & i32, CompileError);
}

TEST(TypeCoercion, SelectTakesTheValueType) {
    EXPECT_EQ(select(i32 > 0, u8, 3).type(), UInt(8));
    EXPECT_EQ(to_string(select(i32 > 0, u8, 3)), "select((int32 > 0), uint8, (uint8)3)");
    EXPECT_EQ(select(i32 > 0, f32, 1).type(), Float(32));
    EXPECT_EQ(select(i32 > 0, 0, i16).type(), Int(16));
}

TEST(TypeCoercion, ClampAndLerpKeepTheValueType) {
    EXPECT_EQ(clamp(u8, 1, 200).type(), UInt(8));
    EXPECT_EQ(clamp(f32, 0, 1).type(), Float(32));
    EXPECT_EQ(lerp(u8, u8, u8).type(), UInt(8));
    EXPECT_EQ(lerp(u8, u8, 0.5f).type(), UInt(8));
    EXPECT_EQ(lerp(f32, f32, 0.5f).type(), Float(32));
}

TEST(TypeCoercion, MathFunctionsTakeFloats) {
    EXPECT_EQ(sqrt(u8).type(), Float(32));
    EXPECT_EQ(sqrt(i32).type(), Float(32));
    EXPECT_EQ(sqrt(f64).type(), Float(64));
    EXPECT_EQ(floor(f64).type(), Float(64));
    EXPECT_EQ(exp(f32).type(), Float(32));
    // pow and atan2 take the type of their first argument (Halide 14).
    EXPECT_EQ(pow(f64, f32).type(), Float(64));
    EXPECT_EQ(pow(f32, f64).type(), Float(32));
    EXPECT_EQ(atan2(f64, f32).type(), Float(64));
    EXPECT_EQ(atan2(f32, f64).type(), Float(32));
}

TEST(TypeCoercion, CastOfAConstantFolds) {
    EXPECT_EQ(to_string(cast<uint8_t>(Expr(300))), "(uint8)44");
    EXPECT_EQ(to_string(cast<float>(Expr(3))), "3.0f");
    EXPECT_EQ(to_string(cast<int16_t>(i32)), "int16(int32)");
    EXPECT_TRUE(cast<int32_t>(i32).same_as(i32));
}

}  // namespace
}  // namespace loom
