// RDom: a reduction domain, the iteration space of an update definition. Its RVars iterate
// the box [min, min + extent) of each dimension, r.x innermost, in order, restricted to the
// points where every where() condition holds.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/IR.h"
#include "dsl/ImageParam.h"
#include "dsl/Stage.h"

namespace loom {

namespace Internal {

struct ReductionVariable {
    std::string var;
    Expr min, extent;
};

struct ReductionDomainContents {
    std::string name;
    std::vector<ReductionVariable> domain;
    Expr predicate;  // conjunction of the where() conditions; undefined means true
};

}  // namespace Internal

class RDom {
public:
    RDom() = default;
    /** RDom(min0, extent0, min1, extent1, ...), one pair per dimension. */
    explicit RDom(const Internal::Region &region, const std::string &name = "");
    RDom(const Expr &min, const Expr &extent, const std::string &name = "");
    RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
         const std::string &name = "");
    RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
         const Expr &min2, const Expr &extent2, const std::string &name = "");
    RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
         const Expr &min2, const Expr &extent2, const Expr &min3, const Expr &extent3,
         const std::string &name = "");
    /** The region a Buffer or ImageParam covers. */
    template <typename T, int D> explicit RDom(const Buffer<T, D> &b) : RDom(region_of(b)) {}
    explicit RDom(const ImageParam &p) : RDom(region_of(p)) {}

    /** Restricts the domain to the points where `condition` holds (of this RDom's RVars). */
    void where(Expr condition);

    int dimensions() const;
    RVar operator[](int i) const;
    bool defined() const { return dom != nullptr; }
    const std::string &name() const;
    /** A one-dimensional RDom converts to its RVar. */
    operator Expr() const;
    operator RVar() const;
    operator VarOrRVar() const { return VarOrRVar(RVar(*this)); }

    RVar x, y, z, w;

    const std::shared_ptr<Internal::ReductionDomainContents> &domain() const { return dom; }
    /** Whether both name the same domain (copies of one RDom). */
    bool same_as(const RDom &other) const { return dom == other.dom; }

private:
    std::shared_ptr<Internal::ReductionDomainContents> dom;
    template<typename T>
    static Internal::Region region_of(const T &b) {
        Internal::Region r;
        for (int i = 0; i < b.dimensions(); i++) r.emplace_back(Expr(b.dim(i).min()), Expr(b.dim(i).extent()));
        return r;
    }
};

/** As Halide prints them: "r.x(min, extent)", and an RDom as its RVars, one per line, with
 * its where() predicate. */
std::ostream &operator<<(std::ostream &stream, const RVar &v);
std::ostream &operator<<(std::ostream &stream, const RDom &dom);

}  // namespace loom
