// Operations on the schedule generator's loop model (FuzzScheduleModel.h), shared by its
// decisions (FuzzScheduleGenerator.h): each reads or changes one stage's loops as Loom's
// directives change the real ones.
#pragma once

#include <string>
#include <vector>

#include "FuzzScheduleModel.h"

namespace loom_fuzz {

/** Whether exactly one loop of st is named `name` (a directive can name it; never
 * kUnnamedLoop). */
bool unique_name(const StageM &st, const std::string &name);
/** The index of the loop named `name` in st (innermost first), or -1. */
int find_loop(const StageM &st, const std::string &name);
/** Whether st's RVar loops are still in the reduction's order. */
bool rvar_order_ok(const StageM &st);
/** The tail a split of l by factor with tail t uses (Loom's Auto, as Halide's). */
Tail effective_tail(const StageM &st, const LoopM &l, int factor, Tail t);
/** Points of l's dimension a split of l by factor with tail t may compute beyond the region:
 * a block less one, unless a ShiftInwards split outside already clamps every block. */
long rounding(const StageM &st, const LoopM &l, int factor, Tail t);
/** Splits loop i of the model (Loom's order: inner at i, outer just outside) with tail t. */
void split_model(StageM &st, int i, const std::string &outer, const std::string &inner, int factor,
                 Tail t);
bool has_vectorized(const StageM &st);
/** The loops `names` take the positions they hold among themselves in the listed order. */
void reorder_model(StageM &st, const std::vector<std::string> &names);

} // namespace loom_fuzz
