#include "apps/pointwise/pointwise.h"

#include <algorithm>
#include <cmath>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace pointwise_loom {
using namespace loom;
#include "apps/pointwise/pointwise.inc"
}  // namespace pointwise_loom

namespace {

// 4096 x 4096 floats: 64 MiB per tensor, twice the L3, so that the unfused stages really go
// through memory.
int tensor_side(Size size) { return size == Size::Bench ? 4096 : 200; }

class ChainApp : public App {
public:
    std::string name() const override { return "chain"; }
    std::string description() const override {
        return "sigmoid(relu((a + b) * 2) - 1), float32 4096x4096, five pointwise ops";
    }

    void prepare(Size size, const std::string &) override {
        const int n = tensor_side(size);
        loom::Buffer<float> a(n, n), b(n, n);
        fill_uniform(a, 1, -2.0f, 2.0f);
        fill_uniform(b, 2, -2.0f, 2.0f);
        inputs = {a, b};
        outputs = {loom::Buffer<float>(n, n)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<pointwise_loom::ChainPipeline>(*this, v);
    }
    bool has_gpu_schedule() const override { return true; }

    std::string check() const override {
        loom::Buffer<float> a(inputs[0]), b(inputs[1]);
        // Loom's float exp is its own expansion (within 0.85 ulp of e^x, codegen/ExpF32.h) and
        // Halide 14's its own polynomial, both a few ulps at most from expf here; the peer is
        // checked by this same function. 1e-6 relative is about 8 ulps of the result, far
        // below any error in the arithmetic.
        return compare(
            "chain output", outputs[0],
            [&](const int *c) {
                float v = (a(c[0], c[1]) + b(c[0], c[1])) * 2.0f;
                v = std::max(v, 0.0f) - 1.0f;
                return (double)(1.0f / (1.0f + std::exp(-v)));
            },
            1e-6);
    }

    Work work() const override {
        Work w;
        w.min_bytes = 4.0 * 3 * outputs[0].number_of_elements();
        // add, mul, max, sub, neg, exp (counted as one), add, div.
        w.flops = 8.0 * outputs[0].number_of_elements();
        w.memory_bound = true;
        return w;
    }
};

class BiasReluApp : public App {
public:
    std::string name() const override { return "bias_relu"; }
    std::string description() const override {
        return "relu(in * 2 + bias(column)), float32 4096x4096, three pointwise ops";
    }

    void prepare(Size size, const std::string &) override {
        const int n = tensor_side(size);
        loom::Buffer<float> in(n, n), bias(n);
        fill_uniform(in, 3, -1.0f, 1.0f);
        fill_uniform(bias, 4, -1.0f, 1.0f);
        inputs = {in, bias};
        outputs = {loom::Buffer<float>(n, n)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<pointwise_loom::BiasReluPipeline>(*this, v);
    }
    bool has_gpu_schedule() const override { return true; }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]), bias(inputs[1]);
        return compare("bias_relu output", outputs[0], [&](const int *c) {
            return (double)std::max(in(c[0], c[1]) * 2.0f + bias(c[0]), 0.0f);
        });
    }

    Work work() const override {
        Work w;
        w.min_bytes = 4.0 * (inputs[0].number_of_elements() + inputs[1].number_of_elements() +
                             outputs[0].number_of_elements());
        w.flops = 3.0 * outputs[0].number_of_elements();
        w.memory_bound = true;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_chain_app() { return std::make_unique<ChainApp>(); }
std::unique_ptr<App> make_bias_relu_app() { return std::make_unique<BiasReluApp>(); }

}  // namespace loom_apps
