// The IR printer's exact output: what a person reads when debugging a schedule, and what pass
// tests compare against.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "dsl/Function.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {
namespace {

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }
Expr i32(int v) { return IntImm::make(Int(32), v); }

TEST(IRPrinter, Constants) {
    EXPECT_EQ(to_string(i32(42)), "42");
    EXPECT_EQ(to_string(i32(-3)), "-3");
    EXPECT_EQ(to_string(IntImm::make(Int(16), 5)), "(int16)5");
    EXPECT_EQ(to_string(IntImm::make(Int(64), -1)), "(int64)-1");
    EXPECT_EQ(to_string(UIntImm::make(UInt(8), 7)), "(uint8)7");
    EXPECT_EQ(to_string(make_bool(true)), "true");
    EXPECT_EQ(to_string(make_bool(false)), "false");
    EXPECT_EQ(to_string(FloatImm::make(Float(32), 1.5)), "1.5f");
    EXPECT_EQ(to_string(FloatImm::make(Float(32), 2.0)), "2.0f");
    EXPECT_EQ(to_string(FloatImm::make(Float(32), 0.1)), "0.100000001f");
    EXPECT_EQ(to_string(FloatImm::make(Float(64), 0.1)), "0.10000000000000001");
    EXPECT_EQ(to_string(FloatImm::make(Float(64), 3.0)), "3.0");
    EXPECT_EQ(to_string(StringImm::make("hello")), "\"hello\"");
    EXPECT_EQ(to_string(Expr()), "(undefined)");
}

TEST(IRPrinter, ArithmeticIsFullyParenthesized) {
    Expr x = var("x"), y = var("y");
    EXPECT_EQ(to_string(Add::make(x, i32(1))), "(x + 1)");
    EXPECT_EQ(to_string(Add::make(Mul::make(x, i32(2)), i32(1))), "((x*2) + 1)");
    EXPECT_EQ(to_string(Sub::make(x, Div::make(y, i32(3)))), "(x - (y/3))");
    EXPECT_EQ(to_string(Mod::make(x, i32(4))), "(x % 4)");
    EXPECT_EQ(to_string(Min::make(x, i32(3))), "min(x, 3)");
    EXPECT_EQ(to_string(Max::make(Min::make(x, y), i32(0))), "max(min(x, y), 0)");
}

TEST(IRPrinter, LogicAndSelect) {
    Expr x = var("x"), y = var("y");
    Expr lt = LT::make(x, i32(3));
    EXPECT_EQ(to_string(lt), "(x < 3)");
    EXPECT_EQ(to_string(And::make(lt, GT::make(y, i32(2)))), "((x < 3) && (y > 2))");
    EXPECT_EQ(to_string(Or::make(EQ::make(x, y), NE::make(x, i32(0)))), "((x == y) || (x != 0))");
    EXPECT_EQ(to_string(Not::make(lt)), "!(x < 3)");
    EXPECT_EQ(to_string(Select::make(LT::make(x, i32(0)), i32(0), x)), "select((x < 0), 0, x)");
    EXPECT_EQ(to_string(LE::make(x, y)), "(x <= y)");
    EXPECT_EQ(to_string(GE::make(x, y)), "(x >= y)");
}

TEST(IRPrinter, CastsCallsAndBindings) {
    Expr x = var("x"), f = var("f", Float(32));
    EXPECT_EQ(to_string(Cast::make(UInt(8), x)), "uint8(x)");
    EXPECT_EQ(to_string(Reinterpret::make(UInt(32), f)), "reinterpret<uint32>(f)");
    EXPECT_EQ(to_string(Load::make(Float(32), "buf", Add::make(x, i32(1)))), "buf[(x + 1)]");
    EXPECT_EQ(to_string(Let::make("t", Add::make(x, i32(1)), Mul::make(var("t"), var("t")))),
              "(let t = (x + 1) in (t*t))");
    EXPECT_EQ(to_string(Call::make_intrinsic(Int(32), Call::shift_left, {x, i32(2)})),
              "shift_left(x, 2)");
    EXPECT_EQ(to_string(Call::make(Float(32), "sqrt_f32", {f}, Call::PureExtern)), "sqrt_f32(f)");
    EXPECT_EQ(to_string(Call::make(Int(32), "g", {x, var("y")}, Call::Halide)), "g(x, y)");

    // Element 1 of a Tuple-valued Func prints with its index.
    auto func = std::make_shared<FunctionContents>();
    func->name = "h";
    func->output_types = {Int(32), Float(32)};
    EXPECT_EQ(to_string(Call::make(Float(32), "h", {x}, Call::Halide, func, 1)), "h.1(x)");
}

