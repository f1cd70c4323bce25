// RVar: one dimension of a reduction domain (RDom), or a loop named in a directive.
#pragma once

#include <memory>
#include <string>

#include "dsl/IR.h"

namespace loom {

namespace Internal {
struct ReductionDomainContents;
}

class RVar {
public:
    /** An RVar with a fresh name, for the loops a split makes (as in Halide). */
    RVar();
    RVar(std::shared_ptr<Internal::ReductionDomainContents> dom, int index)
        : dom(std::move(dom)), index(index) {}
    /** An RVar named only, to name a loop in a directive (Halide's RVar("r$x")). */
    explicit RVar(const std::string &name) : standalone_name(name) {}
    const std::string &name() const;
    Expr min() const;
    Expr extent() const;
    operator Expr() const;

private:
    std::shared_ptr<Internal::ReductionDomainContents> dom;
    int index = 0;
    std::string standalone_name;
};

} // namespace loom
