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

#include <memory>
#include <string>
#include <vector>

#include "dsl/GeneratorIO.h"
#include "dsl/GeneratorParam.h"
#include "dsl/MachineParams.h"
#include "dsl/Pipeline.h"
#include "dsl/RDom.h"
#include "dsl/Target.h"
#include "dsl/Tuple.h"

namespace loom {

class GeneratorContext;

namespace Internal {

/** The names a Generator's members use without `loom::` (Halide's NamesInterface), so that a
 * Generator written for Halide 14 without `using namespace Halide` compiles. */
class GeneratorNames {
protected:
    using Expr = loom::Expr;
    using ExternFuncArgument = loom::ExternFuncArgument;
    using Func = loom::Func;
    using GeneratorContext = loom::GeneratorContext;
    using ImageParam = loom::ImageParam;
    using LoopLevel = loom::LoopLevel;
    using MemoryType = loom::MemoryType;
    using NameMangling = loom::NameMangling;
    using Pipeline = loom::Pipeline;
    using PrefetchBoundStrategy = loom::PrefetchBoundStrategy;
    using RDom = loom::RDom;
    using RVar = loom::RVar;
    using TailStrategy = loom::TailStrategy;
    using Target = loom::Target;
    using Tuple = loom::Tuple;
    using Type = loom::Type;
    using Var = loom::Var;
    template <typename T> using GeneratorParam = loom::GeneratorParam<T>;
    template <typename T> using Input = loom::Input<T>;
    template <typename T> using Output = loom::Output<T>;
    template <typename T = void, int D = AnyDims> using Buffer = loom::Buffer<T, D>;
    template <typename T = void> using Param = loom::Param<T>;
    template <typename T> static Expr cast(Expr e) { return loom::cast<T>(std::move(e)); }
    static Expr cast(Type t, Expr e) { return loom::cast(t, std::move(e)); }
    static Type Bool(int lanes = 1) { return loom::Bool(lanes); }
    static Type Float(int bits, int lanes = 1) { return loom::Float(bits, lanes); }
    static Type Int(int bits, int lanes = 1) { return loom::Int(bits, lanes); }
    static Type UInt(int bits, int lanes = 1) { return loom::UInt(bits, lanes); }
};

class GeneratorBase : public GeneratorNames {
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
    /** Halide's: the target, auto_schedule and machine_params of this Generator, for the
     * Generators it creates (create<T>(), apply<T>(...)). */
    GeneratorContext context() const;

    /** Sets GeneratorParams from name=value pairs; "target" is handled by the driver. Throws
     * on an unknown name, listing the known ones. */
    void set_generator_params(const std::map<std::string, std::string> &values);
    /** Runs configure(), makes each Input a parameter of the C function (an ImageParam or a
     * Param per element), runs generate() and schedule(), then, with auto_schedule=true, the
     * default auto-scheduler (Pipeline::set_default_autoscheduler_name chooses it; the driver's
     * -s), and returns the pipeline of the outputs, checked against their declared types and
     * dimensions. */
    Pipeline build_pipeline(const Target &target);
    /** Halide's get_pipeline: the pipeline of the outputs, built for get_target() (the
     * target GeneratorParam) by the first call, as build_pipeline builds it, or the one
     * apply() made. */
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
    /** The C function's arguments: the Inputs' elements in declaration order (the Outputs
     * follow them in the function). */
    std::vector<Argument> arguments() const;

    /** Halide's, in configure() only: an Input or Output more, after those declared as members
     * (in the C function too), owned by the Generator. The arguments are the constructor's
     * after the name: add_input<Func>("extra", Float(32), 2). */
    template <typename T, typename... Args>
    Input<T> *add_input(const std::string &name, const Args &...args) {
        return add_io<Input<T>>(name, args...);
    }
    template <typename T, typename... Args>
    Output<T> *add_output(const std::string &name, const Args &...args) {
        return add_io<Output<T>>(name, args...);
    }

    /** Halide's set_inputs (as apply() calls it): the Inputs' values in declaration order, a
     * std::vector for an array. */
    void set_inputs_vector(const std::vector<GeneratorInputValue> &values);

