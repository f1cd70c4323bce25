// Halide 14's kinds of Generator Inputs and Outputs (issue 35): Input<Func>, arrays of
// Inputs and Outputs, Input<Expr>, Tuple and scalar Outputs, configure() with add_input /
// add_output, and GeneratorContext / create / apply. The same Generator built ahead of time
// (io_kinds_aot, sized and typed by GeneratorParams) and applied in the JIT gives what C++
// computes; every misuse stops with a message naming the Input or Output.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

#include "io_kinds_aot.h"
#include "io_kinds_generator.h"

namespace {

using namespace loom;
using loom_test::IOKindsGenerator;

constexpr int W = 32, H = 16;
constexpr int kOffsetX = 1, kOffsetY = 2;
constexpr float kGain = 2.5f;

struct IOKindsInputs {
    Buffer<float> input{W + kOffsetX, H + kOffsetY};
    Buffer<uint8_t> mask0{W, H}, mask1{W, H};
    IOKindsInputs() {
        for (int y = 0; y < H + kOffsetY; y++) {
            for (int x = 0; x < W + kOffsetX; x++)
                input(x, y) = (float)((x * 7 + y * 13) % 17) * 0.5f - 3.0f;
        }
        for (int y = 0; y < H; y++) {
            for (int x = 0; x < W; x++) {
                mask0(x, y) = (uint8_t)((x * y) % 251);
                mask1(x, y) = (uint8_t)(200 + (x + y) % 50);
            }
        }
    }
};

// What io_kinds computes, in C++: each output as a function of the point.
struct IOKindsReference {
    const IOKindsInputs &in;
    float stats_value(int x, int y) const { return in.input(x + kOffsetX, y + kOffsetY) * kGain; }
    int32_t stats_mask_sum(int x, int y) const {
        return (int32_t)in.mask0(x, y) + (int32_t)in.mask1(x, y);
    }
    float pyramid(int level, int x, int y) const {
        if (level == 0) return in.input(x, y);
        const float a = pyramid(level - 1, 2 * x, 2 * y), b = pyramid(level - 1, 2 * x + 1, 2 * y),
                    c = pyramid(level - 1, 2 * x, 2 * y + 1),
                    d = pyramid(level - 1, 2 * x + 1, 2 * y + 1);
        return (((a + b) + c) + d) * 0.25f;
    }
    float total() const {
        float sum = 0.0f;
        for (int y = 0; y < 3; y++) {
            for (int x = 0; x < 3; x++)
                sum += in.input(x, y);
        }
        return sum;
    }
};

std::string error_of(const std::function<void()> &body) {
    try {
        body();
    } catch (const loom::Error &e) {
        return e.what();
    }
    return "";
}

TEST(GeneratorIO, TheLibraryAndApplyAgreeWithCpp) {
    const IOKindsInputs in;
    const IOKindsReference want{in};

    // Ahead of time: masks.size=2, gain.type=float32, levels=3 (test/CMakeLists.txt).
    Buffer<float> stats_value(W, H), pyramid0(W, H), pyramid1(W / 2, H / 2), pyramid2(W / 4, H / 4);
    Buffer<int32_t> stats_mask_sum(W, H);
    Buffer<float> total = Buffer<float>::make_scalar();
    ASSERT_EQ(io_kinds_aot(in.input.raw_buffer(), in.mask0.raw_buffer(), in.mask1.raw_buffer(),
                           kOffsetX, kOffsetY, kGain, stats_value.raw_buffer(),
                           stats_mask_sum.raw_buffer(), pyramid0.raw_buffer(),
                           pyramid1.raw_buffer(), pyramid2.raw_buffer(), total.raw_buffer()),
              0);

    // In the JIT: the Inputs given by apply() (a Buffer read as a Func, a vector of Buffers, a
    // vector of numbers, an Expr whose type the Input<Expr> takes).
    std::unique_ptr<IOKindsGenerator> gen = GeneratorContext(Target()).apply<IOKindsGenerator>(
        in.input, std::vector<Buffer<uint8_t>>{in.mask0, in.mask1},
        std::vector<int32_t>{kOffsetX, kOffsetY}, Expr(kGain));
    ASSERT_EQ(gen->pyramid.size(), 3u);
    Realization stats = gen->stats.realize({W, H});
    Buffer<float> jit_value = stats[0];
    Buffer<int32_t> jit_mask_sum = stats[1];
    std::vector<Buffer<float>> jit_pyramid;
    for (int l = 0; l < 3; l++)
        jit_pyramid.push_back(gen->pyramid[l].realize({W >> l, H >> l}));
    Buffer<float> jit_total = gen->total.realize();

    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            ASSERT_EQ(stats_value(x, y), want.stats_value(x, y)) << x << ", " << y;
            ASSERT_EQ(jit_value(x, y), want.stats_value(x, y)) << x << ", " << y;
            ASSERT_EQ(stats_mask_sum(x, y), want.stats_mask_sum(x, y)) << x << ", " << y;
            ASSERT_EQ(jit_mask_sum(x, y), want.stats_mask_sum(x, y)) << x << ", " << y;
        }
    }
    const Buffer<float> *aot_pyramid[3] = {&pyramid0, &pyramid1, &pyramid2};
    for (int l = 0; l < 3; l++) {
        for (int y = 0; y < (H >> l); y++) {
            for (int x = 0; x < (W >> l); x++) {
                ASSERT_EQ((*aot_pyramid[l])(x, y), want.pyramid(l, x, y)) << l << ": " << x;
                ASSERT_EQ(jit_pyramid[l](x, y), want.pyramid(l, x, y)) << l << ": " << x;
            }
        }
    }
    EXPECT_EQ(total(), want.total());
    EXPECT_EQ(jit_total(), want.total());
}

