// bilateral_grid: edge-preserving smoothing through a bilateral grid (see bilateral_grid.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_bilateral_grid_app();
/** The Halide 14 peer (bilateral_grid_halide.cpp; built where Halide is). */
Runner bilateral_grid_halide(App &app, Variant variant, const Halide::Target &target);
} // namespace loom_apps
