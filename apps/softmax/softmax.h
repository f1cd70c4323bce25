// softmax: row softmax of a float32 matrix (see softmax.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_softmax_app();
/** The Halide 14 peer (softmax_halide.cpp; built where Halide is). */
Runner softmax_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
