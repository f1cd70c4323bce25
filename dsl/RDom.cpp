#include "dsl/RDom.h"

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
#include "lower/Simplify.h"

namespace loom {

using namespace Internal;

RVar::RVar() : standalone_name(unique_user_name('r')) {}

const std::string &RVar::name() const {
    if (!dom) {
        user_assert(!standalone_name.empty()) << "Use of an undefined RVar";
        return standalone_name;
    }
    return dom->domain.at(index).var;
}

Expr RVar::min() const {
    user_assert(dom) << "RVar " << name() << " is only a name; it has no RDom to give a min";
    return dom->domain.at(index).min;
}

Expr RVar::extent() const {
    user_assert(dom) << "RVar " << name() << " is only a name; it has no RDom to give an extent";
    return dom->domain.at(index).extent;
}

RVar::operator Expr() const {
    user_assert(dom) << "RVar " << name() << " is only a name (for directives); use the RDom's "
                     << "RVar in definitions";
    return Variable::make(Int(32), name(), nullptr, dom);
}

namespace {

// What an RDom's bounds may not use: a Var or RVar (the bounds are evaluated once, before any
// loop of the definition that reduces over them, where no such variable has a value) and a
// Func (bounds inference would need the region of the Func before it knows the domain).
// Params, the sizes of ImageParams and names bound inside the bounds are fine.
class FindFreeNames : public IRVisitor {
public:
    std::string var, func;

private:
    Scope<int> bound;
    void visit(const Variable *op) override {
        if (!op->param && !bound.contains(op->name) && var.empty()) var = op->name;
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        ScopedBinding<int> b(bound, op->name, 0);
        op->body.accept(this);
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide && func.empty()) func = op->name;
    }
};

}  // namespace

RDom::RDom(const Region &region, const std::string &name) {
    user_assert(!region.empty() && region.size() <= 4)
        << "An RDom has between 1 and 4 dimensions, not " << region.size();
    dom = std::make_shared<ReductionDomainContents>();
    dom->name = name.empty() ? unique_user_name('r') : name;
    static const char *suffix[] = {"x", "y", "z", "w"};
    for (size_t i = 0; i < region.size(); i++) {
        user_assert(region[i].min.defined() && region[i].extent.defined())
            << "RDom " << dom->name << " has an undefined bound in dimension " << i;
        for (const Expr *e : {&region[i].min, &region[i].extent}) {
            user_assert(e->type().is_int_or_uint() && e->type().is_scalar())
                << "The bounds of RDom " << dom->name << " must be integers, not " << *e;
            FindFreeNames names;
            e->accept(&names);
            user_assert(names.var.empty())
                << "The bounds of RDom " << dom->name << " in dimension " << i << " ("
                << region[i].min << ", " << region[i].extent << ") use the variable "
                << names.var << ". An RDom's bounds may use constants, Params and the sizes of "
                << "inputs only. To reduce over a range that depends on " << names.var
                << ", reduce over one that holds every such range and restrict it with "
                << "where() (r.where(r < " << names.var << ")).";
            user_assert(names.func.empty())
                << "The bounds of RDom " << dom->name << " in dimension " << i << " ("
                << region[i].min << ", " << region[i].extent << ") call the Func " << names.func
                << ". An RDom's bounds may use constants, Params and the sizes of inputs only.";
        }
        dom->domain.push_back(ReductionVariable{dom->name + "$" + suffix[i], cast(Int(32), region[i].min),
                                                cast(Int(32), region[i].extent)});
    }
    RVar *vars[] = {&x, &y, &z, &w};
    for (size_t i = 0; i < region.size(); i++) *vars[i] = RVar(dom, (int)i);
}

RDom::RDom(const Expr &min, const Expr &extent, const std::string &name)
    : RDom(Region{{min, extent}}, name) {}
RDom::RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
           const std::string &name)
    : RDom(Region{{min0, extent0}, {min1, extent1}}, name) {}
