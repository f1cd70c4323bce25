#include "apps/unsharp/unsharp.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace unsharp_loom {
using namespace loom;
#include "apps/unsharp/unsharp.inc"
}  // namespace unsharp_loom

namespace {

class UnsharpApp : public App {
public:
    std::string name() const override { return "unsharp"; }
    std::string description() const override {
        return "unsharp mask, 7-tap Gaussian of the luminance, RGB uint8 (astronaut.png at "
               "2048x2048)";
    }

    void prepare(Size size, const std::string &photo) override {
        // The test size is not a multiple of the vector width or of the strip height, so that
        // the tails are exercised.
        const int w = size == Size::Bench ? 2048 : 150;
        const int h = size == Size::Bench ? 2048 : 100;
        inputs = {input_image(photo, "astronaut.png", w, h, 3)};
        outputs = {loom::Buffer<uint8_t>(w, h, 3)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<unsharp_loom::UnsharpPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<uint8_t> in(inputs[0]);
        const int w = in.width(), h = in.height();
        const std::array<float, 4> k = unsharp_loom::unsharp_weights();
        auto at = [&](std::vector<float> &v, int x, int y) -> float & {
            return v[(size_t)y * w + x];
        };
        auto cx = [&](int x) { return std::min(std::max(x, 0), w - 1); };
        auto cy = [&](int y) { return std::min(std::max(y, 0), h - 1); };
        // Every stage over the whole image; neighbours outside it read the nearest edge pixel
        // (of the input for gray's taps, hence of gray and of blur_y too).
        std::vector<float> gray((size_t)w * h), blur_y((size_t)w * h), ratio((size_t)w * h);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                at(gray, x, y) = 0.299f * (float)in(x, y, 0) + 0.587f * (float)in(x, y, 1) +
                                 0.114f * (float)in(x, y, 2);
            }
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                auto g = [&](int dy) { return at(gray, x, cy(y + dy)); };
                at(blur_y, x, y) = k[0] * g(0) + k[1] * (g(-1) + g(1)) + k[2] * (g(-2) + g(2)) +
                                   k[3] * (g(-3) + g(3));
            }
        }
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                auto b = [&](int dx) { return at(blur_y, cx(x + dx), y); };
                float blur_x = k[0] * b(0) + k[1] * (b(-1) + b(1)) + k[2] * (b(-2) + b(2)) +
                               k[3] * (b(-3) + b(3));
                float g = at(gray, x, y);
                float sharpen = 2.0f * g - blur_x;
                at(ratio, x, y) = sharpen / std::max(g, unsharp_loom::kUnsharpMinGray);
            }
        }
        return compare("unsharp output", outputs[0], [&](const int *c) {
            float v = at(ratio, c[0], c[1]) * (float)in(c[0], c[1], c[2]) + 0.5f;
            return (double)(uint8_t)std::min(std::max(v, 0.0f), 255.0f);
        });
    }

    Work work() const override {
        Work w;
        const double pixels = (double)inputs[0].width() * inputs[0].height();
        w.min_bytes = inputs[0].number_of_elements() + outputs[0].number_of_elements();
        // Per pixel: gray 5, two 7-tap blurs 2 * 10, sharpen 2, ratio 2 (max, divide), and
        // per channel 4 (multiply, add, clamp's min and max): about 6 flops per byte moved.
        w.flops = pixels * (5 + 20 + 2 + 2 + 3 * 4);
        w.memory_bound = false;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_unsharp_app() { return std::make_unique<UnsharpApp>(); }

}  // namespace loom_apps
