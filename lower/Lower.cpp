#include "lower/Lower.h"

#include <atomic>
#include <chrono>
#include <ostream>
#include <string>

#include "dsl/IRPrinter.h"
#include "lower/AddImageChecks.h"
#include "lower/AsyncProducers.h"
#include "lower/BlockLevelCode.h"
#include "lower/BoundGPUExtents.h"
#include "lower/BoundsInference.h"
#include "lower/FindEnvironment.h"
#include "lower/FoldAllocationIndices.h"
#include "lower/HoistInvariantProductions.h"
#include "lower/InjectDeviceCopies.h"
#include "lower/InjectPrefetches.h"
#include "lower/InjectTracing.h"
#include "lower/Memoize.h"
#include "lower/PartitionLoops.h"
#include "lower/PeelLoopVariables.h"
#include "lower/PromoteAccumulators.h"
#include "lower/RemoveDeadProductions.h"
#include "lower/ScheduleFunctions.h"
#include "lower/Simplify.h"
#include "lower/SlidingWindow.h"
#include "lower/StorageFlattening.h"
#include "lower/StorageFolding.h"
#include "lower/StripAsserts.h"
#include "lower/StripPromises.h"
#include "lower/UnrollLoops.h"
#include "lower/ValidateGPULoops.h"
#include "lower/VectorizeLoops.h"
#include "lower/VerifyIR.h"

namespace loom {
namespace Internal {
namespace {

#ifdef NDEBUG
constexpr bool kDebugBuild = false;
#else
constexpr bool kDebugBuild = true;
#endif

// Runs each pass, timing it, printing the IR when it changed, and verifying it if asked.
class LoweringLogger {
public:
    LoweringLogger(const CompileOptions &options, std::ostream &log) : options(options), log(log) {}