TEST(IRPrinter, Vectors) {
    Expr ramp = Ramp::make(var("x"), i32(1), 4);
    EXPECT_EQ(to_string(ramp), "ramp(x, 1, 4)");
    EXPECT_EQ(to_string(Broadcast::make(i32(3), 8)), "x8(3)");
    EXPECT_EQ(to_string(Cast::make(Float(32, 4), ramp)), "float32x4(ramp(x, 1, 4))");
}

TEST(IRPrinter, LoopNest) {
    Expr fx = var("f.x"), fy = var("f.y");
    Stmt s = ProducerConsumer::make(
        "f", true,
        For::make("f.y", i32(0), i32(4), ForType::Serial, DeviceAPI::Host,
                  For::make("f.x", i32(0), i32(8), ForType::Parallel, DeviceAPI::Host,
                            Provide::make("f", {Add::make(fx, fy)}, {fx, fy}))));
    EXPECT_EQ(to_string(s),
              "produce f {\n"
              "  for (f.y, 0, 4) {\n"
              "    parallel (f.x, 0, 8) {\n"
              "      f(f.x, f.y) = (f.x + f.y)\n"
              "    }\n"
              "  }\n"
              "}\n");
}

TEST(IRPrinter, AllocateIfElseAndFree) {
    Expr n = var("n"), i = var("i");
    Stmt fill = For::make("i", i32(0), n, ForType::Vectorized, DeviceAPI::Host,
                          Store::make("tmp", Cast::make(Float(32), i), i));
    Stmt pick = IfThenElse::make(LT::make(n, i32(32)),
                                 Store::make("out", Load::make(Float(32), "tmp", i32(0)), i32(0)),
                                 Store::make("out", FloatImm::make(Float(32), 0.0), i32(0)));
    Stmt s = LetStmt::make(
        "n", i32(16),
        Allocate::make("tmp", Float(32), {n}, Block::make({fill, pick, Free::make("tmp")})));
    EXPECT_EQ(to_string(s),
              "let n = 16\n"
              "allocate tmp[float32 * n]\n"
              "vectorized (i, 0, n) {\n"
              "  tmp[i] = float32(i)\n"
              "}\n"
              "if ((n < 32)) {\n"
              "  out[0] = tmp[0]\n"
              "} else {\n"
              "  out[0] = 0.0f\n"
              "}\n"
              "free tmp\n");
}

TEST(IRPrinter, RealizeAssertTupleProvideAndGpuLoops) {
    Expr x = var("x");
    Stmt body = Block::make(
        AssertStmt::make(GT::make(var("n"), i32(0)), StringImm::make("n must be positive")),
        For::make("b", i32(0), i32(4), ForType::GPUBlock, DeviceAPI::CUDA,
                  Provide::make("g", {x, Mul::make(x, i32(2))}, {x})));
    Stmt s = Realize::make("g", {Int(32), Int(32)}, {Range(i32(0), i32(10)), Range(i32(0), i32(4))},
                           body);
    EXPECT_EQ(to_string(s), "realize g([0, 10], [0, 4]) {\n"
                            "  assert((n > 0), \"n must be positive\")\n"
                            "  gpu_block<cuda> (b, 0, 4) {\n"
                            "    g(x) = {x, (x*2)}\n"
                            "  }\n"
                            "}\n");
}

TEST(IRPrinter, OperatorsBuildWhatThePrinterShows) {
    // Going through the user-facing operators, with a Var-typed Variable.
    Expr x = var("x");
    EXPECT_EQ(to_string(x * 2 + 1), "((x*2) + 1)");
    EXPECT_EQ(to_string(select(x > 0, x, 1)), "select((x > 0), x, 1)");
    EXPECT_EQ(to_string(cast<uint8_t>(x)), "uint8(x)");
    EXPECT_EQ(to_string(min(x, 3)), "min(x, 3)");
    EXPECT_EQ(to_string(x + 1.5f), "(float32(x) + 1.5f)");
    EXPECT_EQ(to_string(sqrt(x)), "sqrt_f32(float32(x))");
    EXPECT_EQ(to_string(x & 3), "bitwise_and(x, 3)");

    std::ostringstream os;
    os << Float(32) << " " << UInt(8, 16);
    EXPECT_EQ(os.str(), "float32 uint8x16");
}

}  // namespace
}  // namespace Internal
}  // namespace loom
