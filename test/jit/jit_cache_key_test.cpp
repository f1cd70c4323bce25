// The persistent JIT cache is keyed by a pipeline's definition (codegen/JITCacheKey.h): a hit
// runs machine code compiled in another process for an equal key, without lowering anything.
// A field lowering reads but the key leaves out would make two different pipelines share a
// key and load each other's code, silently. These tests look for such a field:
//
//  - over random pipelines and schedules (the schedule-invariance fuzzer's generators), each
//    schedule with one directive changed in turn, each pipeline built again and over other
//    inputs: wherever two definition keys are equal, the lowered pipelines are equal
//    (lowered_key, every node and type), and a definition built twice has one key;
//  - a table of edits, one per directive of the scheduling API and per kind of change to a
//    definition, Param, ImageParam, Buffer, option or target: each changes the key, and no two
//    edits give the same key; what lowering never reads (a Param's value, a Buffer's size and
//    contents) leaves it as it is.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

#include "codegen/JITCacheKey.h"
#include "fuzz/FuzzIR.h"
#include "lower/Lower.h"

namespace {

using namespace loom;
using Internal::FunctionPtr;

std::vector<FunctionPtr> functions(const std::vector<Func> &outputs) {
    std::vector<FunctionPtr> fs;
    for (const Func &f : outputs) fs.push_back(f.function());
    return fs;
}

std::string definition_key(const std::vector<Func> &outputs, const Target &target = Target(),
                           const CompileOptions &options = CompileOptions()) {
    return Internal::definition_key(functions(outputs), "pipeline", target, options, {}).bytes;
}

std::string lowered_key(const std::vector<Func> &outputs, const Target &target = Target(),
                        const CompileOptions &options = CompileOptions()) {
    std::ostringstream log;
    return Internal::lowered_key(
        Internal::lower(functions(outputs), "pipeline", target, options, {}, log));
}

// ---------------------------------------------------------------------------------------------
// Random pipelines and schedules.

using namespace loom_fuzz;

struct Checker {
    std::map<std::string, std::string> lowered_of;  // definition key -> lowered key
    std::map<std::string, std::string> what_of;     // definition key -> what made it
    int repeats = 0;          // definitions met again (their lowerings compared)
    int distinct_code = 0;    // perturbed schedules that lowered to other code
    int perturbed = 0;

    // The keys of p scheduled by s over `inputs`; false where Loom rejects the schedule.
    bool keys(const PipelineDesc &p, const Schedule &s, const std::vector<Buffer<>> &inputs,
              std::string *definition, std::string *lowered) {
        try {
            std::vector<Func> outputs = loom_outputs(p, s, inputs);
            *definition = definition_key(outputs);
            *lowered = lowered_key(outputs);
            return true;
        } catch (const std::exception &) {
            return false;  // a perturbed schedule Loom rejects
        }
    }

