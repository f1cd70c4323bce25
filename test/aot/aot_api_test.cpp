// The ahead-of-time API's files and its errors: compile_to_object / _assembly /
// _llvm_assembly / _header / _static_library write what they should, and Generators reject
// bad parameters and outputs with messages that name them.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <loom.h>

namespace {

using namespace loom;

std::string read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string temp_path(const std::string &name) {
    return ::testing::TempDir() + "loom_aot_api_" + name;
}

struct Scale {
    ImageParam input{Float(32), 2, "input"};
    Param<float> factor{"factor"};
    Func out{"out"};
    Scale() {
        Var x("x"), y("y");
        out(x, y) = input(x, y) * factor;
        out.vectorize(x, 8);
    }
};

TEST(AheadOfTimeFiles, ObjectAssemblyLLVMAndHeader) {
    Scale p;
    const std::vector<Argument> args = {p.input, p.factor};
    p.out.compile_to_object(temp_path("scale.o"), args, "scale_fn");
    std::string object = read_file(temp_path("scale.o"));
    ASSERT_GT(object.size(), 4u);
    EXPECT_EQ(object.substr(0, 4), "\x7f"
                                   "ELF");
    EXPECT_NE(object.find("scale_fn"), std::string::npos);

    p.out.compile_to_assembly(temp_path("scale.s"), args, "scale_fn", Target("x86-64-linux-avx2"));
    std::string assembly = read_file(temp_path("scale.s"));
    EXPECT_NE(assembly.find("scale_fn:"), std::string::npos) << assembly;
    EXPECT_NE(assembly.find("ymm"), std::string::npos) << "8 float lanes on AVX2 use ymm registers";

    p.out.compile_to_llvm_assembly(temp_path("scale.ll"), args, "scale_fn", Target("x86-64-linux"));
    std::string ir = read_file(temp_path("scale.ll"));
    EXPECT_NE(ir.find("define i32 @scale_fn(ptr"), std::string::npos) << ir;
    EXPECT_NE(ir.find("float"), std::string::npos);

    // Halide's compile_to_bitcode (LLVM's magic number, the entry point in its symbol table)
    // and compile_to_file (the object and the header, named after the prefix).
    p.out.compile_to_bitcode(temp_path("scale.bc"), args, "scale_fn", Target("x86-64-linux"));
    std::string bitcode = read_file(temp_path("scale.bc"));
    ASSERT_GT(bitcode.size(), 4u);
    EXPECT_EQ(bitcode.substr(0, 4), "BC\xc0\xde");
    EXPECT_NE(bitcode.find("scale_fn"), std::string::npos);
    p.out.compile_to_file(temp_path("scale_file"), args);
    EXPECT_EQ(read_file(temp_path("scale_file.o")).substr(0, 4), "\x7f"
                                                                 "ELF");
    EXPECT_NE(read_file(temp_path("scale_file.h"))
                  .find("int32_t loom_aot_api_scale_file(loom_buffer_t *input"),
              std::string::npos);

    p.out.compile_to_header(temp_path("scale.h"), args, "scale_fn");
    std::string header = read_file(temp_path("scale.h"));
    EXPECT_NE(
        header.find("int32_t scale_fn(loom_buffer_t *input, float factor, loom_buffer_t *out);"),
        std::string::npos)
        << header;
    EXPECT_NE(header.find("typedef struct loom_buffer_t"), std::string::npos)
        << "the header must carry the runtime's types";

    p.out.compile_to_static_library(temp_path("scale_lib"), args, "scale_lib_fn");
    std::string archive = read_file(temp_path("scale_lib.a"));
    EXPECT_EQ(archive.substr(0, 8), "!<arch>\n");
    EXPECT_NE(archive.find("loom_do_par_for"), std::string::npos) << "the runtime is inside";
    EXPECT_NE(read_file(temp_path("scale_lib.h")).find("scale_lib_fn("), std::string::npos);
}

TEST(AheadOfTimeFiles, ErrorsNameTheProblem) {
    Scale p;
    try {
        p.out.compile_to_object(temp_path("bad.o"), {p.input, p.factor}, "not a name");
        FAIL() << "expected an error";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("not a C function name"), std::string::npos)
            << e.what();
    }
    try {
        p.out.compile_to_header(temp_path("bad.h"), {p.input, p.factor}, "2fast");
        FAIL() << "expected an error: a header must declare a valid C name too";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("not a C function name"), std::string::npos) << e.what();
    }
    try {
        p.out.compile_to_object(temp_path("bad.o"), {p.input}, "scale_fn");
        FAIL() << "expected an error: factor is read but not an argument";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("factor"), std::string::npos) << e.what();
    }
}

