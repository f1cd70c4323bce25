// The shared state behind Param<T> and ImageParam: a named pipeline input whose value is
// bound at run time. Exprs refer to it, so a compiled pipeline reads the value current when
// it runs, never the value at compile time.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "dsl/IR.h"
#include "dsl/Type.h"

namespace loom {
namespace Internal {

struct BufferContents;
struct FunctionContents;

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
