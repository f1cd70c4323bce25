// Gives each prefetch placeholder (lower/ScheduleFunctions: Func::prefetch) its region.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Replaces each prefetch_placeholder(from, offset, strategy) of p (an image, or a Func
 * realized around the placeholder) that starts a Block by prefetches of the box of p that the
 * rest of the Block reads with loop variable `from` advanced by `offset`: loops over the box's
 * outer dimensions and over its innermost one in steps of 64 bytes (one cache line), each a
 * prefetch intrinsic of p's element there. GuardWithIf skips the whole box where any of it lies
 * outside p's buffer (an image's extent, a Func's realization); Clamp shrinks it to the buffer;
 * NonFaulting prefetches it as it is. Runs after the image checks, which must not count a
 * prefetch as a read, and before storage flattening, which turns the element into an address.
 * A box the rest does not read (or not boundedly) prefetches nothing. Throws where a Func is
 * not realized around its placeholder (it is computed inside the loop, or not at all). */
Stmt inject_prefetches(const Stmt &s);

} // namespace Internal
} // namespace loom
