// layer_norm: layer normalization over the rows of a float32 matrix (see layer_norm.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_layer_norm_app();
/** The Halide 14 peer (layer_norm_halide.cpp; built where Halide is). */
Runner layer_norm_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
