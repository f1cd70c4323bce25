#include "apps/interpolate/interpolate.h"

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "apps/common/Images.h"
#include "apps/common/LoomRunner.h"

namespace loom_apps {

namespace interpolate_loom {
using namespace loom;
#include "apps/interpolate/interpolate.inc"
}  // namespace interpolate_loom

namespace {

/** Floor division (the pipeline's integer division), for the reference's index arithmetic. */
int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/** A closed interval of coordinates. */
struct Span {
    int lo, hi;
    Span hull(const Span &o) const { return {std::min(lo, o.lo), std::max(hi, o.hi)}; }
    int extent() const { return hi - lo + 1; }
};

/** Four channels over a rectangle of one pyramid level, in the level's own coordinates. */
struct Plane {
    Span xs, ys;
    std::vector<float> v;
    Plane(Span xs, Span ys) : xs(xs), ys(ys), v((size_t)xs.extent() * ys.extent() * 4) {}
    float &at(int x, int y, int c) {
        internal_assert(x >= xs.lo && x <= xs.hi && y >= ys.lo && y <= ys.hi)
            << "reference plane read outside its span";
        return v[(((size_t)c * ys.extent() + (y - ys.lo)) * xs.extent()) + (x - xs.lo)];
    }
};

class InterpolateApp : public App {
public:
    std::string name() const override { return "interpolate"; }
    std::string description() const override {
        return "multi-scale interpolation, 10-level pyramid, RGBA float with 10% of the pixels "
               "known (coffee.png at 2048x2048)";
    }

    void prepare(Size size, const std::string &photo) override {
        // The test size is not a multiple of the vector width or of the strip height, so that
        // the tails are exercised; its coarsest levels are smaller than one pixel of the image.
        const int w = size == Size::Bench ? 2048 : 150;
        const int h = size == Size::Bench ? 2048 : 100;
        loom::Buffer<uint8_t> rgb = input_image(photo, "coffee.png", w, h, 3);
        loom::Buffer<float> in(w, h, 4);
        std::mt19937 rng(20240611);
        std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                // The colours of unknown pixels stay in the image: premultiplying by alpha 0
                // must make them irrelevant.
                for (int c = 0; c < 3; c++) in(x, y, c) = rgb(x, y, c) / 255.0f;
                in(x, y, 3) = uniform(rng) < 0.1f ? 1.0f : 0.0f;
            }
        }
        inputs = {in};
        outputs = {loom::Buffer<float>(w, h, 3)};
    }

    Runner compile_loom(Variant v) override {
        return loom_runner<interpolate_loom::InterpolatePipeline>(*this, v);
    }

