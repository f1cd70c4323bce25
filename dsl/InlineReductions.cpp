#include "dsl/InlineReductions.h"

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

namespace loom {

using namespace Internal;

namespace {

// The free pure Vars of e, in order of first use, and the RDom of its RVars.
class FindVarsAndRDom : public IRVisitor {
public:
    std::vector<std::string> vars;
    std::shared_ptr<ReductionDomainContents> rdom;
    int rdoms = 0;

private:
    void visit(const Variable *op) override {
        if (op->rdom) {
            if (rdom != op->rdom) {
                rdoms++;
                rdom = op->rdom;
            }
        } else if (!op->param) {
            for (const std::string &v : vars) {
                if (v == op->name) return;
            }
            vars.push_back(op->name);
        }
    }
};

struct Reduction {
    Func f;
    std::vector<Expr> args;
    std::shared_ptr<ReductionDomainContents> rdom;
};

// `given`: the RDom the caller names (Halide's sum(r, e)), over which e is reduced even where
// e reads none of its RVars; else the one RDom e's RVars belong to.
Reduction start(const Expr &e, const std::string &name,
                const std::shared_ptr<ReductionDomainContents> &given = nullptr) {
    user_assert(e.defined()) << name << " of an undefined Expr";
    FindVarsAndRDom finder;
    e.accept(&finder);
    if (given) {
        user_assert(!finder.rdom || (finder.rdoms == 1 && finder.rdom == given))
            << name << "(" << given->name << ", " << e << ") uses RVars of another RDom than "
            << given->name << ". Reduce over the RDom the expression uses.";
        finder.rdom = given;
        finder.rdoms = 1;
    }
    // Vars in the RDom's where() condition are free Vars of the reduction too.
    if (finder.rdom && finder.rdom->predicate.defined()) finder.rdom->predicate.accept(&finder);
    user_assert(finder.rdom) << name << "(" << e << ") has no RVar to reduce over. Use an RDom's "
                             << "variables in the expression.";
    user_assert(finder.rdoms == 1) << name << "(" << e << ") uses RVars of more than one RDom";
    Reduction r{Func(name + "_" + unique_user_name('f')), {}, finder.rdom};
    for (const std::string &v : finder.vars) r.args.push_back(Var(v));
    return r;
}

Expr reduce(const Expr &e, const std::string &name, const Expr &init,
            Expr (*combine)(const Expr &, const Expr &),
            const std::shared_ptr<ReductionDomainContents> &given = nullptr) {
    Reduction r = start(e, name, given);
    r.f(r.args) = init;
    r.f(r.args) = combine(Expr(r.f(r.args)), e);
    return r.f(r.args);
}

Tuple arg_reduce(const Expr &e, const std::string &name, bool is_max,
                 const std::shared_ptr<ReductionDomainContents> &given = nullptr) {
    Reduction r = start(e, name, given);
    int dims = (int)r.rdom->domain.size();
    std::vector<Expr> init, update;
    for (int i = 0; i < dims; i++) init.push_back(make_zero(Int(32)));
    init.push_back(is_max ? type_min(e.type()) : type_max(e.type()));
    r.f(r.args) = Tuple(init);
    FuncRef current = r.f(r.args);
    // Strictly better only, so the first extreme point wins ties.
    Expr better = is_max ? e > current[dims] : e < current[dims];
    for (int i = 0; i < dims; i++) {
        update.push_back(select(better, Expr(RVar(r.rdom, i)), current[i]));
    }
    update.push_back(select(better, e, current[dims]));
    r.f(r.args) = Tuple(update);
    return Tuple(r.f(r.args));
}

// a + b held to the type's range where it would leave it (Halide's saturating_add): in 64
// bits for narrower integers; for 64-bit ones, from the wrapped sum and the operands' signs.
Expr saturating_add(const Expr &a, const Expr &b) {
    const Type t = a.type();
    if (t.is_float()) return a + b;
    if (t.bits() < 64) {
        const Type wide = t.is_int() ? Int(64) : UInt(64);
        return cast(t, clamp(cast(wide, a) + cast(wide, b), cast(wide, type_min(t)),
                             cast(wide, type_max(t))));
    }
    if (t.is_uint()) return select(a > type_max(t) - b, type_max(t), a + b);
    const Expr wrapped = reinterpret(t, reinterpret(UInt(64), a) + reinterpret(UInt(64), b));
    const Expr zero = make_zero(t);
    const Expr past_max = a >= zero && b >= zero && wrapped < zero;
    const Expr past_min = a < zero && b < zero && wrapped >= zero;
    return select(past_max, type_max(t), select(past_min, type_min(t), wrapped));
}

}  // namespace

Expr saturating_sum(const Expr &e, const std::string &name) {
    return reduce(e, name, make_zero(e.type()), saturating_add);
}

Expr saturating_sum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce(e, name, make_zero(e.type()), saturating_add, r.domain());
}

Expr sum(const Expr &e, const std::string &name) {
    return reduce(e, name, make_zero(e.type()), [](const Expr &a, const Expr &b) { return a + b; });
}

Expr product(const Expr &e, const std::string &name) {
    return reduce(e, name, make_one(e.type()), [](const Expr &a, const Expr &b) { return a * b; });
}

Expr maximum(const Expr &e, const std::string &name) {
    return reduce(e, name, type_min(e.type()), [](const Expr &a, const Expr &b) { return max(a, b); });
}

Expr minimum(const Expr &e, const std::string &name) {
    return reduce(e, name, type_max(e.type()), [](const Expr &a, const Expr &b) { return min(a, b); });
}

Tuple argmax(const Expr &e, const std::string &name) { return arg_reduce(e, name, true); }
Tuple argmin(const Expr &e, const std::string &name) { return arg_reduce(e, name, false); }

Expr sum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce(
        e, name, make_zero(e.type()), [](const Expr &a, const Expr &b) { return a + b; },
        r.domain());
}

Expr product(const RDom &r, const Expr &e, const std::string &name) {
    return reduce(
        e, name, make_one(e.type()), [](const Expr &a, const Expr &b) { return a * b; },
        r.domain());
}

Expr maximum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce(
        e, name, type_min(e.type()), [](const Expr &a, const Expr &b) { return max(a, b); },
        r.domain());
}

Expr minimum(const RDom &r, const Expr &e, const std::string &name) {
    return reduce(
        e, name, type_max(e.type()), [](const Expr &a, const Expr &b) { return min(a, b); },
        r.domain());
}

Tuple argmax(const RDom &r, const Expr &e, const std::string &name) {
    return arg_reduce(e, name, true, r.domain());
}
Tuple argmin(const RDom &r, const Expr &e, const std::string &name) {
    return arg_reduce(e, name, false, r.domain());
}

}  // namespace loom
