// Threads that stay for the life of the process, for the JIT to compile on. A thread started
// for each compile began its work up to ~1 ms later (measured on harris's compile, right after
// another compiler had run: 0.7-1.2 ms), on the path of a compile that takes 12-40 ms.
#pragma once

#include <functional>

namespace loom {
namespace Internal {

/** Runs work on an idle worker thread, starting one more if none is idle; returns at once.
 * work must not throw. Workers are never joined: one idle at exit waits on a condition
 * variable that the process's end takes down with it. */
void run_on_compile_worker(std::function<void()> work);

} // namespace Internal
} // namespace loom