    std::string check() const override {
        loom::Buffer<float> in(inputs[0]);
        const int w = in.width(), h = in.height();
        const int levels = interpolate_loom::kInterpolateLevels;
        const int clamp_level = interpolate_loom::kInterpolateClampLevel;

        // The spans each level is needed on, as the pipeline's reads imply. The upsampling
        // pass reads level l + 1 at x / 2 and (x + 1) / 2 for x in level l's span.
        std::vector<Span> ix(levels), iy(levels);
        ix[0] = {0, w - 1};
        iy[0] = {0, h - 1};
        for (int l = 1; l < levels; l++) {
            ix[l] = {floor_div(ix[l - 1].lo, 2), floor_div(ix[l - 1].hi + 1, 2)};
            iy[l] = {floor_div(iy[l - 1].lo, 2), floor_div(iy[l - 1].hi + 1, 2)};
        }
        // The downsampling pass: level l + 1 at x reads level l at 2x - 1 .. 2x + 1, clamped
        // to level l's image where l + 1 is the clamp level.
        const int cw = w / (1 << (clamp_level - 1)), ch = h / (1 << (clamp_level - 1));
        auto clamp_to = [](int v, int n) { return std::min(std::max(v, 0), n - 1); };
        std::vector<Span> dx(levels), dy(levels);
        dx[levels - 1] = ix[levels - 1];
        dy[levels - 1] = iy[levels - 1];
        for (int l = levels - 2; l >= 0; l--) {
            Span rx{2 * dx[l + 1].lo - 1, 2 * dx[l + 1].hi + 1};
            Span ry{2 * dy[l + 1].lo - 1, 2 * dy[l + 1].hi + 1};
            if (l + 1 == clamp_level) {
                rx = {clamp_to(rx.lo, cw), clamp_to(rx.hi, cw)};
                ry = {clamp_to(ry.lo, ch), clamp_to(ry.hi, ch)};
            }
            dx[l] = ix[l].hull(rx);
            dy[l] = iy[l].hull(ry);
        }

        // Level 0: the input through repeat_edge, premultiplied.
        std::vector<Plane> down;
        down.emplace_back(dx[0], dy[0]);
        for (int y = dy[0].lo; y <= dy[0].hi; y++) {
            for (int x = dx[0].lo; x <= dx[0].hi; x++) {
                const int sx = clamp_to(x, w), sy = clamp_to(y, h);
                const float a = in(sx, sy, 3);
                for (int c = 0; c < 3; c++) down[0].at(x, y, c) = in(sx, sy, c) * a;
                down[0].at(x, y, 3) = a;
            }
        }
        for (int l = 1; l < levels; l++) {
            Plane &prev = down[l - 1];
            const bool clamped = l == clamp_level;
            auto read = [&](int x, int y, int c) {
                return clamped ? prev.at(clamp_to(x, cw), clamp_to(y, ch), c) : prev.at(x, y, c);
            };
            // Horizontal pass on the finer level's rows, then the vertical one.
            Plane horiz(dx[l], {2 * dy[l].lo - 1, 2 * dy[l].hi + 1});
            for (int c = 0; c < 4; c++) {
                for (int y = horiz.ys.lo; y <= horiz.ys.hi; y++) {
                    for (int x = dx[l].lo; x <= dx[l].hi; x++) {
                        horiz.at(x, y, c) = (read(2 * x - 1, y, c) + 2.0f * read(2 * x, y, c) +
                                             read(2 * x + 1, y, c)) *
                                            0.25f;
                    }
                }
            }
            down.emplace_back(dx[l], dy[l]);
            for (int c = 0; c < 4; c++) {
                for (int y = dy[l].lo; y <= dy[l].hi; y++) {
                    for (int x = dx[l].lo; x <= dx[l].hi; x++) {
                        down[l].at(x, y, c) =
                            (horiz.at(x, 2 * y - 1, c) + 2.0f * horiz.at(x, 2 * y, c) +
                             horiz.at(x, 2 * y + 1, c)) *
                            0.25f;
                    }
                }
            }
        }

        // The upsampling pass, coarsest first.
        Plane coarser(ix[levels - 1], iy[levels - 1]);
        for (int c = 0; c < 4; c++) {
            for (int y = iy[levels - 1].lo; y <= iy[levels - 1].hi; y++) {
                for (int x = ix[levels - 1].lo; x <= ix[levels - 1].hi; x++) {
                    coarser.at(x, y, c) = down[levels - 1].at(x, y, c);
                }
            }
        }
        for (int l = levels - 2; l >= 0; l--) {
            Plane finer(ix[l], iy[l]);
            auto upx = [&](int x, int y, int c) {
                return (coarser.at(floor_div(x, 2), y, c) +
                        coarser.at(floor_div(x + 1, 2), y, c)) /
                       2.0f;
            };
            for (int c = 0; c < 4; c++) {
                for (int y = iy[l].lo; y <= iy[l].hi; y++) {
                    for (int x = ix[l].lo; x <= ix[l].hi; x++) {
                        const float up =
                            (upx(x, floor_div(y, 2), c) + upx(x, floor_div(y + 1, 2), c)) / 2.0f;
                        const float alpha = 1.0f - down[l].at(x, y, 3);
                        finer.at(x, y, c) = down[l].at(x, y, c) + alpha * up;
                    }
                }
            }
            coarser = std::move(finer);
        }
        return compare("interpolate output", outputs[0], [&](const int *p) {
            return (double)(coarser.at(p[0], p[1], p[2]) / coarser.at(p[0], p[1], 3));
        });
    }

    Work work() const override {
        Work wk;
        wk.min_bytes = 4.0 * (inputs[0].number_of_elements() + outputs[0].number_of_elements());
        // Per element of 4 channels: premultiply 1 at level 0; per level l >= 1, the horizontal
        // [1 2 1] / 4 (4 flops) on the level's columns and the finer level's rows, then the
        // vertical one (4) on the level; per level l < levels - 1, upsampling in x (2) on the
        // level's columns and the coarser level's rows, in y (2) and the blend (3) on the level;
        // the final division on 3 channels.
        const double w = inputs[0].width(), h = inputs[0].height();
        const int levels = interpolate_loom::kInterpolateLevels;
        double flops = w * h * 4 + w * h * 3;
        for (int l = 1; l < levels; l++) {
            const double pixels = (w / (1 << l)) * (h / (1 << l));
            flops += 4 * (4 * 2 * pixels + 4 * pixels);
        }
        for (int l = 0; l < levels - 1; l++) {
            const double pixels = (w / (1 << l)) * (h / (1 << l));
            flops += 4 * (2 * pixels / 2 + 5 * pixels);
        }
        wk.flops = flops;
        wk.memory_bound = true;
        return wk;
    }
};

}  // namespace

std::unique_ptr<App> make_interpolate_app() { return std::make_unique<InterpolateApp>(); }

}  // namespace loom_apps
