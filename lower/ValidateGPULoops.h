// Checks the GPU loops of a lowered pipeline against what the CUDA backend runs.
#pragma once

#include "dsl/IR.h"
#include "dsl/Target.h"

namespace loom {
namespace Internal {

/** Throws a user error naming the loop and what to change where `s` has GPU loops the CUDA
 * backend can't run: a target without Target::CUDA; thread loops outside every block loop,
 * or block loops inside thread loops; more than three block or thread dimensions; a thread
 * loop whose extent is not a constant, or more than 1024 threads a block; block loops inside a
 * serial loop; block-level storage of a size not known at compile time; parallel loops,
 * and allocations of a size not known at compile time, inside a kernel. A kernel is the nest from
 * an outermost block loop in. Returns nothing: the IR is unchanged. */
void validate_gpu_loops(const Stmt &s, const Target &target);

} // namespace Internal
} // namespace loom
