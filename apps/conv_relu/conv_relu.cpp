#include "apps/conv_relu/conv_relu.h"

#include <algorithm>
#include <cmath>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace conv_relu_loom {
using namespace loom;
#include "apps/conv_relu/conv_relu.inc"
}  // namespace conv_relu_loom

namespace {

class ConvReluApp : public App {
public:
    std::string name() const override { return "conv_relu"; }
    std::string description() const override {
        return "3x3 convolution + bias + ReLU, float32, 8 images of 64x64, 64 -> 64 channels "
               "(channels innermost)";
    }

    void prepare(Size size, const std::string &) override {
        const bool bench = size == Size::Bench;
        // The test size is not a multiple of the 32-channel by 8-pixel tile, to test the edges.
        const int images = bench ? 8 : 2, width = bench ? 64 : 13, height = bench ? 64 : 5;
        const int in_channels = bench ? 64 : 8, out_channels = bench ? 64 : 48;
        loom::Buffer<float> input(in_channels, width + 2, height + 2, images);
        loom::Buffer<float> filter(out_channels, in_channels, 3, 3), bias(out_channels);
        fill_uniform(input, 12, -1.0f, 1.0f);
        fill_uniform(filter, 13, -0.2f, 0.2f);
        fill_uniform(bias, 14, -0.5f, 0.5f);
        inputs = {input, filter, bias};
        outputs = {loom::Buffer<float>(out_channels, width, height, images)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<conv_relu_loom::ConvReluPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> input(inputs[0]), filter(inputs[1]), bias(inputs[2]);
        const int in_channels = input.dim(0).extent();
        return compare("conv_relu output", outputs[0], [&](const int *c) {
            const int co = c[0], x = c[1], y = c[2], n = c[3];
            float sum = bias(co);
            for (int ky = 0; ky < 3; ky++) {
                for (int kx = 0; kx < 3; kx++) {
                    for (int ci = 0; ci < in_channels; ci++) {
                        sum = std::fma(filter(co, ci, kx, ky), input(ci, x + kx, y + ky, n), sum);
                    }
                }
            }
            return (double)std::max(sum, 0.0f);
        });
    }

    bool fuses_multiply_adds() const override { return true; }

    Work work() const override {
        const double outs = outputs[0].number_of_elements();
        const double in_channels = inputs[0].dim(0).extent();
        Work w;
        w.min_bytes = 4.0 * (inputs[0].number_of_elements() + inputs[1].number_of_elements() +
                             inputs[2].number_of_elements() + outs);
        w.flops = 2.0 * outs * in_channels * 9;
        w.memory_bound = false;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_conv_relu_app() { return std::make_unique<ConvReluApp>(); }

}  // namespace loom_apps
