#include "dsl/ImageParam.h"

#include "dsl/Func.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {

ImageParam::ImageParam(Type t, int dimensions, const std::string &name)
    : contents(std::make_shared<Internal::ParameterContents>()),
      owned_wrappers(std::make_shared<std::vector<std::shared_ptr<Internal::FunctionContents>>>()) {
    user_assert(dimensions >= 0) << "ImageParam " << name << " needs a non-negative dimension count";
    user_assert(t.is_scalar() && !t.is_handle())
        << "ImageParam " << name << " needs a scalar numeric element type, not " << t;
    contents->name = name.empty() ? Internal::unique_user_name('i') : name;
    contents->type = t;
    contents->is_buffer = true;
    contents->dimensions = dimensions;
    contents->buffer_estimates.resize(dimensions);
    contents->constraints = Internal::default_constraints(dimensions);
}

const std::string &ImageParam::name() const {
    user_assert(contents) << "Use of an undefined ImageParam";
    return contents->name;
}

Type ImageParam::type() const { return contents->type; }
int ImageParam::dimensions() const { return contents->dimensions; }

void ImageParam::set(const Buffer<> &b) {
    user_assert(contents) << "set() on an undefined ImageParam";
    user_assert(b.defined()) << "ImageParam " << name() << " was set to an undefined Buffer";
    user_assert(b.type() == contents->type)
        << "ImageParam " << name() << " has type " << type_to_string(contents->type)
        << " but was set to Buffer " << b.name() << " of type " << type_to_string(b.type())
        << ". Pass a Buffer<" << type_to_string(contents->type) << ">.";
    user_assert(b.dimensions() == contents->dimensions)
        << "ImageParam " << name() << " has " << contents->dimensions
        << " dimensions but was set to Buffer " << b.name() << " with " << b.dimensions();
    contents->buffer = b.contents_ptr();
}

void ImageParam::reset() {
    user_assert(contents) << "reset() on an undefined ImageParam";
    contents->buffer = nullptr;
}

ImageParam::Dim ImageParam::Dim::dim(int i) const {
    user_assert(i >= 0 && i < param->dimensions)
        << "ImageParam " << param->name << " has " << param->dimensions << " dimensions; dim(" << i
        << ") does not exist";
    return Dim(param, i);
}

Buffer<> ImageParam::get() const {
    if (!contents) return Buffer<>();
    return Buffer<>::from_contents(contents->buffer);
}

ImageParam &ImageParam::set_host_alignment(int bytes) {
    user_assert(contents) << "set_host_alignment of an undefined ImageParam";
    user_assert(bytes > 0 && (bytes & (bytes - 1)) == 0)
        << "ImageParam " << contents->name << ": set_host_alignment(" << bytes
        << "): an alignment is a power of two bytes";
    contents->host_alignment = bytes;
    return *this;
}

ImageParam &ImageParam::trace_loads() {
    user_assert(contents) << "trace_loads of an undefined ImageParam";
    contents->trace_loads = true;
    return *this;
}

ImageParam &ImageParam::add_trace_tag(const std::string &trace_tag) {
    user_assert(contents) << "add_trace_tag of an undefined ImageParam";
    user_assert(trace_tag.find('\0') == std::string::npos)
        << "ImageParam " << contents->name << ": a trace tag can't hold the null character";
    contents->trace_tags.push_back(trace_tag);
    return *this;
}

int ImageParam::host_alignment() const {
    user_assert(contents) << "host_alignment of an undefined ImageParam";
    return contents->host_alignment ? contents->host_alignment : contents->type.bytes();
}

ImageParam::Dim ImageParam::dim(int i) const {
    user_assert(contents) << "dim() of an undefined ImageParam";
    user_assert(i >= 0 && i < contents->dimensions)
        << "ImageParam " << contents->name << " has " << contents->dimensions
        << " dimensions; dim(" << i << ") does not exist";
    return Dim(contents, i);
}

Expr ImageParam::Dim::max() const { return min() + extent() - 1; }

ImageParam::Dim ImageParam::Dim::set_estimate(const Expr &min, const Expr &extent) {
    user_assert(min.defined() && extent.defined() && min.type().is_int_or_uint() &&
                extent.type().is_int_or_uint())
        << "In set_estimate of dimension " << d << " of ImageParam " << param->name
        << ": give an integer min and extent.";
    param->buffer_estimates[d] = Internal::Range(min, extent);
    return *this;
}

Expr ImageParam::Dim::min_estimate() const { return param->buffer_estimates[d].min; }
Expr ImageParam::Dim::extent_estimate() const { return param->buffer_estimates[d].extent; }

ImageParam &ImageParam::set_estimates(const Internal::Region &estimates) {
    user_assert(contents) << "set_estimates of an undefined ImageParam";
    user_assert((int)estimates.size() == contents->dimensions)
        << "In set_estimates of ImageParam " << contents->name << ": " << estimates.size()
        << " ranges given for its " << contents->dimensions
        << " dimensions. Give one {min, extent} per dimension.";
    for (int i = 0; i < contents->dimensions; i++)
        dim(i).set_estimate(estimates[i].min, estimates[i].extent);
    return *this;
}

