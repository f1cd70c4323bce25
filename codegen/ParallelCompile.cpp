#include "codegen/ParallelCompile.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/Utils/Cloning.h>
#include <llvm/Transforms/Utils/ValueMapper.h>

#include "codegen/CompileWorkers.h"
#include "codegen/LLVMTarget.h"
#include "codegen/TargetMachinePool.h"

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
// optimization (on one thread, the whole module is compiled as one object).
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

// Every local function becomes an external symbol, so that a body compiled in one partition is
// found by a reference from another. No function is assumed to lie within 2 GiB of its users
// (not dso_local, default visibility): the JIT maps each object wherever the system finds room,
// and two objects of one pipeline can land gigabytes apart (many pipelines, large buffers, a
// sanitizer's shadow memory). A reference to another object's function then goes through the
// object's own GOT entry or call stub, which JITLink turns back into a direct reference (lea,
// call) wherever the target does lie within reach; a hidden (dso_local) symbol would be reached
// by a 32-bit displacement that no linker can fix when the objects are far apart.
void externalize_functions(llvm::Module &m) {
    for (llvm::Function &f : m) {
        if (f.isIntrinsic()) continue;
        if (!f.isDeclaration() && f.hasLocalLinkage()) {
            f.setLinkage(llvm::GlobalValue::ExternalLinkage);
        }
        if (!f.hasLocalLinkage()) {
            f.setVisibility(llvm::GlobalValue::DefaultVisibility);
            f.setDSOLocal(false);
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

// A machine for a job on another thread (a TargetMachine is not shared between threads). The
// optnone functions are selected and allocated the fast way at any level, but the optimizing
// levels still run the greedy register allocator, live-interval analysis and the coalescer on
// them: at CodeGenOptLevel::None their code takes a third of the time (the entry of a small
// pipeline, ~550 instructions: 5.2 -> 1.8 ms).
PooledTargetMachine machine_for(const Job &job, const Target &target) {
    return borrow_target_machine(target, job.unoptimized ? llvm::CodeGenOptLevel::None
                                                         : llvm::CodeGenOptLevel::Aggressive);
}

// What the calling thread and its workers share. Workers hold it (and the builder) by
// shared_ptr: a worker may let go of it after the compile returned (having freed its LLVM
// objects before its last job was reported done, see take_jobs).
struct SharedCompile {
    ModuleBuilder build;
    Target target;
    std::mutex lock;
    std::condition_variable changed;
    bool jobs_known = false; // jobs is set (left empty where the calling thread failed)
    std::vector<Job> jobs;
    size_t next_job = 0;
    size_t jobs_done = 0;
    std::vector<std::string> objects;
    std::vector<std::exception_ptr> failures;

    void publish(std::vector<Job> dealt) {
        std::lock_guard<std::mutex> hold(lock);
        objects.resize(dealt.size());
        failures.resize(dealt.size());
        jobs = std::move(dealt);
        jobs_known = true;
        changed.notify_all();
    }

    // The next job for a thread to take, or -1 when none is left; waits until jobs are known.
    long take_job() {
        std::unique_lock<std::mutex> hold(lock);
        changed.wait(hold, [&] { return jobs_known; });
        return next_job < jobs.size() ? (long)next_job++ : -1;
    }

    bool jobs_left() {
        std::lock_guard<std::mutex> hold(lock);
        return next_job < jobs.size();
    }

    void finish_job(size_t i, std::string object, std::exception_ptr failure) {
        std::lock_guard<std::mutex> hold(lock);
        objects[i] = std::move(object);
        failures[i] = failure;
        jobs_done++;
        changed.notify_all();
    }

    const Job *unoptimized_job() const {
        return !jobs.empty() && jobs.back().unoptimized ? &jobs.back() : nullptr;
    }
};

// A copy of m with the bodies of `job`'s functions only (and every global variable): the
// optnone functions are cheap to copy, and the copy spares building the module again for them.
std::unique_ptr<llvm::Module> copy_for(const llvm::Module &m, const Job &job) {
    llvm::ValueToValueMapTy map;
    return llvm::CloneModule(m, map, [&](const llvm::GlobalValue *v) {
        const auto *f = llvm::dyn_cast<llvm::Function>(v);
        return !f || std::find(job.functions.begin(), job.functions.end(), f->getName()) !=
                         job.functions.end();
    });
}

// One compiling thread (the calling one with its module `m`, m's context `ctx` and machine
// `tm`; a worker with none of them): takes jobs until none is left. An optimized job consumes the
// thread's module (built the first time it is needed: a worker builds its own after the calling
// thread built the one the jobs were dealt from, while that thread is in LLVM and no longer reads
// Loom's IR, whose reference counts two threads walking it at once would contend for); before that,
// the optnone functions are copied out of it for the unoptimized job, should this thread take it.
void take_jobs(SharedCompile &shared, std::unique_ptr<llvm::Module> m, llvm::TargetMachine *tm,
               std::unique_ptr<llvm::LLVMContext> ctx) {
    std::unique_ptr<llvm::Module> spare;
    for (long i; (i = shared.take_job()) >= 0;) {
        std::string object;
        std::exception_ptr failure;
        try {
            const Job &job = shared.jobs[i];
            PooledTargetMachine own_tm;
            if (!tm || job.unoptimized) {
                own_tm = machine_for(job, shared.target);
            }
            llvm::TargetMachine &job_tm = own_tm ? *own_tm : *tm;
            std::unique_ptr<llvm::Module> job_module;
            if (job.unoptimized && spare) {
                job_module = std::move(spare);
            } else if (m) {
                job_module = std::move(m);
            } else {
                // A context per module built (unless the spare copy still lives in this one):
                // one module's types and constants are not kept for the next.
                if (!spare) {
                    ctx = std::make_unique<llvm::LLVMContext>();
                    ctx->setDiscardValueNames(true);
                }
                job_module = shared.build(*ctx, job_tm, /*verify=*/false);
            }
            if (!job.unoptimized && !spare) {
                if (const Job *unoptimized = shared.unoptimized_job()) {
                    spare = copy_for(*job_module, *unoptimized);
                }
            }
            externalize_functions(*job_module);
            object = compile_job(*job_module, job, job_tm);
        } catch (...) {
            failure = std::current_exception();
        }
        if (!shared.jobs_left()) {
            // This thread takes no more jobs: its LLVM objects go before the compile it
            // works for can return (a worker outliving it would otherwise still be freeing
            // them, or returning a machine to the pool, while the process exits). Modules go
            // before their context.
            spare.reset();
            m.reset();
            ctx.reset();
        }
        shared.finish_job((size_t)i, std::move(object), failure);
    }
    // Where this thread took no job (the others took them all): modules before their context.
    spare.reset();
    m.reset();
}

} // namespace

std::vector<std::string> compile_to_objects(const ModuleBuilder &build, llvm::TargetMachine &tm,
                                            const Target &target, unsigned max_threads) {
    const unsigned threads = std::max(1u, max_threads);
    // Names of values are for reading IR (llvm_ir() keeps them): the contexts of the objects
    // drop them, which takes 1-2% off a compile.
    auto ctx = std::make_unique<llvm::LLVMContext>();
    ctx->setDiscardValueNames(true);
    if (threads == 1) {
        std::unique_ptr<llvm::Module> m = build(*ctx, tm, /*verify=*/true);
        optimize_module(*m, tm);
        return {module_to_object(*m, tm)};
    }
    auto shared = std::make_shared<SharedCompile>();
    shared->build = build;
    shared->target = target;
    std::unique_ptr<llvm::Module> m;
    try {
        m = build(*ctx, tm, /*verify=*/true);
        std::vector<Job> jobs = make_jobs(*m, threads);
        // Workers only where there is a job for them.
        for (size_t t = 1; t < std::min<size_t>(threads, jobs.size()); t++)
            run_on_compile_worker([shared] { take_jobs(*shared, nullptr, nullptr, nullptr); });
        shared->publish(std::move(jobs));
    } catch (...) {
        shared->publish({});
        throw;
    }
    take_jobs(*shared, std::move(m), &tm, std::move(ctx));
    std::unique_lock<std::mutex> hold(shared->lock);
    shared->changed.wait(hold, [&] { return shared->jobs_done == shared->jobs.size(); });
    for (const std::exception_ptr &failure : shared->failures) {
        if (failure) std::rethrow_exception(failure);
    }
    return shared->objects;
}

} // namespace Internal
} // namespace loom