    void add_param(GeneratorParamBase *p) { params.push_back(p); }
    /** Each Input and Output registers itself here as it is made. */
    void register_io(GeneratorIO *io);
    bool is_configuring() const { return configuring; }
    void set_registered_name(const std::string &name) { registered_name = name; }
    void init_from_context(const GeneratorContext &context);

protected:
    virtual void call_configure() = 0;
    virtual void call_generate() = 0;
    virtual void call_schedule() = 0;
    /** Runs configure() once, then generate() and schedule() on Inputs that apply() gave. */
    void apply_values(const std::vector<GeneratorInputValue> &values);

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
    std::vector<GeneratorIO *> inputs, outputs;         // in declaration order
    std::vector<std::unique_ptr<GeneratorIO>> added_io; // by add_input / add_output
    bool configured = false, configuring = false;
    AutoSchedulerResults scheduled;
    bool built = false;
    Pipeline built_pipeline; // what build_pipeline or apply made
    bool trace_the_pipeline = false;
    std::vector<std::vector<Expr>> requirements; // each the condition, then the message

    std::string display_name() const;
    void start_build(const char *how);
    void configure_once();
    /** Makes the Outputs, runs generate() and schedule(), checks the Outputs and returns their
     * pipeline. */
    Pipeline generate_and_schedule();

    template <typename IO, typename... Args>
    IO *add_io(const std::string &name, const Args &...args) {
        user_assert(configuring) << "Generator " << display_name() << ": add_input / add_output ("
                                 << name << ") may be called only in configure()";
        GeneratorBase *&current = generator_under_construction();
        current = this;
        std::unique_ptr<IO> io;
        try {
            io = std::make_unique<IO>(name, args...);
        } catch (...) {
            current = nullptr;
            throw;
        }
        current = nullptr;
        IO *raw = io.get();
        added_io.push_back(std::move(io));
        return raw;
    }
};

/** Ends the construction of a Generator made outside the registry (Generator<T>::create). */
void finish_generator_construction();

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

/** Halide's GeneratorContext: what a Generator used from C++ (not through the driver) is built
 * for; create<T>() makes one, apply<T>(inputs...) makes one and gives it its Inputs. */
class GeneratorContext {
public:
    GeneratorContext() = default;
    explicit GeneratorContext(const Target &target, bool auto_schedule = false,
                              const MachineParams &machine_params = MachineParams::generic())
        : target(target), auto_schedule(auto_schedule), machine_params(machine_params) {}
    const Target &get_target() const { return target; }
    bool get_auto_schedule() const { return auto_schedule; }
    const MachineParams &get_machine_params() const { return machine_params; }
    template <typename T> std::unique_ptr<T> create() const { return T::create(*this); }
    template <typename T, typename... Args> std::unique_ptr<T> apply(const Args &...args) const {
        std::unique_ptr<T> g = create<T>();
        g->apply(args...);
        return g;
    }

private:
    Target target;
    bool auto_schedule = false;
    MachineParams machine_params = MachineParams::generic();
};

/** The base of user Generators (CRTP, as Halide's): T defines generate() and optionally
 * configure() and schedule(). */
template <typename T> class Generator : public Internal::GeneratorBase {
public:
    /** Halide's: a new T for the context's target, auto_schedule and machine_params, to be
     * given its Inputs by apply() (or built by build_pipeline). */
    static std::unique_ptr<T> create(const GeneratorContext &context) {
        std::unique_ptr<T> g;
        try {
            g = std::make_unique<T>();
        } catch (...) {
            Internal::finish_generator_construction();
            throw;
        }
        Internal::finish_generator_construction();
        g->init_from_context(context);
        return g;
    }
    /** Halide's: gives the Inputs their values in declaration order (a Func or a Buffer for a
     * buffer or Func Input, a number or an Expr of its type for a scalar one, a std::vector
     * for an array), then runs configure(), generate() and schedule(). The Outputs are then
     * Funcs to realize or to use in other definitions. */
    template <typename... Args> void apply(const Args &...args) {
        apply_values({Internal::to_generator_input_value(args)...});
    }
    template <typename T2> std::unique_ptr<T2> create() const { return T2::create(context()); }
    template <typename T2, typename... Args> std::unique_ptr<T2> apply(const Args &...args) const {
        std::unique_ptr<T2> g = create<T2>();
        g->apply(args...);
        return g;
    }

protected:
    void call_configure() override { configure_if_any(static_cast<T *>(this), 0); }
    void call_generate() override { static_cast<T *>(this)->generate(); }
    void call_schedule() override { schedule_if_any(static_cast<T *>(this), 0); }

private:
    template <typename U>
    static auto configure_if_any(U *u, int) -> decltype(u->configure(), void()) {
        u->configure();
    }
    template <typename U> static void configure_if_any(U *, long) {}
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
