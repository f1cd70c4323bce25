// camera_pipe: raw Bayer image to 8-bit RGB (see camera_pipe.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_camera_pipe_app();
/** The Halide 14 peer (camera_pipe_halide.cpp; built where Halide is). */
Runner camera_pipe_halide(App &app, Variant variant, const Halide::Target &target);
} // namespace loom_apps
