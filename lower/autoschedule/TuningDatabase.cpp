#include "lower/autoschedule/TuningDatabase.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>

#include "dsl/Error.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

/** mkdir -p of the folder that holds `path`. */
void make_parent_folders(const std::string &path) {
    for (size_t slash = path.find('/', 1); slash != std::string::npos;
         slash = path.find('/', slash + 1)) {
        mkdir(path.substr(0, slash).c_str(), 0777);
    }
}

/** A file descriptor closed (and so unlocked) when it goes out of scope. */
struct LockedFile {
    int fd = -1;
    LockedFile(const std::string &path, int flags, int lock) {
        fd = open(path.c_str(), flags | O_CLOEXEC, 0666);
        if (fd >= 0 && flock(fd, lock) != 0) {
            close(fd);
            fd = -1;
        }
    }
    ~LockedFile() {
        if (fd >= 0) close(fd);
    }
};

} // namespace

TuningDatabase::TuningDatabase(std::string path) : file(std::move(path)) {}

std::string TuningDatabase::default_path() {
    if (const char *p = std::getenv("LOOM_AUTOTUNE_DB"); p && *p) return p;
    if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return std::string(xdg) + "/loom/autotune.db";
    const char *home = std::getenv("HOME");
    return std::string(home && *home ? home : "/tmp") + "/.cache/loom/autotune.db";
}

std::map<std::string, double> TuningDatabase::measured(const std::string &key) const {
    std::map<std::string, double> best;
    LockedFile f(file, O_RDONLY, LOCK_SH);
    if (f.fd < 0) return best; // nothing recorded yet
    std::string text;
    char chunk[1 << 16];
    for (ssize_t n; (n = read(f.fd, chunk, sizeof(chunk))) > 0;)
        text.append(chunk, (size_t)n);
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const size_t a = line.find('\t');
        if (a == std::string::npos || line.compare(0, a, key) != 0 || a != key.size()) continue;
        const size_t b = line.find('\t', a + 1);
        if (b == std::string::npos) continue;
        const std::string choices = line.substr(a + 1, b - a - 1);
        char *end = nullptr;
        const double seconds = std::strtod(line.c_str() + b + 1, &end);
        if (end == line.c_str() + b + 1 || !(seconds > 0)) continue;
        auto [it, fresh] = best.emplace(choices, seconds);
        if (!fresh) it->second = std::min(it->second, seconds);
    }
    return best;
}

void TuningDatabase::record(const std::string &key, const std::string &choices,
                            double seconds) const {
    internal_assert(key.find_first_of("\t\n") == std::string::npos &&
                    choices.find_first_of("\t\n") == std::string::npos)
        << "a tuning record's key and choices are one field each";
    make_parent_folders(file);
    LockedFile f(file, O_WRONLY | O_CREAT | O_APPEND, LOCK_EX);
    user_assert(f.fd >= 0) << "The autotuner's database " << file
                           << " can't be opened for writing (" << std::strerror(errno)
                           << "). Give another path (AutotuneOptions::database or "
                              "LOOM_AUTOTUNE_DB).";
    std::ostringstream line;
    line.precision(9);
    line << key << '\t' << choices << '\t' << (std::isfinite(seconds) ? seconds : 1e30) << '\t'
         << (long long)std::time(nullptr) << '\n';
    const std::string bytes = line.str();
    // One write of the whole line under O_APPEND and the lock: never interleaved.
    const ssize_t written = write(f.fd, bytes.data(), bytes.size());
    user_assert(written == (ssize_t)bytes.size())
        << "The autotuner's database " << file << " could not be written (" << std::strerror(errno)
        << ").";
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
