// Each user mistake must throw a loom::Error (a std::exception) whose message names the object
// involved, so that the user can find it: a Func, a Var, a Buffer, an ImageParam. Objects get
// distinctive names below so that a match on the name cannot be an accident.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <typeinfo>

#include <loom.h>

namespace {

using namespace loom;
using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

static_assert(std::is_base_of<std::exception, Error>::value, "loom::Error must be a std::exception");
static_assert(std::is_base_of<Error, CompileError>::value, "CompileError must be a loom::Error");
static_assert(std::is_base_of<Error, RuntimeError>::value, "RuntimeError must be a loom::Error");

/** Runs `body`, which must throw an E. Returns its message; otherwise a description of what
 * happened instead, which then shows in the failed EXPECT_THAT. */
template<typename E, typename Body>
std::string message_of(Body body) {
    try {
        body();
    } catch (const E &e) {
        return e.what();
    } catch (const std::exception &e) {
        return std::string("<expected a ") + typeid(E).name() + ", but got a " + typeid(e).name() +
               ": " + e.what() + ">";
    } catch (...) {
        return "<threw something that is not a std::exception>";
    }
    return "<no exception was thrown>";
}

TEST(UserErrors, FuncCalledWithTheWrongNumberOfArguments) {
    Var x("x"), y("y");
    Func two_d("two_d"), g("g");
    two_d(x, y) = x + y;
    std::string message = message_of<CompileError>([&] { g(x) = two_d(x) + 1; });
    EXPECT_THAT(message, HasSubstr("two_d"));
    EXPECT_THAT(message, HasSubstr("2"));
    EXPECT_THAT(message, HasSubstr("1"));
}

TEST(UserErrors, CallingAnUndefinedFunc) {
    Var x("x");
    Func never_defined("never_defined"), g("g");
    EXPECT_THAT(message_of<CompileError>([&] { g(x) = never_defined(x) + 1; }),
                HasSubstr("never_defined"));
}

TEST(UserErrors, RealizingAnUndefinedFunc) {
    Func empty_func("empty_func");
    EXPECT_THAT(message_of<Error>([&] { empty_func.realize({4}); }), HasSubstr("empty_func"));
}

TEST(UserErrors, ImageParamNeverSet) {
    ImageParam unset_input(UInt(8), 1, "unset_input");
    Var x("x");
    Func f("f");
    f(x) = unset_input(x) * 2;
    EXPECT_THAT(message_of<Error>([&] { f.realize({4}); }), HasSubstr("unset_input"));
}

TEST(UserErrors, OutputBufferOfTheWrongType) {
    Var x("x");
    Func int_producer("int_producer");
    int_producer(x) = x * 2;
    Buffer<float> float_output(std::vector<int>{4}, "float_output");
    std::string message = message_of<Error>([&] { int_producer.realize(float_output); });
    EXPECT_THAT(message, AnyOf(HasSubstr("int_producer"), HasSubstr("float_output")));
    EXPECT_THAT(message, AllOf(HasSubstr("int32"), HasSubstr("float32")));
}

TEST(UserErrors, OutputBufferWithTheWrongDimensions) {
    Var x("x");
    Func one_d_func("one_d_func");
    one_d_func(x) = x;
    Buffer<int32_t> two_d_buffer(std::vector<int>{4, 4}, "two_d_buffer");
    std::string message = message_of<Error>([&] { one_d_func.realize(two_d_buffer); });
    EXPECT_THAT(message, AnyOf(HasSubstr("one_d_func"), HasSubstr("two_d_buffer")));
    EXPECT_THAT(message, HasSubstr("dimension"));
}

TEST(UserErrors, RealizeWithTheWrongNumberOfSizes) {
    Var x("x"), y("y");
    Func planar("planar");
    planar(x, y) = x + y;
    std::string message = message_of<Error>([&] { planar.realize({10}); });
    EXPECT_THAT(message, HasSubstr("planar"));
}

TEST(UserErrors, InputBufferReadOutOfBoundsAtRunTime) {
    Buffer<int32_t> small_input(std::vector<int>{10}, "small_input");
    Var x("x");
    Func shifted("shifted");
    shifted(x) = small_input(x + 5);
    // Needs small_input(5) .. small_input(14), but it holds 0 .. 9.
    std::string message = message_of<RuntimeError>([&] { shifted.realize({10}); });
    EXPECT_THAT(message, HasSubstr("small_input"));
}

TEST(UserErrors, NegativeCompileThreads) {
    Var x("x");
    Func f("f");
    f(x) = x;
    Pipeline p(f);
    CompileOptions options;
    options.compile_threads = -2;
    std::string message = message_of<Error>([&] { p.set_options(options); });
    EXPECT_THAT(message, HasSubstr("compile_threads is -2"));
    EXPECT_THAT(message, HasSubstr("0 for one per core"));
}

TEST(UserErrors, ImageParamBufferTooSmallAtRunTime) {
    ImageParam tiny_image(Float(32), 2, "tiny_image");
    Buffer<float> pixel_store(std::vector<int>{4, 4}, "pixel_store");
    tiny_image.set(pixel_store);
    Var x("x"), y("y");
    Func f("f");
    f(x, y) = tiny_image(x, y + 1);
    std::string message = message_of<RuntimeError>([&] { f.realize({4, 4}); });
    EXPECT_THAT(message, AnyOf(HasSubstr("tiny_image"), HasSubstr("pixel_store")));
}

TEST(UserErrors, UndefinedVarOnTheRight) {
    Var x("x"), stray("stray");
    Func consumer("consumer");
    std::string message = message_of<CompileError>([&] { consumer(x) = x + stray; });
    EXPECT_THAT(message, HasSubstr("stray"));
    EXPECT_THAT(message, HasSubstr("consumer"));
}

TEST(UserErrors, NonVarOnTheLeftOfAPureDefinition) {
    Var x("x");
    Func lhs_expr("lhs_expr"), lhs_const("lhs_const");
    EXPECT_THAT(message_of<CompileError>([&] { lhs_expr(x + 1) = 3; }),
                AllOf(HasSubstr("lhs_expr"), HasSubstr("Var")));
    EXPECT_THAT(message_of<CompileError>([&] { lhs_const(Expr(0)) = 3; }),
                AllOf(HasSubstr("lhs_const"), HasSubstr("Var")));
}

TEST(UserErrors, SameVarTwiceOnTheLeft) {
    Var x("x");
    Func diagonal("diagonal");
    EXPECT_THAT(message_of<CompileError>([&] { diagonal(x, x) = x; }),
                AllOf(HasSubstr("diagonal"), HasSubstr("x")));
}

TEST(UserErrors, ImageParamSetToABufferOfTheWrongType) {
    ImageParam rgb_input(UInt(8), 2, "rgb_input");
    Buffer<float> float_pixels(std::vector<int>{4, 4}, "float_pixels");
    std::string message = message_of<CompileError>([&] { rgb_input.set(float_pixels); });
    EXPECT_THAT(message, HasSubstr("rgb_input"));
    EXPECT_THAT(message, AllOf(HasSubstr("uint8"), HasSubstr("float32")));
}

TEST(UserErrors, ImageParamSetToABufferOfTheWrongDimensions) {
    ImageParam rgb_input(UInt(8), 2, "rgb_input");
    Buffer<uint8_t> volume(std::vector<int>{4, 4, 3}, "volume");
    std::string message = message_of<CompileError>([&] { rgb_input.set(volume); });
    EXPECT_THAT(message, HasSubstr("rgb_input"));
    EXPECT_THAT(message, HasSubstr("dimensions"));
}

TEST(UserErrors, ImageParamCalledWithTheWrongNumberOfCoordinates) {
    ImageParam gray(UInt(8), 2, "gray");
    Var x("x");
    Func f("f");
    EXPECT_THAT(message_of<CompileError>([&] { f(x) = gray(x); }), HasSubstr("gray"));
}

TEST(UserErrors, BufferCalledWithTheWrongNumberOfCoordinates) {
    Buffer<int32_t> samples(std::vector<int>{8}, "samples");
    Var x("x"), y("y");
    Func f("f");
    EXPECT_THAT(message_of<CompileError>([&] { f(x, y) = samples(x, y); }), HasSubstr("samples"));
}

TEST(UserErrors, DefinitionWithAnUndefinedExpr) {
    Expr undefined;
    Var x("x");
    Func gets_nothing("gets_nothing");
    EXPECT_THAT(message_of<CompileError>([&] { gets_nothing(x) = undefined; }),
                HasSubstr("gets_nothing"));
    EXPECT_THAT(message_of<CompileError>([&] { (void)(x + undefined); }), HasSubstr("undefined"));
    EXPECT_THAT(message_of<CompileError>([&] { (void)sqrt(undefined); }), HasSubstr("sqrt"));
}

TEST(UserErrors, FuncCalledWithAFloatCoordinate) {
    Var x("x");
    Func int_indexed("int_indexed"), g("g");
    int_indexed(x) = x;
    EXPECT_THAT(message_of<CompileError>([&] { g(x) = int_indexed(cast<float>(x)); }),
                AllOf(HasSubstr("int_indexed"), HasSubstr("float32")));
}

TEST(UserErrors, TupleFuncUsedAsASingleValue) {
    Var x("x");
    Func two_values("two_values"), g("g");
    two_values(x) = Tuple(x, x * 2);
    EXPECT_THAT(message_of<CompileError>([&] { g(x) = two_values(x) + 1; }),
                HasSubstr("two_values"));
    EXPECT_THAT(message_of<CompileError>([&] { g(x) = two_values(x)[2]; }),
                AllOf(HasSubstr("two_values"), HasSubstr("2")));
}

TEST(UserErrors, IntegerConstantNotRepresentableInTheExprType) {
    Var x("x");
    EXPECT_THAT(message_of<CompileError>([&] { (void)(cast<uint8_t>(x) + 300); }),
                AllOf(HasSubstr("300"), HasSubstr("uint8")));
}

TEST(UserErrors, SelectConditionIsNotBool) {
    Var x("x");
    EXPECT_THAT(message_of<CompileError>([&] { (void)select(x, 1, 2); }),
                HasSubstr("bool"));
}

TEST(UserErrors, BufferViewedAsTheWrongType) {
    Buffer<uint8_t> bytes(std::vector<int>{4}, "bytes");
    Buffer<> untyped = bytes;
    EXPECT_THAT(message_of<CompileError>([&] { (void)Buffer<float>(untyped); }),
                AllOf(HasSubstr("Buffer bytes"), HasSubstr("uint8"), HasSubstr("float32")));
}

TEST(UserErrors, PipelineStillWorksAfterAnError) {
    // A failed realize must leave the Func usable: the next correct run gives right values.
    Buffer<int32_t> shift_source(std::vector<int>{4}, "shift_source");
    for (int i = 0; i < 4; i++) shift_source(i) = i * 7;
    Param<int32_t> shift("shift");
    Var x("x");
    Func f("f");
    f(x) = shift_source(x + shift);
    shift.set(3);
    EXPECT_THAT(message_of<RuntimeError>([&] { f.realize({4}); }), HasSubstr("shift_source"));
    shift.set(0);
    Buffer<int32_t> out;
    ASSERT_NO_THROW(out = f.realize({4}));
    for (int i = 0; i < 4; i++) EXPECT_EQ(out(i), i * 7) << "at " << i;
}

TEST(UserErrors, RDomBoundsUsingAVarOrAFunc) {
    // As in Halide: the bounds are evaluated before any loop of the reduction (Loom used to
    // fail inside code generation, "Variable row_var is not bound").
    Var row_var("row_var"), x("x");
    std::string message = message_of<CompileError>([&] { RDom r(0, row_var % 5, "by_row"); });
    EXPECT_THAT(message, AllOf(HasSubstr("by_row"), HasSubstr("row_var"), HasSubstr("where()")));
    Func size_func("size_func");
    size_func(x) = x;
    message = message_of<CompileError>([&] { RDom r(size_func(0), 4, "by_func"); });
    EXPECT_THAT(message, AllOf(HasSubstr("by_func"), HasSubstr("size_func")));
    // Params and input sizes are what bounds are for.
    Param<int32_t> count("count");
    ImageParam input(Int(32), 1, "input");
    EXPECT_NO_THROW(RDom(count, input.width() - count, "by_param"));
}

}  // namespace

