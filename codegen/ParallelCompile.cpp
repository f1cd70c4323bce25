#include "codegen/ParallelCompile.h"

#include <algorithm>
#include <thread>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/LLVMTarget.h"
#include "dsl/Error.h"

namespace loom {
namespace Internal {

namespace {

// Compile time is roughly proportional to a function's instructions; an optnone function
// (the entry: checks and setup, run once) takes the fast instruction selector and register
// allocator and no optimization, about a quarter of the time per instruction (measured: the
// blur entry, 501 instructions, 4.4 ms; its closure, 155 instructions after O3, 8.8 ms).
size_t compile_weight(const llvm::Function &f) {
    size_t instructions = f.getInstructionCount();
    return f.hasOptNone() ? instructions / 4 + 1 : instructions + 1;
}

// Functions by name for each partition: the heaviest first, each to the lightest partition so
// far (longest-processing-time scheduling; within 4/3 of the best split).
std::vector<std::vector<std::string>> partition_functions(const llvm::Module &m, unsigned parts) {
    std::vector<const llvm::Function *> functions;
    for (const llvm::Function &f : m) {
        if (!f.isDeclaration()) functions.push_back(&f);
    }
    std::stable_sort(functions.begin(), functions.end(),
                     [](auto *a, auto *b) { return compile_weight(*a) > compile_weight(*b); });
    std::vector<std::vector<std::string>> names(parts);
    std::vector<size_t> load(parts, 0);
    for (const llvm::Function *f : functions) {
        size_t lightest = std::min_element(load.begin(), load.end()) - load.begin();
        names[lightest].push_back(f->getName().str());
        load[lightest] += compile_weight(*f);
    }
    return names;
}

// Every local function becomes a hidden external symbol, so that a body compiled in one
// partition is found by a reference from another.
void externalize_functions(llvm::Module &m) {
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() && f.hasLocalLinkage()) {
            f.setLinkage(llvm::GlobalValue::ExternalLinkage);
            f.setVisibility(llvm::GlobalValue::HiddenVisibility);
        }
    }
}

// One partition, in a context of its own: parse the whole module, drop the bodies of the
// functions other partitions compile, optimize and emit.
std::string compile_partition(llvm::StringRef bitcode, const std::vector<std::string> &keep,
                              llvm::TargetMachine &tm) {
    llvm::LLVMContext ctx;
    auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "loom"), ctx);
    internal_assert(bool(parsed)) << "Loom could not read back its own bitcode: "
                                  << llvm::toString(parsed.takeError());
    std::unique_ptr<llvm::Module> m = std::move(*parsed);
    for (llvm::Function &f : *m) {
        if (!f.isDeclaration() && std::find(keep.begin(), keep.end(), f.getName()) == keep.end()) {
            f.deleteBody();
        }
    }
    optimize_module(*m, tm);
    return module_to_object(*m, tm);
}

} // namespace

std::vector<std::string> compile_to_objects(llvm::Module &m, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads) {
    size_t defined = 0;
    for (const llvm::Function &f : m)
        defined += !f.isDeclaration();
    unsigned parts = (unsigned)std::max<size_t>(1, std::min<size_t>(max_threads, defined));
    if (parts == 1) {
        // Nothing to share out: no round trip through bitcode.
        optimize_module(m, tm);
        return {module_to_object(m, tm)};
    }
    externalize_functions(m);
    std::vector<std::vector<std::string>> names = partition_functions(m, parts);
    llvm::SmallString<0> bitcode;
    {
        llvm::raw_svector_ostream os(bitcode);
        llvm::WriteBitcodeToFile(m, os);
    }
    std::vector<std::string> objects(parts);
    // An exception escaping a worker thread would terminate the process: each partition's
    // failure is caught and rethrown on the calling thread.
    std::vector<std::exception_ptr> failures(parts);
    // A TargetMachine is not shared between threads: the calling thread compiles partition 0
    // with tm, each worker with a machine of its own.
    auto run = [&](unsigned i) {
        try {
            std::unique_ptr<llvm::TargetMachine> own = i ? make_target_machine(target) : nullptr;
            objects[i] = compile_partition(bitcode.str(), names[i], i ? *own : tm);
        } catch (...) {
            failures[i] = std::current_exception();
        }
    };
    std::vector<std::thread> workers;
    for (unsigned i = 1; i < parts; i++)
        workers.emplace_back(run, i);
    run(0);
    for (std::thread &w : workers)
        w.join();
    for (const std::exception_ptr &failure : failures) {
        if (failure) std::rethrow_exception(failure);
    }
    return objects;
}

} // namespace Internal
} // namespace loom
