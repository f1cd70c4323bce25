#include "apps/common/HalideRunner.h"

#include "apps/camera_pipe/camera_pipe.h"

namespace loom_apps {

namespace camera_pipe_peer {
using namespace Halide;
#include "apps/camera_pipe/camera_pipe.inc"
} // namespace camera_pipe_peer

Runner camera_pipe_halide(App &app, Variant variant, const Halide::Target &target) {
    return halide_runner<camera_pipe_peer::CameraPipePipeline>(app, variant, target);
}

} // namespace loom_apps
