// Replaces each Unrolled loop by one copy of its body per iteration. The extent must be a
// constant once simplified; otherwise the schedule is rejected with a message.
//
// Also unrolls a serial loop whose body is one prefetch and whose extent is a constant of at
// most kMaxUnrolledPrefetches once simplified: the lines of a prefetched box's row
// (lower/InjectPrefetches), two for a vector's taps in blur's row loop, where the loop's
// compare and branch per line cost more than the prefetches.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

constexpr int64_t kMaxUnrolledPrefetches = 4;

Stmt unroll_loops(const Stmt &s);

}  // namespace Internal
}  // namespace loom
