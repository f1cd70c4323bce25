#include "dsl/OutputImageParam.h"

#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IROperator.h"

namespace loom {

OutputImageParam &OutputImageParam::set_host_alignment(int bytes) {
    user_assert(bytes > 0 && (bytes & (bytes - 1)) == 0)
        << "The output buffer of Func " << name() << ": set_host_alignment(" << bytes
        << "): an alignment is a power of two bytes";
    func->output_host_alignment = bytes;
    return *this;
}

int OutputImageParam::host_alignment() const {
    return func->output_host_alignment ? func->output_host_alignment : type().bytes();
}

OutputImageParam::Dim OutputImageParam::dim(int i) const {
    user_assert(i >= 0 && i < dimensions())
        << "The output buffer of Func " << name() << " has " << dimensions() << " dimensions; dim("
        << i << ") does not exist";
    return Dim(func, i);
}

Expr OutputImageParam::Dim::field(const char *name) const {
    // The names the pipeline binds from the output's loom_buffer_t at entry.
    return Internal::int_var(func->buffer_name(0) + "." + name + "." + std::to_string(d));
}

Expr OutputImageParam::Dim::max() const { return min() + extent() - 1; }

Internal::DimConstraint &OutputImageParam::Dim::constraint() const {
    if (func->output_constraints.empty())
        func->output_constraints = Internal::default_constraints(func->dimensions());
    return func->output_constraints[d];
}

OutputImageParam::Dim OutputImageParam::Dim::set_min(const Expr &min) {
    Internal::constrain(constraint().min, min, "set_min", "the output buffer of " + func->name, d);
    return *this;
}

OutputImageParam::Dim OutputImageParam::Dim::set_extent(const Expr &extent) {
    Internal::constrain(constraint().extent, extent, "set_extent",
                        "the output buffer of " + func->name, d);
    return *this;
}

OutputImageParam::Dim OutputImageParam::Dim::set_stride(const Expr &stride) {
    Internal::constrain(constraint().stride, stride, "set_stride",
                        "the output buffer of " + func->name, d);
    return *this;
}

OutputImageParam::Dim OutputImageParam::Dim::set_bounds(const Expr &min, const Expr &extent) {
    return set_min(min).set_extent(extent);
}

OutputImageParam Func::output_buffer() const {
    user_assert(func->defined()) << "output_buffer() of Func " << name()
                                 << ", which has no definition yet. Define it first.";
    return OutputImageParam(func);
}

std::vector<OutputImageParam> Func::output_buffers() const {
    user_assert(func->defined()) << "output_buffers() of Func " << name()
                                 << ", which has no definition yet. Define it first.";
    return std::vector<OutputImageParam>(func->outputs(), OutputImageParam(func));
}

} // namespace loom
