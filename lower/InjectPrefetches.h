// Gives each prefetch placeholder (lower/ScheduleFunctions: Func::prefetch) its region.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Replaces each prefetch_placeholder(from, offset, strategy) of image p that starts a Block by
 * prefetches of the box of p that the rest of the Block reads with loop variable `from`
 * advanced by `offset`: loops over the box's outer dimensions and over its innermost one in
 * steps of 64 bytes (one cache line), each a prefetch intrinsic of the image's element there.
 * GuardWithIf skips the whole box where any of it lies outside the image; Clamp shrinks it to
 * the image; NonFaulting prefetches it as it is. Runs after the image checks, which must not
 * count a prefetch as a read, and before storage flattening, which turns the element into an
 * address. A box the rest does not read (or not boundedly) prefetches nothing. */
Stmt inject_prefetches(const Stmt &s);

} // namespace Internal
} // namespace loom
