// Arguments of an extern stage (Func::define_extern): the C function a Func is defined by is
// called with each argument in order, a scalar for an Expr, a loom_buffer_t * for a Func, a
// Buffer or an ImageParam, and then one loom_buffer_t * per output (Halide's calling
// convention: see Func::define_extern).
#pragma once

#include <memory>
#include <type_traits>

#include "dsl/Buffer.h"
#include "dsl/Expr.h"
#include "dsl/Function.h"
#include "dsl/Parameter.h"

namespace loom {

class Func;
class ImageParam;
template <typename T> class Param;

/** How an extern stage's function name is written in the object file. Loom calls C functions:
 * Default and C are the name as given; CPlusPlus (Halide's mangled C++ names) is refused. */
enum class NameMangling { Default, C, CPlusPlus };

struct ExternFuncArgument {
    enum ArgType { UndefinedArg = 0, FuncArg, BufferArg, ExprArg, ImageParamArg };
    ArgType arg_type = UndefinedArg;
    Internal::FunctionPtr func;
    std::shared_ptr<Internal::BufferContents> buffer;
    Expr expr;
    std::shared_ptr<Internal::ParameterContents> image_param;

    ExternFuncArgument() = default;
    ExternFuncArgument(const Func &f);
    ExternFuncArgument(const ImageParam &p);
    ExternFuncArgument(Internal::FunctionPtr f) : arg_type(FuncArg), func(std::move(f)) {}
    template <typename T, int Dims>
    ExternFuncArgument(const Buffer<T, Dims> &b)
        : arg_type(BufferArg), buffer(Buffer<>(b).contents_ptr()) {}
    ExternFuncArgument(Expr e) : arg_type(ExprArg), expr(std::move(e)) {}
    template <typename T>
    ExternFuncArgument(const Param<T> &p) : arg_type(ExprArg), expr(Expr(p)) {}
    template <typename T, typename = std::enable_if_t<std::is_arithmetic<T>::value>>
    ExternFuncArgument(T value) : arg_type(ExprArg), expr(Expr(value)) {}

    bool is_func() const { return arg_type == FuncArg; }
    bool is_expr() const { return arg_type == ExprArg; }
    bool is_buffer() const { return arg_type == BufferArg; }
    bool is_image_param() const { return arg_type == ImageParamArg; }
    bool defined() const { return arg_type != UndefinedArg; }
};

} // namespace loom
