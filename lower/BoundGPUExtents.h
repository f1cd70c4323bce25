// Constant sizes for what a GPU kernel holds: its blocks' threads and its shared and per-thread
// storage are fixed when the kernel is compiled, while the regions bounds inference gives a
// Func computed inside a kernel may vary from block to block (a GuardWithIf tile at the edge of
// the image covers fewer points than the others).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** A constant at least as large as every value `e` takes, through the values of the lets
 * around it (`lets`) and the ranges of the loops (`loops`: name -> min and extent): e bounded
 * by linear forms with exact fractional coefficients, a min bounded above by either of its
 * operands (a max below), a quotient by a constant k by the form divided by k (less
 * (k - 1) / k below), until the terms cancel; a loop variable left over is replaced by its
 * first or last iteration. The smallest constant so found: min(bx * 32 + 31, w - 1) -
 * bx * 32 + 1 is at most 32 whatever bx and w are. nullopt where none is found. */
std::optional<int64_t> constant_upper_bound(const Expr &e, const std::map<std::string, Expr> &lets,
                                            const std::map<std::string, Range> &loops = {});

/** `s` with each gpu_threads loop of non-constant extent run over its extent's constant upper
 * bound, the threads past the extent doing nothing (an if around the body), and each Func
 * realized inside a kernel given its extents' constant upper bounds as its storage's (a larger
 * allocation than any block uses; the points computed are bounds inference's). Where no bound
 * is found the extent is left for lower/ValidateGPULoops to report. Runs after bounds inference
 * and before storage flattening, which sizes allocations from the Realizes. */
Stmt bound_gpu_extents(const Stmt &s);

} // namespace Internal
} // namespace loom
