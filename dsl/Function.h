// The shared definition behind a Func: its name, pure arguments, the values of its pure
// definition, and its schedule. Func objects and the Calls that read a Func share one
// FunctionContents, so a schedule set after a call was built still applies.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dsl/IR.h"
#include "dsl/Schedule.h"

namespace loom {
namespace Internal {

struct Definition {
    std::vector<Expr> args;    // the left-hand side: pure Vars for the pure definition
    std::vector<Expr> values;  // one per Tuple element
    StageSchedule schedule;
    bool defined() const { return !values.empty(); }
};

struct FunctionContents {
    std::string name;
    std::vector<std::string> args;  // names of the pure Vars, in order
    std::vector<Type> output_types;
    Definition init;
    FuncSchedule schedule;

    bool defined() const { return init.defined(); }
    int dimensions() const { return (int)args.size(); }
    int outputs() const { return (int)output_types.size(); }
    /** The buffer that holds Tuple element i: "f" for a single value, "f.0", "f.1"... */
    std::string buffer_name(int value_index) const {
        return outputs() == 1 ? name : name + "." + std::to_string(value_index);
    }
};

using FunctionPtr = std::shared_ptr<FunctionContents>;

}  // namespace Internal
}  // namespace loom
