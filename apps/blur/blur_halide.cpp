#include "apps/common/HalideRunner.h"

#include "apps/blur/blur.h"

namespace loom_apps {

namespace blur_peer {
using namespace Halide;
#include "apps/blur/blur.inc"
}  // namespace blur_peer

Runner blur_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<blur_peer::BlurPipeline>(app, variant, target);
}

}  // namespace loom_apps
