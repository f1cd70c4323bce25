// Param<T>: a scalar input of a pipeline, set before each run without recompiling.
#pragma once

#include <memory>
#include <string>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
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

    const std::string &name() const { return contents->name; }
    Type type() const { return contents->type; }
    void set(T value) { contents->set_scalar(value); }
    T get() const { return contents->get_scalar<T>(); }
    /** The value auto-schedulers assume (Halide's Param::set_estimate); changes no code. */
    void set_estimate(T value) { contents->scalar_estimate = Internal::make_const(type(), value); }

    operator Expr() const {
        return Internal::Variable::make(contents->type, contents->name, contents);
    }

    const std::shared_ptr<Internal::ParameterContents> &parameter() const { return contents; }

private:
    std::shared_ptr<Internal::ParameterContents> contents;
};

}  // namespace loom
