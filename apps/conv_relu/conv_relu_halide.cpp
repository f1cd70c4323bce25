#include "apps/common/HalideRunner.h"

#include "apps/conv_relu/conv_relu.h"

namespace loom_apps {

namespace conv_relu_peer {
using namespace Halide;
#include "apps/conv_relu/conv_relu.inc"
}  // namespace conv_relu_peer

Runner conv_relu_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<conv_relu_peer::ConvReluPipeline>(app, variant, target);
}

}  // namespace loom_apps
