#include "apps/common/HalideRunner.h"

#include "apps/pointwise/pointwise.h"

namespace loom_apps {

namespace pointwise_peer {
using namespace Halide;
#include "apps/pointwise/pointwise.inc"
}  // namespace pointwise_peer

Runner chain_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<pointwise_peer::ChainPipeline>(app, variant, target);
}

Runner bias_relu_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<pointwise_peer::BiasReluPipeline>(app, variant, target);
}

}  // namespace loom_apps
