// The Halide 14 peer of each app, by the name all_apps() gives it.
#include "apps/common/HalideRunner.h"

#include <stdexcept>

#include "apps/common/AllApps.h"

namespace loom_apps {

Runner compile_halide(App &app, Variant variant, const Halide::Target &target) {
    const std::string name = app.name();
#ifdef LOOM_APP_blur
    if (name == "blur") return blur_halide(app, variant, target);
#endif
#ifdef LOOM_APP_unsharp
    if (name == "unsharp") return unsharp_halide(app, variant, target);
#endif
#ifdef LOOM_APP_harris
    if (name == "harris") return harris_halide(app, variant, target);
#endif
#ifdef LOOM_APP_bilateral_grid
    if (name == "bilateral_grid") return bilateral_grid_halide(app, variant, target);
#endif
#ifdef LOOM_APP_local_laplacian
    if (name == "local_laplacian") return local_laplacian_halide(app, variant, target);
#endif
#ifdef LOOM_APP_interpolate
    if (name == "interpolate") return interpolate_halide(app, variant, target);
#endif
#ifdef LOOM_APP_camera_pipe
    if (name == "camera_pipe") return camera_pipe_halide(app, variant, target);
#endif
#ifdef LOOM_APP_pointwise
    if (name == "chain") return chain_halide(app, variant, target);
    if (name == "bias_relu") return bias_relu_halide(app, variant, target);
#endif
#ifdef LOOM_APP_softmax
    if (name == "softmax") return softmax_halide(app, variant, target);
#endif
#ifdef LOOM_APP_layer_norm
    if (name == "layer_norm") return layer_norm_halide(app, variant, target);
#endif
#ifdef LOOM_APP_matmul
    if (name.rfind("matmul", 0) == 0) return matmul_halide(app, variant, target);
#endif
#ifdef LOOM_APP_conv_relu
    if (name == "conv_relu") return conv_relu_halide(app, variant, target);
#endif
    throw std::invalid_argument("no Halide peer for app '" + name + "'");
}

} // namespace loom_apps
