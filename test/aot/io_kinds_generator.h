// A Generator with every kind of Input and Output Halide 14 has (issue 35): an Input<Func>, an
// array of buffers sized by a GeneratorParam, a scalar array with a default and a range, an
// Input<Expr> typed by a GeneratorParam, a Tuple Output<Func>, an Output<Func[]> resized in
// generate(), and a scalar Output. Built ahead of time (test/CMakeLists.txt: io_kinds_aot) and
// applied in the JIT (generator_io_test.cpp), which must agree with each other and with C++.
#pragma once

#include <loom.h>

namespace loom_test {

class IOKindsGenerator : public loom::Generator<IOKindsGenerator> {
public:
    GeneratorParam<int> levels{"levels", 3, 1, 8};
    Input<Func> input{"input", Float(32), 2};
    Input<Buffer<uint8_t>[]> masks { "masks", 2 };
    Input<int32_t[2]> offsets{"offsets", 0, -8, 8};
    Input<Expr> gain{"gain"};
    Output<Func> stats{"stats", {Float(32), Int(32)}, 2};
    Output<Func[]> pyramid{"pyramid", Float(32), 2};
    Output<float> total{"total"};

    void generate() {
        Var x("x"), y("y");
        Expr mask_sum = 0;
        for (const ImageParam &mask : masks)
            mask_sum = mask_sum + cast<int32_t>(mask(x, y));
        stats(x, y) = Tuple(input(x + offsets[0], y + offsets[1]) * cast<float>(gain), mask_sum);
        pyramid.resize(levels);
        pyramid[0](x, y) = input(x, y);
        for (size_t l = 1; l < pyramid.size(); l++) {
            const Func &up = pyramid[l - 1];
            pyramid[l](x, y) = (up(2 * x, 2 * y) + up(2 * x + 1, 2 * y) + up(2 * x, 2 * y + 1) +
                                up(2 * x + 1, 2 * y + 1)) *
                               0.25f;
        }
        RDom r(0, 3, 0, 3, "r");
        total() = 0.0f;
        total() += input(r.x, r.y);
    }

    void schedule() { stats.vectorize(Var("x"), 8); }
};

} // namespace loom_test
