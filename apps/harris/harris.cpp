#include "apps/harris/harris.h"

#include <cstdint>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace harris_loom {
using namespace loom;
#include "apps/harris/harris.inc"
}  // namespace harris_loom

namespace {

class HarrisApp : public App {
public:
    std::string name() const override { return "harris"; }
    std::string description() const override {
        return "Harris corner response (Sobel gradients, 3x3 structure tensor, k = 0.04), RGB "
               "float in, float out (chelsea.png at 2048x2048)";
    }

    void prepare(Size size, const std::string &photo) override {
        // The test size is not a multiple of the vector width or of the strip height, so that
        // the tails are exercised.
        const int w = size == Size::Bench ? 2048 : 150;
        const int h = size == Size::Bench ? 2048 : 100;
        loom::Buffer<uint8_t> rgb = input_image(photo, "chelsea.png", w, h, 3);
        loom::Buffer<float> in(w, h, 3);
        for (int c = 0; c < 3; c++) {
            for (int y = 0; y < h; y++) {
                for (int x = 0; x < w; x++) in(x, y, c) = rgb(x, y, c) / 255.0f;
            }
        }
        loom::Buffer<float> out(w - 4, h - 4);
        out.set_min(2, 2);
        inputs = {in};
        outputs = {out};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<harris_loom::HarrisPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]);
        const int w = in.width(), h = in.height();
        const size_t n = (size_t)w * h;
        std::vector<float> gray(n), ix(n), iy(n);
        auto at = [&](const std::vector<float> &v, int x, int y) { return v[(size_t)y * w + x]; };
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                gray[(size_t)y * w + x] =
                    0.299f * in(x, y, 0) + 0.587f * in(x, y, 1) + 0.114f * in(x, y, 2);
            }
        }
        // Gradients on the image less a 1-pixel border, the response less a 2-pixel one.
        for (int y = 1; y < h - 1; y++) {
            for (int x = 1; x < w - 1; x++) {
                auto g = [&](int dx, int dy) { return at(gray, x + dx, y + dy); };
                ix[(size_t)y * w + x] = g(-1, -1) * (-1.0f / 12) + g(1, -1) * (1.0f / 12) +
                                        g(-1, 0) * (-2.0f / 12) + g(1, 0) * (2.0f / 12) +
                                        g(-1, 1) * (-1.0f / 12) + g(1, 1) * (1.0f / 12);
                iy[(size_t)y * w + x] = g(-1, -1) * (-1.0f / 12) + g(-1, 1) * (1.0f / 12) +
                                        g(0, -1) * (-2.0f / 12) + g(0, 1) * (2.0f / 12) +
                                        g(1, -1) * (-1.0f / 12) + g(1, 1) * (1.0f / 12);
            }
        }
        return compare("harris output", outputs[0], [&](const int *c) {
            const int x = c[0], y = c[1];
            float sxx = 0, syy = 0, sxy = 0;
            // Column by column, top to bottom, as the pipeline sums; the first term starts the
            // sum (0 + a == a exactly, so starting from 0 changes no bit).
            for (int dx = -1; dx <= 1; dx++) {
                for (int dy = -1; dy <= 1; dy++) {
                    const float gx = at(ix, x + dx, y + dy), gy = at(iy, x + dx, y + dy);
                    sxx += gx * gx;
                    syy += gy * gy;
                    sxy += gx * gy;
                }
            }
            const float det = sxx * syy - sxy * sxy;
            const float trace = sxx + syy;
            return (double)(det - 0.04f * trace * trace);
        });
    }

    Work work() const override {
        Work w;
        const double pixels = (double)outputs[0].number_of_elements();
        w.min_bytes = 4.0 * (inputs[0].number_of_elements() + outputs[0].number_of_elements());
        // Per output pixel: gray 5, Ix and Iy 11 each, the three products 3, the three box sums
        // 8 each, det 3, trace 1, the response 3.
        w.flops = pixels * (5 + 22 + 3 + 24 + 7);
        w.memory_bound = false;
        return w;
    }
};

}  // namespace

std::unique_ptr<App> make_harris_app() { return std::make_unique<HarrisApp>(); }

}  // namespace loom_apps