class ScaleGenerator : public Generator<ScaleGenerator> {
public:
    GeneratorParam<int> lanes{"lanes", 8, 1, 64};
    GeneratorParam<bool> wrong_type{"wrong_type", false};
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};
    void generate() {
        Var x("x"), y("y");
        if (wrong_type) {
            output(x, y) = cast<int32_t>(input(x, y));
        } else {
            output(x, y) = input(x, y) * 2.0f;
        }
        output.vectorize(x, lanes);
    }
};
LOOM_REGISTER_GENERATOR(ScaleGenerator, aot_api_scale)

std::string generator_error(const std::string &name,
                            const std::map<std::string, std::string> &params) {
    try {
        auto g = Internal::GeneratorRegistry::create(name);
        g->set_generator_params(params);
        g->build_pipeline(Target());
    } catch (const loom::Error &e) {
        return e.what();
    }
    return "";
}

TEST(Generators, ErrorsNameTheGeneratorAndTheParameter) {
    EXPECT_NE(generator_error("no_such_generator", {}).find("aot_api_scale"), std::string::npos);
    std::string unknown = generator_error("aot_api_scale", {{"lane", "4"}});
    EXPECT_NE(unknown.find("no GeneratorParam named \"lane\""), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("lanes=8"), std::string::npos) << unknown;
    std::string range = generator_error("aot_api_scale", {{"lanes", "100"}});
    EXPECT_NE(range.find("lanes must be in [1, 64]"), std::string::npos) << range;
    std::string not_bool = generator_error("aot_api_scale", {{"wrong_type", "yes"}});
    EXPECT_NE(not_bool.find("wrong_type is a bool"), std::string::npos) << not_bool;
    std::string type = generator_error("aot_api_scale", {{"wrong_type", "true"}});
    EXPECT_NE(type.find("Output output of Generator aot_api_scale is declared as float32"),
              std::string::npos)
        << type;
    EXPECT_EQ(generator_error("aot_api_scale", {{"lanes", "4"}}), "");
}

// Halide's auto_schedule and machine_params GeneratorParams, which every Generator has.
TEST(Generators, AutoScheduleRunsTheDefaultSchedulerForTheGivenMachine) {
    std::string bad = generator_error("aot_api_scale", {{"machine_params", "4,lots,40"}});
    EXPECT_NE(bad.find("MachineParams(\"4,lots,40\")"), std::string::npos) << bad;

    auto hand = Internal::GeneratorRegistry::create("aot_api_scale");
    EXPECT_FALSE(hand->get_auto_schedule());
    EXPECT_EQ(hand->get_machine_params(), MachineParams::generic());
    Pipeline by_hand = hand->build_pipeline(Target());
    EXPECT_TRUE(hand->auto_schedule_results().scheduler_name.empty());
    const std::string hand_header = Internal::schedule_header(by_hand, "scale", {});
    EXPECT_NE(hand_header.find("written by hand"), std::string::npos) << hand_header;
    EXPECT_NE(hand_header.find("inline void apply_schedule_scale(loom::Pipeline pipeline"),
              std::string::npos)
        << hand_header;
    // vectorize(x, 8)'s inner loop, named after a fresh Var as Halide names it.
    EXPECT_TRUE(std::regex_search(hand_header, std::regex("output\\.vectorize\\(v[0-9]+\\);")))
        << hand_header;

    // No estimates: the scheduler warns and assumes sizes; the build goes on.
    auto g = Internal::GeneratorRegistry::create("aot_api_scale");
    g->set_generator_params({{"auto_schedule", "true"}, {"machine_params", "4,1048576,40"}});
    Pipeline p = g->build_pipeline(Target());
    const AutoSchedulerResults &r = g->auto_schedule_results();
    EXPECT_EQ(r.scheduler_name, "Heuristic");
    EXPECT_EQ(r.machine_params_string, "4,1048576,40");
    const std::string header = Internal::schedule_header(p, "scale", r);
    EXPECT_NE(header.find("Auto-scheduled by Heuristic"), std::string::npos) << header;
    EXPECT_NE(header.find("// Heuristic auto-schedule for 4 cores"), std::string::npos) << header;
    EXPECT_NE(header.find("#ifndef scale_SCHEDULE_H"), std::string::npos) << header;
    // The Generator's own vectorize(x, lanes) is replaced by the scheduler's choices.
    EXPECT_EQ(header.find("ShiftInwards"), std::string::npos) << header;
    EXPECT_NE(p.lowered_stmt().find("parallel"), std::string::npos) << p.lowered_stmt();
}

