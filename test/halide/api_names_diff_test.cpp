// Halide 14 names Loom added for issue 35, each called the same way in both and compared:
// inline reductions over a named RDom, an RDom and an RVar printed, a one-element Tuple,
// ImageParam's edges, estimates, reset and Dimension::dim, Tuple element updates and undef,
// saturating_sum, repeat_image and constant_exterior's variadic bounds, infer_arguments, evaluate
// of a Tuple.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

namespace {

// sum / product / minimum / argmax / argmin taking the RDom first, one of them over an
// expression that reads no RVar (it counts the domain's points).
template <typename Func, typename Var, typename RDom, typename Buffer, typename Expr>
std::vector<int> reductions_over_named_rdom() {
    Var x("x");
    RDom r(0, 5, -1, 3, "r");
    Func f("f");
    f(x) = sum(r, x + r.x * r.y) + product(r, Expr(1) + (r.x % 2)) * 1000 +
           minimum(r, x * r.y) * 13 + argmax(r, r.x * 3 - r.y * r.y)[0] * 100000 +
           argmin(r, r.x + r.y)[1] * 300000 + sum(r, Expr(1)) * 1000000;
    Buffer out = f.realize({6});
    std::vector<int> v;
    for (int i = 0; i < 6; i++)
        v.push_back(out(i));
    return v;
}

} // namespace

TEST(ApiNamesVsHalide, ReductionsOverANamedRDom) {
    EXPECT_EQ((reductions_over_named_rdom<loom::Func, loom::Var, loom::RDom, loom::Buffer<int>,
                                          loom::Expr>()),
              (reductions_over_named_rdom<Halide::Func, Halide::Var, Halide::RDom,
                                          Halide::Buffer<int>, Halide::Expr>()));
    // maximum against C++: Halide 14's inline maximum(r.x - r.y * x) gives 4 for every x here
    // (its own update definition max(f(x), r.x - r.y * x) gives 4 + x, as C++ does).
    loom::Var x("x");
    loom::RDom r(0, 5, -1, 3, "r");
    loom::Func m("m");
    m(x) = maximum(r, r.x - r.y * x);
    loom::Buffer<int> out = m.realize({6});
    for (int i = 0; i < 6; i++) {
        int best = -1000;
        for (int ry = -1; ry < 2; ry++)
            for (int rx = 0; rx < 5; rx++)
                best = std::max(best, rx - ry * i);
        EXPECT_EQ(out(i), best) << i;
    }
}

TEST(ApiNamesVsHalide, RDomsAndRVarsPrintAsHalides) {
    std::ostringstream ls, hs;
    loom::RDom lr(0, 4, 2, 3, "dom");
    Halide::RDom hr(0, 4, 2, 3, "dom");
    ls << lr << lr.y;
    hs << hr << hr.y;
    EXPECT_EQ(ls.str(), hs.str());
    loom::RDom lc = lr;
    EXPECT_TRUE(lc.same_as(lr));
    EXPECT_FALSE(loom::RDom(0, 4, 2, 3, "dom").same_as(lr));
    EXPECT_EQ(Halide::RDom(hr).same_as(hr), true);
}

TEST(ApiNamesVsHalide, AOneElementTupleDefinesAFunc) {
    loom::Func lf("one");
    loom::Var lx("x");
    lf(lx) = loom::Tuple(lx * 5);
    Halide::Func hf("one");
    Halide::Var hx("x");
    hf(hx) = Halide::Tuple(hx * 5);
    loom::Buffer<int> lo = lf.realize({4});
    Halide::Buffer<int> ho = hf.realize({4});
    for (int i = 0; i < 4; i++)
        EXPECT_EQ(lo(i), ho(i));
}

TEST(ApiNamesVsHalide, ImageParamEdgesEstimatesAndReset) {
    loom::ImageParam lin(loom::Int(32), 2, "in");
    Halide::ImageParam hin(Halide::Int(32), 2, "in");
    lin.dim(1).set_estimate(3, 40);
    hin.dim(1).set_estimate(3, 40);
    const loom::Expr l_extent = lin.dim(0).dim(1).extent_estimate();
    const Halide::Expr h_extent = hin.dim(0).dim(1).extent_estimate();
    ASSERT_TRUE(loom::Internal::as_const_int(l_extent) && Halide::Internal::as_const_int(h_extent));
    EXPECT_EQ(*loom::Internal::as_const_int(l_extent), 40);
    EXPECT_EQ(*Halide::Internal::as_const_int(h_extent), 40);
    EXPECT_FALSE(lin.dim(0).min_estimate().defined());
    EXPECT_FALSE(hin.dim(0).min_estimate().defined());
    // The edges read the bound buffer's shape: out(x, y) = right - left + (bottom - top) * 100.
    loom::Func lf("edges");
    loom::Var lx("x"), ly("y");
    lf(lx, ly) = lin.right() - lin.left() + (lin.bottom() - lin.top()) * 100 + lx * 0 + ly * 0;
    Halide::Func hf("edges");
    Halide::Var hx("x"), hy("y");
    hf(hx, hy) = hin.right() - hin.left() + (hin.bottom() - hin.top()) * 100 + hx * 0 + hy * 0;
    loom::Buffer<int> lb(7, 5);
    lb.set_min(-2, 4);
    Halide::Buffer<int> hb(7, 5);
    hb.set_min(-2, 4);
    lin.set(lb);
    hin.set(hb);
    loom::Buffer<int> lo = lf.realize({2, 2});
    Halide::Buffer<int> ho = hf.realize({2, 2});
    EXPECT_EQ(lo(0, 0), ho(0, 0));
    EXPECT_EQ(lo(0, 0), 6 + 4 * 100);
    lin.reset();
    EXPECT_FALSE(lin.get().defined());
}

