#include "codegen/ParallelCompile.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/Bitcode/BitcodeWriter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/LLVMTarget.h"
#include "codegen/TargetMachinePool.h"
#include "dsl/Error.h"

namespace loom {
namespace Internal {

namespace {

// Compile time is roughly proportional to a function's instructions.
size_t compile_weight(const llvm::Function &f) { return f.getInstructionCount() + 1; }

// One object's worth of work: the functions whose bodies it compiles, and whether they are
// the optnone ones (the entry: checks and setup, straight-line code run once per call).
struct Job {
    std::vector<std::string> functions;
    size_t weight = 0;
    bool unoptimized = false;
};

// The optimized functions dealt out to at most `parts` jobs: the heaviest first, each to the
// lightest job so far (longest-processing-time scheduling; within 4/3 of the best split).
// With more than one thread, the optnone functions form one job more, compiled without
// optimization; on one thread, that job's round trip through bitcode would cost about what
// it saves, and they stay with the rest.
std::vector<Job> make_jobs(const llvm::Module &m, unsigned parts) {
    std::vector<const llvm::Function *> optimized;
    Job unoptimized;
    unoptimized.unoptimized = true;
    for (const llvm::Function &f : m) {
        if (f.isDeclaration()) continue;
        if (f.hasOptNone() && parts > 1) {
            unoptimized.functions.push_back(f.getName().str());
        } else {
            optimized.push_back(&f);
        }
    }
    std::stable_sort(optimized.begin(), optimized.end(),
                     [](auto *a, auto *b) { return compile_weight(*a) > compile_weight(*b); });
    std::vector<Job> jobs(std::min<size_t>(parts, optimized.size()));
    for (const llvm::Function *f : optimized) {
        auto lightest = std::min_element(jobs.begin(), jobs.end(), [](const Job &a, const Job &b) {
            return a.weight < b.weight;
        });
        lightest->functions.push_back(f->getName().str());
        lightest->weight += compile_weight(*f);
    }
    if (!unoptimized.functions.empty()) jobs.push_back(std::move(unoptimized));
    return jobs;
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

// One job on module m (the whole pipeline's, or a copy): drop the bodies of the functions
// other jobs compile, optimize (unless the job's functions are optnone, which no pass
// changes) and emit.
std::string compile_job(llvm::Module &m, const Job &job, llvm::TargetMachine &tm) {
    const std::vector<std::string> &keep = job.functions;
    for (llvm::Function &f : m) {
        if (!f.isDeclaration() && std::find(keep.begin(), keep.end(), f.getName()) == keep.end()) {
            f.deleteBody();
        }
    }
    if (!job.unoptimized) optimize_module(m, tm);
    return module_to_object(m, tm);
}

// One job in a context of its own, on a copy of the module read from its bitcode.
std::string compile_job_on_copy(llvm::StringRef bitcode, const Job &job, llvm::TargetMachine &tm) {
    llvm::LLVMContext ctx;
    auto parsed = llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "loom"), ctx);
    internal_assert(bool(parsed)) << "Loom could not read back its own bitcode: "
                                  << llvm::toString(parsed.takeError());
    return compile_job(**parsed, job, tm);
}

// A machine for a job on another thread (a TargetMachine is not shared between threads). The
// optnone functions are selected and allocated the fast way at any level, but the optimizing
// levels still run the greedy register allocator, live-interval analysis and the coalescer on
// them: at CodeGenOptLevel::None their code takes a third of the time (the entry of a small
// pipeline, ~550 instructions: 5.2 -> 1.8 ms).
PooledTargetMachine machine_for(const Job &job, const Target &target) {
    return borrow_target_machine(target, job.unoptimized ? llvm::CodeGenOptLevel::None
                                                         : llvm::CodeGenOptLevel::Aggressive);
}

} // namespace

std::vector<std::string> compile_to_objects(llvm::Module &m, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads) {
    const unsigned threads = std::max(1u, max_threads);
    std::vector<Job> jobs = make_jobs(m, threads);
    if (jobs.empty() || (jobs.size() == 1 && !jobs[0].unoptimized)) {
        // Nothing to share out: no round trip through bitcode.
        optimize_module(m, tm);
        return {module_to_object(m, tm)};
    }
    externalize_functions(m);
    llvm::SmallString<0> bitcode;
    {
        llvm::raw_svector_ostream os(bitcode);
        llvm::WriteBitcodeToFile(m, os);
    }
    std::vector<std::string> objects(jobs.size());
    // An exception escaping a worker thread would terminate the process: each job's failure
    // is caught and rethrown on the calling thread.
    std::vector<std::exception_ptr> failures(jobs.size());
    // The first job (the heaviest optimized one, on the path of every compile) is the calling
    // thread's, on m itself with tm: no copy to read back. The others are taken in order (the
    // unoptimized one last) by whichever thread is free, each on a copy.
    const bool first_in_place = !jobs[0].unoptimized;
    std::atomic<size_t> next{first_in_place ? 1u : 0u};
    auto run = [&](size_t i, auto &&compile) {
        try {
            objects[i] = compile();
        } catch (...) {
            failures[i] = std::current_exception();
        }
    };
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < jobs.size();) {
            run(i, [&] {
                return compile_job_on_copy(bitcode.str(), jobs[i], *machine_for(jobs[i], target));
            });
        }
    };
    std::vector<std::thread> workers;
    for (size_t t = 1; t < std::min<size_t>(threads, jobs.size()); t++)
        workers.emplace_back(work);
    if (first_in_place) run(0, [&] { return compile_job(m, jobs[0], tm); });
    work();
    for (std::thread &w : workers)
        w.join();
    for (const std::exception_ptr &failure : failures) {
        if (failure) std::rethrow_exception(failure);
    }
    return objects;
}

} // namespace Internal
} // namespace loom
