// local_laplacian: local Laplacian filter of a 16-bit RGB photograph (see local_laplacian.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_local_laplacian_app();
/** The Halide 14 peer (local_laplacian_halide.cpp; built where Halide is). */
Runner local_laplacian_halide(App &app, Variant variant, const Halide::Target &target);
} // namespace loom_apps
