#include "codegen/JITCache.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <llvm/ADT/StringExtras.h>
#include <llvm/Support/BLAKE3.h>
#include <llvm/Support/xxhash.h>

namespace loom {
namespace Internal {

namespace {

constexpr char kMagic[8] = {'L', 'O', 'O', 'M', 'J', 'I', 'T', '\0'};
// Bump when the layout of an entry changes: entries of another version are not read.
constexpr uint32_t kFormatVersion = 2;
constexpr size_t kHeaderBytes = 8 + 4 + 4 + 8 + 8 + 8;
constexpr const char *kEntrySuffix = ".loomjit";
constexpr const char *kTempPrefix = ".tmp-";
// A temporary file this old was left by a writer that died before its rename.
constexpr time_t kStaleTempSeconds = 3600;

const char *env(const char *name) {
    const char *v = std::getenv(name);
    return v && *v ? v : nullptr;
}

bool ends_with(const std::string &s, const char *suffix) {
    size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// The little-endian integers of an entry's header (x86-64 and every target Loom runs on are
// little-endian; an entry is only ever read on the machine kind that wrote it, see its key).
template<typename T>
void put(std::string &out, T v) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &v, sizeof(T));
    out.append(bytes, sizeof(T));
}

template<typename T>
T get(const std::string &in, size_t at) {
    T v;
    std::memcpy(&v, in.data() + at, sizeof(T));
    return v;
}

uint64_t checksum(const char *data, size_t size) {
    return llvm::xxh3_64bits(llvm::ArrayRef<uint8_t>((const uint8_t *)data, size));
}

// The whole file at path, or nothing where it can't be opened or read (a missing entry is
// the common case). `fd_out` keeps the file open for the caller to touch.
std::optional<std::string> read_file(const std::string &path, int *fd_out) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return std::nullopt;
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return std::nullopt;
    }
    std::string bytes((size_t)st.st_size, '\0');
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::read(fd, &bytes[done], bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    bytes.resize(done);  // a shorter file than fstat said fails the length checks
    *fd_out = fd;
    return bytes;
}

bool write_all(int fd, const std::string &bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
        ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        done += (size_t)n;
    }
    return true;
}

// Reads the length-prefixed blob at `at`, moving past it; false where it runs past the end.
bool take_blob(const std::string &bytes, size_t &at, std::string &blob) {
    if (bytes.size() - at < 8) return false;
    const uint64_t n = get<uint64_t>(bytes, at);
    at += 8;
    if (n > bytes.size() - at) return false;
    blob.assign(bytes, at, n);
    at += n;
    return true;
}

void put_blob(std::string &out, const std::string &blob) {
    put<uint64_t>(out, blob.size());
    out += blob;
}

// The contents of an entry, or the reason it is not believed.
struct Parsed {
    JITCacheEntry entry;
    std::string damage;  // empty: the entry is whole and belongs to the key
};

Parsed parse_entry(const std::string &bytes, const std::string &key) {
    Parsed r;
    if (bytes.size() < kHeaderBytes || std::memcmp(bytes.data(), kMagic, 8) != 0) {
        r.damage = "no entry header";
        return r;
    }
    const uint32_t version = get<uint32_t>(bytes, 8);
    const uint32_t count = get<uint32_t>(bytes, 12);
    const uint64_t key_bytes = get<uint64_t>(bytes, 16);
    const uint64_t payload_bytes = get<uint64_t>(bytes, 24);
    const uint64_t sum = get<uint64_t>(bytes, 32);
    const uint64_t body = bytes.size() - kHeaderBytes;
    if (version != kFormatVersion) {
        r.damage = "format version " + std::to_string(version);
    } else if (key_bytes > body || payload_bytes != body - key_bytes) {
        r.damage = "lengths disagree with the file's size (cut short?)";
    } else if (checksum(bytes.data() + kHeaderBytes, body) != sum) {
        r.damage = "checksum mismatch";
    } else if (key_bytes != key.size() ||
               std::memcmp(bytes.data() + kHeaderBytes, key.data(), key.size()) != 0) {
        r.damage = "another key with the same hash";
    }
    if (!r.damage.empty()) return r;
    size_t at = kHeaderBytes + key_bytes;
    bool whole = take_blob(bytes, at, r.entry.interface);
    for (uint32_t i = 0; whole && i < count; i++) {
        r.entry.objects.emplace_back();
        whole = take_blob(bytes, at, r.entry.objects.back());
    }
    if (!whole || at != bytes.size()) {
        r.entry = JITCacheEntry();
        r.damage = "blob lengths disagree with the payload";
    }
    return r;
}

std::string make_entry(const std::string &key, const JITCacheEntry &contents) {
    std::string body = key;
    put_blob(body, contents.interface);
    for (const std::string &o : contents.objects) put_blob(body, o);
    std::string entry(kMagic, 8);
    put<uint32_t>(entry, kFormatVersion);
    put<uint32_t>(entry, (uint32_t)contents.objects.size());
    put<uint64_t>(entry, key.size());
    put<uint64_t>(entry, body.size() - key.size());
    put<uint64_t>(entry, checksum(body.data(), body.size()));
    return entry + body;
}

std::string default_dir() {
    if (const char *d = env("LOOM_CACHE_DIR")) return d;
    // XDG's base directory rule: a relative XDG_CACHE_HOME is ignored.
    if (const char *x = env("XDG_CACHE_HOME"); x && x[0] == '/') return std::string(x) + "/loom";
    if (const char *h = env("HOME")) return std::string(h) + "/.cache/loom";
    return "";
}

}  // namespace

