// Halide 14's tracing: the events of the Funcs that trace their loads, stores or realizations
// (Func::trace_loads / trace_stores / trace_realizations), as calls to the runtime's loom_trace.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"
#include "dsl/IR.h"
#include "dsl/Target.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

/** `s` (the loop nest schedule_functions builds, before bounds inference) with the load and
 * store events (Call::trace) of the traced Funcs, in Halide's order: a load event around each
 * traced Func's calls, a store event around each value its definitions provide. Where
 * anything is traced, the whole is bracketed by begin and end pipeline events named
 * `pipeline_name`, and tag events follow the begin: first one "func_type_and_dim" tag per
 * traced Func, producers first (its region is filled in by finish_tracing), then the user's
 * tags. The target's TraceLoads, TraceStores and TraceRealizations features trace every Func
 * (the first two imply the third, as in Halide); TracePipeline adds the pipeline events alone.
 * Unchanged where nothing is traced. */
Stmt inject_tracing(const Stmt &s, const std::string &pipeline_name, const Environment &env,
                    const std::vector<FunctionPtr> &outputs, const Target &target);

/** After bounds inference, which gives each storage its bounds and each production its region:
 * begin/end realization events around the storage of the Funcs that trace realizations,
 * produce/end produce and consume/end consume events inside their productions and
 * consumptions (the ids the element events name as parents), and each func_type_and_dim tag
 * completed with the box of the Func the traced pipeline touches, as (min, extent) per
 * dimension. */
Stmt finish_tracing(const Stmt &s, const Environment &env, const Target &target);

} // namespace Internal
} // namespace loom