    // Records a definition; where its key was met before, its lowering must be the same.
    void record(const std::string &what, const std::string &definition,
                const std::string &lowered) {
        auto [it, first] = lowered_of.emplace(definition, lowered);
        if (first) {
            what_of[definition] = what;
            return;
        }
        repeats++;
        EXPECT_TRUE(it->second == lowered)
            << what << " has the definition key of " << what_of[definition]
            << " but lowers to other code: a field lowering reads is missing from the key";
    }
};

// One directive of s changed (a factor, a tail strategy, a loop level) or dropped: schedules
// one edit away from s, most of them legal.
std::vector<std::pair<std::string, Schedule>> perturbations(const Schedule &s) {
    std::vector<std::pair<std::string, Schedule>> result;
    for (size_t i = 0; i < s.directives.size(); i++) {
        const Directive &d = s.directives[i];
        auto with = [&](const std::string &what, auto change) {
            Schedule t = s;
            change(t.directives[i]);
            result.emplace_back("directive " + std::to_string(i) + " " + what, t);
        };
        if (d.factor > 0) {
            with("factor + 1", [](Directive &e) { e.factor += 1; });
            with("factor * 2", [](Directive &e) { e.factor *= 2; });
        }
        if (d.factor2 > 0) with("factor2 + 1", [](Directive &e) { e.factor2 += 1; });
        with("tail", [](Directive &e) { e.tail = Tail(((int)e.tail + 1) % 4); });
        if (d.kind == Directive::ComputeAt || d.kind == Directive::StoreAt) {
            with("at outermost", [](Directive &e) { e.at_loop = "__outermost"; });
        }
        Schedule dropped = s;
        dropped.directives.erase(dropped.directives.begin() + (long)i);
        result.emplace_back("directive " + std::to_string(i) + " dropped", dropped);
    }
    return result;
}

TEST(JITCacheKey, EqualDefinitionKeysLowerAlike) {
    const uint32_t seed = 2027;
    const int pipelines = std::getenv("LOOM_KEY_FUZZ_PIPELINES")
                              ? std::atoi(std::getenv("LOOM_KEY_FUZZ_PIPELINES"))
                              : 24;
    Checker c;
    for (int k = 0; k < pipelines; k++) {
        const PipelineDesc p = generate_pipeline(pipeline_seed(seed, k));
        const std::vector<Buffer<>> inputs = make_inputs(p);
        // The same inputs with other contents, and with other shapes (extents and mins).
        PipelineDesc other_data = p, other_shape = p;
        for (InputDesc &in : other_data.inputs) in.data_seed += 1;
        for (InputDesc &in : other_shape.inputs) {
            for (int &e : in.extents) e += 3;
            for (int &m : in.mins) m -= 1;
        }
        const std::vector<Buffer<>> inputs_data = make_inputs(other_data);
        const std::vector<Buffer<>> inputs_shape = make_inputs(other_shape);
        for (int j = 0; j < 3; j++) {
            const Schedule s = generate_schedule(p, schedule_seed(seed, k, j), j == 0);
            const std::string name = "pipeline " + std::to_string(k) + " schedule " + std::to_string(j);
            std::string definition, lowered;
            if (!c.keys(p, s, inputs, &definition, &lowered)) continue;
            c.record(name, definition, lowered);

            // Built again, and over inputs of other contents and shapes. A definition's names
            // are in its key: where an inline reduction takes its Func's name from the
            // process's count of them (sum_f12), a build in this process has another key
            // (the same program in a new process counts alike). Otherwise the keys are equal,
            // and so must be the code: lowering reads no input's contents or shape (except
            // where a boundary condition wrote an input's shape into the definition, which
            // then has another key).
            for (const auto *other : {&inputs, &inputs_data, &inputs_shape}) {
                std::string k2, l2;
                ASSERT_TRUE(c.keys(p, s, *other, &k2, &l2)) << name;
                c.record(name + (other == &inputs ? " built again"
                                 : other == &inputs_data ? " over inputs of other contents"
                                                         : " over inputs of other shapes"),
                         k2, l2);
            }

            for (const auto &[what, t] : perturbations(s)) {
                std::string pk, pl;
                if (!c.keys(p, t, inputs, &pk, &pl)) continue;
                c.perturbed++;
                c.distinct_code += pl != lowered;
                c.record(name + " with " + what, pk, pl);
            }
        }
    }
    // The test is only as strong as the pairs it compared: equal keys whose code was compared,
    // and one-directive changes whose code differs (each must change the key).
    EXPECT_GE(c.repeats, pipelines);
    EXPECT_GE(c.distinct_code, 10 * pipelines);
    std::printf("%d definitions met again, %d of %d perturbed schedules lowered to other code\n",
                c.repeats, c.distinct_code, c.perturbed);
}

// ---------------------------------------------------------------------------------------------
// One edit at a time.

// The parts of a definition an edit may change.
struct Def {
    int divisor = 3;
    Type blur_type = UInt(16);
    int offset = 1;
    int rdom_min = 0, rdom_extent = 8;
    int where_mod = 0;  // 0: no where()
    bool second_update = false;
    bool tuple = false;
    std::string param_name = "gain";
    bool param_int = false;
    std::string image_name = "in";
    Type image_type = UInt(16);
    int image_dims = 2;
    std::string lut_name = "lut";
    int lut_size = 256;
    bool lut_2d = false;
    bool lut_u16 = false;
    std::string blur_name = "blur";
    float gain_value = 1.5f;
    int lut_fill = 0;
};

// The pipeline of the edits: an ImageParam read through a clamp, a stencil, a histogram
// reduction over an RDom, an embedded lookup table and a scalar Param, with a schedule.
struct Pipe {
    Var x{"x"}, y{"y"}, xo{"xo"}, yo{"yo"}, xi{"xi"}, yi{"yi"}, t{"t"}, u{"u"};
    ImageParam in;
    Param<float> gain{"gain"};
    Param<int> gain_int{"gain"};
    Buffer<uint8_t> lut;
    Buffer<uint16_t> lut16;
    RDom r;
    Func clamped{"clamped"}, blur, total{"total"}, out{"out"};