// scatter and gather: bundles of one definition have one size, do not nest, hold one type, and
// an atomic update does not store them.
TEST(UserErrors, ScatterAndGatherMisuses) {
    Var x("x");
    Func bundled("bundled");
    bundled(x) = x;
    EXPECT_THAT(message_of<CompileError>(
                    [&] { bundled(scatter(1, 2, 3)) = gather(bundled(0), bundled(1)); }),
                AllOf(HasSubstr("update definition 0 of Func bundled"), HasSubstr("3 and 2")));
    EXPECT_THAT(message_of<CompileError>([&] { bundled(scatter(1, scatter(2, 3))) = 0; }),
                AllOf(HasSubstr("bundled"), HasSubstr("do not nest")));
    EXPECT_THAT(message_of<CompileError>([&] { (void)gather(Expr(1), Expr(2.5f)); }),
                AllOf(HasSubstr("gather"), HasSubstr("float32"), HasSubstr("one type")));
    Func counted("counted");
    counted(x) = 0;
    counted(scatter(1, 2)) += 1;
    counted.update(0).atomic();
    EXPECT_THAT(message_of<CompileError>([&] { counted.realize({4}); }),
                AllOf(HasSubstr("counted"), HasSubstr("atomic"), HasSubstr("scatter")));
    // The refused definitions left nothing behind.
    Buffer<int> out = bundled.realize({4});
    EXPECT_EQ(out(3), 3);
}

