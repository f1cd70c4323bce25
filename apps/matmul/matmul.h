// matmul_1024, matmul_2048, matmul_bias_relu: dense float32 matrix products (see matmul.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
/** C = A * B for n x n matrices; with bias_relu, relu(A * B + bias(column)) fused. */
std::unique_ptr<App> make_matmul_app(int n, bool bias_relu);
/** The Halide 14 peer of the three (matmul_halide.cpp; built where Halide is); it tells them
 * apart by whether the app has a bias input. */
Runner matmul_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