namespace {

// x as a float Expr in each language.
struct LoomFloat {
    using Expr_ = loom::Expr;
    loom::Expr e;
    LoomFloat(const loom::Expr &v) : e(loom::cast<float>(v)) {}
    operator loom::Expr() const { return e; }
};
struct HalideFloat {
    using Expr_ = Halide::Expr;
    Halide::Expr e;
    HalideFloat(const Halide::Expr &v) : e(Halide::cast<float>(v)) {}
    operator Halide::Expr() const { return e; }
};

// Splits with Halide's Predicate tails over an extent no factor divides, and a strict_float
// expression: the same values as Halide 14.
template <typename Func, typename Var, typename Buffer, typename TailStrategy, typename Float>
std::vector<float> predicated_and_strict() {
    Var x("x"), xo("xo"), xi("xi"), y("y"), yo("yo"), yi("yi");
    Func f("f");
    f(x, y) = strict_float(typename Float::Expr_(Float(x)) * 0.1f +
                           typename Float::Expr_(Float(y)) * 0.7f - 0.3f);
    f.split(x, xo, xi, 8, TailStrategy::Predicate)
        .split(y, yo, yi, 4, TailStrategy::PredicateStores);
    Buffer out = f.realize({13, 6});
    std::vector<float> v;
    for (int j = 0; j < 6; j++)
        for (int i = 0; i < 13; i++)
            v.push_back(out(i, j));
    return v;
}

} // namespace

TEST(ApiNamesVsHalide, PredicateTailsAndStrictFloat) {
    EXPECT_EQ((predicated_and_strict<loom::Func, loom::Var, loom::Buffer<float>, loom::TailStrategy,
                                     LoomFloat>()),
              (predicated_and_strict<Halide::Func, Halide::Var, Halide::Buffer<float>,
                                     Halide::TailStrategy, HalideFloat>()));
}

namespace {

// f(x)[i] = e and f(x)[i] += e (FuncTupleElementRef), Tuple-valued updates of an undefined and
// of a defined Func (+=, *=, -= with a FuncRef of a Tuple), undef in updates (an element whose
// value depends on one keeps its value; under a select, where the select picks the undef), and
// undef in pure definitions (the points it covers are written by an update alone). (Halide 14
// drops the select's condition where a later element of the Tuple is wholly undef, storing the
// other side everywhere: its RemoveUndef resets the condition per element. The conditional
// element comes last here, where Halide keeps it.)
#define TUPLE_ELEMENTS_AND_UNDEF(NS)                                                               \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Var x("x");                                                                                \
        RDom r(0, 4, "r"), s(0, 3, "s");                                                           \
        Func f("f"), g("g"), h("h"), k("k"), p("p"), out("out");                                   \
        f(x) = Tuple(x * 2, x + 100);                                                              \
        f(x)[1] = f(x)[0] * 3 + f(x)[1];                                                           \
        f(x)[0] += 7;                                                                              \
        g(x) += Tuple(x, x * x);                                                                   \
        g(x) *= Tuple(Expr(3), x + 1);                                                             \
        g(x) -= f(x);                                                                              \
        h(x) = Tuple(x, x);                                                                        \
        h(x) = Tuple(h(x)[0] + undef<int>(), select(x % 3 == 0, undef<int>(), x * 10));            \
        k(x) = undef<int>();                                                                       \
        k(r) = r * r + 5;                                                                          \
        p(x) = select(x < 3, undef<int>(), x);                                                     \
        p(s) = s * 100 + 1;                                                                        \
        k.compute_root();                                                                          \
        p.compute_root();                                                                          \
        out(x) = f(x)[0] + f(x)[1] * 1000 + g(x)[0] * 7 + g(x)[1] * 11 + h(x)[1] * 13 +            \
                 h(x)[0] * 17 + k(x % 4) * 19 + p(x) * 23;                                         \
        Buffer<int> result = out.realize({9});                                                     \
        std::vector<int> v;                                                                        \
        for (int i = 0; i < 9; i++)                                                                \
            v.push_back(result(i));                                                                \
        return v;                                                                                  \
    }()

} // namespace