// Halide 14 refuses these too (ApiNamesVsHalide.AnUpdatesPureVarsStandWhereThePureDefinitionHasThem):
// a Var on the left of an update is a pure Var only in the place the pure definition gives it.
TEST(UserErrors, UpdateWithAVarWhereThePureDefinitionHasAnother) {
    Var x("x"), y("y"), z("z");
    Func swapped_update("swapped_update");
    swapped_update(x, y) = x + y;
    EXPECT_THAT(message_of<CompileError>([&] { swapped_update(y, x) += 1; }),
                AllOf(HasSubstr("swapped_update"), HasSubstr("update definition 0"),
                      HasSubstr("argument 0"), HasSubstr("Var y"),
                      HasSubstr("swapped_update(x, y) has x there")));
    EXPECT_THAT(message_of<CompileError>([&] { swapped_update(x, z) += z; }),
                AllOf(HasSubstr("argument 1"), HasSubstr("Var z"), HasSubstr("has y there")));
    // The refused updates left nothing behind: the next one is update 0.
    EXPECT_NO_THROW(swapped_update(x, y) += 2);
    Buffer<int> out = swapped_update.realize({2, 2});
    EXPECT_EQ(out(1, 1), 4);
}

// Halide 14 refuses these too. Accepted, the update at the region's last point would read a
// point its earlier stages never computed there.
TEST(UserErrors, UpdateReadingItsOwnFuncAtAnotherPointOfAPureVar) {
    Var x("x"), y("y");
    RDom r(0, 4, "r");
    Func shifted_scan("shifted_scan");
    shifted_scan(x, y) = x + y;
    shifted_scan(x, y) += 1;
    std::string message =
        message_of<CompileError>([&] { shifted_scan(x, y) = shifted_scan(x + 1, y) * 10; });
    EXPECT_THAT(message, AllOf(HasSubstr("shifted_scan"), HasSubstr("update definition 1"),
                               HasSubstr("argument 0"), HasSubstr("pure Var x")));
    // A pure Var moved to another argument is refused the same way.
    Func transposed("transposed");
    transposed(x, y) = x - y;
    EXPECT_THAT(message_of<CompileError>([&] { transposed(x, y) = transposed(y, x); }),
                AllOf(HasSubstr("transposed"), HasSubstr("pure Var x")));
    // Along an RDom, any other point may be read; at the pure Vars' own places, any stage.
    Func scan("scan");
    scan(x, y) = x + y;
    scan(x, r) = scan(x, r - 1) + scan(x, r);
    scan(x, y) = scan(x, y) * 2;
    Buffer<int> out = scan.realize({3, 4});
    for (int yy = 0; yy < 4; yy++) {
        for (int xx = 0; xx < 3; xx++) {
            int running = xx - 1;  // the pure value at y = -1, then the scan down to yy
            for (int k = 0; k <= yy; k++) running += xx + k;
            EXPECT_EQ(out(xx, yy), running * 2) << "at " << xx << ", " << yy;
        }
    }
}
