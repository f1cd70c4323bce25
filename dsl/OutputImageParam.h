// Func::output_buffer(): the output buffer of a pipeline's output Func, whose shape a run's
// buffer must have (Halide 14's OutputImageParam, for constraints).
#pragma once

#include <string>

#include "dsl/Expr.h"
#include "dsl/Function.h"

namespace loom {

class OutputImageParam {
public:
    explicit OutputImageParam(Internal::FunctionPtr f) : func(std::move(f)) {}

    const std::string &name() const { return func->name; }
    Type type() const { return func->output_types.at(0); }
    int dimensions() const { return func->dimensions(); }

    /** One dimension of the output buffer: its shape as Exprs read when the pipeline runs,
     * and constraints the buffer each run is given must meet (checked at entry; the stride
     * then indexes the buffer, so a constant one gives dense or strided vector stores).
     * Dimension 0 has stride 1 unless set otherwise; an undefined Expr lifts a constraint. */
    class Dim {
    public:
        Dim(Internal::FunctionPtr f, int d) : func(std::move(f)), d(d) {}
        Expr min() const { return field("min"); }
        Expr extent() const { return field("extent"); }
        Expr max() const;
        Expr stride() const { return field("stride"); }
        Dim set_min(const Expr &min);
        Dim set_extent(const Expr &extent);
        Dim set_stride(const Expr &stride);
        Dim set_bounds(const Expr &min, const Expr &extent);

    private:
        Internal::FunctionPtr func;
        int d;
        Expr field(const char *name) const;
        Internal::DimConstraint &constraint() const;
    };
    Dim dim(int i) const;
    /** Halide's: the alignment in bytes of the output buffer's host pointer, checked at entry (a
     * power of two); host_alignment() is the element size where none was set. */
    OutputImageParam &set_host_alignment(int bytes);
    int host_alignment() const;

private:
    Internal::FunctionPtr func;
};

} // namespace loom
