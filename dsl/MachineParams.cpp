#include "dsl/MachineParams.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <thread>
#include <unistd.h>
#include <vector>

#include "dsl/Error.h"

namespace loom {

MachineParams MachineParams::generic() { return MachineParams(16, uint64_t(16) << 20, 40.0f); }

MachineParams MachineParams::host() {
    MachineParams m = generic();
    m.parallelism = (int)std::max(1u, std::thread::hardware_concurrency());
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (long llc = sysconf(_SC_LEVEL3_CACHE_SIZE); llc > 0) m.last_level_cache_size = (uint64_t)llc;
#endif
    return m;
}

std::string MachineParams::to_string() const {
    std::ostringstream s;
    s << parallelism << "," << last_level_cache_size << "," << balance;
    return s.str();
}

namespace {

// The three comma-separated fields of `text`, each checked to be a whole number (or, for the
// balance, a finite positive number) by the caller.
std::vector<std::string> fields_of(const std::string &text) {
    std::vector<std::string> fields(1);
    for (char c : text) {
        if (c == ',') {
            fields.emplace_back();
        } else {
            fields.back() += c;
        }
    }
    return fields;
}

} // namespace

MachineParams::MachineParams(const std::string &text)
    : parallelism(0), last_level_cache_size(0), balance(0) {
    const std::string usage =
        "MachineParams(\"" + text +
        "\"): expected \"parallelism,last_level_cache_size,balance\" "
        "(for example \"" +
        generic().to_string() +
        "\"): a positive thread count, a cache size in bytes and a positive balance.";
    std::vector<std::string> fields = fields_of(text);
    user_assert(fields.size() == 3) << usage;
    char *end = nullptr;
    errno = 0;
    const long threads = std::strtol(fields[0].c_str(), &end, 10);
    user_assert(!fields[0].empty() && *end == 0 && errno == 0 && threads > 0 &&
                threads <= (1 << 20))
        << usage;
    errno = 0;
    const unsigned long long cache = std::strtoull(fields[1].c_str(), &end, 10);
    user_assert(!fields[1].empty() && *end == 0 && errno == 0 && fields[1][0] != '-') << usage;
    errno = 0;
    const float b = std::strtof(fields[2].c_str(), &end);
    user_assert(!fields[2].empty() && *end == 0 && errno == 0 && std::isfinite(b) && b > 0)
        << usage;
    parallelism = (int)threads;
    last_level_cache_size = cache;
    balance = b;
}

} // namespace loom