ImageParam::Dim ImageParam::Dim::set_min(const Expr &min) {
    Internal::constrain(param->constraints[d].min, min, "set_min", "ImageParam " + param->name, d);
    return *this;
}

ImageParam::Dim ImageParam::Dim::set_extent(const Expr &extent) {
    Internal::constrain(param->constraints[d].extent, extent, "set_extent",
                        "ImageParam " + param->name, d);
    return *this;
}

ImageParam::Dim ImageParam::Dim::set_stride(const Expr &stride) {
    Internal::constrain(param->constraints[d].stride, stride, "set_stride",
                        "ImageParam " + param->name, d);
    return *this;
}

ImageParam::Dim ImageParam::Dim::set_bounds(const Expr &min, const Expr &extent) {
    return set_min(min).set_extent(extent);
}

Expr ImageParam::Dim::field(const char *name) const {
    // The same names the pipeline binds from the buffer's loom_buffer_t at entry.
    return Internal::Variable::make(Int(32), param->name + "." + name + "." + std::to_string(d), param);
}

Expr ImageParam::call(std::vector<Expr> args) const {
    user_assert(contents) << "Call to an undefined ImageParam";
    Internal::expand_placeholder(args, contents->dimensions);
    user_assert((int)args.size() == contents->dimensions)
        << "ImageParam " << contents->name << " has " << contents->dimensions
        << " dimensions but is called with " << args.size()
        << " arguments. Pass one coordinate per dimension.";
    for (size_t i = 0; i < args.size(); i++) {
        user_assert(args[i].defined() && args[i].type().is_int_or_uint() &&
                    args[i].type().is_scalar())
            << "Coordinate " << i << " of the call to ImageParam " << contents->name
            << " must be a scalar integer, but is " << args[i];
        if (args[i].type() != Int(32)) args[i] = Internal::Cast::make(Int(32), args[i]);
    }
    return Internal::Call::make(contents->type, contents->name, std::move(args),
                                Internal::Call::Image, nullptr, 0, nullptr, contents);
}

Func ImageParam::wrapper_for(const std::vector<std::string> &consumers, const std::string &name) {
    user_assert(contents) << "in() on an undefined ImageParam";
    // Consumers that have a wrapper already must all have the same one, which is returned.
    std::shared_ptr<Internal::FunctionContents> shared;
    for (const std::string &c : consumers) {
        auto it = contents->wrappers.find(c);
        if (it == contents->wrappers.end()) continue;
        std::shared_ptr<Internal::FunctionContents> w = it->second.lock();
        if (!w) continue;
        user_assert(!shared || shared == w)
            << "ImageParam " << contents->name << ".in({...}): the listed consumers already "
            << "have different wrappers of " << contents->name << " (" << shared->name << " and "
            << w->name << "). A wrapper is shared only by Funcs wrapped together.";
        shared = w;
    }
    if (!shared) {
        Func wrapper(name);
        std::vector<Var> vars;
        for (int d = 0; d < contents->dimensions; d++)
            vars.push_back(Var("_" + std::to_string(d)));
        wrapper(vars) = (*this)(std::vector<Expr>(vars.begin(), vars.end()));
        shared = wrapper.function();
        shared->wraps = contents->name;
        owned_wrappers->push_back(shared);
    }
    for (const std::string &c : consumers)
        contents->wrappers[c] = shared;
    return Func(shared);
}

Func ImageParam::in(const Func &consumer) {
    return wrapper_for({consumer.name()}, name() + "_im_in_" + consumer.name());
}

Func ImageParam::in(const std::vector<Func> &consumers) {
    user_assert(!consumers.empty())
        << "ImageParam " << name() << ".in({}) names no consumer: give it the Funcs whose "
        << "calls the wrapper should take, or call in() for every caller.";
    std::vector<std::string> names;
    for (const Func &c : consumers)
        names.push_back(c.name());
    if (names.size() == 1) return in(consumers[0]);
    return wrapper_for(names, name() + "_im_wrapper_" + Internal::unique_user_name('w'));
}

Func ImageParam::in() { return wrapper_for({""}, name() + "_im_global_wrapper"); }

ImageParam::operator Func() const {
    user_assert(contents) << "Func of an undefined ImageParam";
    const std::string func_name = name() + "_im";
    for (const std::shared_ptr<Internal::FunctionContents> &f : *owned_wrappers) {
        if (f->name == func_name) return Func(f);
    }
    Func f(func_name);
    std::vector<Expr> vars;
    for (int d = 0; d < contents->dimensions; d++)
        vars.push_back(Var("_" + std::to_string(d)));
    f(vars) = call(vars);
    owned_wrappers->push_back(f.function());
    return f;
}

}  // namespace loom
