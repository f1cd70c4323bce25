// Param<T>: a scalar input of a pipeline, set before each run without recompiling.
#pragma once

#include <limits>
#include <memory>
#include <string>
#include <type_traits>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Parameter.h"
#include "dsl/Var.h"

namespace loom {

namespace Internal {

// Whether `value` converts to To and back unchanged (Halide's IsRoundtrippable): a Param is
// set only to values its type holds.
template <typename To, typename From> bool roundtrips(const From &value) {
    if constexpr (std::is_same<To, From>::value) {
        return true;
    } else if constexpr (std::is_arithmetic<From>::value && std::is_arithmetic<To>::value) {
        // A float outside an integer type's range has no conversion (C++ leaves it undefined).
        if constexpr (std::is_floating_point<From>::value && std::is_integral<To>::value) {
            const long double v = value;
            if (!(v >= (long double)std::numeric_limits<To>::min() &&
                  v <= (long double)std::numeric_limits<To>::max()))
                return false;
        }
        return static_cast<From>(static_cast<To>(value)) == value;
    } else {
        return false;
    }
}

} // namespace Internal

/** A scalar input. Param<T> has the type T; Param<void> (Halide's Param<>) a type given when
 * it is made (Param<> p(Int(16), "p")), set and read with the type named at the call
 * (p.set(3), p.get<int16_t>()). */
template <typename T = void> class Param {
    // Never defined: the members of Param<void> that would take a T take this, so that they
    // can never be called (Halide's arrangement).
    struct DynamicType;
    using ValueT = std::conditional_t<std::is_void<T>::value, DynamicType *, T>;

public:
    Param() : Param(Internal::unique_user_name('p')) {}
    explicit Param(const std::string &name) : contents(std::make_shared<Internal::ParameterContents>()) {
        static_assert(!std::is_void<T>::value, "Param<void> needs its Type: Param<>(type, name)");
        contents->name = name;
        contents->type = type_of<T>();
    }
    /** Keeps Param<bool>("name") from converting the string literal to a bool value. */
    explicit Param(const char *name) : Param(std::string(name)) {}
    /** Param<void>'s: the type, and a name (or one made up). */
    explicit Param(Type type) : Param(type, Internal::unique_user_name('p')) {}
    Param(Type type, const std::string &name)
        : contents(std::make_shared<Internal::ParameterContents>()) {
        static_assert(std::is_void<T>::value, "Param<T> has the type T: Param<T>(name)");
        user_assert(type.is_scalar() && !type.is_handle())
            << "Param " << name << " of type " << type << ": a Param holds one number";
        contents->name = name;
        contents->type = type;
    }
    Param(const std::string &name, ValueT value) : Param(name) { set(value); }
    Param(const char *name, ValueT value) : Param(std::string(name)) { set(value); }
    explicit Param(ValueT value) : Param() { set(value); }
    /** A value and the range every run checks it against (Halide's Param(name, val, min, max)). */
    Param(const std::string &name, ValueT value, const Expr &min, const Expr &max) : Param(name) {
        set_range(min, max);
        set(value);
    }
    Param(ValueT value, const Expr &min, const Expr &max) : Param() {
        set_range(min, max);
        set(value);
    }
    /** The same parameter seen with another static type (or none): a Param<T> made from one of
     * another type is refused. */
    template <typename U, typename = std::enable_if_t<!std::is_same<U, T>::value>>
    Param(const Param<U> &other) : contents(other.parameter()) {
        if constexpr (!std::is_void<T>::value) {
            user_assert(other.type() == type_of<T>())
                << "Param<" << type_of<T>() << "> made from Param " << other.name() << " of type "
                << other.type();
        }
    }

    /** The element type, known from T unless T is void. */
    static constexpr bool has_static_type = !std::is_void<T>::value;
    /** Halide's: the user context of the run, a handle, to pass to an extern stage: the
     * JITUserContext a JIT run was given (or the run's own), or what the caller of an
     * ahead-of-time function's argv entry passes (NULL from its C function). */
    static Expr user_context_value() {
        return Internal::Variable::make(Handle(), Internal::kUserContextName);
    }
    static Type static_type() {
        static_assert(has_static_type, "Param<void> has no static type: use type()");
        return type_of<T>();
    }

    const std::string &name() const { return contents->name; }
    Type type() const { return contents->type; }
    void set(ValueT value) { contents->set_scalar(value); }
    /** Param<void>'s: the value, which must convert to the Param's type and back unchanged. */
    template <typename V, typename U = T, typename = std::enable_if_t<std::is_void<U>::value>>
    void set(const V &value) {
        static_assert(std::is_arithmetic<V>::value, "a Param holds a number");
        const Type t = type();
        bool exact = false;
        auto store = [&](auto zero) {
            using Stored = decltype(zero);
            exact = Internal::roundtrips<Stored>(value);
            if (exact) contents->set_scalar(static_cast<Stored>(value));
        };
        if (t == Bool())
            store(bool());
        else if (t == Float(32))
            store(float());
        else if (t == Float(64))
            store(double());
        else if (t == Int(8))
            store(int8_t());
        else if (t == Int(16))
            store(int16_t());
        else if (t == Int(32))
            store(int32_t());
        else if (t == Int(64))
            store(int64_t());
        else if (t == UInt(8))
            store(uint8_t());
        else if (t == UInt(16))
            store(uint16_t());
        else if (t == UInt(32))
            store(uint32_t());
        else if (t == UInt(64))
            store(uint64_t());
        user_assert(exact) << "The value " << +value << " cannot be losslessly converted to type "
                           << t << " (Param " << name() << ")";
    }
    ValueT get() const {
        static_assert(has_static_type, "Param<void>'s value: get<T>() with its type");
        return contents->get_scalar<ValueT>();
    }
    /** The value as V, which must be the Param's type. */
    template <typename V> V get() const {
        user_assert(type_of<V>() == type())
            << "Param " << name() << " has type " << type() << ", not " << type_of<V>();
        return contents->get_scalar<V>();
    }
    /** The value auto-schedulers assume (Halide's Param::set_estimate); changes no code. */
    void set_estimate(ValueT value) {
        contents->scalar_estimate = Internal::make_const(type(), value);
    }
    template <typename V, typename U = T, typename = std::enable_if_t<std::is_void<U>::value>>
    void set_estimate(const V &value) {
        contents->scalar_estimate = Internal::make_const(type(), value);
    }

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
