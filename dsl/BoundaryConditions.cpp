#include "dsl/BoundaryConditions.h"

#include "dsl/Error.h"

namespace loom {
namespace BoundaryConditions {

namespace {

// Builds a Func over the source's Vars whose coordinates in the bounded dimensions are
// remapped by `remap(x, min, extent)`; `wrap` may then post-process the values.
template<typename Remap>
Func remap_coordinates(const Func &source, const Region &bounds, const char *kind, Remap remap,
                       std::vector<Expr> *args_out = nullptr) {
    user_assert(source.defined()) << kind << " of Func " << source.name()
                                  << ", which has no definition";
    user_assert((int)bounds.size() <= source.dimensions())
        << kind << " of Func " << source.name() << " with " << bounds.size()
        << " bounds, but it has only " << source.dimensions() << " dimensions";
    std::vector<Var> vars;
    std::vector<Expr> args, raw;
    for (int i = 0; i < source.dimensions(); i++) {
        vars.emplace_back(source.name() + "_" + kind + "_v" + std::to_string(i));
        Expr x = vars.back();
        raw.push_back(x);
        if (i < (int)bounds.size() && bounds[i].min.defined() && bounds[i].extent.defined()) {
            x = remap(x, cast(Int(32), bounds[i].min), cast(Int(32), bounds[i].extent));
        }
        args.push_back(x);
    }
    if (args_out) *args_out = raw;
    Func f(source.name() + "_" + kind + "_" + loom::Internal::unique_user_name('b'));
    if (source.outputs() == 1) {
        f(vars) = source(args);
    } else {
        f(vars) = Tuple(source(args));
    }
    return f;
}

Expr clamp_to(const Expr &x, const Expr &min, const Expr &extent) {
    return clamp(x, min, min + extent - 1);
}

// Every boundary condition is the identity inside the bounds, which is where nearly all of a
// loop's iterations are: `likely` marks that case, and loop partitioning (lower/PartitionLoops)
// gives it a steady state of its own where the clamp or the select is gone. The clamp stays
// around the inside case too, so that bounds inference reads only inside the bounds.
Expr likely_inside(const Expr &x, const Expr &min, const Expr &extent) {
    return clamp(likely(x), min, min + extent - 1);
}

/** The coordinate `remap` gives outside [min, min + extent), x itself inside. */
template<typename Remap>
Expr identity_inside(const Expr &x, const Expr &min, const Expr &extent, Remap remap) {
    return select(likely(x >= min && x <= min + extent - 1), likely_inside(x, min, extent),
                  remap(x, min, extent));
}

}  // namespace

Func repeat_edge(const Func &source, const Region &bounds) {
    return remap_coordinates(source, bounds, "repeat_edge", likely_inside);
}

Func constant_exterior(const Func &source, const Tuple &value, const Region &bounds) {
    user_assert(value.size() == (size_t)source.outputs())
        << "constant_exterior of Func " << source.name() << " with " << value.size()
        << " values, but it has " << source.outputs();
    Func inside = repeat_edge(source, bounds);
    std::vector<Var> vars;
    std::vector<Expr> args;
    // One select per bounded dimension, each on that dimension alone: loop partitioning then
    // removes each in the steady state of the loop over its own coordinate.
    std::vector<Expr> within;
    for (int i = 0; i < source.dimensions(); i++) {
        vars.emplace_back(source.name() + "_constant_exterior_v" + std::to_string(i));
        args.push_back(vars.back());
        if (i < (int)bounds.size() && bounds[i].min.defined() && bounds[i].extent.defined()) {
            Expr mn = cast(Int(32), bounds[i].min), ext = cast(Int(32), bounds[i].extent);
            within.push_back(args.back() >= mn && args.back() <= mn + ext - 1);
        }
    }
    Func f(source.name() + "_constant_exterior_" + loom::Internal::unique_user_name('b'));
    std::vector<Expr> values;
    for (size_t k = 0; k < value.size(); k++) {
        Expr in = source.outputs() == 1 ? Expr(inside(args)) : inside(args)[(int)k];
        Expr exterior = cast(in.type(), value[k]);
        for (auto it = within.rbegin(); it != within.rend(); ++it) in = select(likely(*it), in, exterior);
        values.push_back(in);
    }
    if (values.size() == 1) {
        f(vars) = values[0];
    } else {
        f(vars) = Tuple(values);
    }
    return f;
}

Func constant_exterior(const Func &source, const Expr &value, const Region &bounds) {
    return constant_exterior(source, Tuple({value}), bounds);
}

Func repeat_image(const Func &source, const Region &bounds) {
    return remap_coordinates(source, bounds, "repeat_image", [](Expr x, Expr mn, Expr ext) {
        return identity_inside(x, mn, ext, [](Expr x, Expr mn, Expr ext) {
            return clamp_to((x - mn) % ext + mn, mn, ext);
        });
    });
}

Func mirror_image(const Func &source, const Region &bounds) {
    return remap_coordinates(source, bounds, "mirror_image", [](Expr x, Expr mn, Expr ext) {
        return identity_inside(x, mn, ext, [](Expr x, Expr mn, Expr ext) {
            Expr c = (x - mn) % (2 * ext);
            c = min(c, 2 * ext - 1 - c);
            return clamp_to(c + mn, mn, ext);
        });
    });
}

Func mirror_interior(const Func &source, const Region &bounds) {
    return remap_coordinates(source, bounds, "mirror_interior", [](Expr x, Expr mn, Expr ext) {
        return identity_inside(x, mn, ext, [](Expr x, Expr mn, Expr ext) {
            Expr limit = ext - 1;
            Expr c = (x - mn) % (2 * limit);
            c = limit - abs(c - limit);
            return clamp_to(cast(Int(32), c) + mn, mn, ext);
        });
    });
}

}  // namespace BoundaryConditions
}  // namespace loom
