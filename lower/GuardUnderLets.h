// A statement that is lets around one guard, `if (c) then` with no else: the shape a
// GuardWithIf split's guard (or an RDom's where()) has in the body of the loop it guards.
// Passes that take such a guard out of a loop's body read it through this.
#pragma once

#include <vector>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

struct GuardUnderLets {
    std::vector<const LetStmt *> lets; // outermost first
    const IfThenElse *guard = nullptr; // null: the statement has another shape
    /** The guard's condition, likely() taken off, with the lets' values substituted: what it
     * says of the variables bound outside the statement. */
    Expr condition;
    /** The guard's then-case under the same lets. */
    Stmt unguarded() const;
};

/** s read as lets around one guard; `guard` null where s has another shape. */
GuardUnderLets guard_under_lets(const Stmt &s);

} // namespace Internal
} // namespace loom
