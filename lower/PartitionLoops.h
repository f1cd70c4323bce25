// Loop partitioning: a loop whose body holds conditions that hold everywhere but near the edges
// of its range runs as a prologue, a steady state without them, and an epilogue.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` with its serial and parallel loops partitioned around their `likely` sites: a
 * min(likely(a), b) or max(likely(a), b) (a boundary condition's clamp),
 * a select(likely(c), t, f) (constant_exterior, mirror_image) and an if (likely(c)) (a guard,
 * an RDom's where()). For each loop, the sites whose condition is an affine bound on its
 * variable (over every lane of a vector) give the range of iterations where they reduce to
 * a, a, t and the then-branch; the loop becomes three loops over [min, lo), [lo, hi) and
 * [hi, end), the middle one with the sites reduced (a parallel loop keeps one loop and tests
 * `lo <= v < hi` at the top of its body instead, so that its iterations stay one task each).
 * Sites inside the steady state partition the loops inside it in turn; the prologue and
 * epilogue keep their sites as plain conditions. A loop whose body is only `if (c) ...` with
 * c such a bound (likely or not) is first trimmed to the range where c holds: outside it the
 * body does nothing. Afterwards no `likely` is left but those that are the whole condition of an
 * if (code generation weighs its branches by them). */
Stmt partition_loops(const Stmt &s);

}  // namespace Internal
}  // namespace loom
