// Func::define_extern: a Func computed by a C function (Halide's extern stages). Lowering
// calls it (lower/ExternStages.h); here the definition is checked and recorded.

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IRVisitor.h"
#include "dsl/ImageParam.h"

namespace loom {

using namespace Internal;

namespace {

// The first Var (a Variable that is neither a Param nor bound by a Let) an Expr uses, or "".
class FirstVar : public IRVisitor {
public:
    std::string found;

private:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        // The run's user context (Param::user_context_value) is one value for the whole run.
        if (!op->param && op->name != kUserContextName && found.empty()) found = op->name;
    }
};

ExternStage::Arg stage_arg(const std::string &func, size_t i, const ExternFuncArgument &a) {
    ExternStage::Arg arg;
    switch (a.arg_type) {
    case ExternFuncArgument::FuncArg:
        user_assert(a.func && a.func->defined())
            << "Argument " << i << " of extern stage " << func
            << " is a Func with no definition: define it before define_extern.";
        arg.kind = ExternStage::Arg::Func;
        arg.func = a.func;
        break;
    case ExternFuncArgument::BufferArg:
        user_assert(a.buffer != nullptr) << "Argument " << i << " of extern stage " << func
                                         << " is an undefined Buffer: allocate it first.";
        arg.kind = ExternStage::Arg::Buffer;
        arg.buffer = a.buffer;
        break;
    case ExternFuncArgument::ImageParamArg:
        user_assert(a.image_param != nullptr)
            << "Argument " << i << " of extern stage " << func << " is an undefined ImageParam.";
        arg.kind = ExternStage::Arg::Image;
        arg.param = a.image_param;
        break;
    case ExternFuncArgument::ExprArg: {
        user_assert(a.expr.defined())
            << "Argument " << i << " of extern stage " << func << " is an undefined Expr.";
        user_assert(a.expr.type().is_scalar())
            << "Argument " << i << " of extern stage " << func << " is a vector (" << a.expr.type()
            << "): pass scalars.";
        FirstVar var;
        a.expr.accept(&var);
        user_assert(var.found.empty())
            << "Argument " << i << " of extern stage " << func << " uses the Var " << var.found
            << ": an extern stage is called once per region, so its scalar arguments may use "
               "Params, constants and the user context only.";
        arg.kind = ExternStage::Arg::Scalar;
        arg.expr = a.expr;
        break;
    }
    case ExternFuncArgument::UndefinedArg:
        user_error << "Argument " << i << " of extern stage " << func << " is undefined.";
    }
    return arg;
}

} // namespace

ExternFuncArgument::ExternFuncArgument(const Func &f) : arg_type(FuncArg), func(f.function()) {}

ExternFuncArgument::ExternFuncArgument(const ImageParam &p)
    : arg_type(ImageParamArg), image_param(p.parameter()) {}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, const std::vector<Var> &arguments,
                         NameMangling mangling, DeviceAPI device_api) {
    user_assert(!func->defined()) << "define_extern of Func " << name()
                                  << ", which already has a definition. Use a new Func.";
    user_assert(!function_name.empty())
        << "define_extern of Func " << name() << " with an empty function name.";
    user_assert(!types.empty()) << "define_extern of Func " << name() << " with no output types.";
    user_assert(mangling != NameMangling::CPlusPlus)
        << "define_extern of Func " << name() << " asks for C++ name mangling of " << function_name
        << ": Loom calls extern stages by their C names. Declare the function extern \"C\" and "
           "use NameMangling::Default or NameMangling::C.";
    user_assert(device_api == DeviceAPI::Host)
        << "define_extern of Func " << name() << " on a GPU device API: Loom calls extern "
        << "stages on the host (DeviceAPI::Host), with host buffers.";
    std::vector<std::string> names;
    for (const Var &v : arguments) {
        for (const std::string &prev : names) {
            user_assert(prev != v.name()) << "define_extern of Func " << name() << " names Var "
                                          << prev << " twice. Each argument must be distinct.";
        }
        names.push_back(v.name());
    }
    auto stage = std::make_shared<ExternStage>();
    stage->function_name = function_name;
    for (size_t i = 0; i < params.size(); i++)
        stage->args.push_back(stage_arg(name(), i, params[i]));
    for (Type t : types) {
        user_assert(t.is_scalar() && !t.is_handle())
            << "define_extern of Func " << name() << " with output type " << t
            << ": outputs are scalar numbers.";
    }
    func->args = names;
    func->output_types = types;
    func->init.args.clear();
    for (const std::string &n : names)
        func->init.args.push_back(Variable::make(Int(32), n));
    func->init.schedule.dims = default_loops(func->init);
    func->extern_stage = stage;
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params, Type t, int dimensionality,
                         NameMangling mangling, DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{t}, dimensionality, mangling,
                  device_api);
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params,
                         const std::vector<Type> &types, int dimensionality, NameMangling mangling,
                         DeviceAPI device_api) {
    user_assert(dimensionality >= 0 && dimensionality <= 10)
        << "define_extern of Func " << name() << " with " << dimensionality
        << " dimensions: give 0 to 10 (the Vars _0 ... _9), or a list of Vars.";
    static const Var *const implicit[] = {&_0, &_1, &_2, &_3, &_4, &_5, &_6, &_7, &_8, &_9};
    std::vector<Var> vars;
    for (int d = 0; d < dimensionality; d++)
        vars.push_back(*implicit[d]);
    define_extern(function_name, params, types, vars, mangling, device_api);
}

void Func::define_extern(const std::string &function_name,
                         const std::vector<ExternFuncArgument> &params, Type t,
                         const std::vector<Var> &arguments, NameMangling mangling,
                         DeviceAPI device_api) {
    define_extern(function_name, params, std::vector<Type>{t}, arguments, mangling, device_api);
}

bool Func::is_extern() const { return func->is_extern(); }

const std::string &Func::extern_function_name() const {
    user_assert(func->is_extern())
        << "extern_function_name of Func " << name() << ", which is not an extern stage.";
    return func->extern_stage->function_name;
}

} // namespace loom
