// Funcs + schedules -> one loop-nest Stmt, ready for code generation.
#pragma once

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
};

/** Runs the lowering passes in order. `log` receives the per-pass log when
 * options.log_passes is set. */
LoweredPipeline lower(const std::vector<FunctionPtr> &outputs, const std::string &name,
                      const Target &target, const CompileOptions &options,
                      const std::vector<Argument> &requested_args, std::ostream &log);

}  // namespace Internal
}  // namespace loom
