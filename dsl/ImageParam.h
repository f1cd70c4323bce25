// ImageParam: an input buffer of a pipeline, bound with set() before each run.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/Parameter.h"
#include "dsl/Var.h"

namespace loom {

class Func;

class ImageParam {
public:
    ImageParam() = default;
    ImageParam(Type t, int dimensions, const std::string &name = "");

    const std::string &name() const;
    Type type() const;
    int dimensions() const;

    /** Binds the buffer the next run reads. Its type and dimensions must match. */
    void set(const Buffer<> &b);
    Buffer<> get() const;
    bool defined() const { return contents != nullptr; }

    /** A read of the image inside a definition: f(x, y) = in(x, y + 1). */
    template<typename... Args>
    Expr operator()(const Args &...args) const {
        return call({Expr(args)...});
    }
    Expr operator()(const std::vector<Expr> &args) const { return call(args); }
    Expr operator()(const std::vector<Var> &args) const {
        return call(std::vector<Expr>(args.begin(), args.end()));
    }

    /** The bound buffer's shape, as Exprs read when the pipeline runs (Halide's
     * ImageParam::dim(i).min() etc.). */
    class Dim {
    public:
        Dim(std::shared_ptr<Internal::ParameterContents> p, int d) : param(std::move(p)), d(d) {}
        Expr min() const { return field("min"); }
        Expr extent() const { return field("extent"); }
        Expr max() const;
        Expr stride() const { return field("stride"); }
        /** The min and extent auto-schedulers assume for this dimension (Halide's
         * Dimension::set_estimate); changes no code. */
        Dim set_estimate(const Expr &min, const Expr &extent);
        /** Constraints the buffer each run is given must meet (checked at entry; the stride
         * then indexes the buffer, so a constant one gives dense or strided vector loads).
         * Dimension 0 has stride 1 unless set otherwise; an undefined Expr lifts a
         * constraint (set_stride(Expr()): any stride). */
        Dim set_min(const Expr &min);
        Dim set_extent(const Expr &extent);
        Dim set_stride(const Expr &stride);
        Dim set_bounds(const Expr &min, const Expr &extent);
        /** The estimate set_estimate gave (undefined where none was). */
        Expr min_estimate() const;
        Expr extent_estimate() const;
        /** Another dimension of the same image (Halide's Dimension::dim). */
        Dim dim(int i) const;

    private:
        std::shared_ptr<Internal::ParameterContents> param;
        int d;
        Expr field(const char *name) const;
    };
    Dim dim(int i) const;
    Expr width() const { return dim(0).extent(); }
    Expr height() const { return dim(1).extent(); }
    Expr channels() const { return dim(2).extent(); }
    /** Halide's names for the bounds of the first two dimensions. */
    Expr left() const { return dim(0).min(); }
    Expr right() const { return dim(0).max(); }
    Expr top() const { return dim(1).min(); }
    Expr bottom() const { return dim(1).max(); }
    /** Unbinds the buffer set() gave (the next run needs another). */
    void reset();
    /** dim(i).set_estimate(estimates[i].min, estimates[i].extent) for every dimension. */
    ImageParam &set_estimates(const Internal::Region &estimates);
    /** Halide's: the alignment in bytes of the host pointer of every buffer a run is given,
     * checked at entry (a power of two). host_alignment() is the element size where none was
     * set. */
    ImageParam &set_host_alignment(int bytes);
    int host_alignment() const;
    /** Halide's: every load of the image is traced (a Load event at the pipeline's level), and
     * the tag is reported with the image's events (as Func::add_trace_tag). */
    ImageParam &trace_loads();
    ImageParam &add_trace_tag(const std::string &trace_tag);

    /** Wrappers (Halide 14's ImageParam::in): a Func whose pure definition reads this image
     * at the same point (its pure Vars named _0, _1, ...), and which takes over the image's
     * calls in `consumer`, in each of `consumers`, or in every Func (in()). Scheduled like any
     * Func: an input tile staged into a local buffer, say. Calling it again for the same
     * consumers returns the same wrapper. */
    Func in(const Func &consumer);
    Func in(const std::vector<Func> &consumers);
    Func in();
    /** A Func that reads this image at every point (Halide's ImageParam::operator Func): the
     * same Func for every copy of the ImageParam, so that it can be scheduled (compute_root()
     * copies the image, say). Calls to the image itself still read it directly. */
    operator Func() const;

    const std::shared_ptr<Internal::ParameterContents> &parameter() const { return contents; }

private:
    std::shared_ptr<Internal::ParameterContents> contents;
    /** The wrappers made by in(), owned by every copy of this ImageParam (see
     * ParameterContents::wrappers). */
    std::shared_ptr<std::vector<std::shared_ptr<Internal::FunctionContents>>> owned_wrappers;
    Func wrapper_for(const std::vector<std::string> &consumers, const std::string &name);
    Expr call(std::vector<Expr> args) const;
};

}  // namespace loom
