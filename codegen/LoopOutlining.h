// Which serial loops codegen moves into functions of their own. The JIT compiles a pipeline's
// functions on several threads, but one function on one: a task that holds every stage of a
// fused pipeline (a producer's loop nest and its consumer's, per strip) is compiled alone on
// one thread while the others wait. Outlined, its loop nests compile at the same time.
#pragma once

#include <set>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** The serial loops of a function's body (the entry's, or a parallel loop's task body; the
 * bodies of the parallel loops in it are functions of their own and not looked into) that are
 * worth a function of their own: each is a large loop nest, or a large loop at the top of the
 * body, and the rest of the body is large too. A loop that is most of the body is not
 * outlined itself, but the loops in it may be. Each outlined loop is called once per
 * execution of the code around it, so a loop is only outlined where a call costs nothing next
 * to the loop's own work: a loop that no other loop of the function encloses, or, inside
 * other loops, a nest whose extent is not a constant (the rows of a strip; not a reduction
 * over a few taps or channels per pixel), or a loop of a thousand nodes or more over a variable
 * extent with no loop of its own stage around it (a tile's whole sum over k, once per tile).
 * Where that last kind is outlined, every row loop left goes too (the task becomes glue).
 * Otherwise, where that leaves fewer outlined loops than
 * compile_threads, the largest innermost loops over a variable extent one loop deep (a
 * consumer's row of a strip) are outlined too, up to compile_threads, and beyond that those
 * of a thousand nodes or more: with every loop of the body outlined, what stays is glue that
 * compiles unoptimized (CodeGen_LLVM's marks_as_glue), and the loops share the threads (blur:
 * its producer's and consumer's rows; harris: its output's rows besides its two gradients). */
std::set<const For *> loops_to_outline(const Stmt &body, unsigned compile_threads);

/** Whether `loop`, outlined, is worth copies of the caller's stack allocations it writes
 * (CodeGen_LLVM's outline): the copies and a third function cost compile time of their own,
 * which only a large loop repays (matmul's k tail, 1263 nodes: its task's compile 45 -> 36 ms
 * with the tail on the other thread; layer_norm's 49-node row reduction: its JIT +10%). */
bool worth_outlining_with_copies(const For *loop);

/** Whether outlining gives the JIT's compile threads more to do at once: a pipeline with at
 * least as many parallel loops as threads already has a function per thread, unless one
 * function (the entry or a parallel loop's task) holds more than 4/3 of an even share of the
 * pipeline's nodes. A call per execution of an outlined loop costs up to a few percent of run
 * time (harris: 4.5%), paid only where it buys compile time. */
bool outlining_helps(const Stmt &pipeline_body, unsigned compile_threads);

} // namespace Internal
} // namespace loom