TEST(GeneratorIO, ArgumentsNameArrayElementsAndTupleOutputs) {
    auto gen = IOKindsGenerator::create(GeneratorContext(Target()));
    gen->set_generator_params({{"masks.size", "2"}, {"gain.type", "int16"}, {"levels", "2"}});
    Pipeline p = gen->build_pipeline(Target());
    std::vector<std::string> names;
    for (const Argument &a : gen->arguments())
        names.push_back(
            a.name + (a.kind == Argument::InputScalar ? ":" + type_to_string(a.type) : ":buffer"));
    EXPECT_EQ(names,
              (std::vector<std::string>{"input:buffer", "masks_0:buffer", "masks_1:buffer",
                                        "offsets_0:int32", "offsets_1:int32", "gain:int16"}));
    const std::string path = ::testing::TempDir() + "loom_generator_io.h";
    p.compile_to_header(path, gen->arguments(), "io_fn");
    std::ifstream file(path);
    std::stringstream header;
    header << file.rdbuf();
    EXPECT_NE(header.str().find(
                  "int32_t io_fn(loom_buffer_t *input, loom_buffer_t *masks_0, loom_buffer_t "
                  "*masks_1, int32_t offsets_0, int32_t offsets_1, int16_t gain, loom_buffer_t "
                  "*stats_0, loom_buffer_t *stats_1, loom_buffer_t *pyramid_0, loom_buffer_t "
                  "*pyramid_1, loom_buffer_t *total);"),
              std::string::npos)
        << header.str();
}

// Halide's configure(): Inputs and Outputs added by add_input / add_output after the members
// (in the C function too), and a Buffer Input typed there.
class MultiSum : public Generator<MultiSum> {
public:
    GeneratorParam<int> count{"count", 3};
    Input<Buffer<>> first{"first"};
    Output<Buffer<float>> sum{"sum", 2};
    std::vector<Input<Func> *> extra;
    Output<Func> *mean = nullptr;

    void configure() {
        first.set_type(Float(32));
        first.set_dimensions(2);
        for (int i = 0; i < count; i++)
            extra.push_back(add_input<Func>("extra_" + std::to_string(i), Float(32), 2));
        mean = add_output<Func>("mean", Float(32), 2);
    }
    void generate() {
        Var x("x"), y("y");
        Expr s = first(x, y);
        for (Input<Func> *e : extra)
            s = s + (*e)(x, y);
        sum(x, y) = s;
        (*mean)(x, y) = s / (float)(count + 1);
    }
};

TEST(GeneratorIO, ConfigureAddsInputsAndOutputs) {
    auto built = MultiSum::create(GeneratorContext(Target()));
    built->set_generator_params({{"count", "2"}});
    Pipeline p = built->build_pipeline(Target());
    std::vector<std::string> names;
    for (const Argument &a : built->arguments())
        names.push_back(a.name);
    EXPECT_EQ(names, (std::vector<std::string>{"first", "extra_0", "extra_1"}));
    ASSERT_EQ(p.outputs().size(), 2u);
    EXPECT_EQ(p.outputs()[1].name(), "mean");

    Buffer<float> a(8, 4);
    Func b("b"), c("c"), d("d");
    Var x("x"), y("y");
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 8; i++)
            a(i, j) = (float)(i - j);
    }
    b(x, y) = cast<float>(x * y);
    c(x, y) = 0.5f;
    d(x, y) = cast<float>(y);
    auto applied = GeneratorContext(Target()).apply<MultiSum>(a, b, c, d);
    Buffer<float> sum = applied->sum.realize({8, 4});
    Buffer<float> mean = applied->mean->realize({8, 4});
    for (int j = 0; j < 4; j++) {
        for (int i = 0; i < 8; i++) {
            const float s = (((float)(i - j) + (float)(i * j)) + 0.5f) + (float)j;
            EXPECT_EQ(sum(i, j), s) << i << ", " << j;
            EXPECT_EQ(mean(i, j), s / 4.0f) << i << ", " << j;
        }
    }
}

