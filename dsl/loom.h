// The one header users include. Everything in namespace loom follows Halide's core API, so a
// Halide pipeline compiles against Loom with `namespace Halide = loom;`.
#pragma once

#include "dsl/Argument.h"
#include "dsl/BoundaryConditions.h"
#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/Expr.h"
#include "dsl/Func.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/ImageParam.h"
#include "dsl/InlineReductions.h"
#include "dsl/RDom.h"
#include "dsl/Param.h"
#include "dsl/Pipeline.h"
#include "dsl/Realization.h"
#include "dsl/Schedule.h"
#include "dsl/Target.h"
#include "dsl/Tuple.h"
#include "dsl/Type.h"
#include "dsl/Var.h"
