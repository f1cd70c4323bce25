// Keeps each buffer's host and device copies coherent around the pipeline's GPU kernels.
#pragma once

#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** Before each kernel (a loop nest from an outermost gpu_blocks loop), makes the device copy
 * of every buffer the kernel reads or writes current (loom_cuda_copy_to_device: allocates it,
 * copies the host's when that is newer); after it, marks those it writes device-dirty. Before
 * each piece of host code that touches a buffer some kernel touches (the largest statements
 * with no kernel in them), copies the device's to the host where that is newer; after it,
 * marks those it writes host-dirty. The copies happen only where the flags say, at run time,
 * so a buffer that stays on one side is never copied. A buffer is referred to by the variable
 * `<name>.buffer` (its loom_buffer_t, which code generation defines). Each runtime call's
 * error code is checked. Pipelines without kernels are returned unchanged. */
Stmt inject_device_copies(const Stmt &s);

/** The name of the Handle variable that stands for buffer `buffer`'s loom_buffer_t in the
 * calls inject_device_copies makes (code generation defines it). */
std::string buffer_struct_name(const std::string &buffer);

/** Whether buffer `buffer` (an argument) is a bounds query, nonzero if so (a buffer without
 * memory: runtime/loom_runtime.h's loom_buffer_is_bounds_query). */
Expr buffer_is_bounds_query(const std::string &buffer);

/** Writes [min, max] of dimension d into the bounds-query buffer `buffer` (joined with what is
 * there: loom_buffer_bounds_query). */
Stmt bounds_query_answer(const std::string &buffer, int d, const Expr &min, const Expr &max);

} // namespace Internal
} // namespace loom
