// IR nodes: make() builds a node of the right kind and type, as<T>() downcasts to exactly that
// kind, constants are stored wrapped to their type, and make() rejects operands that disagree.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <type_traits>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {
namespace {

using ::testing::HasSubstr;

// Whether e is a T node. Taking e by reference keeps a temporary argument alive for the whole
// assertion: the handles' rule (no node pointer from a temporary) is kept by naming it here.
template <typename T, typename Handle> bool is_a(const Handle &e) {
    return e.template as<T>() != nullptr;
}

// The value field of e's T node (IntImm, UIntImm, FloatImm), read while e is alive.
template <typename T> auto value_of(const Expr &e) -> decltype(e.as<T>()->value) {
    const T *node = e.as<T>();
    EXPECT_NE(node, nullptr);
    return node ? node->value : decltype(node->value)();
}

// Whether as_const_int / as<T>() accept an argument of type E (as an expression of that type).
template <typename E, typename = void> struct takes_const_int : std::false_type {};
template <typename E>
struct takes_const_int<E, std::void_t<decltype(as_const_int(std::declval<E>()))>> : std::true_type {
};
template <typename E, typename = void> struct takes_downcast : std::false_type {};
template <typename E>
struct takes_downcast<E, std::void_t<decltype(std::declval<E>().template as<IntImm>())>>
    : std::true_type {};

// A pointer into a node is only taken from a handle that outlives the statement: on a temporary
// Expr (a call's result) the node can be freed before the pointer is read, as happened in
// PruneEmptyLoops and Bounds (AddressSanitizer: heap-use-after-free). The rule is the compiler's.
TEST(IRNodes, NodePointersAreNotTakenFromTemporaries) {
    static_assert(takes_const_int<const Expr &>::value && takes_const_int<Expr &>::value);
    static_assert(!takes_const_int<Expr>::value && !takes_const_int<Expr &&>::value);
    static_assert(takes_downcast<const Expr &>::value && takes_downcast<Expr &>::value);
    static_assert(!takes_downcast<Expr>::value && !takes_downcast<Expr &&>::value);
    // The value forms take anything, and give the value itself.
    EXPECT_EQ(const_int_value(Add::make(IntImm::make(Int(32), 7), IntImm::make(Int(32), 0))),
              std::nullopt);
    EXPECT_EQ(const_int_value(IntImm::make(Int(32), 7)), 7);
    EXPECT_EQ(const_float_value(Broadcast::make(FloatImm::make(Float(32), 0.5), 4)), 0.5);
}

Expr var(const std::string &name, Type t = Int(32)) { return Variable::make(t, name); }

// A handle assigned a handle that lives inside the node it held (a node's operand): the
// operand's node is kept before the old node is released, which frees the operand's handle.
TEST(IRNodes, AssigningANodesOwnOperandKeepsTheOperand) {
    Expr x = Variable::make(Int(32), "x");
    Expr e = Add::make(x * 3, Expr(1));
    x = Expr(); // the sum's operands are now held by the sum alone
    e = e.as<Add>()->a;
    ASSERT_TRUE(is_a<Mul>(e)) << e;
    EXPECT_EQ(to_string(e), "(x*3)");
    Stmt s = Block::make(Evaluate::make(Expr(2)), Evaluate::make(Expr(3)));
    s = s.as<Block>()->rest;
    ASSERT_TRUE(is_a<Evaluate>(s));
}

TEST(IRNodes, AddMakeAndDowncast) {
    Expr x = var("x");
    Expr one = IntImm::make(Int(32), 1);
    Expr sum = Add::make(x, one);

    EXPECT_EQ(sum.type(), Int(32));
    EXPECT_EQ(sum.get()->node_type, IRNodeType::Add);
    const Add *add = sum.as<Add>();
    ASSERT_NE(add, nullptr);
    EXPECT_TRUE(add->a.same_as(x));
    EXPECT_TRUE(add->b.same_as(one));
    // Downcasting to any other kind gives nullptr.
    EXPECT_EQ(sum.as<Sub>(), nullptr);
    EXPECT_EQ(sum.as<Variable>(), nullptr);
    EXPECT_FALSE(is_a<Add>(Expr()));
}

TEST(IRNodes, EveryBinaryArithmeticNodeKeepsItsOperandType) {
    Expr a = var("a", UInt(16)), b = var("b", UInt(16));
    EXPECT_TRUE(is_a<Sub>(Sub::make(a, b)));
    EXPECT_TRUE(is_a<Mul>(Mul::make(a, b)));
    EXPECT_TRUE(is_a<Div>(Div::make(a, b)));
    EXPECT_TRUE(is_a<Mod>(Mod::make(a, b)));
    EXPECT_TRUE(is_a<Min>(Min::make(a, b)));
    EXPECT_TRUE(is_a<Max>(Max::make(a, b)));
    EXPECT_EQ(Mul::make(a, b).type(), UInt(16));
    EXPECT_EQ(Max::make(a, b).type(), UInt(16));
}

TEST(IRNodes, ComparisonsGiveBoolWithTheOperandsLanes) {
    Expr a = var("a", Float(32)), b = var("b", Float(32));
    EXPECT_EQ(LT::make(a, b).type(), Bool());
    EXPECT_TRUE(is_a<LT>(LT::make(a, b)));
    EXPECT_TRUE(is_a<GE>(GE::make(a, b)));
    EXPECT_TRUE(is_a<NE>(NE::make(a, b)));

    Expr v = Ramp::make(var("x"), IntImm::make(Int(32), 1), 4);
    Expr w = Broadcast::make(var("y"), 4);
    EXPECT_EQ(EQ::make(v, w).type(), Bool(4));
    EXPECT_EQ(And::make(EQ::make(v, w), LT::make(v, w)).type(), Bool(4));
    EXPECT_EQ(Not::make(EQ::make(v, w)).type(), Bool(4));
}

TEST(IRNodes, IntImmIsStoredWrappedToItsWidth) {
    // 300 does not fit in int8: it wraps to 300 - 256 = 44, and 200 wraps to -56.
    EXPECT_EQ(value_of<IntImm>(IntImm::make(Int(8), 300)), 44);
    EXPECT_EQ(value_of<IntImm>(IntImm::make(Int(8), 200)), -56);
    EXPECT_EQ(value_of<IntImm>(IntImm::make(Int(16), -32769)), 32767);
    EXPECT_EQ(value_of<IntImm>(IntImm::make(Int(64), INT64_MIN)), INT64_MIN);
    EXPECT_EQ(IntImm::make(Int(8), 5).type(), Int(8));
}

TEST(IRNodes, UIntImmIsStoredZeroExtended) {
    EXPECT_EQ(value_of<UIntImm>(UIntImm::make(UInt(8), 263)), 7u);
    EXPECT_EQ(value_of<UIntImm>(UIntImm::make(UInt(16), uint64_t(-1))), 65535u);
    EXPECT_EQ(UIntImm::make(Bool(), 1).type(), Bool());
    EXPECT_EQ(value_of<UIntImm>(UIntImm::make(UInt(64), UINT64_MAX)), UINT64_MAX);
}

TEST(IRNodes, FloatImmIsRoundedToItsPrecision) {
    EXPECT_EQ(value_of<FloatImm>(FloatImm::make(Float(32), 0.1)), (double)0.1f);
    EXPECT_EQ(value_of<FloatImm>(FloatImm::make(Float(64), 0.1)), 0.1);
}

TEST(IRNodes, ExprConstructorsPickTheCppType) {
    EXPECT_EQ(Expr(int8_t(-3)).type(), Int(8));
    EXPECT_EQ(Expr(int16_t(-3)).type(), Int(16));
    EXPECT_EQ(Expr(7).type(), Int(32));
    EXPECT_EQ(Expr(int64_t(7)).type(), Int(64));
    EXPECT_EQ(Expr(uint8_t(7)).type(), UInt(8));
    EXPECT_EQ(Expr(uint16_t(7)).type(), UInt(16));
    EXPECT_EQ(Expr(uint32_t(7)).type(), UInt(32));
    EXPECT_EQ(Expr(uint64_t(7)).type(), UInt(64));
    EXPECT_EQ(Expr(2.5f).type(), Float(32));
    EXPECT_EQ(Expr(2.5).type(), Float(64));
    EXPECT_TRUE(is_a<IntImm>(Expr(int8_t(-3))));
    EXPECT_TRUE(is_a<UIntImm>(Expr(uint8_t(3))));
    EXPECT_TRUE(is_a<FloatImm>(Expr(2.5f)));
    EXPECT_TRUE(is_a<StringImm>(Expr(std::string("hi"))));
}

TEST(IRNodes, CastSelectLetLoadRampBroadcast) {
    Expr x = var("x");
    Expr c = Cast::make(UInt(8), x);
    EXPECT_EQ(c.type(), UInt(8));
    EXPECT_TRUE(c.as<Cast>()->value.same_as(x));

    Expr s = Select::make(LT::make(x, IntImm::make(Int(32), 0)), IntImm::make(Int(32), 0), x);
    EXPECT_EQ(s.type(), Int(32));
    ASSERT_NE(s.as<Select>(), nullptr);
    EXPECT_TRUE(s.as<Select>()->false_value.same_as(x));

    Expr l = Let::make("t", Cast::make(Float(32), x),
                       Mul::make(var("t", Float(32)), var("t", Float(32))));
    EXPECT_EQ(l.type(), Float(32));
    EXPECT_EQ(l.as<Let>()->name, "t");

    Expr ld = Load::make(Float(32), "buf", x);
    EXPECT_EQ(ld.type(), Float(32));
    EXPECT_EQ(ld.as<Load>()->name, "buf");

    Expr r = Ramp::make(x, IntImm::make(Int(32), 2), 8);
    EXPECT_EQ(r.type(), Int(32, 8));
    EXPECT_EQ(r.as<Ramp>()->lanes, 8);

    Expr b = Broadcast::make(FloatImm::make(Float(32), 1.0), 4);
    EXPECT_EQ(b.type(), Float(32, 4));
    EXPECT_EQ(Load::make(Float(32, 8), "buf", r).type(), Float(32, 8));
}

TEST(IRNodes, IntrinsicCallsRememberTheirOp) {
    Expr x = var("x");
    Expr e = Call::make_intrinsic(Int(32), Call::bitwise_and, {x, IntImm::make(Int(32), 3)});
    const Call *call = e.as<Call>();
    ASSERT_NE(call, nullptr);
    EXPECT_TRUE(call->is_intrinsic(Call::bitwise_and));
    EXPECT_FALSE(call->is_intrinsic(Call::bitwise_or));
    EXPECT_EQ(call->name, "bitwise_and");
    EXPECT_EQ(call->args.size(), 2u);
    EXPECT_TRUE(call->is_pure());

    // with_args keeps the op and everything but the arguments.
    Expr rebuilt = Call::with_args(call, {var("y"), IntImm::make(Int(32), 3)});
    EXPECT_TRUE(rebuilt.as<Call>()->is_intrinsic(Call::bitwise_and));
    EXPECT_EQ(rebuilt.as<Call>()->args[0].as<Variable>()->name, "y");
}

TEST(IRNodes, StmtMakeAndDowncast) {
    Expr x = var("x");
    Stmt store = Store::make("f", Mul::make(x, IntImm::make(Int(32), 2)), x);
    Stmt loop = For::make("x", IntImm::make(Int(32), 0), IntImm::make(Int(32), 10), ForType::Serial,
                          DeviceAPI::Host, store);
    const For *f = loop.as<For>();
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, "x");
    EXPECT_EQ(f->for_type, ForType::Serial);
    EXPECT_TRUE(f->body.same_as(store));
    EXPECT_EQ(loop.as<Store>(), nullptr);
    EXPECT_TRUE(is_a<Store>(store));
}