TEST(Generators, ArgumentsFollowDeclarationOrder) {
    auto g = Internal::GeneratorRegistry::create("aot_api_scale");
    Pipeline p = g->build_pipeline(Target());
    std::vector<Argument> args = g->arguments();
    ASSERT_EQ(args.size(), 1u);
    EXPECT_EQ(args[0].name, "input");
    EXPECT_EQ(args[0].kind, Argument::InputBuffer);
    p.compile_to_header(temp_path("gen.h"), args, "gen_fn");
    EXPECT_NE(read_file(temp_path("gen.h"))
                  .find("int32_t gen_fn(loom_buffer_t *input, loom_buffer_t *output);"),
              std::string::npos)
        << read_file(temp_path("gen.h"));
}

// A static library for a no_runtime target leaves the runtime out; compile_standalone_runtime
// writes it alone (Halide 14's lesson 15 joins several of the first with one of the second).
TEST(AheadOfTimeFiles, NoRuntimeLibraryAndTheStandaloneRuntime) {
    Scale p;
    const std::vector<Argument> args = {p.input, p.factor};
    p.out.compile_to_static_library(temp_path("with_runtime"), args, "with_fn", Target("host"));
    p.out.compile_to_static_library(temp_path("no_runtime"), args, "no_fn",
                                    Target("host-no_runtime"));
    const std::string with = read_file(temp_path("with_runtime.a"));
    const std::string without = read_file(temp_path("no_runtime.a"));
    EXPECT_NE(with.find("loom_runtime.o"), std::string::npos);
    EXPECT_NE(with.find("loom_buffer_bounds_query"), std::string::npos);
    EXPECT_EQ(without.substr(0, 8), "!<arch>\n");
    EXPECT_NE(without.find("no_fn.o"), std::string::npos);
    EXPECT_EQ(without.find("loom_runtime.o"), std::string::npos) << "no_runtime keeps it out";
    EXPECT_LT(without.size() * 2, with.size());

    compile_standalone_runtime(temp_path("runtime.o"), Target("host-x86-64"));
    const std::string runtime = read_file(temp_path("runtime.o"));
    EXPECT_EQ(runtime.substr(0, 4), "\x7f"
                                    "ELF");
    EXPECT_NE(runtime.find("loom_do_par_for"), std::string::npos);
    EXPECT_NE(runtime.find("loom_buffer_bounds_query"), std::string::npos);
    try {
        compile_standalone_runtime(temp_path("runtime_win.o"),
                                   Target(Target::Windows, Target::X86, 64));
        FAIL() << "expected an error: the runtime is built for x86-64 Linux only";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("x86-64 Linux only"), std::string::npos) << e.what();
    }
}

std::string target_error(const std::string &spec) {
    try {
        Target t(spec);
    } catch (const loom::Error &e) {
        return e.what();
    }
    return "";
}

