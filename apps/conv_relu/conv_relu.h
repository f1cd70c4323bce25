// conv_relu: a 3x3 convolution layer with ReLU, float32 (see conv_relu.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_conv_relu_app();
/** The Halide 14 peer (conv_relu_halide.cpp; built where Halide is). */
Runner conv_relu_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
