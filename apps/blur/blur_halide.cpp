#include "apps/common/HalideRunner.h"

#include "apps/blur/blur.h"

namespace loom_apps {

namespace blur_peer {
using namespace Halide;
#include "apps/blur/blur.inc"
}  // namespace blur_peer

Runner blur_halide(App &app, Variant variant) {
    return halide_runner<blur_peer::BlurPipeline>(app, variant);
}

}  // namespace loom_apps
