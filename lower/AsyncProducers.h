// Func::async: an async Func's productions run on a task of their own, at the same time as the
// work that consumes them, synchronized by semaphores (Halide 14's semantics).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** s with each async Func's productions forked from the work around them into two tasks that
 * run at once:
 *
 *   f.fork in [0, 2), parallel:
 *     if (f.fork == 0) producer: the loops, lets and conditions that lead to f's productions,
 *                      each production followed by semaphore_release(f.produced, 1)
 *     else             consumer: everything else, each production of f replaced by
 *                      semaphore_acquire(f.produced, 1)
 *
 * The two tasks walk the same loops in the same order, so the consumer's k-th acquire waits
 * for exactly the producer's k-th production: the consumer reads f only where the serial
 * program would, after f was computed there. The fork goes around the smallest statement
 * inside f's storage that holds all of f's productions (through storage, lets and markers,
 * and into the side of an earlier fork that computes f). Funcs are forked producers first, so
 * the producer task of a Func that reads another async Func waits for it on a copy of its
 * semaphore, released with the original, and that producer runs first where the tasks run one
 * after the other: no task ever waits for one that comes after it, so the forks cannot
 * deadlock whatever the number of threads.
 *
 * Computed in order, not forked: a Func with folded storage (fold_storage), which holds only
 * the rows its consumer reads now; a Func with update definitions stored outside the loop it
 * is computed in, whose productions may recompute points the consumer is reading, through
 * other values; a Func whose productions read an async Func that is stored outside them but
 * computed inside the work the fork would go around (its producer side would be left on the
 * consumer's). Errors name the Func: async of a Func computed together with another
 * (compute_with), inside a vectorized loop, or beside GPU loops; a production that reads a
 * Func the consumer task computes (one computed at the same loop, outside it). Async
 * of an inlined Func, or of an output, changes nothing, as in Halide 14.
 *
 * Runs after storage flattening, memoization and the passes that move or remove productions
 * (whose semaphore operations would otherwise go with them), before unrolling. */
Stmt fork_async_producers(const Stmt &s, const Environment &env);

/** The tasks of a fork loop made by fork_async_producers, for code generation: where either
 * task stops with an error, every semaphore in the fork is marked failed, so that the other
 * task's waits end. Not a fork loop: nullopt. */
struct ForkTasks {
    Stmt producer, consumer;
    std::vector<std::string> semaphores; // the buffers of the semaphores either task uses
};
std::optional<ForkTasks> as_fork_loop(const For *loop);

} // namespace Internal
} // namespace loom
