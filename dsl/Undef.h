// Where a value that may depend on Halide's undef (dsl/IROperator.h) is stored.
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Whether e holds an undef. */
bool contains_undef(const Expr &e);

/** Where a definition's value is stored: nowhere (`never`), or where `condition` holds (an
 * undefined condition: everywhere), as `value`, which holds no undef. */
struct StoredValue {
    bool never = false;
    Expr condition;
    Expr value;
};

/** Halide's rule: a value that uses undef is undef, except through a select whose condition
 * does not: the value is then stored where the select chooses a side that is not undef, and
 * nowhere else. select(x < 4, undef<int>(), f(x) * 2) stores f(x) * 2 where x >= 4. */
StoredValue stored_value(const Expr &e);

/** An update's value with the points where it depends on undef given `current` (the element's
 * own value at the point it updates) instead: what keeping the element means. */
Expr value_keeping_undef_points(const Expr &e, const Expr &current);

} // namespace Internal
} // namespace loom
