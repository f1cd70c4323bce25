#include "apps/blur/blur.h"

#include <cstdint>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace blur_loom {
using namespace loom;
#include "apps/blur/blur.inc"
}  // namespace blur_loom

namespace {

class BlurApp : public App {
public:
    std::string name() const override { return "blur"; }
    std::string description() const override {
        return "3x3 box blur, uint16, separable (astronaut.png in gray, 16-bit)";
    }

    void prepare(Size size, const std::string &photo) override {
        const int n = size == Size::Bench ? 4096 : 160;
        loom::Buffer<uint8_t> gray = input_image(photo, "astronaut.png", n, n, 1);
        loom::Buffer<uint16_t> in(n, n);
        for (int y = 0; y < n; y++) {
            for (int x = 0; x < n; x++) in(x, y) = (uint16_t)(gray(x, y, 0) * 257);
        }
        loom::Buffer<uint16_t> out(n - 2, n - 2);
        out.set_min(1, 1);
        inputs = {in};
        outputs = {out};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<blur_loom::BlurPipeline>(*this, v);
    }
    bool has_gpu_schedule() const override { return true; }

    std::string check() const override {
        loom::Buffer<uint16_t> in(inputs[0]);
        const int w = in.width(), h = in.height();
        std::vector<uint16_t> bx((size_t)w * h);
        for (int y = 0; y < h; y++) {
            for (int x = 1; x < w - 1; x++) {
                bx[(size_t)y * w + x] =
                    (uint16_t)(((uint32_t)in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3);
            }
        }
        return compare("blur output", outputs[0], [&](const int *c) {
            const uint16_t *p = &bx[(size_t)c[1] * w + c[0]];
            return (double)(uint16_t)(((uint32_t)p[-w] + p[0] + p[w]) / 3);
        });
    }

    Work work() const override {
        Work w;
        w.min_bytes = 2.0 * (inputs[0].number_of_elements() + outputs[0].number_of_elements());
        w.flops = 0;
        w.memory_bound = true;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_blur_app() { return std::make_unique<BlurApp>(); }

}  // namespace loom_apps
