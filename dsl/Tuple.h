// Several values computed by one Func at each point.
#pragma once

#include <initializer_list>
#include <vector>

#include "dsl/Expr.h"

namespace loom {

class FuncRef;

class Tuple {
public:
    Tuple(std::initializer_list<Expr> values) : exprs(values) {}
    explicit Tuple(std::vector<Expr> values) : exprs(std::move(values)) {}
    explicit Tuple(const Expr &e) : exprs{e} {}
    template<typename... Rest>
    Tuple(const Expr &a, const Expr &b, Rest &&...rest) : exprs{a, b, Expr(rest)...} {}
    /** The values of a Tuple-valued Func at a point. */
    Tuple(const FuncRef &ref);

    size_t size() const { return exprs.size(); }
    Expr &operator[](size_t i) { return exprs.at(i); }
    const Expr &operator[](size_t i) const { return exprs.at(i); }
    const std::vector<Expr> &as_vector() const { return exprs; }

private:
    std::vector<Expr> exprs;
};

}  // namespace loom
