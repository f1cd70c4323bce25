// Funcs that extend a Func, ImageParam or Buffer beyond a region, so that a pipeline can read
// outside its input without reading out of bounds. Each returns a new Func defined over all
// coordinates; dimensions beyond the given region pass through unchanged.
#pragma once

#include <type_traits>
#include <utility>
#include <vector>

#include "dsl/Func.h"
#include "dsl/IROperator.h"

namespace loom {

using Internal::Range;
using Internal::Region;

namespace BoundaryConditions {

/** The nearest point of the region: source(clamp(x, min, max), ...). */
Func repeat_edge(const Func &source, const Region &bounds);
/** `value` outside the region, the source inside. */
Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds);
Func constant_exterior(const Func &source, const Expr &value, const Region &bounds);
/** The region tiled over the plane: ... w-2 w-1 | 0 1 2 ... (coordinates modulo the extent). */
Func repeat_image(const Func &source, const Region &bounds);
/** Reflection about the edges, the edge pixel repeated: ... 1 0 | 0 1 2 ... */
Func mirror_image(const Func &source, const Region &bounds);
/** Reflection about the edge pixels, not repeating them: ... 2 1 | 0 1 2 ... */
Func mirror_interior(const Func &source, const Region &bounds);

namespace Internal {

/** A Func reading an ImageParam or Buffer at every point. */
template<typename T>
Func func_like_to_func(const T &func_like) {
    std::vector<Var> vars;
    std::vector<Expr> args;
    for (int i = 0; i < func_like.dimensions(); i++) {
        vars.emplace_back(func_like.name() + "_v" + std::to_string(i));
        args.push_back(vars.back());
    }
    Func f(func_like.name() + "_wrapper_" + loom::Internal::unique_user_name('w'));
    f(vars) = func_like(args);
    return f;
}
inline Func func_like_to_func(const Func &f) { return f; }

/** The region an ImageParam or Buffer covers. */
template<typename T>
Region bounds_of(const T &func_like) {
    Region r;
    for (int i = 0; i < func_like.dimensions(); i++) {
        r.emplace_back(Expr(func_like.dim(i).min()), Expr(func_like.dim(i).extent()));
    }
    return r;
}

/** Whether Bounds are (min, extent) pairs of Exprs, Halide's variadic form of a Region. */
template <typename... Bounds>
constexpr bool is_bounds_list = sizeof...(Bounds) >= 2 && sizeof...(Bounds) % 2 == 0 &&
                                (std::is_convertible_v<Bounds, Expr> && ...);

/** min0, extent0, min1, extent1, ... as a Region. */
template <typename... Bounds> Region region_of_bounds(Bounds &&...bounds) {
    const std::vector<Expr> flat{Expr(std::forward<Bounds>(bounds))...};
    Region r;
    for (size_t i = 0; i < flat.size(); i += 2)
        r.emplace_back(flat[i], flat[i + 1]);
    return r;
}

}  // namespace Internal

template<typename T>
Func repeat_edge(const T &source, const Region &bounds) {
    return repeat_edge(Internal::func_like_to_func(source), bounds);
}
template<typename T>
Func repeat_edge(const T &source) {
    return repeat_edge(Internal::func_like_to_func(source), Internal::bounds_of(source));
}
template<typename T>
Func constant_exterior(const T &source, const Expr &value, const Region &bounds) {
    return constant_exterior(Internal::func_like_to_func(source), value, bounds);
}
template<typename T>
Func constant_exterior(const T &source, const Expr &value) {
    return constant_exterior(Internal::func_like_to_func(source), value, Internal::bounds_of(source));
}
template<typename T>
Func mirror_image(const T &source, const Region &bounds) {
    return mirror_image(Internal::func_like_to_func(source), bounds);
}
template<typename T>
Func mirror_image(const T &source) {
    return mirror_image(Internal::func_like_to_func(source), Internal::bounds_of(source));
}
template<typename T>
Func mirror_interior(const T &source, const Region &bounds) {
    return mirror_interior(Internal::func_like_to_func(source), bounds);
}
template<typename T>
Func mirror_interior(const T &source) {
    return mirror_interior(Internal::func_like_to_func(source), Internal::bounds_of(source));
}

template <typename T> Func repeat_image(const T &source, const Region &bounds) {
    return repeat_image(Internal::func_like_to_func(source), bounds);
}
template <typename T> Func repeat_image(const T &source) {
    return repeat_image(Internal::func_like_to_func(source), Internal::bounds_of(source));
}

// Halide's variadic form of constant_exterior: the bounds as min0, extent0, min1, extent1, ...
template <typename T, typename... Bounds,
          typename std::enable_if_t<Internal::is_bounds_list<Bounds...>> * = nullptr>
Func constant_exterior(const T &source, const Tuple &value, Bounds &&...bounds) {
    return constant_exterior(Internal::func_like_to_func(source), value,
                             Internal::region_of_bounds(std::forward<Bounds>(bounds)...));
}
template <typename T, typename... Bounds,
          typename std::enable_if_t<Internal::is_bounds_list<Bounds...>> * = nullptr>
Func constant_exterior(const T &source, const Expr &value, Bounds &&...bounds) {
    return constant_exterior(source, value,
                             Internal::region_of_bounds(std::forward<Bounds>(bounds)...));
}

}  // namespace BoundaryConditions
}  // namespace loom
