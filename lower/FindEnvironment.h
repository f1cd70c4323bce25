// The Funcs a pipeline's outputs depend on, and an order in which to compute them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dsl/Function.h"

namespace loom {
namespace Internal {

struct Environment {
    std::map<std::string, FunctionPtr> functions;
    /** Every Func, each after all the Funcs it calls (producers first). */
    std::vector<std::string> order;
    /** compute_with's groups (lower/FusedGroups): the Func whose production holds a group's
     * stages, mapped to the group's other Funcs, which have no production of their own. */
    std::map<std::string, std::vector<std::string>> fused_members;
};

/** The Funcs f's definitions read, other than f itself (repeats possible). */
std::vector<FunctionPtr> direct_callees(const FunctionPtr &f);

/** Collects every Func reachable from the outputs. Throws if two different Funcs share a name
 * or an output is undefined. */
Environment find_environment(const std::vector<FunctionPtr> &outputs);

}  // namespace Internal
}  // namespace loom
