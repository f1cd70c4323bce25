#include "apps/bilateral_grid/bilateral_grid.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace bilateral_grid_loom {
using namespace loom;
#include "apps/bilateral_grid/bilateral_grid.inc"
} // namespace bilateral_grid_loom

namespace {

using namespace bilateral_grid_loom::bilateral_grid_constants;

float clamp01(float v) { return std::min(std::max(v, 0.0f), 1.0f); }
float lerp_ref(float a, float b, float w) { return a * (1.0f - w) + b * w; }

/** A (x, y, z, c) grid over x in [x0, x1], y in [y0, y1], z in [z0, z1], c in {0, 1}. */
struct Grid {
    int x0, x1, y0, y1, z0, z1;
    std::vector<float> v;
    Grid(int x0, int x1, int y0, int y1, int z0, int z1)
        : x0(x0), x1(x1), y0(y0), y1(y1), z0(z0), z1(z1),
          v((size_t)(x1 - x0 + 1) * (y1 - y0 + 1) * (z1 - z0 + 1) * 2, 0.0f) {}
    float &operator()(int x, int y, int z, int c) {
        size_t i = (((size_t)(y - y0) * (x1 - x0 + 1) + (x - x0)) * (z1 - z0 + 1) + (z - z0)) * 2;
        return v[i + c];
    }
};

class BilateralGridApp : public App {
public:
    std::string name() const override { return "bilateral_grid"; }
    std::string description() const override {
        return "bilateral grid, s_sigma 8, r_sigma 0.1, float (astronaut.png in gray, "
               "2048x2048)";
    }

    void prepare(Size size, const std::string &photo) override {
        // The test size is no multiple of s_sigma or of the vector width: partial grid blocks
        // and loop tails are exercised.
        const int w = size == Size::Bench ? 2048 : 203;
        const int h = size == Size::Bench ? 2048 : 141;
        loom::Buffer<uint8_t> gray = input_image(photo, "astronaut.png", w, h, 1);
        loom::Buffer<float> in(w, h);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++)
                in(x, y) = gray(x, y, 0) / 255.0f;
        }
        inputs = {in};
        outputs = {loom::Buffer<float>(w, h)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<bilateral_grid_loom::BilateralGridPipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]);
        const int w = in.width(), h = in.height();
        // The grid cells the slice reads: x / s_sigma and one more, z in [0, max_z + 1]; the
        // blurs widen that by 2 on each side of the blurred dimension.
        const int gx1 = (w - 1) / s_sigma + 1, gy1 = (h - 1) / s_sigma + 1;
        Grid hist(-2, gx1 + 2, -2, gy1 + 2, -2, max_z + 3);
        for (int gy = hist.y0; gy <= hist.y1; gy++) {
            for (int gx = hist.x0; gx <= hist.x1; gx++) {
                // r.y outer, r.x inner, as the RDom iterates.
                for (int ry = 0; ry < s_sigma; ry++) {
                    for (int rx = 0; rx < s_sigma; rx++) {
                        int px = std::min(std::max(gx * s_sigma + rx - s_sigma / 2, 0), w - 1);
                        int py = std::min(std::max(gy * s_sigma + ry - s_sigma / 2, 0), h - 1);
                        float val = clamp01(in(px, py));
                        int zi = std::min(std::max((int)(val * inv_r_sigma + 0.5f), 0), max_z);
                        hist(gx, gy, zi, 0) += val;
                        hist(gx, gy, zi, 1) += 1.0f;
                    }
                }
            }
        }
        auto blur5 = [](float a, float b, float c, float d, float e) {
            return a + b * 4 + c * 6 + d * 4 + e;
        };
        Grid bz(hist.x0, hist.x1, hist.y0, hist.y1, 0, max_z + 1);
        Grid bx(0, gx1, hist.y0, hist.y1, 0, max_z + 1);
        Grid by(0, gx1, 0, gy1, 0, max_z + 1);
        for (int c = 0; c < 2; c++) {
            for (int gy = bz.y0; gy <= bz.y1; gy++) {
                for (int gx = bz.x0; gx <= bz.x1; gx++) {
                    for (int z = bz.z0; z <= bz.z1; z++) {
                        bz(gx, gy, z, c) = blur5(hist(gx, gy, z - 2, c), hist(gx, gy, z - 1, c),
                                                 hist(gx, gy, z, c), hist(gx, gy, z + 1, c),
                                                 hist(gx, gy, z + 2, c));
                    }
                }
            }
            for (int gy = bx.y0; gy <= bx.y1; gy++) {
                for (int gx = bx.x0; gx <= bx.x1; gx++) {
                    for (int z = bx.z0; z <= bx.z1; z++) {
                        bx(gx, gy, z, c) =
                            blur5(bz(gx - 2, gy, z, c), bz(gx - 1, gy, z, c), bz(gx, gy, z, c),
                                  bz(gx + 1, gy, z, c), bz(gx + 2, gy, z, c));
                    }
                }
            }
            for (int gy = by.y0; gy <= by.y1; gy++) {
                for (int gx = by.x0; gx <= by.x1; gx++) {
                    for (int z = by.z0; z <= by.z1; z++) {
                        by(gx, gy, z, c) =
                            blur5(bx(gx, gy - 2, z, c), bx(gx, gy - 1, z, c), bx(gx, gy, z, c),
                                  bx(gx, gy + 1, z, c), bx(gx, gy + 2, z, c));
                    }
                }
            }
        }
        return compare("bilateral_grid output", outputs[0], [&](const int *p) {
            const int x = p[0], y = p[1];
            float v = clamp01(in(x, y));
            float zv = v * inv_r_sigma;
            int zl = (int)zv;
            float zf = zv - (float)zl;
            float xf = (float)(x % s_sigma) / (float)s_sigma;
            float yf = (float)(y % s_sigma) / (float)s_sigma;
            int xl = x / s_sigma, yl = y / s_sigma;
            float interp[2];
            for (int c = 0; c < 2; c++) {
                interp[c] = lerp_ref(
                    lerp_ref(lerp_ref(by(xl, yl, zl, c), by(xl + 1, yl, zl, c), xf),
                             lerp_ref(by(xl, yl + 1, zl, c), by(xl + 1, yl + 1, zl, c), xf), yf),
                    lerp_ref(lerp_ref(by(xl, yl, zl + 1, c), by(xl + 1, yl, zl + 1, c), xf),
                             lerp_ref(by(xl, yl + 1, zl + 1, c), by(xl + 1, yl + 1, zl + 1, c), xf),
                             yf),
                    zf);
            }
            return (double)(interp[0] / interp[1]);
        });
    }

    Work work() const override {
        const double pixels = (double)inputs[0].number_of_elements();
        const double cells = pixels / (s_sigma * s_sigma) * (max_z + 2) * 2;
        Work wk;
        wk.min_bytes = 4.0 * (pixels + outputs[0].number_of_elements());
        // Per pixel: splat (bin index: mul, add; two accumulations) 4, slice 7 lerps of 3
        // flops for each of 2 channels, bin and weights 4, the division 1. Per grid cell and
        // channel: three 5-tap blurs of 4 adds and 3 multiplies.
        wk.flops = pixels * (4 + 2 * 7 * 3 + 4 + 1) + cells * 3 * 7;
        wk.memory_bound = false;
        return wk;
    }
};

} // namespace

std::unique_ptr<App> make_bilateral_grid_app() { return std::make_unique<BilateralGridApp>(); }

} // namespace loom_apps