TEST(ApiNamesVsHalide, TupleElementUpdatesAndUndef) {
    const std::vector<int> loom_values = TUPLE_ELEMENTS_AND_UNDEF(loom);
    const std::vector<int> halide_values = TUPLE_ELEMENTS_AND_UNDEF(Halide);
    EXPECT_EQ(loom_values, halide_values);
    // One point by hand: f(2) = (4 + 7, 4 * 3 + 102), g(2) = (2 * 3 - 11, 4 * 3 - 114),
    // h(2) = (20, 2), k(2) = 9, p(2) = 201.
    EXPECT_EQ(loom_values[2],
              11 + 114 * 1000 + (-5) * 7 + (-102) * 11 + 20 * 13 + 2 * 17 + 9 * 19 + 201 * 23);
}

namespace {

// saturating_sum: each step held to the type's range (uint8 and uint16 against Halide 14, whose
// code generation stops with an internal error on signed and float ones; int8, int32 and float
// against C++, where a sum that passes the largest value stays there until a negative term
// brings it down).
#define SATURATING_SUMS(NS)                                                                        \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Var x("x");                                                                                \
        RDom r(0, 8, "r");                                                                         \
        Func f("f");                                                                               \
        f(x) = cast<int>(saturating_sum(r, cast<uint8_t>(x * 40 + r * 30))) +                      \
               cast<int>(saturating_sum(cast<uint16_t>(r * 20000 + x))) * 1000;                    \
        Buffer<int> result = f.realize({7});                                                       \
        std::vector<int> v;                                                                        \
        for (int i = 0; i < 7; i++)                                                                \
            v.push_back(result(i));                                                                \
        return v;                                                                                  \
    }()

} // namespace

TEST(ApiNamesVsHalide, SaturatingSum) {
    const std::vector<int> loom_values = SATURATING_SUMS(loom);
    const std::vector<int> halide_values = SATURATING_SUMS(Halide);
    EXPECT_EQ(loom_values, halide_values);
    // Signed sums against C++: each step clamped to the type's range.
    loom::Var x("x");
    loom::RDom r(0, 8, "r");
    loom::Func g("g");
    g(x) =
        loom::cast<int>(loom::saturating_sum(loom::cast<int8_t>(r * 20 - x * 30 - 40))) +
        loom::saturating_sum(r, loom::select(r % 2 == 0, loom::Expr(2000000000), -1000000000 - x)) /
            1000 * 1000 +
        loom::cast<int>(loom::saturating_sum(r, loom::cast<float>(r) * 0.5f + x)) * 10;
    loom::Buffer<int> out = g.realize({7});
    for (int i = 0; i < 7; i++) {
        int int8_sum = 0;
        int64_t int32_sum = 0;
        for (int k = 0; k < 8; k++) {
            int8_sum = std::max(-128, std::min(127, int8_sum + (int8_t)(k * 20 - i * 30 - 40)));
            const int64_t term = k % 2 == 0 ? 2000000000 : -1000000000 - i;
            int32_sum =
                std::max<int64_t>(INT32_MIN, std::min<int64_t>(INT32_MAX, int32_sum + term));
        }
        EXPECT_EQ(out(i), int8_sum + (int)(int32_sum / 1000) * 1000 + (14 + 8 * i) * 10) << i;
    }
}

namespace {

// repeat_image (the input tiled over the plane), and constant_exterior with Halide's variadic
// bounds (min0, extent0, ...), of one value and of a Tuple, over a region reaching past the
// input on every side.
#define BOUNDARY_CONDITIONS(NS)                                                                    \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Buffer<int> in(5, 4, "in");                                                                \
        for (int y = 0; y < 4; y++)                                                                \
            for (int x = 0; x < 5; x++)                                                            \
                in(x, y) = x * 10 + y;                                                             \
        Var x("x"), y("y");                                                                        \
        Func tiled = BoundaryConditions::repeat_image(in);                                         \
        Func tiled_x = BoundaryConditions::repeat_image(in, {{1, 3}, {0, 4}});                     \
        Func constant = BoundaryConditions::constant_exterior(in, -1, 1, 3, 0, 4);                 \
        Func two("two");                                                                           \
        two(x, y) = Tuple(in(x, y), in(x, y) * 2);                                                 \
        Func pair = BoundaryConditions::constant_exterior(two, Tuple(-1, 5), 0, 5, 0, 4);          \
        Func f("f");                                                                               \
        f(x, y) = tiled(x, y) + tiled_x(x, y) * 1000 + constant(x, y) * 1000000 +                  \
                  (pair(x, y)[0] + pair(x, y)[1] * 100) * 7;                                       \
        Buffer<int> out(15, 12);                                                                   \
        out.set_min(-5, -4);                                                                       \
        f.realize(out);                                                                            \
        std::vector<int> v;                                                                        \
        for (int y = -4; y < 8; y++)                                                               \
            for (int x = -5; x < 10; x++)                                                          \
                v.push_back(out(x, y));                                                            \
        return v;                                                                                  \
    }()

} // namespace

TEST(ApiNamesVsHalide, RepeatImageAndVariadicBoundaryConditions) {
    const std::vector<int> loom_values = BOUNDARY_CONDITIONS(loom);
    const std::vector<int> halide_values = BOUNDARY_CONDITIONS(Halide);
    EXPECT_EQ(loom_values, halide_values);
    // repeat_image alone against C++: coordinates modulo the input's extents.
    loom::Buffer<int> in(5, 4, "in");
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++)
            in(x, y) = x * 10 + y;
    loom::Buffer<int> out(15, 12);
    out.set_min(-5, -4);
    loom::BoundaryConditions::repeat_image(in).realize(out);
    for (int y = -4; y < 8; y++)
        for (int x = -5; x < 10; x++)
            ASSERT_EQ(out(x, y), ((x % 5 + 5) % 5) * 10 + (y % 4 + 4) % 4) << x << ", " << y;
}

