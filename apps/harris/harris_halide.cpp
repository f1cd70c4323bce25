#include "apps/common/HalideRunner.h"

#include "apps/harris/harris.h"

namespace loom_apps {

namespace harris_peer {
using namespace Halide;
#include "apps/harris/harris.inc"
}  // namespace harris_peer

Runner harris_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<harris_peer::HarrisPipeline>(app, variant, target);
}

}  // namespace loom_apps
