// A pipeline's Funcs and RDoms are freed when the last handle to them goes. References inside
// a Func's own definition (an update that reads the Func, rfactor's merge) and inside an RDom's
// own where() condition (its RVars) do not keep it alive: owning, they would make a cycle no
// reference count frees (LeakSanitizer found one in every Generator with such an update).
#include <gtest/gtest.h>

#include <memory>

#include "E2ETestUtil.h"

namespace {

using namespace loom;
using Internal::FunctionContents;
using Internal::ReductionDomainContents;

TEST(Lifetime, FuncWithAnUpdateReadingItselfIsFreed) {
    std::weak_ptr<FunctionContents> prefix_sum, consumer;
    {
        Var x("x");
        RDom r(1, 9, "r");
        Func f("f"), g("g");
        f(x) = x * 2;
        f(r) = f(r - 1) + f(r);
        g(x) = f(x) + 1;
        prefix_sum = f.function();
        consumer = g.function();
        Buffer<int> out = g.realize({10});
        int running = 0;
        for (int i = 0; i < 10; i++) {
            running += i * 2;
            ASSERT_EQ(out(i), running + 1) << "at " << i;
        }
    }
    EXPECT_TRUE(prefix_sum.expired()) << "Func f, whose update reads f, outlived every handle";
    EXPECT_TRUE(consumer.expired());
}

TEST(Lifetime, RDomWithAWhereConditionIsFreed) {
    std::weak_ptr<ReductionDomainContents> domain;
    std::weak_ptr<FunctionContents> func;
    {
        Var x("x");
        RDom r(0, 16, "r");
        r.where(r.x <= x % 4);
        Func f("f");
        f(x) = 0;
        f(x) += r.x;
        domain = r.domain();
        func = f.function();
        Buffer<int> out = f.realize({8});
        for (int i = 0; i < 8; i++) {
            const int k = i % 4;
            ASSERT_EQ(out(i), k * (k + 1) / 2) << "at " << i;
        }
    }
    EXPECT_TRUE(domain.expired()) << "an RDom whose where() uses its own RVar outlived its handles";
    EXPECT_TRUE(func.expired());
}

TEST(Lifetime, RFactorIntermediateAndItsSourceAreFreed) {
    std::weak_ptr<FunctionContents> total, partial;
    {
        Var x("x"), u("u");
        RDom r(0, 64, "r");
        RVar ro("ro"), ri("ri");
        Func f("f");
        f() = 0;
        f() += r.x * 3;
        Func intm = f.update().split(r.x, ro, ri, 8).rfactor(ro, u);
        total = f.function();
        partial = intm.function();
        Buffer<int> out = f.realize({});
        ASSERT_EQ(out(), 3 * (63 * 64 / 2));
    }
    EXPECT_TRUE(total.expired()) << "f, whose rfactor'd update reads f, outlived its handles";
    EXPECT_TRUE(partial.expired());
}

} // namespace
