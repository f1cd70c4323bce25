#include "dsl/Function.h"

#include "dsl/IRMutator.h"

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

} // namespace Internal
} // namespace loom