class TwoInputsNamedAlike : public Generator<TwoInputsNamedAlike> {
public:
    Input<Func> a{"a", Float(32), 1};
    Input<Func> also_a{"a", Float(32), 1};
    Output<Func> out{"out", Float(32), 1};
    void generate() { out(Var("x")) = a(Var("x")); }
};

class BadlyNamed : public Generator<BadlyNamed> {
public:
    Input<Func> in{"2in", Float(32), 1};
    Output<Func> out{"out", Float(32), 1};
    void generate() { out(Var("x")) = in(Var("x")); }
};

class AddsLate : public Generator<AddsLate> {
public:
    Output<Func> out{"out", Float(32), 1};
    void generate() {
        add_input<Func>("late", Float(32), 1);
        out(Var("x")) = 0.0f;
    }
};

class TupleOfOne : public Generator<TupleOfOne> {
public:
    Output<Func> out{"out", {Float(32), Int(32)}, 1};
    void generate() { out(Var("x")) = 1.0f; }
};

TEST(GeneratorIO, MisusesNameTheInputOrOutput) {
    const GeneratorContext context{Target()};
    Func ints("ints"), floats("floats");
    Var x("x"), y("y");
    ints(x, y) = x + y;
    floats(x, y) = cast<float>(x);
    Buffer<uint8_t> mask(4, 4);
    const std::vector<Buffer<uint8_t>> masks{mask};
    const std::vector<int32_t> offsets{0, 0};

    const std::string count = error_of([&] { context.apply<MultiSum>(floats); });
    EXPECT_NE(count.find("takes 4 Inputs (first, extra_0, extra_1, extra_2); apply() was given 1"),
              std::string::npos)
        << count;
    const std::string type =
        error_of([&] { context.apply<IOKindsGenerator>(ints, masks, offsets, Expr(1.0f)); });
    EXPECT_NE(type.find("Input input has the type float32; apply() gave Func ints of type int32"),
              std::string::npos)
        << type;
    const std::string single =
        error_of([&] { context.apply<IOKindsGenerator>(floats, mask, offsets, Expr(1.0f)); });
    EXPECT_NE(single.find("Input masks is an array: apply() must give it a std::vector"),
              std::string::npos)
        << single;
    const std::string fixed = error_of([&] {
        context.apply<IOKindsGenerator>(floats, masks, std::vector<int32_t>{1}, Expr(1.0f));
    });
    EXPECT_NE(fixed.find("Input offsets has 2 elements; apply() gave 1"), std::string::npos)
        << fixed;
    const std::string scalar =
        error_of([&] { context.apply<IOKindsGenerator>(floats, masks, offsets, floats); });
    EXPECT_NE(scalar.find("Input gain is a scalar: apply() must give it a number or an Expr"),
              std::string::npos)
        << scalar;

    auto build = [&](const std::map<std::string, std::string> &params) {
        return error_of([&] {
            auto g = IOKindsGenerator::create(context);
            g->set_generator_params(params);
            g->build_pipeline(Target());
        });
    };
    const std::string no_size = build({{"gain.type", "float32"}});
    EXPECT_NE(no_size.find("Input masks is an array of no size yet: set the GeneratorParam "
                           "masks.size"),
              std::string::npos)
        << no_size;
    const std::string no_type = build({{"masks.size", "1"}});
    EXPECT_NE(no_type.find("Input gain has no element type yet: it comes from the GeneratorParam "
                           "gain.type, which is not set"),
              std::string::npos)
        << no_type;
    const std::string declared = build({{"input.type", "uint8"}});
    EXPECT_NE(declared.find("GeneratorParam input.type: Input input is declared with the type "
                            "float32, which it can't change"),
              std::string::npos)
        << declared;
    const std::string tuple_input = build({{"gain.type", "float32,int32"}});
    EXPECT_NE(tuple_input.find("only an Output<Func> is a Tuple of several types"),
              std::string::npos)
        << tuple_input;

    const std::string twice = error_of([&] { TwoInputsNamedAlike::create(context); });
    EXPECT_NE(twice.find("has two Inputs or Outputs named a"), std::string::npos) << twice;
    const std::string bad_name = error_of([&] { BadlyNamed::create(context); });
    EXPECT_NE(bad_name.find("Input \"2in\": a name starts with a letter"), std::string::npos)
        << bad_name;
    const std::string late = error_of([&] { AddsLate::create(context)->build_pipeline(Target()); });
    EXPECT_NE(late.find("add_input / add_output (late) may be called only in configure()"),
              std::string::npos)
        << late;
    const std::string tuple = error_of([&] { TupleOfOne::create(context)->realize({4}); });
    EXPECT_NE(tuple.find("Output out of Generator (made by create()) is declared as (float32, "
                         "int32) but generate() defines it as float32"),
              std::string::npos)
        << tuple;
    const std::string outside = error_of([] { Input<Func> stray("stray", Float(32), 1); });
    EXPECT_NE(outside.find("Input stray must be a member of a Generator"), std::string::npos)
        << outside;
}

} // namespace
