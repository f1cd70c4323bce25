#include "dsl/Func.h"

#include <fstream>
#include <set>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Pipeline.h"

namespace loom {

using namespace Internal;

namespace {

// Collects the Vars (Variables that are not Params) an expression uses.
class FreeVars : public IRVisitor {
public:
    std::set<std::string> names;
    std::set<std::string> bound;  // names bound by Lets inside the expression

private:
    void visit(const Variable *op) override {
        if (!op->param && !bound.count(op->name)) names.insert(op->name);
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        bool was_bound = bound.count(op->name);
        bound.insert(op->name);
        op->body.accept(this);
        if (!was_bound) bound.erase(op->name);
    }
};

FunctionPtr new_function(const std::string &name) {
    auto f = std::make_shared<FunctionContents>();
    f->name = name;
    return f;
}

}  // namespace

Tuple::Tuple(const FuncRef &ref) {
    for (size_t i = 0; i < ref.size(); i++) exprs.push_back(ref[(int)i]);
}

FuncRef::FuncRef(FunctionPtr func, std::vector<Expr> args)
    : func(std::move(func)), args(std::move(args)) {
    for (size_t i = 0; i < this->args.size(); i++) {
        user_assert(this->args[i].defined())
            << "Argument " << i << " of a reference to Func " << this->func->name
            << " is an undefined Expr";
    }
}

FuncRef &FuncRef::operator=(const Expr &value) {
    user_assert(value.defined()) << "Func " << func->name << " is defined with an undefined Expr";
    define({value});
    return *this;
}

FuncRef &FuncRef::operator=(const Tuple &values) {
    define(values.as_vector());
    return *this;
}

FuncRef &FuncRef::operator=(const FuncRef &other) {
    if (other.size() == 1) {
        define({Expr(other)});
    } else {
        define(Tuple(other).as_vector());
    }
    return *this;
}

void FuncRef::define(std::vector<Expr> values) {
    const std::string &name = func->name;
    user_assert(!func->defined())
        << "Func " << name << " already has a pure definition. Loom does not support update "
        << "definitions yet; define it once, or give the new definition its own Func.";
    user_assert(!values.empty()) << "Func " << name << " is defined with an empty Tuple";
    std::vector<std::string> arg_names;
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].as<Variable>();
        user_assert(v && !v->param)
            << "Argument " << i << " on the left of the definition of Func " << name << " is "
            << args[i] << ", but the arguments of a pure definition must be Vars.";
        for (const std::string &prev : arg_names) {
            user_assert(prev != v->name) << "Var " << v->name << " appears twice on the left of "
                                         << "the definition of Func " << name
                                         << ". Each argument must be a distinct Var.";
        }
        arg_names.push_back(v->name);
    }
    std::vector<Type> types;
    for (size_t i = 0; i < values.size(); i++) {
        const Expr &v = values[i];
        user_assert(v.defined()) << "Value " << i << " of the definition of Func " << name
                                 << " is an undefined Expr";
        user_assert(v.type().is_scalar() && !v.type().is_handle())
            << "Func " << name << " must be defined with scalar numeric values, but value " << i
            << " has type " << v.type();
        FreeVars free;
        v.accept(&free);
        for (const std::string &var : free.names) {
            bool found = false;
            for (const std::string &a : arg_names) found |= (a == var);
            std::string listed;
            for (const std::string &a : arg_names) listed += (listed.empty() ? "" : ", ") + a;
            user_assert(found) << "Undefined variable " << var << " in the definition of Func "
                               << name << ". Its left-hand side has the Vars (" << listed
                               << "); every Var used on the right must appear there too.";
        }
        types.push_back(v.type());
    }
    func->args = arg_names;
    func->output_types = types;
    func->init.args = args;
    func->init.values = std::move(values);
    // The default loop order: the pure Vars, innermost (first) to outermost.
    func->init.schedule.dims.clear();
    for (const std::string &a : arg_names) func->init.schedule.dims.push_back(Dim{a});
}

