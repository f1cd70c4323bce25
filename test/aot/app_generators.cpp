// Two apps as Generators, for the ahead-of-time tests: the same .inc algorithms and schedules
// the JIT runs (apps/blur, apps/bilateral_grid), with a GeneratorParam choosing the schedule.
#include <loom.h>

#include "apps/common/App.h"
#include "io_kinds_generator.h"

namespace loom_apps {
namespace blur_gen {
using namespace loom;
#include "apps/blur/blur.inc"
} // namespace blur_gen
namespace bilateral_grid_gen {
using namespace loom;
#include "apps/bilateral_grid/bilateral_grid.inc"
} // namespace bilateral_grid_gen
} // namespace loom_apps

namespace {

using namespace loom;
using loom_apps::Variant;

class BlurGenerator : public Generator<BlurGenerator> {
public:
    GeneratorParam<bool> fused{"fused", true};
    // The GPU schedule (compile for a target with cuda).
    GeneratorParam<bool> gpu{"gpu", false};
    Input<Buffer<uint16_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        const Variant variant = auto_schedule ? Variant::Auto
                                : gpu         ? Variant::GPU
                                : fused       ? Variant::Hand
                                              : Variant::Unfused;
        loom_apps::blur_gen::BlurPipeline p(variant, input);
        output = p.outputs()[0];
    }

    void schedule() {
        // As Halide's Generators do: with auto_schedule=true, only the sizes to schedule for.
        if (auto_schedule) {
            input.set_estimates({{0, 1536}, {0, 2560}});
            output.set_estimates({{0, 1534}, {0, 2558}});
        }
    }
};

class BilateralGridGenerator : public Generator<BilateralGridGenerator> {
public:
    Input<Buffer<float>> input{"input", 2};
    Output<Buffer<float>> output{"output", 2};

    void generate() {
        loom_apps::bilateral_grid_gen::BilateralGridPipeline p(Variant::Hand, input);
        output = p.outputs()[0];
    }
};

// A gamma curve through a table the generator fills itself: a Buffer the pipeline reads
// directly, which the library embeds (its C function takes only input and output). The table
// has 257 entries from -1, so that its descriptor's min is carried too.
class GammaLutGenerator : public Generator<GammaLutGenerator> {
public:
    Input<Buffer<uint8_t>> input{"input", 2};
    Output<Buffer<uint16_t>> output{"output", 2};

    void generate() {
        Buffer<uint16_t> table(257, "gamma_table");
        table.set_min({-1});
        for (int i = -1; i < 256; i++)
            table(i) = (uint16_t)(i < 0 ? 7 : (i * i * 3) / 17 + i);
        Var x("x"), y("y");
        output(x, y) = table(cast<int32_t>(input(x, y))) + table(-1);
        output.vectorize(x, 8);
    }
};

// An extern stage in a library: the C function loom_aot_row_sums (test/aot/aot_test.cpp)
// computes sums of three rows of the input's copy, and the library calls it, querying first;
// the program that links the library defines it.
class ExternRowsGenerator : public Generator<ExternRowsGenerator> {
public:
    Input<Buffer<int32_t>> input{"input", 2};
    Output<Buffer<int32_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        Func copy("copy"), sums("sums");
        copy(x, y) = input(x, y) + 1;
        sums.define_extern("loom_aot_row_sums", {copy, 10}, Int(32), 2);
        output(x, y) = sums(x, y) * 2;
        copy.compute_root();
        sums.compute_at(output, y);
    }
};

} // namespace

LOOM_REGISTER_GENERATOR(ExternRowsGenerator, extern_rows)
LOOM_REGISTER_GENERATOR(GammaLutGenerator, gamma_lut)
LOOM_REGISTER_GENERATOR(BlurGenerator, blur)
LOOM_REGISTER_GENERATOR(BilateralGridGenerator, bilateral_grid)
LOOM_REGISTER_GENERATOR(loom_test::IOKindsGenerator, io_kinds)
