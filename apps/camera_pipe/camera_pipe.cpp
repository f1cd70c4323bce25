#include "apps/camera_pipe/camera_pipe.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace camera_pipe_loom {
using namespace loom;
#include "apps/camera_pipe/camera_pipe.inc"
} // namespace camera_pipe_loom

namespace {

using namespace camera_pipe_loom::camera_pipe_constants;

/** Integer division rounding toward negative infinity, as the pipelines divide. */
int floor_div(int a, int b) {
    int q = a / b;
    return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}
int16_t avg(int16_t a, int16_t b) { return (int16_t)floor_div((int)a + (int)b + 1, 2); }
int absd(int16_t a, int16_t b) { return std::abs((int)a - (int)b); }

/** A half-resolution plane over [-margin, w + margin) x [-margin, h + margin). */
struct Plane {
    static constexpr int margin = 2;
    int w, h;
    std::vector<int16_t> v;
    Plane(int w, int h) : w(w), h(h), v((size_t)(w + 2 * margin) * (h + 2 * margin)) {}
    int16_t &operator()(int x, int y) {
        return v[(size_t)(y + margin) * (w + 2 * margin) + (x + margin)];
    }
};

class CameraPipeApp : public App {
public:
    std::string name() const override { return "camera_pipe"; }
    std::string description() const override {
        return "raw GRBG 10-bit Bayer (coffee.png mosaicked, 2752x1944) to 8-bit RGB 2560x1920: "
               "hot pixels, demosaic, color matrix, tone curve LUT";
    }

