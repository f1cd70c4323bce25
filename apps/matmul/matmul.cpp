#include "apps/matmul/matmul.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace matmul_loom {
using namespace loom;
#include "apps/matmul/matmul.inc"
}  // namespace matmul_loom

namespace {

class MatmulApp : public App {
public:
    MatmulApp(int n, bool bias_relu) : bench_n(n), bias_relu(bias_relu) {}

    std::string name() const override {
        return bias_relu ? "matmul_bias_relu" : "matmul_" + std::to_string(bench_n);
    }
    std::string description() const override {
        const std::string n = std::to_string(bench_n);
        return bias_relu ? "relu(A * B + bias(column)), float32 " + n + "x" + n + ", epilogue fused"
                         : "C = A * B, float32 " + n + "x" + n;
    }

    void prepare(Size size, const std::string &) override {
        // At the test size, a multiple of neither the 32 x 8 register tile nor the k loop's
        // split by 4, to test the edges and the tail of the sum.
        const int n = size == Size::Bench ? bench_n : 101;
        loom::Buffer<float> a(n, n), b(n, n), bias(n);
        fill_uniform(a, 9, -1.0f, 1.0f);
        fill_uniform(b, 10, -1.0f, 1.0f);
        fill_uniform(bias, 11, -1.0f, 1.0f);
        inputs = {a, b};
        if (bias_relu) inputs.push_back(bias);
        outputs = {loom::Buffer<float>(n, n)};
    }

    Runner compile_loom(Variant v) override {
        if (bias_relu) return loom_runner<matmul_loom::MatmulPipeline<true>>(*this, v);
        return loom_runner<matmul_loom::MatmulPipeline<false>>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> a(inputs[0]), b(inputs[1]);
        const int n = a.width();
        // i-k-j order (k outer per row) for speed; each C(j, i) still sums k = 0, 1, ... in
        // order, a fused multiply-add per step, as the pipeline does.
        std::vector<float> c((size_t)n * n, 0.0f);
        for (int i = 0; i < n; i++) {
            float *row = &c[(size_t)i * n];
            for (int k = 0; k < n; k++) {
                const float aik = a(k, i);
                for (int j = 0; j < n; j++)
                    row[j] = std::fma(aik, b(j, k), row[j]);
            }
        }
        if (bias_relu) {
            loom::Buffer<float> bias(inputs[2]);
            for (int i = 0; i < n; i++) {
                for (int j = 0; j < n; j++) {
                    float &v = c[(size_t)i * n + j];
                    v = std::max(v + bias(j), 0.0f);
                }
            }
        }
        return compare(name() + " output", outputs[0],
                       [&](const int *co) { return (double)c[(size_t)co[1] * n + co[0]]; });
    }

    bool fuses_multiply_adds() const override { return true; }

    Work work() const override {
        const double n = inputs[0].width();
        Work w;
        w.min_bytes = 4.0 * 3 * n * n + (bias_relu ? 4.0 * n : 0.0);
        // A fused multiply-add (two FLOPs) per term; the epilogue's add and max per output.
        w.flops = 2.0 * n * n * n + (bias_relu ? 2.0 * n * n : 0.0);
        w.memory_bound = false;
        return w;
    }

private:
    int bench_n;
    bool bias_relu;
};

}  // namespace

std::unique_ptr<App> make_matmul_app(int n, bool bias_relu) {
    return std::make_unique<MatmulApp>(n, bias_relu);
}

}  // namespace loom_apps
