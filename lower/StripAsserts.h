// Target::NoAsserts (Halide's no_asserts): the checks a pipeline makes at run time, dropped.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` without its AssertStmts, as Halide's no_asserts: the checks of input and output
 * buffers against the regions the pipeline reads and writes, of bounds, folds and allocations,
 * of device copies, and specialize_fail's error, which then never stop a run (a buffer too
 * small is read or written out of bounds, as in Halide). Requirements (loom::require) and
 * extern stages' results are the program's own and stay. */
Stmt strip_asserts(const Stmt &s);

} // namespace Internal
} // namespace loom
