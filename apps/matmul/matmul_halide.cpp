#include "apps/common/HalideRunner.h"

#include "apps/matmul/matmul.h"

namespace loom_apps {

namespace matmul_peer {
using namespace Halide;
#include "apps/matmul/matmul.inc"
}  // namespace matmul_peer

Runner matmul_halide(App &app, Variant variant, const Halide::Target &target) {
    if (app.inputs.size() == 3) {
        return halide_runner<matmul_peer::MatmulPipeline<true>>(app, variant, target);
    }
    return halide_runner<matmul_peer::MatmulPipeline<false>>(app, variant, target);
}

}  // namespace loom_apps
