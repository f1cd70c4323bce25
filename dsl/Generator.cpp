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

Pipeline GeneratorBase::build_pipeline(const Target &t) {
    user_assert(!built) << "Generator " << registered_name
                        << " was already built; create a new instance to build it again";
    built = true;
    target.set(t);
    call_generate();
    call_schedule();
    user_assert(!outputs.empty()) << "Generator " << registered_name
                                  << " declares no Output; declare at least one "
                                     "Output<Buffer<T>> member";
    std::vector<Func> funcs;
    for (const GeneratorOutputInfo &o : outputs) {
        Func f = o.func();
        user_assert(f.defined()) << "Output " << o.name << " of Generator " << registered_name
                                 << " is not defined; define it in generate()";
        const Type declared = o.type();
        user_assert(f.outputs() == 1 && f.output_type() == declared)
            << "Output " << o.name << " of Generator " << registered_name << " is declared as "
            << type_to_string(declared) << " but generate() defines it as "
            << type_to_string(f.output_types()[0]) << (f.outputs() > 1 ? " (a Tuple)" : "")
            << ". Make the two agree.";
        user_assert(f.dimensions() == o.dimensions)
            << "Output " << o.name << " of Generator " << registered_name << " is declared with "
            << o.dimensions << " dimensions but generate() defines it with " << f.dimensions();
        funcs.push_back(f);
    }
    Pipeline pipeline(funcs);
    if (trace_the_pipeline) pipeline.trace_pipeline();
    for (const std::vector<Expr> &r : requirements)
        pipeline.add_requirement(r[0], std::vector<Expr>(r.begin() + 1, r.end()));
    if (auto_schedule) scheduled = pipeline.auto_schedule(get_target(), machine_params);
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
    for (const GeneratorInputInfo &i : inputs)
        args.push_back(i.argument());
    return args;
}

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
