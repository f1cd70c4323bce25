// Generators: a pipeline packaged for ahead-of-time compilation, as in Halide. A Generator
// declares its Inputs, Outputs and GeneratorParams as members, defines the outputs in
// generate() and schedules them in schedule(); LOOM_REGISTER_GENERATOR gives it a name the
// generator driver (loom_generator_main, see GeneratorMain.cpp) and loom_add_library() use:
//
//   class Brighten : public loom::Generator<Brighten> {
//   public:
//       GeneratorParam<bool> parallel{"parallel", true};
//       Input<Buffer<uint8_t>> input{"input", 2};
//       Input<float> gain{"gain", 1.0f};
//       Output<Buffer<uint8_t>> output{"output", 2};
//       void generate() { output(x, y) = saturating_cast<uint8_t>(input(x, y) * gain); }
//       void schedule() { output.vectorize(x, 32); if (parallel) output.parallel(y); }
//       Var x, y;
//   };
//   LOOM_REGISTER_GENERATOR(Brighten, brighten)
//
// The C function takes the Inputs in declaration order, then the Outputs.
#pragma once

#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IROperator.h"
#include "dsl/ImageParam.h"
#include "dsl/MachineParams.h"
#include "dsl/Param.h"
#include "dsl/Pipeline.h"
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

template <typename T> class Input;
template <typename T> class Output;

namespace Internal {

/** What a Generator knows of each member, in declaration order. */
struct GeneratorInputInfo {
    std::function<Argument()> argument;
};
struct GeneratorOutputInfo {
    std::string name;
    std::function<Type()> type; // read once generate() ran: a GeneratorParam may give it
    int dimensions;
    std::function<Func()> func;
};

class GeneratorBase {
public:
    GeneratorBase();
    virtual ~GeneratorBase() = default;
    GeneratorBase(const GeneratorBase &) = delete;
    GeneratorBase &operator=(const GeneratorBase &) = delete;

    /** The name the Generator was registered under. */
    const std::string &generator_name() const { return registered_name; }
    /** The target being compiled for (the first, for a multi-target library). */
    Target get_target() const { return target.value(); }
    /** Halide's: elements of t per SIMD register of the target the library is built for. */
    int natural_vector_size(const Type &t) const { return get_target().natural_vector_size(t); }
    template <typename T> int natural_vector_size() const {
        return get_target().natural_vector_size<T>();
    }
    /** Whether the pipeline is auto-scheduled after schedule() (auto_schedule=true). */
    bool get_auto_schedule() const { return auto_schedule; }
    /** What the auto-scheduler is told of the machine (machine_params=...). */
    MachineParams get_machine_params() const { return machine_params; }
    /** What the auto-scheduler did, once build_pipeline ran with auto_schedule=true; its
     * scheduler_name is empty otherwise. */
    const AutoSchedulerResults &auto_schedule_results() const { return scheduled; }

    /** Sets GeneratorParams from name=value pairs; "target" is handled by the driver. Throws
     * on an unknown name, listing the known ones. */
    void set_generator_params(const std::map<std::string, std::string> &values);
    /** Runs generate() and schedule(), then, with auto_schedule=true, the default
     * auto-scheduler (Pipeline::set_default_autoscheduler_name chooses it; the driver's -s), and
     * returns the pipeline of the outputs, checked against their declared types and
     * dimensions. */
    Pipeline build_pipeline(const Target &target);
    /** Halide's get_pipeline: the pipeline of the outputs, built for get_target() (the
     * target GeneratorParam) by the first call, as build_pipeline builds it. */
    Pipeline get_pipeline();
    /** Halide's Generator::realize: get_pipeline().realize(sizes, get_target()). */
    Realization realize(const std::vector<int32_t> &sizes);
    /** Halide's: the pipeline build_pipeline makes traces its begin and end
     * (Pipeline::trace_pipeline). Call it in generate() or schedule(). */
    void trace_pipeline() { trace_the_pipeline = true; }
    /** Halide's: a requirement of the pipeline build_pipeline makes (Pipeline::add_requirement),
     * checked by every run of the library. Call it in generate() or schedule(). */
    template <typename... Args> void add_requirement(const Expr &condition, const Args &...error) {
        std::vector<Expr> values{condition};
        Internal::collect_print_args(values, error...);
        requirements.push_back(std::move(values));
    }
    /** The C function's arguments: the Inputs in declaration order. */
    std::vector<Argument> arguments() const;

