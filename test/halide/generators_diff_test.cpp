// Halide 14's Generators used from C++ (issue 35): the same Generator, written once for each
// namespace, made by GeneratorContext::create / apply with an Input<Func>, an array of Funcs and
// a scalar, and realized: a Tuple Output<Func> and an Output<Func[]> resized in generate()
// give the same values in Loom and in Halide 14.

// Halide.h first: Loom's Error.h defines the same four assertion macro names as Halide.h does.
#include "Halide.h"
#undef user_assert
#undef user_error
#undef internal_assert
#undef internal_error

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include <loom.h>

namespace {

// Written as a Halide user writes it: the names (Func, Var, Input, Float, Tuple...) come from
// the Generator base class.
#define IO_KINDS_GENERATOR(NS)                                                                     \
    class IOKinds : public NS::Generator<IOKinds> {                                                \
    public:                                                                                        \
        GeneratorParam<int> levels{"levels", 3};                                                   \
        Input<Func> input{"input", Float(32), 2};                                                  \
        Input<Func[]> others{"others", Float(32), 2};                                              \
        Input<float> gain{"gain"};                                                                 \
        Output<Func> both{"both", {Float(32), Float(32)}, 2};                                      \
        Output<Func[]> pyramid{"pyramid", Float(32), 2};                                           \
        void generate() {                                                                          \
            Var x("x"), y("y");                                                                    \
            Expr s = input(x, y);                                                                  \
            for (size_t i = 0; i < others.size(); i++)                                             \
                s = s + others[i](x, y);                                                           \
            both(x, y) = Tuple(s * gain, s - gain);                                                \
            pyramid.resize(levels);                                                                \
            pyramid[0](x, y) = input(x, y);                                                        \
            for (int l = 1; l < levels; l++)                                                       \
                pyramid[l](x, y) = pyramid[l - 1](2 * x, 2 * y) * 0.75f +                          \
                                   pyramid[l - 1](2 * x + 1, 2 * y + 1) * 0.25f;                   \
        }                                                                                          \
        void schedule() { both.vectorize(Var("x"), 4); }                                           \
    };

namespace halide_side {
using namespace Halide;
IO_KINDS_GENERATOR(Halide)
} // namespace halide_side

namespace loom_side {
using namespace loom;
IO_KINDS_GENERATOR(loom)
} // namespace loom_side

// Applies the Generator to three Funcs and a gain, and returns both's two values and each
// pyramid level, point by point. Every value is exact in float: Halide 14's simplifier
// reassociates float sums, Loom's never does, so rounded sums could differ by an ulp.
#define APPLY_IO_KINDS(NS, GENERATOR)                                                              \
    [] {                                                                                           \
        using namespace NS;                                                                        \
        Var x("x"), y("y");                                                                        \
        Func input("input_values"), a("a_values"), b("b_values");                                  \
        input(x, y) = cast<float>((x * 5 + y * 3) % 11) - 4.5f;                                    \
        a(x, y) = cast<float>(x - y);                                                              \
        b(x, y) = cast<float>(x * y + 1) * 0.125f;                                                 \
        GeneratorContext context(get_jit_target_from_environment());                               \
        auto g = context.apply<GENERATOR>(input, std::vector<Func>{a, b}, Expr(1.5f));             \
        std::vector<float> values;                                                                 \
        Func both_func = g->both;                                                                  \
        Realization both = both_func.realize({16, 8});                                             \
        Buffer<float> first = both[0], second = both[1];                                           \
        for (int j = 0; j < 8; j++)                                                                \
            for (int i = 0; i < 16; i++) {                                                         \
                values.push_back(first(i, j));                                                     \
                values.push_back(second(i, j));                                                    \
            }                                                                                      \
        for (int l = 0; l < 3; l++) {                                                              \
            Func level_func = std::as_const(g->pyramid)[l];                                        \
            Buffer<float> level = level_func.realize({16 >> l, 8 >> l});                           \
            for (int j = 0; j < (8 >> l); j++)                                                     \
                for (int i = 0; i < (16 >> l); i++)                                                \
                    values.push_back(level(i, j));                                                 \
        }                                                                                          \
        return values;                                                                             \
    }()

TEST(GeneratorsVsHalide, ApplyFuncsAnArrayAndAScalarToTupleAndArrayOutputs) {
    const std::vector<float> halide = APPLY_IO_KINDS(Halide, halide_side::IOKinds);
    const std::vector<float> loom = APPLY_IO_KINDS(loom, loom_side::IOKinds);
    ASSERT_EQ(halide.size(), (size_t)(16 * 8 * 2 + 16 * 8 + 8 * 4 + 4 * 2));
    ASSERT_EQ(loom.size(), halide.size());
    for (size_t i = 0; i < loom.size(); i++)
        ASSERT_EQ(loom[i], halide[i]) << "value " << i;
}

} // namespace
