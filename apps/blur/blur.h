// blur: 3x3 box blur of a 16-bit image (see blur.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_blur_app();
/** The Halide 14 peer (blur_halide.cpp; built where Halide is). */
Runner blur_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
