#include "apps/common/HalideRunner.h"

#include "apps/local_laplacian/local_laplacian.h"

namespace loom_apps {

namespace local_laplacian_peer {
using namespace Halide;
#include "apps/local_laplacian/local_laplacian.inc"
} // namespace local_laplacian_peer

Runner local_laplacian_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<local_laplacian_peer::LocalLaplacianPipeline>(app, variant, target);
}

} // namespace loom_apps
