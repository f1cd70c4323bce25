// harris: Harris corner response of an RGB photograph (see harris.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_harris_app();
/** The Halide 14 peer (harris_halide.cpp; built where Halide is). */
Runner harris_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
