#include "dsl/Func.h"

#include <fstream>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Pipeline.h"
#include "dsl/RDom.h"

namespace loom {

using namespace Internal;

namespace {

FunctionPtr new_function(const std::string &name) {
    auto f = std::make_shared<FunctionContents>();
    f->name = name;
    return f;
}

}  // namespace

Func::Func() : func(new_function(unique_user_name('f'))) {}
Func::Func(const std::string &name) : func(new_function(name)) {}
Func::Func(FunctionPtr f) : func(std::move(f)) {}
Func::Func(const Expr &e) : Func() { (*this)(_) = e; }

FuncRef Func::operator()(std::vector<Expr> args) const {
    const size_t written = args.size();
    const int placeholder = Internal::expand_placeholder(args, defined() ? dimensions() : -1);
    const int implicit_count = placeholder < 0 ? 0 : (int)(args.size() + 1 - written);
    return FuncRef(func, std::move(args), placeholder, implicit_count);
}

FuncRef Func::operator()(const std::vector<Var> &args) const {
    return (*this)(std::vector<Expr>(args.begin(), args.end()));
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

// Each definition's body is the macro, which clang-format can't tell from a declaration missing
// its semicolon (it chained them into one statement).
// clang-format off
Func &Func::allow_race_conditions() LOOM_FORWARD_TO_STAGE(allow_race_conditions())
Func &Func::atomic(bool override_associativity_test)
    LOOM_FORWARD_TO_STAGE(atomic(override_associativity_test))
Func &Func::compute_with(const Stage &s, const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align)
    LOOM_FORWARD_TO_STAGE(compute_with(s, var, align))
Func &Func::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align)
    LOOM_FORWARD_TO_STAGE(compute_with(s, var, align))
Func &Func::compute_with(const LoopLevel &level,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align)
    LOOM_FORWARD_TO_STAGE(compute_with(level, align))
Func &Func::compute_with(const LoopLevel &level, LoopAlignStrategy align)
    LOOM_FORWARD_TO_STAGE(compute_with(level, align))
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
Func &Func::prefetch(const ImageParam &image, const VarOrRVar &at, const VarOrRVar &from,
                     const Expr &offset, PrefetchBoundStrategy strategy)
    LOOM_FORWARD_TO_STAGE(prefetch(image, at, from, offset, strategy))
Func &Func::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, const Expr &offset,
                     PrefetchBoundStrategy strategy)
    LOOM_FORWARD_TO_STAGE(prefetch(f, at, from, offset, strategy))
Func &Func::gpu_blocks(const VarOrRVar &x, DeviceAPI api) LOOM_FORWARD_TO_STAGE(gpu_blocks(x, api))
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_blocks(x, y, api))
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_blocks(x, y, z, api))
Func &Func::gpu_threads(const VarOrRVar &x, DeviceAPI api) LOOM_FORWARD_TO_STAGE(gpu_threads(x, api))
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_threads(x, y, api))
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_threads(x, y, z, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                     const Expr &x_size, TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, bx, tx, x_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                     const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                     const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, bx, by, tx, ty, x_size, y_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                     const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, tx, ty, x_size, y_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, tx, x_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, x_size, y_size, z_size,
                                   tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &tx, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, tx, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &tx,
                const VarOrRVar &ty, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, by, tx, ty, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, by, bz, tx, ty, tz, api))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 const std::vector<TailStrategy> &tails)
    LOOM_FORWARD_TO_STAGE(tile(previous, outers, inners, factors, tails))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 TailStrategy tail) LOOM_FORWARD_TO_STAGE(tile(previous, outers, inners, factors, tail))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                 const std::vector<Expr> &factors, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(previous, inners, factors, tail))
#undef LOOM_FORWARD_TO_STAGE

Func &Func::compute_at(const Func &consumer, const VarOrRVar &var) {
    return compute_at(consumer.at(var));
}
// (Formatting stays off through compute_at: before it, the last macro reads as unfinished.)
// clang-format on

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
    user_assert(min.defined() && min.type().is_int_or_uint())
        << "bound() of Func " << name() << " needs an integer min";
    return set_bound(var, cast(Int(32), min), extent, "bound");
}

