#include "dsl/Generator.h"

#include <algorithm>

namespace loom {
namespace Internal {

Type parse_generator_type(const std::string &param, const std::string &text) {
    static const std::map<std::string, Type> names = {
        {"bool", Bool()},       {"int8", Int(8)},       {"int16", Int(16)},
        {"int32", Int(32)},     {"int64", Int(64)},     {"uint8", UInt(8)},
        {"uint16", UInt(16)},   {"uint32", UInt(32)},   {"uint64", UInt(64)},
        {"float16", Float(16)}, {"float32", Float(32)}, {"float64", Float(64)},
    };
    auto it = names.find(text);
    if (it != names.end()) return it->second;
    std::string known;
    for (const auto &kv : names)
        known += (known.empty() ? "" : ", ") + kv.first;
    user_error << "GeneratorParam " << param << " is a type: \"" << text
               << "\" is not one; the types are " << known;
    return Type();
}

GeneratorBase *&generator_under_construction() {
    thread_local GeneratorBase *current = nullptr;
    return current;
}

GeneratorParamBase::GeneratorParamBase(std::string name) : param_name(std::move(name)) {
    GeneratorBase *g = generator_under_construction();
    user_assert(g) << "GeneratorParam " << param_name << " must be a member of a Generator";
    g->add_param(this);
}

GeneratorBase::GeneratorBase()
    : under_construction((generator_under_construction() = this, true)) {}

void GeneratorBase::set_generator_params(const std::map<std::string, std::string> &values) {
    for (const auto &[name, text] : values) {
        auto it = std::find_if(params.begin(), params.end(),
                               [&](GeneratorParamBase *p) { return p->name() == name; });
        if (it == params.end()) {
            std::string known;
            for (GeneratorParamBase *p : params) {
                known += (known.empty() ? "" : ", ") + p->name() + "=" + p->value_string();
            }
            user_error << "Generator " << registered_name << " has no GeneratorParam named \""
                       << name << "\". Its GeneratorParams (with their defaults) are: "
                       << (known.empty() ? "none" : known);
        }
        (*it)->set_from_string(text);
    }
}

std::string GeneratorBase::display_name() const {
    return registered_name.empty() ? std::string("(made by create())") : registered_name;
}

void GeneratorBase::register_io(GeneratorIO *io) {
    for (const std::vector<GeneratorIO *> *list : {&inputs, &outputs}) {
        for (const GeneratorIO *other : *list) {
            user_assert(other->name() != io->name())
                << "Generator " << display_name() << " has two Inputs or Outputs named "
                << io->name() << "; each names an argument of the C function";
        }
    }
    (io->is_input() ? inputs : outputs).push_back(io);
}

void GeneratorBase::init_from_context(const GeneratorContext &context) {
    target.set(context.get_target());
    auto_schedule.set(context.get_auto_schedule());
    machine_params.set(context.get_machine_params());
}

GeneratorContext GeneratorBase::context() const {
    return GeneratorContext(get_target(), auto_schedule, machine_params);
}

void GeneratorBase::start_build(const char *how) {
    user_assert(!built) << "Generator " << display_name() << " was already built or applied; "
                        << how << " needs a new instance";
    built = true;
}

void GeneratorBase::configure_once() {
    if (configured) return;
    configured = true;
    configuring = true;
    try {
        call_configure();
    } catch (...) {
        configuring = false;
        throw;
    }
    configuring = false;
}

Pipeline GeneratorBase::build_pipeline(const Target &t) {
    start_build("build_pipeline");
    target.set(t);
    configure_once();
    for (GeneratorIO *input : inputs)
        input->make_parameters();
    Pipeline pipeline = generate_and_schedule();
    if (auto_schedule) scheduled = pipeline.auto_schedule(get_target(), machine_params);
    return pipeline;
}

void GeneratorBase::set_inputs_vector(const std::vector<GeneratorInputValue> &values) {
    std::string names;
    for (const GeneratorIO *input : inputs)
        names += (names.empty() ? "" : ", ") + input->name();
    user_assert(values.size() == inputs.size())
        << "Generator " << display_name() << " takes " << inputs.size() << " Inputs ("
        << (names.empty() ? "none" : names) << "); apply() was given " << values.size();
    for (size_t i = 0; i < inputs.size(); i++)
        inputs[i]->bind(values[i]);
}

void GeneratorBase::apply_values(const std::vector<GeneratorInputValue> &values) {
    start_build("apply");
    configure_once();
    set_inputs_vector(values);
    generate_and_schedule();
}

Pipeline GeneratorBase::generate_and_schedule() {
    for (GeneratorIO *output : outputs)
        output->make_funcs();
    call_generate();
    call_schedule();
    user_assert(!outputs.empty()) << "Generator " << display_name()
                                  << " declares no Output; declare at least one "
                                     "Output<Buffer<T>> member";
    std::vector<Func> funcs;
    for (const GeneratorIO *o : outputs) {
        const std::vector<Func> of_output = o->output_funcs();
        user_assert(!of_output.empty() || !o->is_array() || o->array_size_defined())
            << "Output " << o->name() << " of Generator " << display_name()
            << " is an array of no size: call resize() in generate() or set " << o->name()
            << ".size";
        for (size_t i = 0; i < of_output.size(); i++) {
            const Func &f = of_output[i];
            const std::string which = o->array_name(i);
            user_assert(f.defined()) << "Output " << which << " of Generator " << display_name()
                                     << " is not defined; define it in generate()";
            if (o->types_defined()) {
                const std::vector<Type> &declared = o->types();
                std::string declared_text, defined_text;
                for (const Type &t : declared)
                    declared_text += (declared_text.empty() ? "" : ", ") + type_to_string(t);
                for (const Type &t : f.output_types())
                    defined_text += (defined_text.empty() ? "" : ", ") + type_to_string(t);
                user_assert(f.output_types() == declared)
                    << "Output " << which << " of Generator " << display_name()
                    << " is declared as " << (declared.size() > 1 ? "(" : "") << declared_text
                    << (declared.size() > 1 ? ")" : "") << " but generate() defines it as "
                    << (f.outputs() > 1 ? "(" : "") << defined_text << (f.outputs() > 1 ? ")" : "")
                    << (f.outputs() > 1 ? " (a Tuple)" : "") << ". Make the two agree.";
            }
            if (o->dims_defined()) {
                user_assert(f.dimensions() == o->dims())
                    << "Output " << which << " of Generator " << display_name()
                    << " is declared with " << o->dims() << " dimensions but generate() defines "
                    << "it with " << f.dimensions();
            }
            funcs.push_back(f);
        }
    }
    Pipeline pipeline(funcs);
    if (trace_the_pipeline) pipeline.trace_pipeline();
    for (const std::vector<Expr> &r : requirements)
        pipeline.add_requirement(r[0], std::vector<Expr>(r.begin() + 1, r.end()));
    built_pipeline = pipeline;
    return pipeline;
}

Pipeline GeneratorBase::get_pipeline() {
    return built ? built_pipeline : build_pipeline(get_target());
}

Realization GeneratorBase::realize(const std::vector<int32_t> &sizes) {
    return get_pipeline().realize(sizes, get_target());
}

std::vector<Argument> GeneratorBase::arguments() const {
    std::vector<Argument> args;
    for (const GeneratorIO *input : inputs) {
        const std::vector<Argument> of_input = input->arguments();
        args.insert(args.end(), of_input.begin(), of_input.end());
    }
    return args;
}

void finish_generator_construction() { generator_under_construction() = nullptr; }

namespace {

std::map<std::string, GeneratorFactory> &registry() {
    // Filled by static registrations before main() and only read afterwards.
    static std::map<std::string, GeneratorFactory> generators;
    return generators;
}

} // namespace

void GeneratorRegistry::add(const std::string &name, GeneratorFactory factory) {
    internal_assert(!registry().count(name)) << "Two Generators are registered as " << name;
    registry()[name] = std::move(factory);
}

std::unique_ptr<GeneratorBase> GeneratorRegistry::create(const std::string &name) {
    auto it = registry().find(name);
    if (it == registry().end()) {
        std::string known;
        for (const auto &kv : registry())
            known += (known.empty() ? "" : ", ") + kv.first;
        user_error << "No Generator is registered as \"" << name
                   << "\". The registered ones are: " << (known.empty() ? "none" : known);
    }
    std::unique_ptr<GeneratorBase> g;
    try {
        g = it->second();
    } catch (...) {
        generator_under_construction() = nullptr;
        throw;
    }
    generator_under_construction() = nullptr;
    g->set_registered_name(name);
    return g;
}

std::vector<std::string> GeneratorRegistry::names() {
    std::vector<std::string> names;
    for (const auto &kv : registry())
        names.push_back(kv.first);
    return names;
}

} // namespace Internal
} // namespace loom
