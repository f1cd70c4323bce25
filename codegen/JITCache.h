// The persistent JIT cache: the machine code JITModule::compile made for a pipeline, kept on
// disk so that a later process defining the same pipeline (same definition and schedule,
// target, options, Loom build and LLVM version: codegen/JITCacheKey.h) links it without
// lowering it and without running LLVM's optimizer and code generator.
//
// Where: CompileOptions::jit_cache_dir, else $LOOM_CACHE_DIR, else $XDG_CACHE_HOME/loom, else
// $HOME/.cache/loom. Off: CompileOptions::jit_cache = false, or LOOM_JIT_CACHE=0 in the
// environment (for every pipeline of the process). Clearing it is deleting the directory.
//
// One file per entry, <BLAKE3 of the key, hex>.loomjit:
//   header (kHeaderBytes): magic "LOOMJIT\0", format version (u32), object count (u32),
//     key length (u64), payload length (u64), xxh3-64 of everything after the header (u64);
//   the key itself (so that a different key of the same hash is told apart);
//   the payload: the interface (its length, u64, and its bytes: what the code expects of the
//     process that links it, see JITCacheEntry), then per object its length (u64) and its
//     bytes (relocatable ELF objects).
// Integers are little-endian. An entry is read whole and believed only if every field agrees
// (lengths with the file's size, the checksum, the key byte for byte); otherwise it is
// deleted and the pipeline compiled anew. An entry never holds a pointer into a process: the
// objects are linked by the JIT like freshly compiled ones (runtime functions are absolute
// symbols given at link time, and a GPU kernel's PTX is constant data inside the host object).
//
// Several processes at once: an entry is written to a unique temporary file in the directory
// and renamed into place, so a reader sees a whole entry or none (the rename replaces a file
// atomically; two writers of one key write the same bytes). Readers take no lock. Eviction
// holds an exclusive flock on <dir>/lock: after each write, the entries' sizes are summed and
// the least recently used (oldest modification time; a hit touches its entry) deleted until
// they fit the bound, CompileOptions::jit_cache_max_bytes, else $LOOM_JIT_CACHE_MAX_BYTES,
// else kDefaultMaxBytes. Nothing is synced to disk: an entry cut short by a crash fails its
// checks and is compiled again.
//
// The cache never fails a compile: a directory that can't be made or written, a full disk, a
// damaged entry all fall back to compiling (LOOM_JIT_CACHE_LOG=1 prints why on stderr).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dsl/Pipeline.h"

namespace loom {
namespace Internal {

/** What an entry holds. */
struct JITCacheEntry {
    /** What the code expects of the process that links it: its entry point's name and its
     * arguments in order (codegen/JIT.cpp writes and checks it). */
    std::string interface;
    /** Relocatable objects, linked together. */
    std::vector<std::string> objects;
};

class JITCache {
public:
    /** The bound where neither CompileOptions nor the environment gives one. */
    static constexpr uint64_t kDefaultMaxBytes = uint64_t(256) << 20;

    /** The cache the options and the environment ask for (disabled where they turn it off or
     * no directory can be named). Reads the environment; touches no file. */
    explicit JITCache(const CompileOptions &options);

    bool enabled() const { return !dir.empty(); }
    const std::string &directory() const { return dir; }
    uint64_t max_bytes() const { return bound; }

    /** The entry stored under key, or nothing where there is none or it is damaged (then it
     * is deleted). A hit marks the entry as just used. */
    std::optional<JITCacheEntry> load(const std::string &key) const;
    /** Stores an entry under key (replacing one), then evicts down to the bound. Failures are
     * ignored (logged with LOOM_JIT_CACHE_LOG=1). */
    void store(const std::string &key, const JITCacheEntry &entry) const;
    /** Deletes the entry of key: one that passed every check but does not fit the pipeline
     * or does not link. */
    void forget(const std::string &key, const std::string &why) const;

private:
    std::string dir;  // empty: disabled
    uint64_t bound = kDefaultMaxBytes;
    bool log = false;

    std::string entry_path(const std::string &key) const;
    void evict() const;
    void report(const std::string &what) const;
};

}  // namespace Internal
}  // namespace loom
