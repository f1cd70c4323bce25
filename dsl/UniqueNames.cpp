// Names for what the user left unnamed (declared in dsl/Var.h).
#include <atomic>
#include <mutex>
#include <unordered_set>

#include "dsl/Var.h"

namespace loom {
namespace Internal {

namespace {

std::mutex loop_names_mutex;
// Every name unique_loop_name has made in this process (a few bytes each: one per
// vectorize(x, n), unroll(x, n) or parallel(x, n) directive).
std::unordered_set<std::string> &loop_names() {
    static std::unordered_set<std::string> names;
    return names;
}

} // namespace

std::string unique_user_name(char prefix) {
    // One counter per prefix, as Halide 14 counts: a program's unnamed Vars are v0, v1, ...
    // whatever else it leaves unnamed, as they are in Halide (its loop names show them).
    static std::atomic<int> counters[256];
    return std::string(1, prefix) + std::to_string(counters[(unsigned char)prefix]++);
}

std::string unique_loop_name(char prefix) {
    std::string name = unique_user_name(prefix);
    std::lock_guard<std::mutex> lock(loop_names_mutex);
    loop_names().insert(name);
    return name;
}

bool is_unique_loop_name(const char *begin, const char *end) {
    // Only a prefix letter and digits can be one (the common case, a user's name, returns here).
    if (end - begin < 2 || (*begin != 'v' && *begin != 'r')) return false;
    for (const char *c = begin + 1; c != end; c++) {
        if (*c < '0' || *c > '9') return false;
    }
    std::lock_guard<std::mutex> lock(loop_names_mutex);
    return loop_names().count(std::string(begin, end)) > 0;
}

} // namespace Internal
} // namespace loom
