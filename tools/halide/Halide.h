// Halide 14 programs compiled against Loom unchanged: `#include "Halide.h"` gives Loom's API
// under the namespace Halide (link Loom::halide_compat, which puts this folder on the include
// path). Also brings in the standard headers a program may rely on Halide.h including.
#pragma once

#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <loom.h>

namespace Halide = loom;

/** Halide's registration macro, for Loom's generator driver (loom_add_generator): the class and
 * the name; Halide's optional third argument (a stub's name) is ignored. */
#define LOOM_HALIDE_REGISTER_GENERATOR_2(GEN_CLASS, NAME, ...)                                     \
    LOOM_REGISTER_GENERATOR(GEN_CLASS, NAME)
#define HALIDE_REGISTER_GENERATOR(...) LOOM_HALIDE_REGISTER_GENERATOR_2(__VA_ARGS__, unused)
#define HALIDE_REGISTER_GENERATOR_ALIAS(...) LOOM_REGISTER_GENERATOR_ALIAS(__VA_ARGS__)
