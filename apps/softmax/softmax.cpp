#include "apps/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace softmax_loom {
using namespace loom;
#include "apps/softmax/softmax.inc"
}  // namespace softmax_loom

namespace {

class SoftmaxApp : public App {
public:
    std::string name() const override { return "softmax"; }
    std::string description() const override {
        return "row softmax (max, exp, sum, divide), float32 8192 rows x 4096 columns";
    }

    void prepare(Size size, const std::string &) override {
        // 128 MiB in and out at bench size: four times the L3. Rows a multiple of 64 long
        // (the pipeline's reductions run in 64 lanes).
        const int cols = size == Size::Bench ? 4096 : 320;
        const int rows = size == Size::Bench ? 8192 : 70;
        loom::Buffer<float> in(cols, rows);
        fill_uniform(in, 5, -8.0f, 8.0f);
        inputs = {in};
        outputs = {loom::Buffer<float>(cols, rows)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<softmax_loom::SoftmaxPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]);
        const int cols = in.width(), rows = in.height();
        std::vector<float> expected((size_t)cols * rows);
        for (int y = 0; y < rows; y++) {
            float m = in(0, y);
            for (int x = 1; x < cols; x++) m = std::max(m, in(x, y));
            // The sum in the pipeline's order: interleaved lanes, then the lanes in order.
            constexpr int kLanes = softmax_loom::SoftmaxPipeline::kLanes;
            float lanes[kLanes] = {};
            for (int j = 0; j < cols / kLanes; j++) {
                for (int l = 0; l < kLanes; l++)
                    lanes[l] += std::exp(in(j * kLanes + l, y) - m);
            }
            float sum = 0.0f;
            for (int l = 0; l < kLanes; l++)
                sum += lanes[l];
            for (int x = 0; x < cols; x++) {
                expected[(size_t)y * cols + x] = std::exp(in(x, y) - m) / sum;
            }
        }
        // Loom's float exp is its own expansion (within 0.85 ulp of e^x, codegen/ExpF32.h) and
        // Halide 14's its own polynomial, both a few ulps at most from expf here; the peer is
        // checked by this same function. The row sum of a few ulps off terms stays within a few
        // ulps, so 1e-6 relative (about 8 ulps) is enough.
        return compare(
            "softmax output", outputs[0],
            [&](const int *c) { return (double)expected[(size_t)c[1] * cols + c[0]]; }, 1e-6);
    }

    Work work() const override {
        Work w;
        w.min_bytes = 4.0 * (inputs[0].number_of_elements() + outputs[0].number_of_elements());
        // Per element: max, sub, exp (counted as one), add, div.
        w.flops = 5.0 * outputs[0].number_of_elements();
        w.memory_bound = true;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_softmax_app() { return std::make_unique<SoftmaxApp>(); }

}  // namespace loom_apps
