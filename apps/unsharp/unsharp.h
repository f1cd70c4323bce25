// unsharp: unsharp mask of an RGB photograph (see unsharp.inc).
#pragma once

#include "apps/common/App.h"

namespace Halide {
struct Target;
}

namespace loom_apps {
std::unique_ptr<App> make_unsharp_app();
/** The Halide 14 peer (unsharp_halide.cpp; built where Halide is). */
Runner unsharp_halide(App &app, Variant variant, const Halide::Target &target);
}  // namespace loom_apps
