#include "apps/common/HalideRunner.h"

#include "apps/bilateral_grid/bilateral_grid.h"

namespace loom_apps {

namespace bilateral_grid_peer {
using namespace Halide;
#include "apps/bilateral_grid/bilateral_grid.inc"
} // namespace bilateral_grid_peer

Runner bilateral_grid_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<bilateral_grid_peer::BilateralGridPipeline>(app, variant, target);
}

} // namespace loom_apps