Func &Func::bound_extent(const Var &var, const Expr &extent) {
    return set_bound(var, Expr(), extent, "bound_extent");
}

Func &Func::set_bound(const Var &var, const Expr &min, const Expr &extent, const char *directive) {
    user_assert(defined()) << "Func " << name() << " must be defined before " << directive << "()";
    bool found = false;
    for (const std::string &a : func->args) found |= a == var.name();
    user_assert(found) << "Can't bound " << var.name() << " of Func " << name()
                       << ": it is not one of its pure Vars";
    user_assert(extent.defined() && extent.type().is_int_or_uint())
        << directive << "() of Func " << name() << " needs an integer extent";
    for (Bound &b : func->schedule.bounds) {
        if (b.var == var.name()) {
            b.min = min;
            b.extent = cast(Int(32), extent);
            return *this;
        }
    }
    func->schedule.bounds.push_back(Bound{var.name(), min, cast(Int(32), extent)});
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

Func::operator Stage() const { return Stage(func, 0); }

Stage Func::update(int i) const {
    user_assert(i >= 0 && i < (int)func->updates.size())
        << "Func " << name() << " has " << func->updates.size() << " update definitions; update("
        << i << ") does not exist";
    return Stage(func, i + 1);
}

int Func::num_update_definitions() const { return (int)func->updates.size(); }

namespace {

const Definition &update_of(const FunctionContents &f, int idx) {
    user_assert(idx >= 0 && idx < (int)f.updates.size())
        << "Func " << f.name << " has " << f.updates.size() << " update definitions; update " << idx
        << " does not exist (they count from 0).";
    return f.updates[idx];
}

} // namespace

const std::vector<Expr> &Func::update_args(int idx) const { return update_of(*func, idx).args; }

Expr Func::update_value(int idx) const {
    const Definition &d = update_of(*func, idx);
    user_assert(d.values.size() == 1)
        << "Func " << name() << " returns a Tuple; use update_values(" << idx << ")";
    return d.values[0];
}

Tuple Func::update_values(int idx) const { return Tuple(update_of(*func, idx).values); }

std::vector<RVar> Func::rvars(int idx) const {
    const Definition &d = update_of(*func, idx);
    std::vector<RVar> out;
    if (d.rdom) {
        for (int i = 0; i < (int)d.rdom->domain.size(); i++)
            out.emplace_back(d.rdom, i);
    }
    return out;
}

Pipeline Func::pipeline() {
    if (!cached_pipeline) cached_pipeline = std::make_shared<Pipeline>(*this);
    return *cached_pipeline;
}

Realization Func::realize(std::vector<int32_t> sizes, const Target &target,
                          const ParamMap &param_map) {
    return pipeline().realize(std::move(sizes), target, param_map);
}

void Func::realize(RealizationArg outputs, const Target &target, const ParamMap &param_map) {
    pipeline().realize(std::move(outputs), target, param_map);
}

void Func::infer_input_bounds(RealizationArg outputs, const Target &target,
                              const ParamMap &param_map) {
    pipeline().infer_input_bounds(std::move(outputs), target, param_map);
}

void Func::infer_input_bounds(const std::vector<int32_t> &sizes, const Target &target,
                              const ParamMap &param_map) {
    pipeline().infer_input_bounds(sizes, target, param_map);
}

Realization Func::realize(JITUserContext *context, std::vector<int32_t> sizes, const Target &target,
                          const ParamMap &param_map) {
    return pipeline().realize(context, std::move(sizes), target, param_map);
}

void Func::realize(JITUserContext *context, RealizationArg outputs, const Target &target,
                   const ParamMap &param_map) {
    pipeline().realize(context, std::move(outputs), target, param_map);
}

void Func::infer_input_bounds(JITUserContext *context, RealizationArg outputs, const Target &target,
                              const ParamMap &param_map) {
    pipeline().infer_input_bounds(context, std::move(outputs), target, param_map);
}

void Func::infer_input_bounds(JITUserContext *context, const std::vector<int32_t> &sizes,
                              const Target &target, const ParamMap &param_map) {
    pipeline().infer_input_bounds(context, sizes, target, param_map);
}

JITHandlers &Func::jit_handlers() { return pipeline().jit_handlers(); }

std::vector<Argument> Func::infer_arguments() const {
    return Pipeline(std::vector<Func>{*this}).infer_arguments();
}

void Func::compile_jit(const Target &target) { pipeline().compile_jit(target); }

void Func::print_loop_nest() { pipeline().print_loop_nest(); }

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                   StmtOutputFormat format, const Target &target) {
    pipeline().compile_to_lowered_stmt(filename, args, format, target);
}

