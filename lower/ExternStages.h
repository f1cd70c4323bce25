// The production of an extern stage (Func::define_extern): one call of its C function over the
// region bounds inference gives the Func, with buffers for its inputs and outputs.
#pragma once

#include "dsl/Function.h"
#include "lower/StageNest.h"

namespace loom {
namespace Internal {

/** The production of extern stage f: Evaluate(extern_stage(function, args...)). Each input
 * Func or image becomes extern_input(call at the mins, call at the maxs) of the region the
 * function's bounds query asks for (extern_bounds_query over the region of f, <f>.s0.<var>.min
 * / .max), so that bounds inference computes the input over that region and sizes its
 * storage; storage flattening turns it into a make_buffer of the input's whole storage (as
 * Halide passes it). Each output becomes extern_output over f's region, then a make_buffer of
 * that region of f's storage. Input Funcs must not be inlined (an error names both Funcs). */
Stmt build_extern_produce(const FunctionPtr &f, InlineCalls &inliner);

/** A call of an extern stage's buffer argument `a` (a Func's element `value_index`, a Buffer
 * or an ImageParam) at `args`. */
Expr extern_input_call(const ExternStage::Arg &a, int value_index, std::vector<Expr> args);

/** The dimensions of an extern stage's buffer argument (0 for a scalar). */
int extern_input_dimensions(const ExternStage::Arg &a);

} // namespace Internal
} // namespace loom