// Halide's target strings: "host" first, or an architecture, bit width and OS in any order,
// then features; what Loom can't compile for is named in the error.
TEST(Targets, HalidesGrammarAndWhatLoomCompilesFor) {
    const Target t("host-x86-64-sse41-no_runtime");
    EXPECT_EQ(t.arch, Target::X86);
    EXPECT_EQ(t.bits, 64);
    EXPECT_EQ(t.os, Target::Linux);
    EXPECT_TRUE(t.has_feature(Target::SSE41));
    EXPECT_TRUE(t.has_feature(Target::NoRuntime));
    for (Target::Feature f : get_host_target().features)
        EXPECT_TRUE(t.has_feature(f)) << "host's features stay: " << Target::feature_to_name(f);
    EXPECT_EQ(Target("linux-x86-64-avx2"), Target("x86-64-linux-avx2"));
    EXPECT_EQ(Target("x86-64-linux-no_runtime").to_string(), "x86-64-linux-no_runtime");

    const std::string win32 = target_error("x86-32-windows");
    EXPECT_NE(win32.find("asks for 32-bit code code for windows"), std::string::npos) << win32;
    EXPECT_NE(win32.find("x86-64 Linux only"), std::string::npos) << win32;
    const std::string arm = target_error("arm-64-android");
    EXPECT_NE(arm.find("the arm architecture code for android"), std::string::npos) << arm;
    EXPECT_NE(target_error("x86-64").find("must name the architecture, bit width and OS"),
              std::string::npos);
    EXPECT_NE(target_error("x86-64-linux-sse4").find("Unknown target feature \"sse4\""),
              std::string::npos);
    EXPECT_NE(target_error("x86-64-linux-x86").find("names two architectures"), std::string::npos);
}

// Halide's Output<Buffer<void, D>>: the element type is the GeneratorParam "<name>.type";
// GeneratorParams take part in Exprs and comparisons by their values (lesson 15's second
// generator).
class AnyTypeGenerator : public Generator<AnyTypeGenerator> {
public:
    enum class Mode { Plain, Flipped };
    GeneratorParam<float> scale{"scale", 1.0f, 0.0f, 100.0f};
    GeneratorParam<Mode> mode{
        "mode", Mode::Plain, {{"plain", Mode::Plain}, {"flipped", Mode::Flipped}}};
    GeneratorParam<int> bias{"bias", 0};
    Input<Buffer<uint8_t, 1>> input{"input"};
    Output<Buffer<void, 1>> output{"output"};
    void generate() {
        Var x("x");
        Func scaled("scaled");
        scaled(x) = scale * (input(x) + bias) - bias;
        Expr at = mode == Mode::Flipped ? 9 - x : x;
        output(x) = cast(output.type(), scaled(at));
        if (mode != Mode::Plain && !(bias > 3)) output.vectorize(x, 4);
    }
};
LOOM_REGISTER_GENERATOR(AnyTypeGenerator, aot_api_any_type)

TEST(Generators, AnOutputOfVoidTypeTakesTheTypeParam) {
    Buffer<uint8_t> in(10);
    for (int i = 0; i < 10; i++)
        in(i) = (uint8_t)(i * 25);
    struct Case {
        std::map<std::string, std::string> params;
        Type type;
    };
    for (const Case &c :
         {Case{{{"output.type", "uint16"}, {"scale", "2.5"}}, UInt(16)},
          Case{{{"output.type", "float64"}, {"mode", "flipped"}, {"bias", "2"}}, Float(64)}}) {
        auto g = Internal::GeneratorRegistry::create("aot_api_any_type");
        g->set_generator_params(c.params);
        Pipeline p = g->build_pipeline(Target());
        dynamic_cast<AnyTypeGenerator &>(*g).input.set(in);
        Buffer<> out(c.type, {10});
        p.realize(out);
        const float scale = c.params.count("scale") ? 2.5f : 1.0f;
        const int bias = c.params.count("bias") ? 2 : 0;
        const bool flipped = c.params.count("mode") != 0;
        for (int i = 0; i < 10; i++) {
            const uint8_t v = in(flipped ? 9 - i : i);
            // uint8 + int32 constant is uint8 (the constant takes the Expr's type), times a float.
            const float want = scale * (float)(uint8_t)(v + bias) - (float)bias;
            if (c.type == UInt(16)) {
                EXPECT_EQ(out.as<uint16_t>()(i), (uint16_t)want) << i;
            } else {
                EXPECT_EQ(out.as<double>()(i), (double)want) << i;
            }
        }
    }
    const std::string unset = generator_error("aot_api_any_type", {});
    EXPECT_NE(unset.find("GeneratorParam output.type, which is not set"), std::string::npos)
        << unset;
    const std::string bad = generator_error("aot_api_any_type", {{"output.type", "int3"}});
    EXPECT_NE(bad.find("GeneratorParam output.type is a type: \"int3\" is not one"),
              std::string::npos)
        << bad;
}