namespace {

// infer_arguments of a Func and of a Pipeline: buffers, then scalars, each by name; a Buffer
// read directly is embedded, not an argument. As "name:kind:dimensions:type" strings.
template <typename Func, typename Pipeline, typename Var, typename ImageParam, typename FloatParam,
          typename IntParam, typename Buffer, typename Type>
std::vector<std::vector<std::string>> inferred_arguments(Type f32, Type u8) {
    Buffer lut(10, "lut");
    ImageParam zin(f32, 2, "zin"), ain(u8, 1, "ain");
    FloatParam gain("gain");
    IntParam bias("bias");
    Var x("x"), y("y");
    Func f("f"), g("g"), none("none");
    f(x, y) = zin(x, y) * gain + ain(x) + lut(x) + bias;
    g(x) = ain(x) * 2;
    none(x) = x;
    std::vector<std::vector<std::string>> lists;
    for (const auto &args : {f.infer_arguments(), Pipeline({f, g}).infer_arguments(),
                             g.infer_arguments(), none.infer_arguments()}) {
        std::vector<std::string> list;
        for (const auto &a : args) {
            std::ostringstream s;
            s << a.name << ":" << (int)a.kind << ":" << (int)a.dimensions << ":" << a.type;
            list.push_back(s.str());
        }
        lists.push_back(list);
    }
    return lists;
}

} // namespace

TEST(ApiNamesVsHalide, InferArgumentsOfFuncsAndPipelines) {
    const auto loom_lists =
        inferred_arguments<loom::Func, loom::Pipeline, loom::Var, loom::ImageParam,
                           loom::Param<float>, loom::Param<int>, loom::Buffer<int>, loom::Type>(
            loom::Float(32), loom::UInt(8));
    const auto halide_lists =
        inferred_arguments<Halide::Func, Halide::Pipeline, Halide::Var, Halide::ImageParam,
                           Halide::Param<float>, Halide::Param<int>, Halide::Buffer<int>,
                           Halide::Type>(Halide::Float(32), Halide::UInt(8));
    EXPECT_EQ(loom_lists, halide_lists);
    ASSERT_EQ(loom_lists.size(), 4u);
    EXPECT_EQ(loom_lists[0], (std::vector<std::string>{"ain:1:1:uint8", "zin:1:2:float32",
                                                       "bias:0:0:int32", "gain:0:0:float32"}));
    EXPECT_TRUE(loom_lists[3].empty());
}

TEST(ApiNamesVsHalide, EvaluateATupleThroughPointers) {
    int32_t li = 0, hi = 0;
    float lf = 0, hf = 0;
    uint8_t lu = 0, hu = 0;
    loom::Param<int> lp("p", 41);
    Halide::Param<int> hp("p", 41);
    loom::evaluate(
        loom::Tuple(lp * 3 + 1, loom::sqrt(loom::cast<float>(lp)), loom::cast<uint8_t>(lp * 7)),
        &li, &lf, &lu);
    // Halide 14's evaluate of a Tuple doesn't compile with three pointers or more (it forwards
    // them as one pack: std::forward<Rest...>(rest...)): it is compared on two.
    Halide::evaluate(Halide::Tuple(hp * 3 + 1, Halide::sqrt(Halide::cast<float>(hp))), &hi, &hf);
    Halide::evaluate(Halide::Tuple(Halide::cast<uint8_t>(hp * 7), hp), &hu, &hi);
    EXPECT_EQ(li, 124);
    EXPECT_EQ(hi, 41);
    EXPECT_EQ(lf, hf);
    EXPECT_EQ(lf, std::sqrt(41.0f));
    EXPECT_EQ(lu, hu);
    EXPECT_EQ(lu, (uint8_t)(41 * 7));
    EXPECT_EQ(loom::evaluate_may_gpu<int>(lp + 1), Halide::evaluate_may_gpu<int>(hp + 1));
    try {
        loom::evaluate(loom::Tuple(lp, lp), &li, &lf);
        FAIL() << "expected an error: the second element is an int32";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("pointer 1 is to float32, but the element has type "
                                             "int32"),
                  std::string::npos)
            << e.what();
    }
}

namespace {

template <typename Func, typename Stage, typename Var, typename RDom, typename RVar>
std::vector<std::string> argument_lists() {
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 4, "r");
    RVar ro("ro"), ri("ri");
    Func f("f");
    f(x, y) = x + y;
    f(x, y) += r.x;
    std::vector<std::string> lists{Stage(f).dump_argument_list()};
    f.split(x, xo, xi, 8).reorder(y, xi, xo);
    lists.push_back(Stage(f).dump_argument_list());
    f.update(0).split(r.x, ro, ri, 2);
    lists.push_back(f.update(0).dump_argument_list());
    return lists;
}

} // namespace

