// The inputs a pipeline reads (Buffers, ImageParams, scalar Params) and its outputs, in the
// order the compiled function takes them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "lower/FindEnvironment.h"

namespace loom {
namespace Internal {

struct LoweredArgument {
    std::string name;
    Argument::Kind kind;
    Type type;
    int dimensions = 0;
    std::shared_ptr<BufferContents> buffer;     // an input Buffer baked into the pipeline
    std::shared_ptr<ParameterContents> param;   // an ImageParam or a scalar Param
    FunctionPtr output;                         // for outputs: the Func
    int value_index = 0;                        // for outputs: the Tuple element
};

/** A Buffer the pipeline reads directly (not an ImageParam): an ahead-of-time library holds its
 * elements, and its C entry point takes no parameter for it. */
inline bool is_embedded(const LoweredArgument &a) {
    return a.kind == Argument::InputBuffer && a.buffer != nullptr;
}

/** The shape constraints of a buffer argument: an ImageParam's or an output Func's (set with
 * dim(i).set_*), else the default (stride 1 in dimension 0). */
std::vector<DimConstraint> constraints_of(const LoweredArgument &a);

/** Inputs sorted by name, then one output per Tuple element of each output Func. If
 * `requested` is non-empty, inputs follow its order and must be exactly the inputs used.
 * `also_read`: Exprs the pipeline reads besides its Funcs (its requirements). */
std::vector<LoweredArgument> infer_arguments(const std::vector<FunctionPtr> &outputs,
                                             const Environment &env,
                                             const std::vector<Argument> &requested,
                                             const std::vector<std::vector<Expr>> &also_read = {});

}  // namespace Internal
}  // namespace loom
