// Code a GPU kernel runs once per block: what lies between its block loops and its thread loops
// that is not itself a nest of thread loops (a Func computed at a block loop without threads of
// its own, the serial update that reduces what a block's threads staged in shared memory).
#pragma once

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** `s` with each statement at a kernel's block level that holds no GPU loop (stores, serial
 * loops, calls: anything but lets, storage, productions and sequences, which stay where they
 * are) wrapped in a gpu_threads loop of extent 1, as Halide runs such code: it becomes a nest of
 * its own, run by the block's first thread while the others wait, with a barrier after it and
 * after the nest before it (codegen/KernelShape.h), so that it reads what the threads before it
 * wrote and they read what it wrote. A kernel with no thread loop at all becomes one of one
 * thread a block. A serial loop or condition around thread loops stays, run by every thread
 * alike (its bounds and condition are the block's), its body block level in turn. */
Stmt run_block_level_code_on_one_thread(const Stmt &s);

} // namespace Internal
} // namespace loom