namespace {

Expr make_func_call(const FunctionPtr &func, const std::vector<Expr> &args, int value_index) {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined. Define it (" << func->name
                                 << "(x, ...) = ...) before using it.";
    user_assert((int)args.size() == func->dimensions())
        << "Func " << func->name << " is defined with " << func->dimensions()
        << " arguments but is called with " << args.size() << ". Pass one argument per dimension.";
    std::vector<Expr> int_args(args.size());
    for (size_t i = 0; i < args.size(); i++) {
        Type t = args[i].type();
        user_assert(t.is_int_or_uint() && t.is_scalar())
            << "Argument " << i << " of the call to Func " << func->name
            << " must be a scalar integer, but " << args[i] << " has type " << t
            << ". Cast it with cast<int>().";
        int_args[i] = t == Int(32) ? args[i] : Cast::make(Int(32), args[i]);
    }
    return Call::make(func->output_types[value_index], func->name, std::move(int_args),
                      Call::Halide, func, value_index);
}

}  // namespace

FuncRef::operator Expr() const {
    user_assert(!func->defined() || func->outputs() == 1)
        << "Func " << func->name << " returns a Tuple of " << func->outputs()
        << " values; pick one with " << func->name << "(...)[i].";
    return make_func_call(func, args, 0);
}

Expr FuncRef::operator[](int i) const {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined.";
    user_assert(i >= 0 && i < func->outputs())
        << "Tuple index " << i << " is out of range for Func " << func->name << ", which has "
        << func->outputs() << " values";
    return make_func_call(func, args, i);
}

size_t FuncRef::size() const {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined.";
    return func->outputs();
}

Func::Func() : func(new_function(unique_user_name('f'))) {}
Func::Func(const std::string &name) : func(new_function(name)) {}
Func::Func(FunctionPtr f) : func(std::move(f)) {}
Func::Func(const Expr &e) : Func() { (*this)(std::vector<Expr>{}) = e; }

FuncRef Func::operator()(std::vector<Expr> args) const { return FuncRef(func, std::move(args)); }

FuncRef Func::operator()(const std::vector<Var> &args) const {
    std::vector<Expr> exprs(args.begin(), args.end());
    return FuncRef(func, std::move(exprs));
}

const std::string &Func::name() const { return func->name; }
bool Func::defined() const { return func->defined(); }
int Func::dimensions() const { return func->dimensions(); }
int Func::outputs() const { return func->outputs(); }

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    for (const std::string &a : func->args) vars.emplace_back(a);
    return vars;
}

Expr Func::value() const {
    user_assert(defined()) << "Func " << name() << " has no definition";
    user_assert(outputs() == 1) << "Func " << name() << " returns a Tuple; use values()";
    return func->init.values[0];
}

Tuple Func::values() const {
    user_assert(defined()) << "Func " << name() << " has no definition";
    return Tuple(func->init.values);
}

const std::vector<Type> &Func::output_types() const {
    user_assert(defined()) << "Func " << name() << " has no definition, so it has no type yet";
    return func->output_types;
}

Type Func::output_type() const {
    user_assert(outputs() == 1) << "Func " << name() << " returns a Tuple; use output_types()";
    return output_types()[0];
}

#define LOOM_FORWARD_TO_STAGE(call)                                                             \
    {                                                                                           \
        Stage(func, 0).call;                                                                    \
        return *this;                                                                           \
    }

Func &Func::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                  const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(split(old, outer, inner, factor, tail))
Func &Func::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused)
    LOOM_FORWARD_TO_STAGE(fuse(inner, outer, fused))
Func &Func::reorder(const std::vector<VarOrRVar> &vars) LOOM_FORWARD_TO_STAGE(reorder(vars))
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                 const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor,
                 const Expr &yfactor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(x, y, xo, yo, xi, yi, xfactor, yfactor, tail))
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                 const Expr &xfactor, const Expr &yfactor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(x, y, xi, yi, xfactor, yfactor, tail))
Func &Func::rename(const VarOrRVar &old, const VarOrRVar &new_name)
    LOOM_FORWARD_TO_STAGE(rename(old, new_name))