RDom::RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
           const Expr &min2, const Expr &extent2, const std::string &name)
    : RDom(Region{{min0, extent0}, {min1, extent1}, {min2, extent2}}, name) {}
RDom::RDom(const Expr &min0, const Expr &extent0, const Expr &min1, const Expr &extent1,
           const Expr &min2, const Expr &extent2, const Expr &min3, const Expr &extent3,
           const std::string &name)
    : RDom(Region{{min0, extent0}, {min1, extent1}, {min2, extent2}, {min3, extent3}}, name) {}

namespace {

// The RDoms an expression's RVars come from.
class FindRDoms : public IRVisitor {
public:
    std::vector<std::shared_ptr<ReductionDomainContents>> found;
    std::vector<std::string> plain_vars;

private:
    void visit(const Variable *op) override {
        if (op->rdom) {
            for (const auto &d : found) {
                if (d == op->rdom) return;
            }
            found.push_back(op->rdom);
        } else if (!op->param) {
            plain_vars.push_back(op->name);
        }
    }
};

// The RVars of `dom` inside its own where() condition refer to it weakly (see MaybeOwnedPtr):
// owning, the RDom would keep itself alive through its condition.
class WeakenSelfRVars : public IRMutator {
public:
    explicit WeakenSelfRVars(const ReductionDomainContents *dom) : dom(dom) {}

private:
    const ReductionDomainContents *dom;
    Expr visit(const Variable *op) override {
        if (!op->rdom.refers_to(dom) || op->rdom.is_weak()) return op;
        return Variable::make(op->type, op->name, op->param, op->rdom.weakened());
    }
};

}  // namespace

void RDom::where(Expr condition) {
    user_assert(dom) << "where() on an undefined RDom";
    user_assert(condition.defined() && condition.type().is_bool() && condition.type().is_scalar())
        << "The condition of RDom " << dom->name << "'s where() must be a scalar bool, not "
        << condition;
    FindRDoms f;
    condition.accept(&f);
    for (const auto &d : f.found) {
        user_assert(d == dom) << "The where() condition of RDom " << dom->name
                              << " uses an RVar of another RDom, " << d->name;
    }
    condition = WeakenSelfRVars(dom.get()).mutate(condition);
    dom->predicate = dom->predicate.defined() ? (dom->predicate && condition) : condition;
}

int RDom::dimensions() const { return dom ? (int)dom->domain.size() : 0; }

RVar RDom::operator[](int i) const {
    user_assert(dom && i >= 0 && i < dimensions())
        << "RDom " << name() << " has " << dimensions() << " dimensions; [" << i << "] does not exist";
    return RVar(dom, i);
}

const std::string &RDom::name() const {
    user_assert(dom) << "Use of an undefined RDom";
    return dom->name;
}

RDom::operator Expr() const {
    user_assert(dimensions() == 1) << "Only a one-dimensional RDom converts to an Expr; RDom "
                                   << name() << " has " << dimensions() << ". Use its .x, .y, ...";
    return Expr(RVar(dom, 0));
}

RDom::operator RVar() const {
    user_assert(dimensions() == 1) << "Only a one-dimensional RDom converts to an RVar; RDom "
                                   << name() << " has " << dimensions();
    return RVar(dom, 0);
}

std::ostream &operator<<(std::ostream &stream, const RVar &v) {
    return stream << v.name() << "(" << v.min() << ", " << v.extent() << ")";
}

std::ostream &operator<<(std::ostream &stream, const RDom &dom) {
    stream << "RDom(\n";
    for (int i = 0; i < dom.dimensions(); i++)
        stream << "  " << dom[i] << "\n";
    stream << ")";
    const Expr &predicate = dom.domain()->predicate;
    if (predicate.defined()) stream << " where (\n  " << Internal::simplify(predicate) << ")";
    return stream << "\n";
}

}  // namespace loom
