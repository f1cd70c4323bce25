// Names for JIT-compiled code in Linux perf's profiles.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace loom {
namespace Internal {

/** Whether JIT-compiled functions are to be listed for perf: the environment variable
 * LOOM_PERF_MAP is set (to anything). */
bool perf_map_wanted();

/** Appends a line "address size name" to /tmp/perf-<pid>.map for every function the objects
 * define, the format `perf report` reads to name samples in code that no file on disk holds.
 * `address_of` gives where the JIT put a symbol (0 if it did not). */
void append_to_perf_map(const std::vector<std::string> &objects,
                        const std::function<uint64_t(const std::string &)> &address_of);

} // namespace Internal
} // namespace loom
