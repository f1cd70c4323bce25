// The one header users include. Everything in namespace loom follows Halide's core API, so a
// Halide pipeline compiles against Loom with `namespace Halide = loom;`.
#pragma once

#include "dsl/Argument.h"
#include "dsl/AutoScheduler.h"
#include "dsl/Autotune.h"
#include "dsl/BoundaryConditions.h"
#include "dsl/Buffer.h"
#include "dsl/ConciseCasts.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/Generator.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/ImageParam.h"
#include "dsl/InlineReductions.h"
#include "dsl/MachineParams.h"
#include "dsl/MemoryCache.h"
#include "dsl/Param.h"
#include "dsl/ParamMap.h"
#include "dsl/Pipeline.h"
#include "dsl/RDom.h"
#include "dsl/Realization.h"
#include "dsl/Schedule.h"
#include "dsl/Target.h"
#include "dsl/Tuple.h"
#include "dsl/Type.h"
#include "dsl/Var.h"

// Halide's names for the runtime's structures, which an extern stage's C function takes
// (Func::define_extern). Not where Halide's own runtime header is included too (a program
// comparing the two compilers, which defines LOOM_NO_HALIDE_RUNTIME_NAMES where it may include
// Halide.h after this header), whose structures these are not.
#if !defined(HALIDE_HALIDERUNTIME_H) && !defined(LOOM_NO_HALIDE_RUNTIME_NAMES)
using halide_buffer_t = loom_buffer_t;
using halide_dimension_t = loom_dimension_t;
using halide_type_t = loom_type_t;
#endif
