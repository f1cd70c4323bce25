// Storage folding: a Func stored outside a serial loop and computed inside it, whose values
// each iteration touches (produces or reads) lie in a window of at most k coordinates along a
// dimension that moves one way as the loop runs, is stored modulo k rounded up to a power of
// two along that dimension: a row buffer instead of an image (a boundary condition stored at
// root and computed per row of its consumer: seed 2026's pair 468 allocated the whole image).
#pragma once

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** Folds the storage of each Realize in `s` (after bounds inference, before sliding window)
 * over the outermost loop inside it, where that loop is serial and holds every access of the
 * Func. A dimension folds when, within one iteration, the box of the Func's coordinates
 * produced or read along it has a constant bound on its extent and a min and max that both
 * never decrease (or never increase) as the loop runs: a value read in an iteration was
 * produced in it or in an earlier one, and what was produced between lies in the window of
 * some iteration in between, which holds fewer than k coordinates, so it was never stored on
 * top of the value (sliding window, which runs after, only shrinks what each iteration
 * produces). The innermost storage dimension folds only to one coordinate (a wider fold would
 * wrap its vectors); left alone are a dimension folded by the schedule (fold_storage), a Func
 * with an explicit fold, and accesses inside GPU loops. */
Stmt storage_folding(const Stmt &s, const Environment &env);

} // namespace Internal
} // namespace loom
