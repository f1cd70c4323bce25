// GeneratorParams: the compile-time parameters of a Generator (see dsl/Generator.h), set on
// the generator driver's command line as name=value.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IROperator.h"
#include "dsl/MachineParams.h"
#include "dsl/Target.h"

namespace loom {

namespace Internal {

class GeneratorBase;

/** The Generator whose members are being constructed on this thread: each Input, Output and
 * GeneratorParam registers itself with it. Set only while GeneratorRegistry::create runs a
 * factory, so construction outside it (a member of no generator) is an error. */
GeneratorBase *&generator_under_construction();

class GeneratorParamBase {
public:
    explicit GeneratorParamBase(std::string name);
    virtual ~GeneratorParamBase() = default;
    const std::string &name() const { return param_name; }
    /** Parses `text` (as given on the driver's command line: param=text). Throws a
     * loom::Error naming the parameter on a value it can't take. */
    virtual void set_from_string(const std::string &text) = 0;
    virtual std::string value_string() const = 0;

private:
    std::string param_name;
};

/** A type named as Halide's GeneratorParams and Outputs name them: bool, int8 .. int64,
 * uint8 .. uint64, float16, float32, float64. Throws naming `param` on any other text. */
Type parse_generator_type(const std::string &param, const std::string &text);

/** A value from the command line, parsed as T (bool, integers, floats, std::string, Target,
 * MachineParams, Type, LoopLevel). */
template <typename T> T parse_generator_value(const std::string &param, const std::string &text) {
    if constexpr (std::is_same<T, bool>::value) {
        user_assert(text == "true" || text == "false")
            << "GeneratorParam " << param << " is a bool: pass true or false, not \"" << text
            << "\"";
        return text == "true";
    } else if constexpr (std::is_same<T, std::string>::value) {
        return text;
    } else if constexpr (std::is_arithmetic<T>::value) {
        std::istringstream in(text);
        typename std::conditional<std::is_floating_point<T>::value, long double,
                                  typename std::conditional<std::is_signed<T>::value, long long,
                                                            unsigned long long>::type>::type v;
        in >> v;
        user_assert(!in.fail() && in.eof() &&
                    (long double)v >= (long double)std::numeric_limits<T>::lowest() &&
                    (long double)v <= (long double)std::numeric_limits<T>::max())
            << "GeneratorParam " << param << " can't take the value \"" << text << "\"";
        return (T)v;
    } else if constexpr (std::is_same<T, MachineParams>::value) {
        return MachineParams(text);
    } else if constexpr (std::is_same<T, Type>::value) {
        return parse_generator_type(param, text);
    } else if constexpr (std::is_same<T, LoopLevel>::value) {
        // Halide 14's two names: a loop of a Func is given by the code, not the command line.
        user_assert(text == "root" || text == "inlined")
            << "GeneratorParam " << param << " is a LoopLevel: pass root or inlined, not \"" << text
            << "\"";
        return text == "root" ? LoopLevel::root() : LoopLevel::inlined();
    } else {
        static_assert(std::is_same<T, Target>::value, "GeneratorParam of an unsupported type");
        return Target(text);
    }
}

} // namespace Internal

/** A compile-time parameter of a Generator: an algorithm or schedule knob, set on the driver's
 * command line as name=value (or with an enum map: name=key). */
template <typename T> class GeneratorParam : public Internal::GeneratorParamBase {
public:
    GeneratorParam(const std::string &name, const T &value)
        : Internal::GeneratorParamBase(name), v(value) {}
    GeneratorParam(const std::string &name, const T &value, const T &min, const T &max)
        : GeneratorParam(name, value) {
        range = std::make_pair(min, max);
        check_range(value);
    }
    GeneratorParam(const std::string &name, const T &value, const std::map<std::string, T> &names)
        : GeneratorParam(name, value) {
        enum_names = names;
    }

    operator T() const { return v; }
    /** A numeric GeneratorParam is a constant inside definitions and schedules. */
    template <typename U = T, typename = std::enable_if_t<std::is_arithmetic<U>::value>>
    operator Expr() const {
        if constexpr (std::is_floating_point<U>::value) {
            return Internal::make_const(type_of<U>(), (double)v);
        } else if constexpr (std::is_signed<U>::value) {
            return Internal::make_const(type_of<U>(), (int64_t)v);
        } else {
            return Internal::make_const(type_of<U>(), (uint64_t)v);
        }
    }
    T value() const { return v; }
    void set(const T &value) {
        check_range(value);
        // A LoopLevel is a handle: the schedules that already hold this parameter's level
        // move with it, and later ones share the level given (Halide's set).
        if constexpr (std::is_same<T, LoopLevel>::value) v.set(value);
        v = value;
    }

    void set_from_string(const std::string &text) override {
        if (!enum_names.empty()) {
            auto it = enum_names.find(text);
            std::string known;
            for (const auto &kv : enum_names)
                known += (known.empty() ? "" : ", ") + kv.first;
            user_assert(it != enum_names.end()) << "GeneratorParam " << name() << " can't be \""
                                                << text << "\"; it takes one of: " << known;
            set(it->second);
            return;
        }
        if constexpr (std::is_enum<T>::value) {
            user_error << "GeneratorParam " << name() << " is an enum: give its constructor the "
                       << "names of its values ({{\"name\", value}, ...}) to set it to \"" << text
                       << "\".";
        } else {
            set(Internal::parse_generator_value<T>(name(), text));
        }
    }
    std::string value_string() const override {
        for (const auto &kv : enum_names) {
            if (kv.second == v) return kv.first;
        }
        if constexpr (std::is_same<T, Target>::value || std::is_same<T, MachineParams>::value ||
                      std::is_same<T, LoopLevel>::value) {
            return v.to_string();
        } else if constexpr (std::is_same<T, bool>::value) {
            return v ? "true" : "false";
        } else if constexpr (std::is_same<T, Type>::value) {
            return v.bits() ? type_to_string(v) : "unset";
        } else if constexpr (std::is_enum<T>::value) {
            return std::to_string((long long)v);
        } else {
            std::ostringstream out;
            out << v;
            return out.str();
        }
    }

private:
    T v;
    std::optional<std::pair<T, T>> range; // [min, max], where the constructor gave them
    std::map<std::string, T> enum_names;

    void check_range(const T &value) const {
        if constexpr (std::is_arithmetic<T>::value) {
            user_assert(!range || (value >= range->first && value <= range->second))
                << "GeneratorParam " << name() << " must be in [" << +range->first << ", "
                << +range->second << "]; got " << +value;
        }
    }
};

/** Arithmetic, comparison and logic with a GeneratorParam use its value, as Halide's operators
 * do: `scale * (input(x, y) + offset)` with a GeneratorParam<float> scale is a float Expr,
 * `rotation != Rotation::None` a bool. (Without them a GeneratorParam that converts both to
 * its value and to an Expr makes `param * expr` ambiguous.) */
#define LOOM_GENERATOR_PARAM_BINARY_OPERATOR(OP)                                                   \
    template <typename T, typename Other>                                                          \
    auto operator OP(const GeneratorParam<T> &a, const Other &b)->decltype(a.value() OP b) {       \
        return a.value() OP b;                                                                     \
    }                                                                                              \
    template <typename Other, typename T>                                                          \
    auto operator OP(const Other &a, const GeneratorParam<T> &b)->decltype(a OP b.value()) {       \
        return a OP b.value();                                                                     \
    }                                                                                              \
    template <typename T, typename U>                                                              \
    auto operator OP(const GeneratorParam<T> &a, const GeneratorParam<U> &b)                       \
        ->decltype(a.value() OP b.value()) {                                                       \
        return a.value() OP b.value();                                                             \
    }
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(+)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(-)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(*)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(/)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(%)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(==)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(!=)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(<)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(<=)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(>)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(>=)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(&&)
LOOM_GENERATOR_PARAM_BINARY_OPERATOR(||)
#undef LOOM_GENERATOR_PARAM_BINARY_OPERATOR

template <typename T> auto operator!(const GeneratorParam<T> &a) -> decltype(!a.value()) {
    return !a.value();
}
template <typename T> auto operator-(const GeneratorParam<T> &a) -> decltype(-a.value()) {
    return -a.value();
}

} // namespace loom
