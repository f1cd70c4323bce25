// Funcs + schedules -> one loop-nest Stmt, ready for code generation.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/Pipeline.h"
#include "dsl/Target.h"
#include "lower/InferArguments.h"

namespace loom {
namespace Internal {

struct LoweredPipeline {
    std::string name;
    Stmt body;
    std::vector<LoweredArgument> args;
    /** CompileOptions::streaming_min_bytes, for codegen. */
    int64_t streaming_min_bytes = CompileOptions().streaming_min_bytes;
    /** The most elements one allocation may hold (Target::maximum_buffer_size): codegen checks
     * each before making it. */
    int64_t max_allocation_elements = INT32_MAX;
};

/** Runs the lowering passes in order. `log` receives the per-pass log when
 * options.log_passes is set. */
/** `requirements` (Pipeline::add_requirement): each a condition, then the values of its
 * message; checked first, in order. */
LoweredPipeline lower(const std::vector<FunctionPtr> &outputs, const std::string &name,
                      const Target &target, const CompileOptions &options,
                      const std::vector<Argument> &requested_args, std::ostream &log,
                      const std::vector<std::vector<Expr>> &requirements = {});

/** How many times lower() has run in this process. Instrumentation only (it changes no
 * result): the JIT cache's tests check that a hit lowers nothing. */
uint64_t lowerings_run();

/** Locks every LoopLevel the schedules of `env` name (LoopLevel::lock: no set() after this,
 * since compiled code would not follow), refusing an undefined one by the Func it places. Run
 * by lower() and by every compile of a Pipeline, whether or not its code is cached, as Halide
 * 14 locks them at each compile. */
void lock_loop_levels(const Environment &env);

}  // namespace Internal
}  // namespace loom
