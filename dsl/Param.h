// Param<T>: a scalar input of a pipeline, set before each run without recompiling.
#pragma once

#include <memory>
#include <string>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Parameter.h"
#include "dsl/Var.h"

namespace loom {

template<typename T>
class Param {
public:
    Param() : Param(Internal::unique_user_name('p')) {}
    explicit Param(const std::string &name) : contents(std::make_shared<Internal::ParameterContents>()) {
        contents->name = name;
        contents->type = type_of<T>();
    }
    /** Keeps Param<bool>("name") from converting the string literal to a bool value. */
    explicit Param(const char *name) : Param(std::string(name)) {}
    Param(const std::string &name, T value) : Param(name) { set(value); }
    Param(const char *name, T value) : Param(std::string(name)) { set(value); }
    explicit Param(T value) : Param() { set(value); }
    /** A value and the range every run checks it against (Halide's Param(name, val, min, max)). */
    Param(const std::string &name, T value, const Expr &min, const Expr &max) : Param(name) {
        set_range(min, max);
        set(value);
    }
    Param(T value, const Expr &min, const Expr &max) : Param() {
        set_range(min, max);
        set(value);
    }

    /** The element type, known from T (Halide's names; Loom has no dynamically typed Param). */
    static constexpr bool has_static_type = true;
    static Type static_type() { return type_of<T>(); }

    const std::string &name() const { return contents->name; }
    Type type() const { return contents->type; }
    void set(T value) { contents->set_scalar(value); }
    T get() const { return contents->get_scalar<T>(); }
    /** The value auto-schedulers assume (Halide's Param::set_estimate); changes no code. */
    void set_estimate(T value) { contents->scalar_estimate = Internal::make_const(type(), value); }

    /** The range each run checks the value against before it computes anything: a value
     * outside it stops the run with an error naming the Param, its value and the bound. The
     * bounds are constants or Exprs of other Params; an undefined Expr removes one. */
    void set_range(const Expr &min, const Expr &max) {
        set_min_value(min);
        set_max_value(max);
    }
    void set_min_value(const Expr &min) { contents->min_value = bound_of(min, "minimum"); }
    void set_max_value(const Expr &max) { contents->max_value = bound_of(max, "maximum"); }
    Expr min_value() const { return contents->min_value; }
    Expr max_value() const { return contents->max_value; }

    operator Expr() const {
        return Internal::Variable::make(contents->type, contents->name, contents);
    }

    const std::shared_ptr<Internal::ParameterContents> &parameter() const { return contents; }

private:
    std::shared_ptr<Internal::ParameterContents> contents;

    Expr bound_of(const Expr &e, const char *which) const {
        if (!e.defined()) return e;
        user_assert(e.type().is_scalar() && !e.type().is_handle())
            << "The " << which << " of Param " << name() << " must be a number, but it is " << e;
        return cast(type(), e);
    }
};

}  // namespace loom