TEST(ApiNamesVsHalide, DumpArgumentListAfterSplitsAndReorders) {
    const auto loom_lists =
        argument_lists<loom::Func, loom::Stage, loom::Var, loom::RDom, loom::RVar>();
    EXPECT_EQ(
        loom_lists,
        (argument_lists<Halide::Func, Halide::Stage, Halide::Var, Halide::RDom, Halide::RVar>()));
    EXPECT_EQ(loom_lists[1], "Vars: y x.xi x.xo __outermost\n");
}

namespace {

// VarOrRVar's members, and the unnamed Var or RVar it makes as Halide's does (an unnamed RVar
// for a Var, an unnamed Var for an RVar), each letter numbered by its own counter, so that the
// names of a program's unnamed Vars follow Halide's. Returned as the members, then how many
// unnamed Vars and RVars were made between two made first and last (each system's counters
// have their own history in this process). Halide's directives on RVars make more inside
// (those are left out).
template <typename Func, typename Stage, typename Var, typename RDom, typename RVar,
          typename VarOrRVar>
std::vector<std::string> var_or_rvar_names() {
    auto made_between = [](const std::string &first, const std::string &last) {
        return std::to_string(std::stoi(last.substr(1)) - std::stoi(first.substr(1)) - 1);
    };
    Var x("x"), y("y"), xo("xo"), xi("xi");
    RDom r(0, 16, "r");
    Func f("f");
    f(x, y) = x + y;
    f(x, y) += r.x;
    const Var first_var;
    const RVar first_rvar;
    const VarOrRVar of_var(x), of_rvar(r.x), named("r$x", true);
    std::vector<std::string> names{of_var.is_rvar ? "rvar" : "var",
                                   of_var.var.name(),
                                   of_rvar.is_rvar ? "rvar" : "var",
                                   of_rvar.rvar.name(),
                                   of_rvar.name(),
                                   named.is_rvar ? "rvar" : "var",
                                   named.name()};
    const RVar last_rvar;
    f.split(x, xo, xi, 8);
    const Var last_var;
    names.push_back(made_between(first_var.name(), last_var.name()));
    names.push_back(made_between(first_rvar.name(), last_rvar.name()));
    return names;
}

} // namespace

TEST(ApiNamesVsHalide, VarOrRVarMembersAndTheUnnamedVarsItMakes) {
    const auto loom_names = var_or_rvar_names<loom::Func, loom::Stage, loom::Var, loom::RDom,
                                              loom::RVar, loom::VarOrRVar>();
    EXPECT_EQ(loom_names, (var_or_rvar_names<Halide::Func, Halide::Stage, Halide::Var, Halide::RDom,
                                             Halide::RVar, Halide::VarOrRVar>()));
    EXPECT_EQ(loom_names[3], "r$x");
}

namespace {

// A Buffer over a C array: its innermost index is dimension 0; a pipeline reads it in place, and
// a write through the Buffer lands in the array. Also an untyped Buffer over a const array.
#define FROM_C_ARRAYS(NS)                                                                          \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        int grid[3][4];                                                                            \
        for (int y = 0; y < 3; y++)                                                                \
            for (int x = 0; x < 4; x++)                                                            \
                grid[y][x] = x * 10 + y;                                                           \
        const float row[5] = {0.5f, 1.5f, 2.5f, 3.5f, 4.5f};                                       \
        Buffer<int> b(grid, "grid");                                                               \
        Buffer<> r(row);                                                                           \
        std::vector<float> seen{(float)b.dimensions(),    (float)b.dim(0).extent(),                \
                                (float)b.dim(1).extent(), (float)b.dim(1).stride(),                \
                                (float)r.dimensions(),    (float)r.dim(0).extent()};               \
        Var x("x"), y("y");                                                                        \
        Func f("f"), g("g");                                                                       \
        f(x, y) = b(x, y) * 2 + x;                                                                 \
        g(x) = r(x) * 3.0f;                                                                        \
        Buffer<int> out = f.realize({4, 3});                                                       \
        Buffer<float> row_out = g.realize({5});                                                    \
        for (int y = 0; y < 3; y++)                                                                \
            for (int x = 0; x < 4; x++)                                                            \
                seen.push_back((float)out(x, y));                                                  \
        for (int x = 0; x < 5; x++)                                                                \
            seen.push_back(row_out(x));                                                            \
        b(1, 2) = -7;                                                                              \
        seen.push_back((float)grid[2][1]);                                                         \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, BuffersOverCArrays) {
    const std::vector<float> loom_values = FROM_C_ARRAYS(loom);
    const std::vector<float> halide_values = FROM_C_ARRAYS(Halide);
    EXPECT_EQ(loom_values, halide_values);
    // 2 dimensions of 4 and 3, row stride 4; 1 of 5; f(3, 1) = 2 * 31 + 3; grid[2][1] = -7.
    EXPECT_EQ(std::vector<float>(loom_values.begin(), loom_values.begin() + 6),
              (std::vector<float>{2, 4, 3, 4, 1, 5}));
    EXPECT_EQ(loom_values[6 + 4 + 3], 65.0f);
    EXPECT_EQ(loom_values.back(), -7.0f);
}

