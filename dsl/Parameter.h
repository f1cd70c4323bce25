// The shared state behind Param<T> and ImageParam: a named pipeline input whose value is
// bound at run time. Exprs refer to it, so a compiled pipeline reads the value current when
// it runs, never the value at compile time.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/IR.h"
#include "dsl/Type.h"

namespace loom {
namespace Internal {

struct BufferContents;
struct FunctionContents;

/** A constraint on one dimension of a pipeline's input or output buffer (Halide's
 * dim(i).set_min / set_extent / set_stride): each defined field must hold of the buffer a run
 * is given (checked at entry), and flattening indexes the buffer with the constrained stride (a
 * constant lets loads and stores be dense vectors). By default dimension 0 has stride 1, as in
 * Halide; set_stride(Expr()) lifts that. */
struct DimConstraint {
    Expr min, extent, stride;
};

/** The constraints of a buffer of `dimensions` dimensions that nothing has changed. */
inline std::vector<DimConstraint> default_constraints(int dimensions) {
    std::vector<DimConstraint> c(dimensions);
    if (dimensions > 0) c[0].stride = IntImm::make(Int(32), 1);
    return c;
}

/** Sets `slot` (a DimConstraint field) to `value` (an integer Expr, made Int(32); undefined
 * lifts the constraint), with errors naming `directive`, `owner` and dimension d. */
void constrain(Expr &slot, const Expr &value, const char *directive, const std::string &owner,
               int d);

struct ParameterContents {
    std::string name;
    Type type;
    bool is_buffer = false;
    int dimensions = 0;
    /** Scalar value, in the low bytes (a union of every scalar type). */
    uint64_t scalar_bits = 0;
    bool scalar_set = false;
    /** The Buffer bound to an ImageParam. */
    std::shared_ptr<BufferContents> buffer;
    /** What auto-schedulers assume where the value is not known (Param::set_estimate,
     * ImageParam::set_estimates): a scalar's value, an image's min and extent per dimension
     * (one Range per dimension of an image, undefined where none was given). They change no code.
     */
    Expr scalar_estimate;
    Region buffer_estimates;
    /** A scalar's range (Param::set_range): each run checks the value against it first and
     * reports a value outside it. Undefined where not given. */
    Expr min_value, max_value;
    /** ImageParam::in: the wrappers that take over this image's calls, by the name of the Func
     * whose calls each takes ("" for the global wrapper). Weak: the ImageParam objects own
     * them (a wrapper reads this image, so an owning reference here would be a cycle); the
     * Funcs whose calls are redirected own theirs from then on. */
    std::map<std::string, std::weak_ptr<FunctionContents>> wrappers;
    /** An image's constraints, one per dimension (ImageParam::Dim::set_*). */
    std::vector<DimConstraint> constraints;
    /** The alignment in bytes every run's host pointer must have (set_host_alignment); 0 for
     * none beyond the element type's. */
    int host_alignment = 0;
    /** ImageParam::trace_loads and add_trace_tag: every load of the image is traced, the tags
     * reported with its events. */
    bool trace_loads = false;
    std::vector<std::string> trace_tags;

    template<typename T>
    void set_scalar(T value) {
        static_assert(sizeof(T) <= sizeof(scalar_bits), "scalar too wide");
        scalar_bits = 0;
        std::memcpy(&scalar_bits, &value, sizeof(T));
        scalar_set = true;
    }
    template<typename T>
    T get_scalar() const {
        T value;
        std::memcpy(&value, &scalar_bits, sizeof(T));
        return value;
    }
};

}  // namespace Internal
}  // namespace loom
