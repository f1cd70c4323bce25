// chain and bias_relu: pointwise float tensor pipelines (see pointwise.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_chain_app();
std::unique_ptr<App> make_bias_relu_app();
/** The Halide 14 peers (pointwise_halide.cpp; built where Halide is). */
Runner chain_halide(App &app, Variant variant, const Halide::Target &target);
Runner bias_relu_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