namespace {

std::string halide_error_text;
void capture_halide_error(Halide::JITUserContext *, const char *message) {
    halide_error_text += message;
}

// Runs f(x) = im(x) * p over 4 points with p and an image of `width` points, under two
// requirements; returns the error's text, or the outputs.
std::string halide_with_requirements(int p_value, int width) {
    Halide::Param<int> p("p");
    Halide::ImageParam im(Halide::Int(32), 1, "im");
    Halide::Var x("x");
    Halide::Func f("f");
    f(x) = im(x) * p;
    Halide::Pipeline pipeline(f);
    pipeline.add_requirement(p > 0, "p must be positive, not", p);
    pipeline.add_requirement(im.width() >= 4, "im has", im.width(), "points");
    pipeline.jit_handlers().custom_error = capture_halide_error;
    Halide::Buffer<int> in(width);
    for (int i = 0; i < width; i++)
        in(i) = i + 1;
    p.set(p_value);
    im.set(in);
    halide_error_text.clear();
    Halide::Buffer<int> out(4);
    try {
        pipeline.realize(
            out, Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
    } catch (const Halide::Error &) {
    }
    if (!halide_error_text.empty()) return halide_error_text;
    std::string values;
    for (int i = 0; i < 4; i++)
        values += std::to_string(out(i)) + " ";
    return values;
}

std::string loom_with_requirements(int p_value, int width) {
    loom::Param<int> p("p");
    loom::ImageParam im(loom::Int(32), 1, "im");
    loom::Var x("x");
    loom::Func f("f");
    f(x) = im(x) * p;
    loom::Pipeline pipeline(f);
    pipeline.add_requirement(p > 0, "p must be positive, not", p);
    pipeline.add_requirement(im.width() >= 4, "im has", im.width(), "points");
    loom::Buffer<int> in(width);
    for (int i = 0; i < width; i++)
        in(i) = i + 1;
    p.set(p_value);
    im.set(in);
    try {
        loom::Buffer<int> out = pipeline.realize({4});
        std::string values;
        for (int i = 0; i < 4; i++)
            values += std::to_string(out(i)) + " ";
        return values;
    } catch (const loom::RuntimeError &e) {
        return e.what();
    }
}

} // namespace

// Pipeline::add_requirement: each checked before anything runs, in order, its message as
// Halide's (Loom's error names the pipeline first; Halide's text ends the message).
TEST(ApiNamesVsHalide, AddRequirementStopsARunWithHalidesMessage) {
    for (auto [p, width] : {std::pair{-3, 8}, std::pair{2, 2}, std::pair{-1, 2}, std::pair{3, 6}}) {
        std::string halide = halide_with_requirements(p, width);
        while (!halide.empty() && halide.back() == '\n')
            halide.pop_back();
        const std::string loom = loom_with_requirements(p, width);
        ASSERT_FALSE(halide.empty());
        EXPECT_NE(loom.find(halide), std::string::npos)
            << "p " << p << ", width " << width << "\nLoom:   " << loom << "\nHalide: " << halide;
    }
    EXPECT_EQ(loom_with_requirements(3, 6), "3 6 9 12 ");
    EXPECT_NE(loom_with_requirements(-3, 8).find("Requirement Failed: (false) p must be positive, "
                                                 "not -3"),
              std::string::npos);
}

// What a requirement may read: Params and image sizes, not a Func or a Var.
TEST(ApiNamesVsHalide, AddRequirementRefusesFuncsAndVars) {
    loom::Var x("x");
    loom::Func f("f"), g("g");
    g(x) = x;
    f(x) = g(x) + 1;
    loom::Pipeline pipeline(f);
    for (const loom::Expr &bad : {loom::Expr(x > 0), loom::Expr(g(0) > 0)}) {
        try {
            pipeline.add_requirement(bad, "never");
            FAIL() << "expected an error for " << bad;
        } catch (const loom::CompileError &e) {
            EXPECT_NE(std::string(e.what()).find("may read Params and input image sizes only"),
                      std::string::npos)
                << e.what();
        }
    }
}

namespace {

// A LoopLevel is a handle: g is computed at an undefined level that is set afterwards (the
// schedule follows), the loop nest and values show where; a set() after the pipeline compiled is
// refused, and an undefined level at compile time is too. Returns the loop nest, the values and
// which of the two misuses threw.
template <typename Func, typename Var, typename LoopLevel, typename Buffer>
std::string loop_level_set_later() {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = x * 3 + y;
    f(x, y) = g(x, y) + g(x, y + 1);
    LoopLevel level;
    g.compute_at(level);
    LoopLevel at_row(f, y);
    level.set(at_row);
    testing::internal::CaptureStderr(); // where both write it
    f.print_loop_nest();
    std::string seen = testing::internal::GetCapturedStderr();
    Buffer out = f.realize({4, 3});
    for (int j = 0; j < 3; j++)
        for (int i = 0; i < 4; i++)
            seen += std::to_string(out(i, j)) + " ";
    try {
        level.set(LoopLevel::root());
        seen += "| set after compiling: accepted";
    } catch (const std::exception &) {
        seen += "| set after compiling: refused";
    }
    Func h("h");
    h(x) = g(x, 0);
    g.compute_at(LoopLevel());
    try {
        h.realize({2});
        seen += "| undefined: accepted";
    } catch (const std::exception &) {
        seen += "| undefined: refused";
    }
    return seen;
}

} // namespace

TEST(ApiNamesVsHalide, ALoopLevelSetAfterTheScheduleNamedIt) {
    const std::string loom_seen =
        loop_level_set_later<loom::Func, loom::Var, loom::LoopLevel, loom::Buffer<int>>();
    EXPECT_EQ(loom_seen, (loop_level_set_later<Halide::Func, Halide::Var, Halide::LoopLevel,
                                               Halide::Buffer<int>>()));
    // g produced inside f's row loop; f(3, 2) = 3 * 3 + 2 + 3 * 3 + 3.
    EXPECT_NE(loom_seen.find("for y:\n    produce g:"), std::string::npos) << loom_seen;
    EXPECT_NE(loom_seen.find(" 23 | set after compiling: refused| undefined: refused"),
              std::string::npos)
        << loom_seen;
}

// LoopLevel::match and the accessors of a locked level, as Halide's read them (Halide inspects
// a level only once locked). Also a refused set() names what to do.
TEST(ApiNamesVsHalide, LoopLevelMatchAndDefined) {
    auto matches = [](auto f, auto x, auto make_level) {
        using LoopLevel = decltype(make_level(f, x, -1));
        LoopLevel any_stage = make_level(f, x, -1), update = make_level(f, x, 1);
        any_stage.lock();
        update.lock();
        std::vector<int> seen;
        for (const char *loop : {"matched.s0.x", "matched.s1.x", "matched.s1.xo.x", "matched.s0.xo",
                                 "g.s0.x", "matched.x"})
            seen.push_back(any_stage.match(loop) * 2 + update.match(loop));
        seen.push_back(any_stage.match(update));
        seen.push_back(update.match(update));
        seen.push_back(any_stage.defined());
        seen.push_back(update.stage_index());
        return seen;
    };
    // (A name no other test gives a Func: Halide renames a Func whose name a compiled one had.)
    loom::Func lf("matched");
    loom::Var lx("x");
    lf(lx) = lx;
    lf(lx) += 1;
    Halide::Func hf("matched");
    Halide::Var hx("x");
    hf(hx) = hx;
    hf(hx) += 1;
    auto loom_level = [](loom::Func f, loom::Var x, int stage) {
        return loom::LoopLevel(f, x, stage);
    };
    auto halide_level = [](Halide::Func f, Halide::Var x, int stage) {
        return Halide::LoopLevel(f, x, stage);
    };
    EXPECT_EQ(matches(lf, lx, loom_level), matches(hf, hx, halide_level));
}

namespace {

// The placeholder _ and implicit Vars: calls of Funcs, a Buffer and an ImageParam with _, pure
// definitions whose left side takes the implicit Vars the right side uses, updates through _,
// Func(Expr) over implicit Vars; the dimensions and argument names each Func gets, the values,
// and whether a right side with implicit Vars under a left side without _ is refused.
#define WITH_IMPLICIT_VARS(NS)                                                                     \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Var x("x"), y("y");                                                                        \
        Func f("f"), g("g"), h("h"), k("k"), m("m"), bad("bad");                                   \
        Buffer<int> in(3, 2);                                                                      \
        for (int j = 0; j < 2; j++)                                                                \
            for (int i = 0; i < 3; i++)                                                            \
                in(i, j) = i * 7 - j;                                                              \
        ImageParam im(Int(32), 2, "im");                                                           \
        im.set(in);                                                                                \
        f(x, y) = x * 10 + y;                                                                      \
        g(_) = f(_) * 3;                                                                           \
        g(_) += f(_) + 1;                                                                          \
        h(x, _) = f(x, _) + g(_);                                                                  \
        k(_) = in(_)*2 + im(_);                                                                    \
        m(x, y, _) = f(_) + x - y;                                                                 \
        Func from_expr(Expr(_0) + Expr(_1) * 2);                                                   \
        Func by_vars("by_vars");                                                                   \
        by_vars(x, y) = im(std::vector<Var>{x, y}) - 1;                                            \
        Buffer<int> vb = by_vars.realize({3, 2});                                                  \
        std::vector<std::string> seen;                                                             \
        for (Func * fn : {&g, &h, &k, &m, &from_expr}) {                                           \
            std::string dims = std::to_string(fn->dimensions()) + ":";                             \
            for (const Var &a : fn->args())                                                        \
                dims += " " + a.name();                                                            \
            seen.push_back(dims);                                                                  \
        }                                                                                          \
        Buffer<int> gb = g.realize({3, 2}), kb = k.realize({3, 2}),                                \
                    eb = from_expr.realize({3, 2});                                                \
        Buffer<int> hb = h.realize({2, 2, 2}), mb = m.realize({2, 2, 2, 2});                       \
        std::string values;                                                                        \
        for (int j = 0; j < 2; j++)                                                                \
            for (int i = 0; i < 3; i++)                                                            \
                values += std::to_string(gb(i, j)) + "," + std::to_string(kb(i, j)) + "," +        \
                          std::to_string(eb(i, j)) + "," + std::to_string(vb(i, j)) + " ";         \
        for (int c = 0; c < 2; c++)                                                                \
            for (int j = 0; j < 2; j++)                                                            \
                for (int i = 0; i < 2; i++)                                                        \
                    values +=                                                                      \
                        std::to_string(hb(i, j, c)) + "," + std::to_string(mb(i, j, c, 1)) + " ";  \
        seen.push_back(values);                                                                    \
        try {                                                                                      \
            bad(x) = f(_);                                                                         \
            seen.push_back("no placeholder on the left: accepted");                                \
        } catch (const std::exception &) {                                                         \
            seen.push_back("no placeholder on the left: refused");                                 \
        }                                                                                          \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, ThePlaceholderAndImplicitVars) {
    const std::vector<std::string> loom_seen = WITH_IMPLICIT_VARS(loom);
    const std::vector<std::string> halide_seen = WITH_IMPLICIT_VARS(Halide);
    EXPECT_EQ(loom_seen, halide_seen);
    EXPECT_EQ(loom_seen[1], "3: x _0 _1");
    EXPECT_EQ(loom_seen[3], "4: x y _0 _1");
    EXPECT_EQ(loom_seen.back(), "no placeholder on the left: refused");
    // g(1, 1) = f(1, 1) * 3 + f(1, 1) + 1 = 45; k(1, 1) = 3 * 6; from_expr(1, 1) = 3.
    // by_vars(1, 1) = im(1, 1) - 1 = 5.
    EXPECT_NE(loom_seen[5].find("45,18,3,5 "), std::string::npos) << loom_seen[5];
}

namespace {

// ParamMap: a run with other values of a Param and another buffer of an ImageParam, given in
// the map, leaves their own values alone; an initializer list of mappings; infer_input_bounds
// into a Buffer the map points an ImageParam to. Returns the values and the inferred region.
#define WITH_PARAM_MAPS(NS, TARGET)                                                                \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        const Target target = TARGET;                                                              \
        Param<int> scale("scale");                                                                 \
        ImageParam im(Int(32), 1, "im"), sparse(Int(32), 1, "sparse");                             \
        Var x("x");                                                                                \
        Func f("f"), g("g");                                                                       \
        f(x) = im(x) * scale + im(x + 1);                                                          \
        g(x) = sparse(x * 2 - 3) + 1;                                                              \
        Buffer<int> a(9), b(9);                                                                    \
        for (int i = 0; i < 9; i++) {                                                              \
            a(i) = i;                                                                              \
            b(i) = 100 - i * i;                                                                    \
        }                                                                                          \
        scale.set(2);                                                                              \
        im.set(a);                                                                                 \
        std::vector<int> seen;                                                                     \
        auto append = [&](const Buffer<int> &r) {                                                  \
            for (int i = 0; i < 8; i++)                                                            \
                seen.push_back(r(i));                                                              \
        };                                                                                         \
        append(f.realize({8}, target));                                                            \
        ParamMap map;                                                                              \
        map.set(scale, 3);                                                                         \
        map.set(im, b);                                                                            \
        append(f.realize({8}, target, map));                                                       \
        append(f.realize({8}, target));                                                            \
        ParamMap listed{{scale, -1}, {im, b}};                                                     \
        Buffer<int> into(8);                                                                       \
        f.realize(into, target, listed);                                                           \
        append(into);                                                                              \
        seen.push_back(scale.get());                                                               \
        Buffer<int> inferred;                                                                      \
        ParamMap pointing{{sparse, &inferred}};                                                    \
        g.infer_input_bounds({5}, target, pointing);                                               \
        seen.push_back(inferred.defined());                                                        \
        seen.push_back(inferred.dim(0).min());                                                     \
        seen.push_back(inferred.dim(0).extent());                                                  \
        seen.push_back(sparse.get().defined());                                                    \
        return seen;                                                                               \
    }()

} // namespace

TEST(ApiNamesVsHalide, ParamMapsGiveOneRunItsInputs) {
    const std::vector<int> loom_seen = WITH_PARAM_MAPS(loom, Target());
    const std::vector<int> halide_seen = WITH_PARAM_MAPS(
        Halide, Halide::get_host_target().without_feature(Halide::Target::AVX512_SapphireRapids));
    EXPECT_EQ(loom_seen, halide_seen);
    // f(0) with a and 2: 0 * 2 + 1; with b and 3: 100 * 3 + 99; g reads sparse over [-3, 5].
    ASSERT_EQ(loom_seen.size(), 37u);
    EXPECT_EQ(loom_seen[0], 1);
    EXPECT_EQ(loom_seen[8], 399);
    EXPECT_EQ(loom_seen[16], 1);
    EXPECT_EQ(std::vector<int>(loom_seen.end() - 5, loom_seen.end()),
              (std::vector<int>{2, 1, -3, 9, 0}));
}
