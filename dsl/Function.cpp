#include "dsl/Function.h"

#include "dsl/IRMutator.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"

namespace loom {
namespace Internal {
namespace {

void mutate_in_place(IRMutator &m, Expr &e) {
    if (!e.defined()) return;
    Expr mutated = m.mutate(e);
    if (!mutated.same_as(e)) e = mutated;
}

} // namespace

void mutate_definition(IRMutator &m, Definition &d) {
    for (Expr &v : d.values)
        mutate_in_place(m, v);
    for (Expr &a : d.args)
        mutate_in_place(m, a);
    mutate_in_place(m, d.predicate);
    for (Specialization &s : d.specializations) {
        mutate_in_place(m, s.condition);
        if (s.definition) mutate_definition(m, *s.definition);
    }
}

void visit_definition(IRVisitor &v, const Definition &d) {
    for (const Expr &e : d.values)
        e.accept(&v);
    for (const Expr &a : d.args)
        a.accept(&v);
    if (d.predicate.defined()) d.predicate.accept(&v);
    if (d.rdom) {
        for (const ReductionVariable &rv : d.rdom->domain) {
            rv.min.accept(&v);
            rv.extent.accept(&v);
        }
    }
    for (const Specialization &s : d.specializations) {
        if (s.condition.defined()) s.condition.accept(&v);
        if (s.definition) visit_definition(v, *s.definition);
    }
}

} // namespace Internal
} // namespace loom
