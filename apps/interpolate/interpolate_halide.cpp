#include "apps/common/HalideRunner.h"

#include <string>
#include <vector>

#include "apps/interpolate/interpolate.h"

namespace loom_apps {

namespace interpolate_peer {
using namespace Halide;
#include "apps/interpolate/interpolate.inc"
}  // namespace interpolate_peer

Runner interpolate_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<interpolate_peer::InterpolatePipeline>(app, variant, target);
}

}  // namespace loom_apps
