// Checks IR invariants between passes: every Variable is bound (by a let, a loop, a buffer
// field of an argument, or a Param), and lowered code no longer holds Provide, Realize or
// Func calls after storage flattening. A violation is a Loom bug (internal error).
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

void verify_ir(const Stmt &s, const char *after_pass);

}  // namespace Internal
}  // namespace loom