LOOM_REGISTER_GENERATOR_ALIAS(aot_api_any_type_u16x3, aot_api_any_type,
                              {{"output.type", "uint16"}, {"scale", "3"}})

// Halide's HALIDE_REGISTER_GENERATOR_ALIAS (a Generator under a second name with some
// GeneratorParams set), the built-in target GeneratorParam, get_pipeline() and realize().
TEST(Generators, AnAliasSetsParamsAndGetPipelineBuildsForTheTargetParam) {
    auto g = Internal::GeneratorRegistry::create("aot_api_any_type_u16x3");
    EXPECT_EQ(g->generator_name(), "aot_api_any_type_u16x3");
    g->set_generator_params({{"target", "x86-64-linux-sse41"}, {"bias", "1"}});
    EXPECT_EQ(g->get_target(), Target("x86-64-linux-sse41"));
    Buffer<uint8_t> in(10);
    for (int i = 0; i < 10; i++)
        in(i) = (uint8_t)(i * 30);
    dynamic_cast<AnyTypeGenerator &>(*g).input.set(in);
    Pipeline p = g->get_pipeline();
    EXPECT_TRUE(p.defined());
    EXPECT_EQ(g->natural_vector_size<uint16_t>(), 8) << "SSE4.1: 16-byte vectors";
    Buffer<uint16_t> out = g->realize({10});
    for (int i = 0; i < 10; i++)
        EXPECT_EQ(out(i), (uint16_t)(3.0f * (float)(uint8_t)(in(i) + 1) - 1.0f)) << i;
    // The pipeline is built once: a second get_pipeline returns it.
    EXPECT_EQ(g->get_pipeline().outputs()[0].name(), p.outputs()[0].name());
    const std::string unknown = generator_error("aot_api_any_type_u16x3", {{"scael", "2"}});
    EXPECT_NE(unknown.find("output.type=uint16"), std::string::npos) << unknown;
    EXPECT_NE(unknown.find("target=host"), std::string::npos) << unknown;
}

// Input<T>(name, default, min, max): a scalar input with the range a run checks.
class RangedInputGenerator : public Generator<RangedInputGenerator> {
public:
    Input<Buffer<uint8_t, 1>> input{"input"};
    Input<uint8_t> offset{"offset", 7, 2, 10};
    Output<Buffer<uint8_t, 1>> output{"output"};
    void generate() {
        Var x("x");
        output(x) = input(x) + offset;
    }
};
LOOM_REGISTER_GENERATOR(RangedInputGenerator, aot_api_ranged_input)

TEST(Generators, AScalarInputChecksItsRange) {
    auto g = Internal::GeneratorRegistry::create("aot_api_ranged_input");
    auto &ranged = dynamic_cast<RangedInputGenerator &>(*g);
    Buffer<uint8_t> in(5);
    for (int i = 0; i < 5; i++)
        in(i) = (uint8_t)(i * 50);
    ranged.input.set(in);
    Buffer<uint8_t> out = g->realize({5});
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(out(i), (uint8_t)(i * 50 + 7)) << i;
    for (int bad : {1, 11}) {
        ranged.offset.set((uint8_t)bad);
        try {
            g->realize({5});
            FAIL() << "expected an error: offset " << bad << " is outside [2, 10]";
        } catch (const loom::Error &e) {
            EXPECT_NE(std::string(e.what()).find("offset"), std::string::npos) << e.what();
        }
    }
}

