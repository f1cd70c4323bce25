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
