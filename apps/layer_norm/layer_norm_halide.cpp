#include "apps/common/HalideRunner.h"

#include "apps/layer_norm/layer_norm.h"

namespace loom_apps {

namespace layer_norm_peer {
using namespace Halide;
#include "apps/layer_norm/layer_norm.inc"
}  // namespace layer_norm_peer

Runner layer_norm_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<layer_norm_peer::LayerNormPipeline>(app, variant, target);
}

}  // namespace loom_apps
