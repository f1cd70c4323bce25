// Var names a dimension of a Func. Two Vars with the same name are the same variable.
#pragma once

#include <string>
#include <vector>

#include "dsl/IR.h"

namespace loom {

namespace Internal {
/** A fresh name for an object the user did not name ("v3", "f12"). Only user-facing objects
 * draw from it, so that compiling never depends on how many names were drawn before. */
std::string unique_user_name(char prefix);

/** The name of a loop a directive makes with no Var of the user's: the inner loop of
 * vectorize(x, n), unroll(x, n) and parallel(x, n), named as Halide 14 names it (its `Var tmp`:
 * unique_user_name's "v7", "r3" for an RVar, so loop names print as Halide's, `x.v7`). The
 * number depends on what the program drew before, so the JIT cache's keys write such a name
 * by the order it is met in, not by its text (codegen/KeyWriter.h): this remembers which
 * names it made. */
std::string unique_loop_name(char prefix);

/** Whether [begin, end) (one '.'-separated part of a name) is a name unique_loop_name made. */
bool is_unique_loop_name(const char *begin, const char *end);
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

    /** Implicit Var n, named "_n" (Halide's). The placeholder `_` in the arguments of a call
     * stands for as many implicit Vars as the callee has dimensions left: with f
     * two-dimensional, f(_) is f(_0, _1) and f(x, _) is f(x, _0). On the left of a pure
     * definition `_` becomes the implicit Vars the right-hand side uses, in order:
     * g(x, _) = f(_) * 3 defines g(x, _0, _1) = f(_0, _1) * 3. */
    static Var implicit(int n) { return Var("_" + std::to_string(n)); }
    /** Whether `name` is an implicit Var's: "_" and decimal digits. */
    static bool is_implicit(const std::string &name) {
        if (name.size() < 2 || name[0] != '_') return false;
        for (size_t i = 1; i < name.size(); i++)
            if (name[i] < '0' || name[i] > '9') return false;
        return true;
    }
    bool is_implicit() const { return is_implicit(name()); }
    /** n for "_n"; -1 for any other name. */
    static int implicit_index(const std::string &name) {
        return is_implicit(name) ? std::stoi(name.substr(1)) : -1;
    }
    int implicit_index() const { return implicit_index(name()); }
    /** Whether `name` is the placeholder `_`'s. */
    static bool is_placeholder(const std::string &name) { return name == "_"; }
    bool is_placeholder() const { return is_placeholder(name()); }

private:
    std::string var_name;
};

/** Halide's spelling of the placeholder and the implicit Vars as a type: ImplicitVar<>() is
 * `_`, ImplicitVar<n>() is Var::implicit(n). */
template <int N = -1> struct ImplicitVar {
    Var to_var() const { return N >= 0 ? Var::implicit(N) : Var("_"); }
    operator Var() const { return to_var(); }
    operator Expr() const { return to_var(); }
};

/** The placeholder for implicit arguments (see Var::implicit). */
inline const Var _("_");
/** The first ten implicit Vars, for scheduling a Func defined with `_` (f.vectorize(_0, 8)),
 * and the names of the pure Vars of the Funcs Loom makes itself (the wrappers of
 * ImageParam::in are f(_0, _1, ...) = image(_0, _1, ...)), as Halide names them. */
inline const Var _0("_0"), _1("_1"), _2("_2"), _3("_3"), _4("_4"), _5("_5"), _6("_6"), _7("_7"),
    _8("_8"), _9("_9");

namespace Internal {
/** Replaces a placeholder `_` among a call's arguments by implicit Vars _0, _1, ... up to
 * `dimensions` arguments (none where `dimensions` is negative: a Func not yet defined, whose
 * definition this is). Returns where the placeholder was, or -1. */
int expand_placeholder(std::vector<Expr> &args, int dimensions);
/** One more than the largest implicit Var's index in `exprs` (0 if they use none). */
int count_implicit_vars(const std::vector<Expr> &exprs);
} // namespace Internal

}  // namespace loom