void Func::compile_to_llvm_assembly(const std::string &filename,
                                    const std::vector<Argument> &args, const Target &target) {
    pipeline().compile_to_llvm_assembly(filename, args, target);
}

void Func::compile_to_static_library(const std::string &filename_prefix,
                                     const std::vector<Argument> &args, const std::string &fn_name,
                                     const Target &target) {
    pipeline().compile_to_static_library(filename_prefix, args, fn_name, target);
}

void Func::compile_to_multitarget_static_library(const std::string &filename_prefix,
                                                 const std::vector<Argument> &args,
                                                 const std::string &fn_name,
                                                 const std::vector<Target> &targets) {
    pipeline().compile_to_multitarget_static_library(filename_prefix, args, fn_name, targets);
}

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    pipeline().compile_to_object(filename, args, fn_name, target);
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    pipeline().compile_to_header(filename, args, fn_name, target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    pipeline().compile_to_assembly(filename, args, fn_name, target);
}

void Func::compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                    const std::string &fn_name, const Target &target) {
    pipeline().compile_to_llvm_assembly(filename, args, fn_name, target);
}

void Func::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                              const std::string &fn_name, const Target &target) {
    pipeline().compile_to_bitcode(filename, args, fn_name, target);
}

void Func::compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target) {
    pipeline().compile_to_file(filename_prefix, args, fn_name, target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const Target &target) {
    pipeline().compile_to_assembly(filename, args, target);
}

LoopLevel::LoopLevel() : LoopLevel(Kind::Undefined, "", "", -1) {}

LoopLevel::LoopLevel(Kind k, std::string f, std::string v, int s)
    : contents(std::make_shared<Contents>(Contents{k, std::move(f), std::move(v), s})) {}

LoopLevel::LoopLevel(const Func &f, const VarOrRVar &var, int stage)
    : LoopLevel(Kind::At, f.name(), var.name(), stage) {}

std::string LoopLevel::to_string() const {
    switch (contents->kind) {
    case Kind::Undefined:
        return "undefined";
    case Kind::Inlined: return "inlined";
    case Kind::Root: return "root";
    case Kind::At:
        return func() + "." + var();
    }
    return "";
}

void LoopLevel::set(const LoopLevel &other) {
    user_assert(!contents->locked)
        << "LoopLevel " << to_string() << " can't be set to " << other.to_string()
        << ": a pipeline has been compiled with it, and its schedule would not follow. Set it "
           "before the first realize or compile, or give the Func a new level with compute_at.";
    *contents = *other.contents;
    contents->locked = false; // this level's lock, not other's
}

LoopLevel &LoopLevel::lock() {
    user_assert(defined())
        << "A Func is placed at an undefined LoopLevel (one made with LoopLevel() and never "
           "set). Use LoopLevel::inlined() or LoopLevel::root(), or set() it before compiling.";
    contents->locked = true;
    return *this;
}

bool LoopLevel::match(const std::string &loop) const {
    if (contents->kind != Kind::At) return false;
    const std::string prefix =
        stage_index() < 0 ? func() + "." : func() + ".s" + std::to_string(stage_index()) + ".";
    const std::string suffix = "." + var();
    // As Halide's: the prefix and suffix may share the dot between them ("f.x" is f.x's loop).
    return loop.compare(0, prefix.size(), prefix) == 0 && loop.size() >= suffix.size() &&
           loop.compare(loop.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool LoopLevel::match(const LoopLevel &other) const {
    auto ends_with = [](const std::string &s, const std::string &end) {
        return s.size() >= end.size() && s.compare(s.size() - end.size(), end.size(), end) == 0;
    };
    return contents->kind == other.contents->kind && func() == other.func() &&
           stage_index() == other.stage_index() &&
           (var() == other.var() || ends_with(var(), "." + other.var()) ||
            ends_with(other.var(), "." + var()));
}

}  // namespace loom