Func &Func::serial(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(serial(var))
Func &Func::parallel(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(parallel(var))
Func &Func::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(parallel(var, task_size, tail))
Func &Func::vectorize(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(vectorize(var))
Func &Func::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(vectorize(var, factor, tail))
Func &Func::unroll(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(unroll(var))
Func &Func::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(unroll(var, factor, tail))
#undef LOOM_FORWARD_TO_STAGE

Func &Func::compute_at(const Func &consumer, const VarOrRVar &var) {
    return compute_at(consumer.at(var));
}

Func &Func::compute_at(const LoopLevel &level) {
    user_assert(!(level.func() == func->name && !level.is_root() && !level.is_inlined()))
        << "Func " << func->name << " can't be computed at one of its own loops ("
        << level.to_string() << "). Pick a loop of one of its consumers.";
    bool store_follows = func->schedule.store_level == func->schedule.compute_level;
    func->schedule.compute_level = level;
    if (store_follows || func->schedule.store_level.is_inlined()) func->schedule.store_level = level;
    return *this;
}

Func &Func::store_at(const Func &consumer, const VarOrRVar &var) { return store_at(consumer.at(var)); }

Func &Func::store_at(const LoopLevel &level) {
    func->schedule.store_level = level;
    return *this;
}

Func &Func::store_root() { return store_at(LoopLevel::root()); }

Func &Func::bound(const Var &var, const Expr &min, const Expr &extent) {
    user_assert(defined()) << "Func " << name() << " must be defined before bound()";
    bool found = false;
    for (const std::string &a : func->args) found |= a == var.name();
    user_assert(found) << "Can't bound " << var.name() << " of Func " << name()
                       << ": it is not one of its pure Vars";
    user_assert(min.defined() && extent.defined() && min.type().is_int_or_uint() &&
                extent.type().is_int_or_uint())
        << "bound() of Func " << name() << " needs integer min and extent";
    for (Bound &b : func->schedule.bounds) {
        if (b.var == var.name()) {
            b.min = cast(Int(32), min);
            b.extent = cast(Int(32), extent);
            return *this;
        }
    }
    func->schedule.bounds.push_back(Bound{var.name(), cast(Int(32), min), cast(Int(32), extent)});
    return *this;
}

Func &Func::compute_root() {
    func->schedule.compute_level = LoopLevel::root();
    func->schedule.store_level = LoopLevel::root();
    return *this;
}

Func &Func::compute_inline() {
    func->schedule.compute_level = LoopLevel::inlined();
    func->schedule.store_level = LoopLevel::inlined();
    return *this;
}

Pipeline Func::pipeline() {
    if (!cached_pipeline) cached_pipeline = std::make_shared<Pipeline>(*this);
    return *cached_pipeline;
}

Realization Func::realize(std::vector<int32_t> sizes, const Target &target) {
    return pipeline().realize(std::move(sizes), target);
}

void Func::realize(RealizationArg outputs, const Target &target) {
    pipeline().realize(std::move(outputs), target);
}

void Func::compile_jit(const Target &target) { pipeline().compile_jit(target); }

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                   StmtOutputFormat, const Target &target) {
    pipeline().compile_to_lowered_stmt(filename, args, target);
}

void Func::compile_to_llvm_assembly(const std::string &filename,
                                    const std::vector<Argument> &args, const Target &target) {
    pipeline().compile_to_llvm_assembly(filename, args, target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const Target &target) {
    pipeline().compile_to_assembly(filename, args, target);
}

std::string LoopLevel::to_string() const {
    switch (kind) {
    case Kind::Inlined: return "inlined";
    case Kind::Root: return "root";
    case Kind::At: return func_name + "." + var_name;
    }
    return "";
}

}  // namespace loom