    void add_param(GeneratorParamBase *p) { params.push_back(p); }
    void add_input(GeneratorInputInfo info) { inputs.push_back(std::move(info)); }
    void add_output(GeneratorOutputInfo info) { outputs.push_back(std::move(info)); }
    void set_registered_name(const std::string &name) { registered_name = name; }

protected:
    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;

private:
    // Declared before the GeneratorParams below: they register themselves in `params`, with the
    // Generator that `under_construction` marks.
    std::vector<GeneratorParamBase *> params;
    bool under_construction;

protected:
    /** Halide's two GeneratorParams of every Generator: whether to auto-schedule the pipeline
     * after schedule() (which then typically only sets estimates: `if (auto_schedule) ...`),
     * and the machine to schedule for. */
    GeneratorParam<bool> auto_schedule{"auto_schedule", false};
    GeneratorParam<MachineParams> machine_params{"machine_params", MachineParams::generic()};
    /** Halide's target GeneratorParam: the target being compiled for (the driver's target=,
     * the first of several); build_pipeline sets it. */
    GeneratorParam<Target> target{"target", Target()};

private:
    std::string registered_name;
    std::vector<GeneratorInputInfo> inputs;
    std::vector<GeneratorOutputInfo> outputs;
    AutoSchedulerResults scheduled;
    bool built = false;
    Pipeline built_pipeline; // what build_pipeline made
    bool trace_the_pipeline = false;
    std::vector<std::vector<Expr>> requirements; // each the condition, then the message
};

using GeneratorFactory = std::function<std::unique_ptr<GeneratorBase>()>;

class GeneratorRegistry {
public:
    static void add(const std::string &name, GeneratorFactory factory);
    /** A new instance of the named Generator; throws naming the registered ones if unknown. */
    static std::unique_ptr<GeneratorBase> create(const std::string &name);
    static std::vector<std::string> names();
};

struct RegisterGenerator {
    RegisterGenerator(const char *name, GeneratorFactory factory) {
        GeneratorRegistry::add(name, std::move(factory));
    }
};

} // namespace Internal

/** A buffer input: an ImageParam of element type T, with D dimensions where the type gives
 * them (Input<Buffer<uint8_t, 2>> input{"input"}, as Halide 14 writes it). */
template <typename T, int D> class Input<Buffer<T, D>> : public ImageParam {
public:
    Input(const std::string &name, int dimensions) : ImageParam(type_of<T>(), dimensions, name) {
        user_assert(D == AnyDims || D == dimensions)
            << "Input " << name << " is a Buffer of " << D << " dimensions, but is given "
            << dimensions << ". Give one count, in the type or the constructor.";
        Internal::GeneratorBase *g = Internal::generator_under_construction();
        user_assert(g) << "Input " << name << " must be a member of a Generator";
        ImageParam self = *this;
        g->add_input({[self] { return Argument(self); }});
    }
    template <int Dims = D, typename = std::enable_if_t<Dims != AnyDims>>
    explicit Input(const std::string &name) : Input(name, D) {}
};

/** A scalar input: a Param<T>, an argument of the C function. */
template <typename T> class Input : public Param<T> {
public:
    explicit Input(const std::string &name) : Param<T>(name) { register_input(); }
    Input(const std::string &name, T value) : Param<T>(name, value) { register_input(); }
    /** With the range a run may pass (Param's min and max: a value outside fails the run). */
    Input(const std::string &name, T value, T min, T max)
        : Param<T>(name, value, Expr(min), Expr(max)) {
        register_input();
    }

private:
    void register_input() {
        Internal::GeneratorBase *g = Internal::generator_under_construction();
        user_assert(g) << "Input " << this->name() << " must be a member of a Generator";
        Param<T> self = *this;
        g->add_input({[self] { return Argument(self); }});
    }
};

