// A Generator built by the installed package's loom_add_library: scales an 8-bit image and
// saturates, vectorized and parallel.
#include <loom.h>

namespace {

using namespace loom;

class Brighten : public Generator<Brighten> {
public:
    GeneratorParam<int> vector_width{"vector_width", 16, 1, 64};
    Input<Buffer<uint8_t>> input{"input", 2};
    Input<float> gain{"gain", 1.0f};
    Output<Buffer<uint8_t>> output{"output", 2};

    void generate() {
        Var x("x"), y("y");
        output(x, y) = cast<uint8_t>(min(input(x, y) * gain, 255.0f));
        output.vectorize(x, vector_width).parallel(y);
    }
};

} // namespace

LOOM_REGISTER_GENERATOR(Brighten, brighten)
