// A Func's recorded schedule printed as the C++ directives that recreate it, so that a
// schedule found by a program (an auto-scheduler, a search) can be read, saved and pasted.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"

namespace loom {
namespace Internal {

/** Directives for every stage of f, one statement per line, naming f, its Vars and RVars by
 * their user-facing names (an RVar r$x prints as r.x). */
std::string schedule_to_cpp(const FunctionPtr &f);

/** The names of the Vars those directives use (pure Vars and split results, not RVars), for
 * declaring them: Var x("x"), xo("xo"); */
std::vector<std::string> schedule_vars(const FunctionPtr &f);

}  // namespace Internal
}  // namespace loom