JITCache::JITCache(const CompileOptions &options) {
    log = env("LOOM_JIT_CACHE_LOG") && std::strcmp(env("LOOM_JIT_CACHE_LOG"), "0") != 0;
    const char *off = env("LOOM_JIT_CACHE");
    if (!options.jit_cache || (off && std::strcmp(off, "0") == 0)) return;
    dir = options.jit_cache_dir.empty() ? default_dir() : options.jit_cache_dir;
    if (options.jit_cache_max_bytes > 0) {
        bound = (uint64_t)options.jit_cache_max_bytes;
    } else if (const char *b = env("LOOM_JIT_CACHE_MAX_BYTES")) {
        char *end = nullptr;
        errno = 0;
        unsigned long long v = std::strtoull(b, &end, 10);
        if (errno == 0 && end && *end == '\0' && v > 0) {
            bound = v;
        } else {
            report(std::string("LOOM_JIT_CACHE_MAX_BYTES=") + b +
                   " is not a positive number of bytes; using the default");
        }
    }
}

void JITCache::report(const std::string &what) const {
    if (log) std::fprintf(stderr, "loom jit cache: %s\n", what.c_str());
}

std::string JITCache::entry_path(const std::string &key) const {
    auto hash = llvm::BLAKE3::hash<32>(llvm::ArrayRef<uint8_t>((const uint8_t *)key.data(), key.size()));
    return dir + "/" + llvm::toHex(hash, /*LowerCase=*/true) + kEntrySuffix;
}

std::optional<JITCacheEntry> JITCache::load(const std::string &key) const {
    if (!enabled()) return std::nullopt;
    const std::string path = entry_path(key);
    int fd = -1;
    std::optional<std::string> bytes = read_file(path, &fd);
    if (!bytes) {
        report("miss " + path);
        return std::nullopt;
    }
    Parsed entry = parse_entry(*bytes, key);
    if (!entry.damage.empty()) {
        ::close(fd);
        forget(key, entry.damage);
        return std::nullopt;
    }
    // Least recently used = oldest modification time: a hit makes its entry the newest.
    ::futimens(fd, nullptr);
    ::close(fd);
    report("hit " + path);
    return std::move(entry.entry);
}

void JITCache::forget(const std::string &key, const std::string &why) const {
    if (!enabled()) return;
    const std::string path = entry_path(key);
    report("dropping " + path + ": " + why);
    // Another process may have just renamed a good entry over the damaged one: deleting that
    // costs it one compile, never a wrong result.
    ::unlink(path.c_str());
}

void JITCache::store(const std::string &key, const JITCacheEntry &contents) const {
    if (!enabled()) return;
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec) {
        report("can't create " + dir + ": " + ec.message());
        return;
    }
    std::string temp = dir + "/" + kTempPrefix + "XXXXXX";
    int fd = ::mkstemp(&temp[0]);
    if (fd < 0) {
        report("can't write in " + dir + ": " + std::strerror(errno));
        return;
    }
    const bool written = write_all(fd, make_entry(key, contents));
    const int write_errno = errno;
    const bool closed = ::close(fd) == 0;
    const std::string path = entry_path(key);
    if (!written || !closed || ::rename(temp.c_str(), path.c_str()) != 0) {
        report("can't store " + path + ": " + std::strerror(written ? errno : write_errno));
        ::unlink(temp.c_str());
        return;
    }
    report("stored " + path);
    evict();
}

void JITCache::evict() const {
    const std::string lock_path = dir + "/lock";
    int lock = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lock < 0) {
        report("can't open " + lock_path + ": " + std::strerror(errno));
        return;
    }
    // One evictor at a time, so that two never both delete down to the bound (twice the
    // entries gone) nor race over the same files. flock is released by close.
    while (::flock(lock, LOCK_EX) != 0) {
        if (errno != EINTR) {
            ::close(lock);
            return;
        }
    }
    struct Entry {
        std::string path;
        uint64_t bytes;
        struct timespec used;
    };
    std::vector<Entry> entries;
    uint64_t total = 0;
    const time_t now = std::time(nullptr);
    if (DIR *d = ::opendir(dir.c_str())) {
        while (struct dirent *e = ::readdir(d)) {
            const std::string name = e->d_name;
            const bool entry = ends_with(name, kEntrySuffix);
            const bool temp = name.rfind(kTempPrefix, 0) == 0;
            if (!entry && !temp) continue;
            const std::string path = dir + "/" + name;
            struct stat st;
            if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
            if (temp) {
                if (now - st.st_mtime > kStaleTempSeconds) ::unlink(path.c_str());
                continue;
            }
            entries.push_back({path, (uint64_t)st.st_size, st.st_mtim});
            total += (uint64_t)st.st_size;
        }
        ::closedir(d);
    }
    if (total > bound) {
        std::sort(entries.begin(), entries.end(), [](const Entry &a, const Entry &b) {
            return a.used.tv_sec != b.used.tv_sec ? a.used.tv_sec < b.used.tv_sec
                                                  : a.used.tv_nsec < b.used.tv_nsec;
        });
        for (const Entry &e : entries) {
            if (total <= bound) break;
            if (::unlink(e.path.c_str()) == 0 || errno == ENOENT) {
                total -= e.bytes;
                report("evicted " + e.path);
            }
        }
    }
    ::close(lock);
}

}  // namespace Internal
}  // namespace loom