    void prepare(Size size, const std::string &photo) override {
        // The test height is no multiple of the 64-row strips (a shifted last strip).
        const int w = size == Size::Bench ? 2560 : 256;
        const int h = size == Size::Bench ? 1920 : 160;
        // The crop needs 32 more columns and 24 more rows; the unfused schedule's rounded-up
        // vectors read further right (see camera_pipe.inc).
        const int rw = w + 192, rh = h + 24;
        loom::Buffer<uint8_t> rgb = input_image(photo, "coffee.png", rw, rh, 3);
        loom::Buffer<uint16_t> raw(rw, rh);
        uint32_t seed = 12345;
        for (int y = 0; y < rh; y++) {
            for (int x = 0; x < rw; x++) {
                // GRBG: green on (even, even) and (odd, odd), red on (odd, even), blue on
                // (even, odd).
                int c = (x % 2 == y % 2) ? 1 : (y % 2 == 0 ? 0 : 2);
                int v = black_level + (rgb(x, y, c) * (white_level - black_level) + 127) / 255;
                // About one hot (saturated) pixel in 2048 for the suppression to remove.
                seed = seed * 1664525u + 1013904223u;
                if ((seed >> 21) == 0) v = white_level;
                raw(x, y) = (uint16_t)v;
            }
        }
        inputs = {raw};
        outputs = {loom::Buffer<uint8_t>(w, h, 3)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<camera_pipe_loom::CameraPipePipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<uint16_t> raw(inputs[0]);
        loom::Buffer<uint8_t> out(outputs[0]);
        const int w = out.width(), h = out.height();
        const int pw = (w + 1) / 2, ph = (h + 1) / 2;
        auto shifted = [&](int x, int y) { return (int16_t)raw(x + crop_x, y + crop_y); };
        auto denoised = [&](int x, int y) {
            int16_t brightest = std::max(std::max(shifted(x - 2, y), shifted(x + 2, y)),
                                         std::max(shifted(x, y - 2), shifted(x, y + 2)));
            return std::min(std::max(shifted(x, y), (int16_t)0), brightest);
        };
        // The four known planes, then green at red and blue sites, over the margin.
        Plane g_gr(pw, ph), r_r(pw, ph), b_b(pw, ph), g_gb(pw, ph), g_r(pw, ph), g_b(pw, ph);
        const int m = Plane::margin;
        for (int y = -m; y < ph + m; y++) {
            for (int x = -m; x < pw + m; x++) {
                g_gr(x, y) = denoised(2 * x, 2 * y);
                r_r(x, y) = denoised(2 * x + 1, 2 * y);
                b_b(x, y) = denoised(2 * x, 2 * y + 1);
                g_gb(x, y) = denoised(2 * x + 1, 2 * y + 1);
            }
        }
        for (int y = -m + 1; y < ph + m - 1; y++) {
            for (int x = -m + 1; x < pw + m - 1; x++) {
                g_r(x, y) = absd(g_gr(x + 1, y), g_gr(x, y)) < absd(g_gb(x, y - 1), g_gb(x, y))
                                ? avg(g_gr(x + 1, y), g_gr(x, y))
                                : avg(g_gb(x, y - 1), g_gb(x, y));
                g_b(x, y) = absd(g_gb(x - 1, y), g_gb(x, y)) < absd(g_gr(x, y + 1), g_gr(x, y))
                                ? avg(g_gb(x - 1, y), g_gb(x, y))
                                : avg(g_gr(x, y + 1), g_gr(x, y));
            }
        }
        // (g - avg(g's neighbors)) + avg(neighbors), each step wrapping to int16.
        auto corrected_mean = [](int16_t g, int16_t g0, int16_t g1, int16_t v0, int16_t v1) {
            return (int16_t)((int16_t)(g - avg(g0, g1)) + avg(v0, v1));
        };
        // The demosaiced (r, g, b) at output pixel (x, y), from the site's plane position.
        auto demosaic = [&](int x, int y, int16_t rgb[3]) {
            const int px = x / 2, py = y / 2;
            const bool odd_x = x % 2, odd_y = y % 2;
            if (!odd_y && !odd_x) { // green on a red row
                rgb[0] = corrected_mean(g_gr(px, py), g_r(px, py), g_r(px - 1, py), r_r(px - 1, py),
                                        r_r(px, py));
                rgb[1] = g_gr(px, py);
                rgb[2] = corrected_mean(g_gr(px, py), g_b(px, py), g_b(px, py - 1), b_b(px, py),
                                        b_b(px, py - 1));
            } else if (!odd_y) { // red
                rgb[0] = r_r(px, py);
                rgb[1] = g_r(px, py);
                int16_t bp = corrected_mean(g_r(px, py), g_b(px, py), g_b(px + 1, py - 1),
                                            b_b(px, py), b_b(px + 1, py - 1));
                int16_t bn = corrected_mean(g_r(px, py), g_b(px + 1, py), g_b(px, py - 1),
                                            b_b(px + 1, py), b_b(px, py - 1));
                rgb[2] =
                    absd(b_b(px, py), b_b(px + 1, py - 1)) < absd(b_b(px + 1, py), b_b(px, py - 1))
                        ? bp
                        : bn;
            } else if (!odd_x) { // blue
                int16_t rp = corrected_mean(g_b(px, py), g_r(px, py), g_r(px - 1, py + 1),
                                            r_r(px, py), r_r(px - 1, py + 1));
                int16_t rn = corrected_mean(g_b(px, py), g_r(px - 1, py), g_r(px, py + 1),
                                            r_r(px - 1, py), r_r(px, py + 1));
                rgb[0] =
                    absd(r_r(px, py), r_r(px - 1, py + 1)) < absd(r_r(px - 1, py), r_r(px, py + 1))
                        ? rp
                        : rn;
                rgb[1] = g_b(px, py);
                rgb[2] = b_b(px, py);
            } else { // green on a blue row
                rgb[0] = corrected_mean(g_gb(px, py), g_r(px, py), g_r(px, py + 1), r_r(px, py),
                                        r_r(px, py + 1));
                rgb[1] = g_gb(px, py);
                rgb[2] = corrected_mean(g_gb(px, py), g_b(px, py), g_b(px + 1, py), b_b(px, py),
                                        b_b(px + 1, py));
            }
        };
        uint8_t curve[1024];
        for (int v = 0; v < 1024; v++) {
            float xf = std::min(std::max((float)(v - black_level) * inv_range, 0.0f), 1.0f);
            float g = std::sqrt(xf);
            float z = g > 0.5f
                          ? 1.0f - (contrast_a * (1.0f - g) * (1.0f - g) + contrast_b * (1.0f - g))
                          : contrast_a * g * g + contrast_b * g;
            uint8_t level = (uint8_t)std::min(std::max(z * 255.0f + 0.5f, 0.0f), 255.0f);
            curve[v] = v <= black_level ? 0 : (v > white_level ? 255 : level);
        }
        std::vector<uint8_t> expected((size_t)w * h * 3);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int16_t rgb[3];
                demosaic(x, y, rgb);
                for (int c = 0; c < 3; c++) {
                    int16_t v =
                        (int16_t)floor_div(matrix[c][3] + matrix[c][0] * rgb[0] +
                                               matrix[c][1] * rgb[1] + matrix[c][2] * rgb[2],
                                           256);
                    v = std::min(std::max(v, (int16_t)0), (int16_t)1023);
                    expected[((size_t)c * h + y) * w + x] = curve[v];
                }
            }
        }
        return compare("camera_pipe output", outputs[0], [&](const int *p) {
            return (double)expected[((size_t)p[2] * h + p[1]) * w + p[0]];
        });
    }

    Work work() const override {
        const double pixels = (double)outputs[0].width() * outputs[0].height();
        Work wk;
        wk.min_bytes = 2.0 * inputs[0].number_of_elements() + outputs[0].number_of_elements();
        // Integer operations, counted per output pixel: hot pixels 6, green interpolation 5,
        // red/blue interpolation 18, color matrix 3 x 7, LUT index clamps 6.
        wk.flops = pixels * (6 + 5 + 18 + 21 + 6);
        wk.memory_bound = false;
        return wk;
    }
};

} // namespace

std::unique_ptr<App> make_camera_pipe_app() { return std::make_unique<CameraPipeApp>(); }

} // namespace loom_apps
