// A Func's recorded schedule printed as the C++ directives that recreate it, so that a
// schedule found by a program (an auto-scheduler, a search) can be read, saved and pasted.
#pragma once

#include <string>
#include <vector>

#include "dsl/Function.h"

namespace loom {
namespace Internal {

/** How the directives name things. The default names Funcs and RDoms as the program does
 * (f, r.x), for pasting where they are in scope; self-contained source names each Func by an
 * identifier made from its name (non-alphanumerics as '_', declared by the caller, from
 * Pipeline::get_func) and each RVar as RVar("r$x"), so that it applies to Funcs and RDoms the
 * program never named (boundary conditions', inline reductions'). */
struct SourceStyle {
    bool identifiers = false;
    bool named_rvars = false;
    std::string identifier(const std::string &func) const;
};

/** Directives for every stage of f, one statement per line, naming f, its Vars and RVars by
 * their user-facing names (an RVar r$x prints as r.x), or as `style` says. */
std::string schedule_to_cpp(const FunctionPtr &f, const SourceStyle &style = {});

/** The directives of each of `funcs`, in the order given, after one declaration of every Var they
 * use (Var x("x"), xo("xo");): source that recreates their schedules where the Funcs are in
 * scope. */
std::string schedules_to_cpp(const std::vector<FunctionPtr> &funcs, const SourceStyle &style = {});

/** The names of the Vars those directives use (pure Vars and split results, not RVars), for
 * declaring them: Var x("x"), xo("xo"); */
std::vector<std::string> schedule_vars(const FunctionPtr &f);

/** `name` as a C++ identifier (non-alphanumerics as '_'), as self-contained source names Funcs
 * (SourceStyle::identifiers). */
std::string cpp_identifier(const std::string &name);

/** Comment lines: "// " before each line of text. */
std::string as_comment(const std::string &text);

}  // namespace Internal
}  // namespace loom
