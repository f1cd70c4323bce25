#include "apps/common/HalideRunner.h"

#include <array>
#include <cmath>

#include "apps/unsharp/unsharp.h"

namespace loom_apps {

namespace unsharp_peer {
using namespace Halide;
#include "apps/unsharp/unsharp.inc"
}  // namespace unsharp_peer

Runner unsharp_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<unsharp_peer::UnsharpPipeline>(app, variant, target);
}

}  // namespace loom_apps
