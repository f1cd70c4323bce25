// Var names a dimension of a Func. Two Vars with the same name are the same variable.
#pragma once

#include <string>

#include "dsl/IR.h"

namespace loom {

namespace Internal {
/** A fresh name for an object the user did not name ("v3", "f12"). Only user-facing objects
 * draw from it, so that compiling never depends on how many names were drawn before. */
std::string unique_user_name(char prefix);
}  // namespace Internal

class Var {
public:
    Var() : var_name(Internal::unique_user_name('v')) {}
    explicit Var(const std::string &name) : var_name(name) {}

    const std::string &name() const { return var_name; }
    bool same_as(const Var &o) const { return var_name == o.var_name; }

    /** The Int(32) value of this variable inside a definition. */
    operator Expr() const { return Internal::Variable::make(Int(32), var_name); }

    /** The loop level outside every loop (Halide's Var::outermost()). */
    static Var outermost() { return Var("__outermost"); }

private:
    std::string var_name;
};

/** The names Halide 14 gives the pure Vars of the Funcs it makes itself (the wrappers of
 * ImageParam::in are f(_0, _1, ...) = image(_0, _1, ...)), for scheduling them. Loom has no
 * implicit arguments: these are ordinary Vars with those names. */
inline const Var _0("_0"), _1("_1"), _2("_2"), _3("_3"), _4("_4"), _5("_5"), _6("_6"), _7("_7"),
    _8("_8"), _9("_9");

}  // namespace loom