// add_requirement in generate(): the pipeline the Generator builds checks it on every run.
class RequiringGenerator : public Generator<RequiringGenerator> {
public:
    Input<Buffer<uint8_t, 1>> input{"input"};
    Input<int> step{"step", 1};
    Output<Buffer<uint8_t, 1>> output{"output"};
    void generate() {
        Var x("x");
        output(x) = input(x * step);
        add_requirement(step > 0 && step < 4, "step is", step, "; give 1, 2 or 3");
    }
};
LOOM_REGISTER_GENERATOR(RequiringGenerator, aot_api_requiring)

TEST(Generators, AddRequirementIsCheckedByEveryRun) {
    auto g = Internal::GeneratorRegistry::create("aot_api_requiring");
    auto &requiring = dynamic_cast<RequiringGenerator &>(*g);
    Buffer<uint8_t> in(12);
    for (int i = 0; i < 12; i++)
        in(i) = (uint8_t)(i * 3);
    requiring.input.set(in);
    requiring.step.set(2);
    Buffer<uint8_t> out = g->realize({5});
    for (int i = 0; i < 5; i++)
        EXPECT_EQ(out(i), (uint8_t)(i * 6)) << i;
    requiring.step.set(5);
    try {
        g->realize({2});
        FAIL() << "expected the requirement to stop the run: step 5";
    } catch (const loom::RuntimeError &e) {
        EXPECT_NE(
            std::string(e.what()).find("Requirement Failed: (false) step is 5 ; give 1, 2 or 3"),
            std::string::npos)
            << e.what();
    }
}

} // namespace

namespace {

// A GeneratorParam<LoopLevel> places a Func (Halide 14's): set from the command line's names
// (root, inlined) before generate(), or set in code after schedule() named it, where the
// schedule follows.
class PlacedByParamGenerator : public Generator<PlacedByParamGenerator> {
public:
    GeneratorParam<LoopLevel> doubled_level{"doubled_level", LoopLevel::inlined()};
    Input<Buffer<int, 1>> input{"input"};
    Output<Buffer<int, 1>> output{"output"};
    void generate() {
        Var x("x");
        doubled(x) = input(x) * 2;
        output(x) = doubled(x) + doubled(x + 1);
    }
    void schedule() { doubled.compute_at(doubled_level); }
    Func doubled{"doubled"};
};
LOOM_REGISTER_GENERATOR(PlacedByParamGenerator, aot_api_placed_by_param)

} // namespace

TEST(Generators, ALoopLevelParamPlacesAFunc) {
    Buffer<int> in(9);
    for (int i = 0; i < 9; i++)
        in(i) = i * i;
    auto run = [&](const std::map<std::string, std::string> &params, bool set_after_schedule) {
        auto g = Internal::GeneratorRegistry::create("aot_api_placed_by_param");
        auto &placed = dynamic_cast<PlacedByParamGenerator &>(*g);
        g->set_generator_params(params);
        placed.input.set(in);
        Pipeline pipeline = g->get_pipeline();
        if (set_after_schedule) placed.doubled_level.set(LoopLevel::root());
        Buffer<int> out = pipeline.realize({8});
        for (int i = 0; i < 8; i++)
            EXPECT_EQ(out(i), 2 * i * i + 2 * (i + 1) * (i + 1)) << i;
        return pipeline.lowered_stmt().find("produce doubled") != std::string::npos;
    };
    EXPECT_FALSE(run({}, false));
    EXPECT_TRUE(run({{"doubled_level", "root"}}, false));
    EXPECT_FALSE(run({{"doubled_level", "inlined"}}, false));
    EXPECT_TRUE(run({}, true));
    auto g = Internal::GeneratorRegistry::create("aot_api_placed_by_param");
    try {
        g->set_generator_params({{"doubled_level", "output.x"}});
        FAIL() << "expected a loop named on the command line to be refused";
    } catch (const loom::Error &e) {
        EXPECT_NE(std::string(e.what()).find("GeneratorParam doubled_level is a LoopLevel: pass "
                                             "root or inlined, not \"output.x\""),
                  std::string::npos)
            << e.what();
    }
}