TEST(IRNodes, BlockSkipsUndefinedStatements) {
    Stmt a = Evaluate::make(var("a"));
    Stmt b = Evaluate::make(var("b"));
    EXPECT_TRUE(Block::make(Stmt(), a).same_as(a));
    EXPECT_TRUE(Block::make(a, Stmt()).same_as(a));

    Stmt chain = Block::make(std::vector<Stmt>{a, Stmt(), b});
    const Block *block = chain.as<Block>();
    ASSERT_NE(block, nullptr);
    EXPECT_TRUE(block->first.same_as(a));
    EXPECT_TRUE(block->rest.same_as(b));
}

TEST(IRNodes, CopiesShareTheNode) {
    Expr a = Add::make(var("x"), var("y"));
    Expr b = a;
    EXPECT_TRUE(a.same_as(b));
    EXPECT_FALSE(a.same_as(Add::make(var("x"), var("y"))));
}

TEST(IRNodes, MakeRejectsMismatchedOperandTypes) {
    // Binary nodes require identical operand types; the front end inserts the casts.
    try {
        Add::make(var("x"), FloatImm::make(Float(32), 1.0));
        ADD_FAILURE() << "Add::make(int32, float32) did not throw";
    } catch (const loom::InternalError &e) {
        EXPECT_THAT(e.what(), HasSubstr("int32"));
        EXPECT_THAT(e.what(), HasSubstr("float32"));
    }
    EXPECT_THROW(Select::make(var("x"), var("x"), var("x")),
                 loom::InternalError); // condition not bool
    EXPECT_THROW(Not::make(var("x")), loom::InternalError);
}

TEST(IRNodes, ConstantHelpers) {
    EXPECT_EQ(const_int_value(make_const(Int(8), 200)), -56);
    EXPECT_EQ(const_uint_value(make_const(UInt(8), 300)), 44u);
    EXPECT_EQ(const_float_value(make_const(Float(32), 0.5)), 0.5);
    Expr v = make_const(UInt(8, 4), 3);
    EXPECT_EQ(v.type(), UInt(8, 4));
    EXPECT_TRUE(is_a<Broadcast>(v));
    EXPECT_TRUE(is_const(v, 3));
    EXPECT_TRUE(is_const_one(make_one(Float(64))));
    EXPECT_TRUE(is_const_zero(make_zero(Int(16))));
    EXPECT_FALSE(is_const(var("x")));
    Expr x = var("x");
    EXPECT_EQ(as_const_int(x), nullptr);
    EXPECT_EQ(const_int_value(var("x")), std::nullopt);
    EXPECT_EQ(make_bool(true).type(), Bool());
}

} // namespace
} // namespace Internal
} // namespace loom
