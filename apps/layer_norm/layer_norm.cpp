#include "apps/layer_norm/layer_norm.h"

#include <cmath>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace layer_norm_loom {
using namespace loom;
#include "apps/layer_norm/layer_norm.inc"
}  // namespace layer_norm_loom

namespace {

class LayerNormApp : public App {
public:
    std::string name() const override { return "layer_norm"; }
    std::string description() const override {
        return "layer normalization of each row (mean, variance, scale, shift), float32 8192 "
               "rows x 4096 columns";
    }

    void prepare(Size size, const std::string &) override {
        // 128 MiB in and out at bench size: four times the L3. Rows a multiple of 64 long
        // (the pipeline's sums run in 64 lanes).
        const int cols = size == Size::Bench ? 4096 : 320;
        const int rows = size == Size::Bench ? 8192 : 70;
        loom::Buffer<float> in(cols, rows), gamma(cols), beta(cols);
        fill_uniform(in, 6, -3.0f, 5.0f);
        fill_uniform(gamma, 7, 0.5f, 1.5f);
        fill_uniform(beta, 8, -0.5f, 0.5f);
        inputs = {in, gamma, beta};
        outputs = {loom::Buffer<float>(cols, rows)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<layer_norm_loom::LayerNormPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]), gamma(inputs[1]), beta(inputs[2]);
        const int cols = in.width(), rows = in.height();
        std::vector<float> mean(rows), inv_std(rows);
        // Sums in the pipeline's order: interleaved lanes, then the lanes in order.
        auto row_sum = [&](auto &&term) {
            constexpr int kLanes = layer_norm_loom::LayerNormPipeline::kLanes;
            float lanes[kLanes] = {};
            for (int j = 0; j < cols / kLanes; j++) {
                for (int l = 0; l < kLanes; l++)
                    lanes[l] += term(j * kLanes + l);
            }
            float sum = 0.0f;
            for (int l = 0; l < kLanes; l++)
                sum += lanes[l];
            return sum;
        };
        for (int y = 0; y < rows; y++) {
            mean[y] = row_sum([&](int x) { return in(x, y); }) / (float)cols;
            float sq = row_sum([&](int x) {
                float d = in(x, y) - mean[y];
                return d * d;
            });
            inv_std[y] = 1.0f / std::sqrt(sq / (float)cols + 1e-5f);
        }
        return compare("layer_norm output", outputs[0], [&](const int *c) {
            const int x = c[0], y = c[1];
            return (double)((in(x, y) - mean[y]) * inv_std[y] * gamma(x) + beta(x));
        });
    }

    Work work() const override {
        Work w;
        w.min_bytes = 4.0 * (inputs[0].number_of_elements() + inputs[1].number_of_elements() +
                             inputs[2].number_of_elements() + outputs[0].number_of_elements());
        // Per element: add (mean), sub, mul, add (variance), sub, mul, mul, add (output).
        w.flops = 8.0 * outputs[0].number_of_elements();
        w.memory_bound = true;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_layer_norm_app() { return std::make_unique<LayerNormApp>(); }

}  // namespace loom_apps
