#include "codegen/PerfMap.h"

#include <cstdio>
#include <cstdlib>
#include <mutex>

#include <unistd.h>

#include <llvm/Object/ObjectFile.h>
#include <llvm/Object/SymbolSize.h>
#include <llvm/Support/MemoryBuffer.h>

namespace loom {
namespace Internal {

bool perf_map_wanted() { return std::getenv("LOOM_PERF_MAP") != nullptr; }

void append_to_perf_map(const std::vector<std::string> &objects,
                        const std::function<uint64_t(const std::string &)> &address_of) {
    // Compiles on several threads append whole lines, one compile at a time.
    static std::mutex file_lock;
    std::lock_guard<std::mutex> hold(file_lock);
    std::string path = "/tmp/perf-" + std::to_string(getpid()) + ".map";
    FILE *out = std::fopen(path.c_str(), "a");
    if (!out) return; // a profiling aid: no map, no names, the code runs all the same
    for (const std::string &object : objects) {
        auto file = llvm::object::ObjectFile::createObjectFile(
            llvm::MemoryBufferRef(object, "loom"));
        if (!file) {
            llvm::consumeError(file.takeError());
            continue;
        }
        for (const auto &[symbol, size] : llvm::object::computeSymbolSizes(**file)) {
            auto type = symbol.getType();
            auto name = symbol.getName();
            if (!type || !name || *type != llvm::object::SymbolRef::ST_Function || size == 0) {
                if (!type) llvm::consumeError(type.takeError());
                if (!name) llvm::consumeError(name.takeError());
                continue;
            }
            uint64_t address = address_of(name->str());
            if (address) {
                std::fprintf(out, "%llx %llx %s\n", (unsigned long long)address,
                             (unsigned long long)size, name->str().c_str());
            }
        }
    }
    std::fclose(out);
}

} // namespace Internal
} // namespace loom
