// Replaces each Unrolled loop by one copy of its body per iteration. The extent must be a
// constant once simplified; otherwise the schedule is rejected with a message.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

Stmt unroll_loops(const Stmt &s);

}  // namespace Internal
}  // namespace loom
