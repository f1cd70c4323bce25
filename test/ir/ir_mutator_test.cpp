// IRMutator rebuilds only the path to what changed: every subtree it did not change is the
// very same node as before (same_as), and a mutation that changes nothing returns the input.
#include <gtest/gtest.h>

#include "dsl/IR.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {
namespace {

Expr var(const std::string &name) { return Variable::make(Int(32), name); }
Expr i32(int v) { return IntImm::make(Int(32), v); }

/** Replaces every Variable of one name by a constant. */
class ReplaceVariable : public IRMutator {
public:
    ReplaceVariable(std::string name, Expr replacement)
        : name(std::move(name)), replacement(std::move(replacement)) {}

protected:
    using IRMutator::visit;
    Expr visit(const Variable *op) override { return op->name == name ? replacement : Expr(op); }

private:
    std::string name;
    Expr replacement;
};

TEST(IRMutator, IdentityMutationReturnsTheSameExpr) {
    // ((x + 1) * (y - 2)) / max(x, y)
    Expr e = Div::make(Mul::make(Add::make(var("x"), i32(1)), Sub::make(var("y"), i32(2))),
                       Max::make(var("x"), var("y")));
    IRMutator identity;
    EXPECT_TRUE(identity.mutate(e).same_as(e));
    EXPECT_TRUE(ReplaceVariable("z", i32(0)).mutate(e).same_as(e));
}

TEST(IRMutator, UnchangedSiblingIsShared) {
    Expr lhs = Add::make(var("x"), i32(1));
    Expr rhs = Sub::make(var("y"), i32(2));
    Expr e = Mul::make(lhs, rhs);

    Expr result = ReplaceVariable("x", i32(7)).mutate(e);

    EXPECT_EQ(to_string(e), "((x + 1)*(y - 2))");
    EXPECT_EQ(to_string(result), "((7 + 1)*(y - 2))");
    const Mul *mul = result.as<Mul>();
    ASSERT_NE(mul, nullptr);
    EXPECT_FALSE(result.same_as(e));
    EXPECT_FALSE(mul->a.same_as(lhs));
    EXPECT_TRUE(mul->b.same_as(rhs)) << "the untouched (y - 2) must be shared, not copied";
    // The constant 1 in x + 1 was not touched either.
    EXPECT_TRUE(mul->a.as<Add>()->b.same_as(lhs.as<Add>()->b));
}

TEST(IRMutator, SelectLetAndCastShareUnchangedParts) {
    Expr cond = LT::make(var("x"), i32(0));
    Expr t = Cast::make(UInt(8), var("y"));
    Expr f = Cast::make(UInt(8), var("x"));
    Expr sel = Select::make(cond, t, f);
    Expr let = Let::make("t", sel, Cast::make(UInt(8), var("z")));

    Expr result = ReplaceVariable("x", i32(3)).mutate(let);

    EXPECT_EQ(to_string(result), "(let t = select((3 < 0), uint8(y), uint8(3)) in uint8(z))");
    const Let *l = result.as<Let>();
    ASSERT_NE(l, nullptr);
    EXPECT_TRUE(l->body.same_as(let.as<Let>()->body));
    const Select *s = l->value.as<Select>();
    ASSERT_NE(s, nullptr);
    EXPECT_TRUE(s->true_value.same_as(t));
    EXPECT_FALSE(s->false_value.same_as(f));
}

TEST(IRMutator, CallKeepsItsIntrinsicOpAndSharesUnchangedArgs) {
    Expr y = var("y");
    Expr e = Call::make_intrinsic(Int(32), Call::bitwise_and, {var("x"), y});

    Expr result = ReplaceVariable("x", i32(12)).mutate(e);

    const Call *call = result.as<Call>();
    ASSERT_NE(call, nullptr);
    EXPECT_TRUE(call->is_intrinsic(Call::bitwise_and));
    EXPECT_TRUE(call->args[1].same_as(y));
    EXPECT_EQ(to_string(result), "bitwise_and(12, y)");
}

TEST(IRMutator, StmtOnlyRebuildsThePathToTheChange) {
    // for (x, 0, n) { f[x] = x * 2 }  ;  g[0] = 1
    Stmt store = Store::make("f", Mul::make(var("x"), i32(2)), var("x"));
    Stmt loop = For::make("x", i32(0), var("n"), ForType::Serial, DeviceAPI::Host, store);
    Stmt other = Store::make("g", i32(1), i32(0));
    Stmt block = Block::make(loop, other);

    Stmt result = ReplaceVariable("n", i32(16)).mutate(block);

    const Block *b = result.as<Block>();
    ASSERT_NE(b, nullptr);
    EXPECT_TRUE(b->rest.same_as(other));
    const For *f = b->first.as<For>();
    ASSERT_NE(f, nullptr);
    EXPECT_TRUE(f->body.same_as(store)) << "the loop body did not use n";
    EXPECT_TRUE(f->min.same_as(loop.as<For>()->min));
    EXPECT_EQ(to_string(f->extent), "16");
    EXPECT_EQ(to_string(result), "for (x, 0, 16) {\n"
                                 "  f[x] = (x*2)\n"
                                 "}\n"
                                 "g[0] = 1\n");
}

TEST(IRMutator, IdentityMutationReturnsTheSameStmt) {
    Stmt body = IfThenElse::make(LT::make(var("x"), i32(5)), Store::make("f", var("x"), var("x")),
                                 Evaluate::make(var("x")));
    Stmt s = LetStmt::make("n", i32(8),
                           For::make("x", i32(0), var("n"), ForType::Parallel, DeviceAPI::Host, body));
    IRMutator identity;
    EXPECT_TRUE(identity.mutate(s).same_as(s));
}

}  // namespace
}  // namespace Internal
}  // namespace loom