    template<typename Pass>
    Stmt run(const char *name, const Stmt &input, Pass pass) {
        auto start = std::chrono::steady_clock::now();
        Stmt output = pass(input);
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        // Loop bounds are bound only once bounds inference has run.
        const std::string pass_name = name;
        const bool before_bounds = pass_name == "schedule functions" ||
                                   pass_name == "strip memoize tags" ||
                                   pass_name == "inject tracing";
        if ((options.verify_ir || kDebugBuild) && !before_bounds) {
            verify_ir(output, name);
        }
        if (options.log_passes) {
            log << "-- " << name << " (" << ms << " ms)";
            if (output.same_as(input)) {
                log << ": unchanged\n";
            } else {
                log << ":\n" << output << "\n";
            }
        }
        return output;
    }

private:
    const CompileOptions &options;
    std::ostream &log;
};

std::atomic<uint64_t> lowerings{0};

// Halide 14's warning, word for word: a Func some of whose stages have directives and one of
// whose updates has none may have been scheduled by mistake in part. Outputs first.
void warn_unscheduled_updates(const Environment &env, std::ostream &log) {
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const FunctionContents &f = *env.functions.at(*it);
        bool any_scheduled = f.init.schedule.touched;
        for (const Definition &u : f.updates)
            any_scheduled = any_scheduled || u.schedule.touched;
        if (!any_scheduled) continue;
        for (size_t i = 0; i < f.updates.size(); i++) {
            if (f.updates[i].schedule.touched) continue;
            log << "Warning: Update definition " << i << " of function " << f.name
                << " has not been scheduled, even though some other definitions have been. You "
                   "may have forgotten to schedule it. If this was intentional, call "
                << f.name << ".update(" << i << ").unscheduled() to suppress this warning.\n";
        }
    }
}

// Each requirement as a require() whose value is unused: "Requirement Failed: (false) " and
// the message's values separated by spaces, as Halide 14's message reads. Then `body`.
std::vector<Stmt> requirement_checks(const std::vector<std::vector<Expr>> &requirements,
                                     const Stmt &body) {
    std::vector<Stmt> checks;
    for (const std::vector<Expr> &r : requirements) {
        std::vector<Expr> args{r[0], make_zero(Int(32)),
                               Expr(std::string("Requirement Failed: (false) "))};
        for (size_t i = 1; i < r.size(); i++) {
            if (i > 1) args.push_back(Expr(std::string(" ")));
            args.push_back(r[i]);
        }
        checks.push_back(Evaluate::make(
            Call::make_intrinsic(Int(32), Call::require, std::move(args), Call::Intrinsic)));
    }
    checks.push_back(body);
    return checks;
}

}  // namespace

uint64_t lowerings_run() { return lowerings.load(); }

void lock_loop_levels(const Environment &env) {
    for (const std::string &name : env.order) {
        FunctionContents &f = *env.functions.at(name);
        auto lock = [&](LoopLevel &level, const std::string &what) {
            user_assert(level.defined())
                << "Func " << name << " is " << what
                << " an undefined LoopLevel (made with LoopLevel() and never set). Use "
                   "LoopLevel::inlined() or LoopLevel::root(), or set() the level before "
                   "compiling.";
            level.lock();
        };
        lock(f.schedule.compute_level, "computed at");
        lock(f.schedule.store_level, "stored at");
        lock(f.init.schedule.fuse_level.level, "computed with its stages at");
        for (Definition &u : f.updates)
            lock(u.schedule.fuse_level.level, "computed with its stages at");
    }
}

LoweredPipeline lower(const std::vector<FunctionPtr> &outputs, const std::string &name,
                      const Target &target, const CompileOptions &options,
                      const std::vector<Argument> &requested_args, std::ostream &log,
                      const std::vector<std::vector<Expr>> &requirements) {
    lowerings++;
    LoweringLogger logger(options, log);
    Environment env = find_environment(outputs);
    lock_loop_levels(env);
    const std::vector<FusedGroup> groups = find_fused_groups(env, outputs);
    warn_unscheduled_updates(env, log);
    LoweredPipeline result;
    result.name = name;
    result.args = infer_arguments(outputs, env, requested_args, requirements);
    result.streaming_min_bytes = options.streaming_min_bytes;
    result.max_allocation_elements = target.maximum_buffer_size();

    Stmt s;
    s = logger.run("schedule functions", s, [&](const Stmt &) { return schedule_functions(outputs, env, groups); });
    s = logger.run("strip memoize tags", s, [&](const Stmt &in) { return strip_memoize_tags(in); });
    // The requirements come first; the checks of the images, added later, go before them
    // (as Halide 14 orders the two).
    if (!requirements.empty()) s = Block::make(requirement_checks(requirements, s));
    // Before bounds inference, which defines the regions the realization and production
    // events report; the events name the pipeline after its first output, as Halide's JIT does.
    s = logger.run("inject tracing", s, [&](const Stmt &in) {
        return inject_tracing(in, outputs[0]->name, env, outputs, target);
    });
    // Bounds inference needs the Realizes and the Func calls, so it runs before flattening.
    // With the tracing finished in the same step: the load and store events name the trace ids
    // that finish_tracing binds, so the IR is whole (and verified) only after both.
    s = logger.run("bounds inference", s, [&](const Stmt &in) {
        return finish_tracing(bounds_inference(in, outputs, env), env, target);
    });
    // After bounds inference, whose boxes it reads; before sliding window, so that each
    // iteration's window is the whole region that iteration needs.
    s = logger.run("storage folding", s, [&](const Stmt &in) { return storage_folding(in, env); });
    // The checks read the boxes of input calls, which flattening turns into Loads. Before
    // sliding window, which only shrinks what each iteration computes (so the region read
    // stays covered), and whose slid mins interval arithmetic bounds loosely where the
    // regions of the Funcs computed beside a slid one subtract them (a ShiftInwards block's
    // start: an input asked for rows it does not have; schedule-invariance fuzz seed 4242).
    s = logger.run("add image checks", s, [&](const Stmt &in) {
        return add_image_checks(in, result.args, target.maximum_buffer_size());
    });
    // After bounds inference, whose per-iteration regions it trims.
    s = logger.run("sliding window", s, [&](const Stmt &in) { return sliding_window(in, env); });
    // After the checks (a prefetch is not a read they must cover), before flattening (which
    // turns the prefetched element into a Load).
    s = logger.run("inject prefetches", s, [&](const Stmt &in) { return inject_prefetches(in); });
    // Last of the passes that take boxes.
    s = logger.run("strip promises", s, [&](const Stmt &in) { return strip_promises(in); });
    // After bounds inference, whose regions it bounds; before flattening, which sizes
    // storage from the Realizes.
    if (target.has_feature(Target::CUDA)) {
        s = logger.run("bound gpu extents", s,
                       [&](const Stmt &in) { return bound_gpu_extents(in); });
    }
    // On Provides and Calls, whose coordinates show which points a loop updates.
    s = logger.run("promote accumulators", s,
                   [&](const Stmt &in) { return promote_accumulators(in); });
    s = logger.run("storage flattening", s, [&](const Stmt &in) {
        return storage_flattening(in, result.args, env, target.maximum_buffer_size());
    });
    s = logger.run("inject memoization", s,
                   [&](const Stmt &in) { return inject_memoization(in, env, outputs); });
    s = logger.run("simplify", s, [&](const Stmt &in) { return simplify(in); });
    // After simplification, which folds away reads whose values cannot matter.
    s = logger.run("remove dead productions", s, [&](const Stmt &in) { return remove_dead_productions(in); });
    // After dead productions are gone (no loop is kept for them); before unrolling, which
    // would copy a production it could leave.
    s = logger.run("hoist invariant productions", s,
                   [&](const Stmt &in) { return hoist_invariant_productions(in); });
    // After the passes that move or remove productions (the semaphore operations it puts
    // beside each production must stay with it) and memoization (whose lookup computes the
    // Func too); before unrolling, which would copy the fork's tasks.
    s = logger.run("fork async producers", s,
                   [&](const Stmt &in) { return fork_async_producers(in, env); });
    s = logger.run("unroll loops", s, [&](const Stmt &in) { return unroll_loops(in); });
    // After simplification, so that dense indices are recognizable ramps.
    s = logger.run("vectorize loops", s, [&](const Stmt &in) { return vectorize_loops(in); });
    s = logger.run("simplify", s, [&](const Stmt &in) { return simplify(in); });
    // After vectorization, so that a vector loop's clamps are bounded over all its lanes; the
    // steady states then simplify to dense ramps.
    s = logger.run("partition loops", s, [&](const Stmt &in) { return partition_loops(in); });
    s = logger.run("simplify", s, [&](const Stmt &in) { return simplify(in); });
    // Last: unrolling and vectorization make the constant indices it looks for.
    s = logger.run("fold allocation indices", s,
                   [&](const Stmt &in) { return fold_allocation_indices(in); });
    // Last of the rewrites: it hides equalities from the simplifier (see its header).
    s = logger.run("peel loop variables", s, [&](const Stmt &in) { return peel_loop_variables(in); });
    // On the final loop nest: the kernels code generation extracts are these loops.
    if (target.has_feature(Target::CUDA)) {
        s = logger.run("run block-level code on one thread", s,
                       [&](const Stmt &in) { return run_block_level_code_on_one_thread(in); });
    }
    validate_gpu_loops(s, target);
    s = logger.run("inject device copies", s, [&](const Stmt &in) { return inject_device_copies(in); });
    if (target.has_feature(Target::NoAsserts))
        s = logger.run("strip asserts", s, [&](const Stmt &in) { return strip_asserts(in); });
    result.body = s;
    return result;
}

}  // namespace Internal
}  // namespace loom
