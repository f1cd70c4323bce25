#include "apps/common/HalideRunner.h"

#include "apps/softmax/softmax.h"

namespace loom_apps {

namespace softmax_peer {
using namespace Halide;
#include "apps/softmax/softmax.inc"
}  // namespace softmax_peer

Runner softmax_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<softmax_peer::SoftmaxPipeline>(app, variant, target);
}

}  // namespace loom_apps