    explicit Pipe(const Def &d) : in(d.image_type, d.image_dims, d.image_name), blur(d.blur_name) {
        Expr g;
        if (d.param_int) {
            gain_int = Param<int>(d.param_name);
            gain_int.set(2);
            g = cast<float>(Expr(gain_int));
        } else {
            gain = Param<float>(d.param_name);
            gain.set(d.gain_value);
            g = gain;
        }
        std::vector<Expr> at = {clamp(x, 0, 63), clamp(y, 0, 31)};
        if (d.image_dims == 3) at.push_back(0);
        clamped(x, y) = cast<int>(in(at));
        Expr sum = clamped(x - d.offset, y) + clamped(x, y) + clamped(x + d.offset, y);
        blur(x, y) = cast(d.blur_type, sum / d.divisor);
        r = RDom(d.rdom_min, d.rdom_extent, 0, 4, "r");
        if (d.where_mod) r.where(r.x % d.where_mod != 0);
        total(x) = 0;
        total(x) += cast<int>(blur(x, r.x + r.y));
        if (d.second_update) total(x) += 1;
        Expr lookup;
        if (d.lut_u16) {
            lut16 = Buffer<uint16_t>({d.lut_size}, d.lut_name);
            lookup = cast<int>(lut16(total(x) & 255));
        } else if (d.lut_2d) {
            lut = Buffer<uint8_t>({d.lut_size, 2}, d.lut_name);
            lookup = cast<int>(lut(total(x) & 255, 0));
        } else {
            lut = Buffer<uint8_t>({d.lut_size}, d.lut_name);
            lut.fill((uint8_t)d.lut_fill);
            lookup = cast<int>(lut(total(x) & 255));
        }
        Expr value = cast<float>(cast<int>(blur(x, y)) + lookup) * g;
        if (d.tuple) {
            out(x, y) = Tuple(value, cast<int>(blur(x, y)));
        } else {
            out(x, y) = value;
        }
        out.split(y, yo, yi, 8).parallel(yo).vectorize(x, 8);
        blur.compute_at(out, yo).vectorize(x, 8);
        total.compute_root();
    }
};

struct Edit {
    const char *what;
    std::function<void(Def &)> define;      // a change to the definition
    std::function<void(Pipe &)> schedule;   // a directive after the base schedule
    std::function<void(CompileOptions &, Target &)> compile;
};

std::string key_of(const Edit &e) {
    Def d;
    if (e.define) e.define(d);
    Pipe p(d);
    if (e.schedule) e.schedule(p);
    CompileOptions options;
    Target target;
    if (e.compile) e.compile(options, target);
    return definition_key({p.out}, target, options);
}

TEST(JITCacheKey, EveryEditChangesTheKey) {
    using TS = TailStrategy;
    const std::vector<Edit> edits = {
        // Definitions.
        {"a constant", [](Def &d) { d.divisor = 4; }, {}, {}},
        {"a cast's type", [](Def &d) { d.blur_type = Int(16); }, {}, {}},
        {"a call's coordinate", [](Def &d) { d.offset = 2; }, {}, {}},
        {"an RDom's min", [](Def &d) { d.rdom_min = 1; }, {}, {}},
        {"an RDom's extent", [](Def &d) { d.rdom_extent = 9; }, {}, {}},
        {"a where() predicate", [](Def &d) { d.where_mod = 2; }, {}, {}},
        {"another where() predicate", [](Def &d) { d.where_mod = 3; }, {}, {}},
        {"one more update", [](Def &d) { d.second_update = true; }, {}, {}},
        {"a Tuple output", [](Def &d) { d.tuple = true; }, {}, {}},
        {"a Func's name", [](Def &d) { d.blur_name = "blur2"; }, {}, {}},
        {"a Param's name", [](Def &d) { d.param_name = "gain2"; }, {}, {}},
        {"a Param's type", [](Def &d) { d.param_int = true; }, {}, {}},
        {"an ImageParam's name", [](Def &d) { d.image_name = "in2"; }, {}, {}},
        {"an ImageParam's type", [](Def &d) { d.image_type = Int(16); }, {}, {}},
        {"an ImageParam's dimensions", [](Def &d) { d.image_dims = 3; }, {}, {}},
        {"a Buffer's name", [](Def &d) { d.lut_name = "lut2"; }, {}, {}},
        {"a Buffer's type", [](Def &d) { d.lut_u16 = true; }, {}, {}},
        {"a Buffer's dimensions", [](Def &d) { d.lut_2d = true; }, {}, {}},
        // The schedule of a pure stage.
        {"split", {}, [](Pipe &p) { p.blur.split(p.y, p.yo, p.yi, 4); }, {}},
        {"split by another factor", {}, [](Pipe &p) { p.blur.split(p.y, p.yo, p.yi, 2); }, {}},
        {"split GuardWithIf", {}, [](Pipe &p) { p.blur.split(p.y, p.yo, p.yi, 4, TS::GuardWithIf); }, {}},
        {"split RoundUp", {}, [](Pipe &p) { p.blur.split(p.y, p.yo, p.yi, 4, TS::RoundUp); }, {}},
        {"split with other names", {}, [](Pipe &p) { p.blur.split(p.y, p.t, p.u, 4); }, {}},
        {"fuse", {}, [](Pipe &p) { p.blur.fuse(p.x, p.y, p.t); }, {}},
        {"reorder", {}, [](Pipe &p) { p.blur.reorder(p.y, p.x); }, {}},
        {"tile", {}, [](Pipe &p) { p.blur.tile(p.x, p.y, p.xo, p.yo, p.xi, p.yi, 4, 2); }, {}},
        {"tile in place", {}, [](Pipe &p) { p.blur.tile(p.x, p.y, p.xi, p.yi, 4, 2); }, {}},
        {"rename", {}, [](Pipe &p) { p.blur.rename(p.y, p.t); }, {}},
        {"serial", {}, [](Pipe &p) { p.out.serial(p.yo); }, {}},
        {"parallel", {}, [](Pipe &p) { p.blur.parallel(p.y); }, {}},
        {"parallel by a task size", {}, [](Pipe &p) { p.blur.parallel(p.y, 2); }, {}},
        {"vectorize", {}, [](Pipe &p) { p.blur.vectorize(p.y); }, {}},
        {"vectorize by a factor", {}, [](Pipe &p) { p.blur.vectorize(p.y, 4); }, {}},
        {"vectorize by a factor, GuardWithIf", {}, [](Pipe &p) { p.blur.vectorize(p.y, 4, TS::GuardWithIf); }, {}},
        {"unroll", {}, [](Pipe &p) { p.blur.unroll(p.y); }, {}},
        {"unroll by a factor", {}, [](Pipe &p) { p.blur.unroll(p.y, 2); }, {}},
        {"unroll by a factor, RoundUp", {}, [](Pipe &p) { p.blur.unroll(p.y, 2, TS::RoundUp); }, {}},
        {"gpu_blocks", {}, [](Pipe &p) { p.out.gpu_blocks(p.yo); }, {}},
        {"gpu_threads", {}, [](Pipe &p) { p.out.gpu_threads(p.yi); }, {}},
        {"gpu_tile", {}, [](Pipe &p) { p.total.gpu_tile(p.x, p.xo, p.xi, 16); }, {}},
        {"prefetch of an image", {}, [](Pipe &p) { p.blur.prefetch(p.in, p.y, p.y); }, {}},
        {"prefetch further on", {}, [](Pipe &p) { p.blur.prefetch(p.in, p.y, p.y, 2); }, {}},
        {"prefetch Clamp", {}, [](Pipe &p) { p.blur.prefetch(p.in, p.y, p.y, 1, PrefetchBoundStrategy::Clamp); }, {}},
        {"prefetch of a Func", {}, [](Pipe &p) { p.out.prefetch(p.blur, p.yi, p.yi); }, {}},
        // Where Funcs are computed and stored, and their storage.
        {"compute_root", {}, [](Pipe &p) { p.blur.compute_root(); }, {}},
        {"compute_inline", {}, [](Pipe &p) { p.blur.compute_inline(); }, {}},
        {"compute_at another loop", {}, [](Pipe &p) { p.blur.compute_at(p.out, p.yi); }, {}},
        {"compute_at of an inlined Func", {}, [](Pipe &p) { p.clamped.compute_at(p.blur, p.y); }, {}},
        {"compute_at a stage's loop", {}, [](Pipe &p) { p.clamped.compute_at(p.total.update(0).at(p.x)); }, {}},
        {"compute_at outermost", {}, [](Pipe &p) { p.blur.compute_at(p.out, Var::outermost()); }, {}},
        {"compute_at a loop of stage 0", {}, [](Pipe &p) { p.blur.compute_at(LoopLevel(p.total, p.x, 0)); }, {}},
        {"compute_at the loop of stage 1", {}, [](Pipe &p) { p.blur.compute_at(LoopLevel(p.total, p.x, 1)); }, {}},
        {"store_root", {}, [](Pipe &p) { p.blur.store_root(); }, {}},
        {"store_at", {}, [](Pipe &p) { p.blur.compute_at(p.out, p.yi).store_at(p.out, p.yo); }, {}},
        {"bound", {}, [](Pipe &p) { p.total.bound(p.x, 0, 64); }, {}},
        {"another bound", {}, [](Pipe &p) { p.total.bound(p.x, 0, 32); }, {}},
        {"estimate", {}, [](Pipe &p) { p.total.set_estimate(p.x, 0, 64); }, {}},
        {"reorder_storage", {}, [](Pipe &p) { p.blur.reorder_storage(p.y, p.x); }, {}},
        {"fold_storage", {}, [](Pipe &p) { p.blur.fold_storage(p.y, 4); }, {}},
        {"specialize", {}, [](Pipe &p) { p.out.specialize(p.gain > 1.0f); }, {}},
        {"specialize, scheduled", {}, [](Pipe &p) { p.out.specialize(p.gain > 1.0f).vectorize(p.x, 4); }, {}},
        {"specialize_fail", {}, [](Pipe &p) {
             p.out.specialize(p.gain > 1.0f);
             p.out.specialize_fail("no");
         }, {}},
        // The schedule of an update.
        {"update split", {}, [](Pipe &p) { p.total.update(0).split(p.x, p.xo, p.xi, 4); }, {}},
        {"update vectorize", {}, [](Pipe &p) { p.total.update(0).vectorize(p.x, 4); }, {}},
        {"update parallel", {}, [](Pipe &p) { p.total.update(0).parallel(p.x); }, {}},
        {"update reorder", {}, [](Pipe &p) { p.total.update(0).reorder(p.x, p.r.x, p.r.y); }, {}},
        {"update unroll an RVar", {}, [](Pipe &p) { p.total.update(0).unroll(p.r.y); }, {}},
        {"update split an RVar", {}, [](Pipe &p) { p.total.update(0).split(p.r.x, p.t, p.u, 2); }, {}},
        {"rfactor", {}, [](Pipe &p) { p.total.update(0).rfactor(p.r.y, p.u); }, {}},
        // Options, target.
        {"streaming_min_bytes", {}, {}, [](CompileOptions &o, Target &) { o.streaming_min_bytes = 0; }},
        {"a target", {}, {}, [](CompileOptions &, Target &t) { t = Target("x86-64-linux-avx2"); }},
        {"a target feature", {}, {}, [](CompileOptions &, Target &t) { t = Target("x86-64-linux-avx2-fma"); }},
    };
    const std::string base = key_of(Edit{"none", {}, {}, {}});
    EXPECT_EQ(key_of(Edit{"none", {}, {}, {}}), base) << "two builds of one pipeline differ";
    std::map<std::string, const char *> seen = {{base, "no edit"}};
    for (const Edit &e : edits) {
        std::string key;
        try {
            key = key_of(e);
        } catch (const std::exception &error) {
            ADD_FAILURE() << e.what << ": " << error.what();
            continue;
        }
        auto [it, first] = seen.emplace(key, e.what);
        EXPECT_TRUE(first) << "the edit \"" << e.what << "\" gives the key of \"" << it->second << "\"";
    }

    // What lowering never reads is not in the key: the value of a Param, the size and the
    // contents of an embedded Buffer (read through the pipeline's arguments when it runs).
    EXPECT_EQ(key_of(Edit{"a Param's value", [](Def &d) { d.gain_value = 7.0f; }, {}, {}}), base);
    EXPECT_EQ(key_of(Edit{"a Buffer's size", [](Def &d) { d.lut_size = 300; }, {}, {}}), base);
    EXPECT_EQ(key_of(Edit{"a Buffer's contents", [](Def &d) { d.lut_fill = 9; }, {}, {}}), base);
    // A default written out is resolved when the directive is given: split's Auto in a pure
    // stage is ShiftInwards, gpu_blocks' Default_GPU is CUDA.
    auto split_with = [](TS tail) {
        return key_of(Edit{"split", {}, [tail](Pipe &p) { p.blur.split(p.y, p.yo, p.yi, 4, tail); }, {}});
    };
    EXPECT_EQ(split_with(TS::ShiftInwards), split_with(TS::Auto));
    EXPECT_EQ(key_of(Edit{"gpu_blocks", {}, [](Pipe &p) { p.out.gpu_blocks(p.yo, DeviceAPI::CUDA); }, {}}),
              key_of(Edit{"gpu_blocks", {}, [](Pipe &p) { p.out.gpu_blocks(p.yo); }, {}}));
    // Options that change no code.
    EXPECT_EQ(key_of(Edit{"options", {}, {}, [](CompileOptions &o, Target &) {
                              o.verify_ir = true;
                              o.compile_threads = 3;
                              o.copy_outputs_to_host = false;
                              o.jit_cache_dir = "/elsewhere";
                          }}),
              base);
}

// The inner loops of vectorize(x, n), unroll(x, n) and parallel(x, n) are named after fresh
// Vars, as Halide names them (x.v7): another number each time a program builds the pipeline.
// The keys write those names by the order they are met in, so a pipeline built again has
// the same keys, while two different uses of them do not.
TEST(JITCacheKey, FreshLoopNamesKeepAPipelineBuiltAgainOneKey) {
    auto build = [](bool swap_directives) {
        Func f("f");
        Var x("x"), y("y"), c("c");
        f(x, y, c) = x + y * c;
        if (swap_directives) {
            f.unroll(x, 4).vectorize(y, 4);
        } else {
            f.vectorize(x, 4).unroll(y, 4);
        }
        f.parallel(c, 2);
        return f;
    };
    const Func first = build(false), again = build(false), swapped = build(true);
    const std::string first_stmt = Pipeline(first).lowered_stmt();
    ASSERT_NE(first_stmt, Pipeline(again).lowered_stmt()) << "the loops should have other names";
    EXPECT_THAT(first_stmt, testing::ContainsRegex("f\\.s0\\.c\\.v[0-9]+")) << first_stmt;
    EXPECT_EQ(definition_key({first}), definition_key({again}));
    EXPECT_EQ(lowered_key({first}), lowered_key({again}));
    EXPECT_NE(definition_key({first}), definition_key({swapped}));
    EXPECT_NE(lowered_key({first}), lowered_key({swapped}));
}

// The outputs and their order are in the key; so is the name the code is compiled under.
TEST(JITCacheKey, OutputsAndNameAreInTheKey) {
    Pipe p{Def()};
    const std::vector<FunctionPtr> one = functions({p.out}), two = functions({p.out, p.total});
    const std::vector<FunctionPtr> swapped = functions({p.total, p.out});
    auto key = [](const std::vector<FunctionPtr> &outputs, const char *name) {
        return Internal::definition_key(outputs, name, Target(), CompileOptions(), {}).bytes;
    };
    EXPECT_NE(key(one, "a"), key(two, "a"));
    EXPECT_NE(key(two, "a"), key(swapped, "a"));
    EXPECT_NE(key(one, "a"), key(one, "b"));
    // Requested arguments (ahead-of-time compilation lists them) too.
    const std::vector<Argument> args = {Argument(p.in), Argument(p.gain)};
    const std::vector<Argument> reversed = {Argument(p.gain), Argument(p.in)};
    EXPECT_NE(Internal::definition_key(one, "a", Target(), CompileOptions(), args).bytes,
              Internal::definition_key(one, "a", Target(), CompileOptions(), reversed).bytes);
}

}  // namespace