/** A buffer output: a Func of element type T that generate() defines (or assigns), with D
 * dimensions where the type gives them. Output<Buffer<void, D>> (Halide's Output<Buffer<>>)
 * takes its element type from the GeneratorParam `<name>.type` (output.type=uint16 on the
 * driver's command line), which type() reads in generate(). */
template <typename T, int D> class Output<Buffer<T, D>> : public Func {
public:
    template <int Dims = D, typename = std::enable_if_t<Dims != AnyDims>>
    explicit Output(const std::string &name) : Output(name, D) {}
    Output(const std::string &name, int dimensions)
        : Func(name),
          type_param(std::is_void<T>::value
                         ? std::make_unique<GeneratorParam<Type>>(name + ".type", Type())
                         : nullptr) {
        user_assert(D == AnyDims || D == dimensions)
            << "Output " << name << " is a Buffer of " << D << " dimensions, but is given "
            << dimensions << ". Give one count, in the type or the constructor.";
        Internal::GeneratorBase *g = Internal::generator_under_construction();
        user_assert(g) << "Output " << name << " must be a member of a Generator";
        g->add_output(
            {name, [this] { return type(); }, dimensions, [this] { return Func(*this); }});
    }
    /** The element type: T, or for Output<Buffer<void>> the `<name>.type` GeneratorParam's. */
    Type type() const {
        if constexpr (std::is_void<T>::value) {
            const Type t = type_param->value();
            user_assert(t.bits() != 0)
                << "Output " << name() << " is a Buffer<void>: its element type comes from the "
                << "GeneratorParam " << name() << ".type, which is not set. Pass " << name()
                << ".type=uint8 (or another type) to the generator, or declare the Output with "
                   "its element type (Output<Buffer<uint8_t, 2>>).";
            return t;
        } else {
            return type_of<T>();
        }
    }
    /** The output buffer's dimension i, to constrain it (Halide's Output::dim). */
    OutputImageParam::Dim dim(int i) const { return output_buffer().dim(i); }
    /** Makes the output the given Func (defined elsewhere in generate()). */
    Output &operator=(const Func &f) {
        Func::operator=(f);
        return *this;
    }

private:
    // Owned apart from the Output so that a GeneratorParam exists only for a void element type;
    // it registers itself with the Generator under construction, as every GeneratorParam does.
    std::unique_ptr<GeneratorParam<Type>> type_param;
};

/** The base of user Generators (CRTP, as Halide's): T defines generate() and optionally
 * schedule(). */
template <typename T> class Generator : public Internal::GeneratorBase {
protected:
    void call_generate() override { static_cast<T *>(this)->generate(); }
    void call_schedule() override { schedule_if_any(static_cast<T *>(this), 0); }

private:
    template <typename U>
    static auto schedule_if_any(U *u, int) -> decltype(u->schedule(), void()) {
        u->schedule();
    }
    template <typename U> static void schedule_if_any(U *, long) {}
};

} // namespace loom

/** Registers ALIAS, an identifier, as Generator ORIGINAL with some GeneratorParams set
 * (Halide's HALIDE_REGISTER_GENERATOR_ALIAS): the last argument is their initializer list,
 * {{"name", "value"}, ...}; the driver's param=value still overrides them. */
#define LOOM_REGISTER_GENERATOR_ALIAS(ALIAS, ORIGINAL, ...)                                        \
    static ::loom::Internal::RegisterGenerator loom_register_generator_##ALIAS(#ALIAS, [] {        \
        std::unique_ptr<::loom::Internal::GeneratorBase> g =                                       \
            ::loom::Internal::GeneratorRegistry::create(#ORIGINAL);                                \
        g->set_generator_params(std::map<std::string, std::string> __VA_ARGS__);                   \
        return g;                                                                                  \
    });

/** Registers GEN_CLASS under NAME (an identifier) for the generator driver. */
#define LOOM_REGISTER_GENERATOR(GEN_CLASS, NAME)                                                   \
    static ::loom::Internal::RegisterGenerator loom_register_generator_##NAME(                     \
        #NAME, [] { return std::unique_ptr<::loom::Internal::GeneratorBase>(new GEN_CLASS()); });
