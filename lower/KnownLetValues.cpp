#include "lower/KnownLetValues.h"

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "lower/ConstantFold.h"
#include "lower/LinearForm.h"

namespace loom {
namespace Internal {
namespace {

// A simplified sum ends in its constant (Linear::rebuild writes it last).
Expr without_constant(const Expr &e, int64_t *offset) {
    *offset = 0;
    if (const Add *a = e.as<Add>()) {
        if (const_int_value(a->b, offset)) return a->a;
    } else if (const Sub *d = e.as<Sub>()) {
        int64_t c;
        if (const_int_value(d->b, &c) && c != INT64_MIN) {
            *offset = -c;
            return d->a;
        }
    }
    return e;
}

} // namespace

KnownLetValues::Binding::Binding(KnownLetValues &known, const std::string &name,
                                 const Expr &value, bool shadows)
    : known(known) {
    if (shadows) {
        hidden.swap(known.values);
        shadowing = true;
        return;
    }
    if (!value.defined() || !is_linear_type(value.type())) return;
    int64_t offset;
    Expr key = without_constant(value, &offset);
    auto [entry, inserted] = known.values.emplace(key, std::make_pair(name, offset));
    if (inserted) added = entry;
}

KnownLetValues::Binding::~Binding() {
    if (shadowing) {
        known.values.swap(hidden);
    } else if (added) {
        known.values.erase(*added);
    }
}

std::optional<KnownLetValues::Match> KnownLetValues::match(const Expr &e) const {
    if (!is_linear_type(e.type()) || is_const(e) || e.as<Variable>()) return std::nullopt;
    int64_t offset;
    auto it = values.find(without_constant(e, &offset));
    if (it == values.end()) return std::nullopt;
    return Match{&it->second.first, offset - it->second.second};
}

Expr KnownLetValues::reuse(const Expr &e) const {
    class Reuse : public IRMutator {
    public:
        explicit Reuse(const KnownLetValues &known) : known(known) {}
        using IRMutator::mutate;
        Expr mutate(const Expr &e) override {
            if (std::optional<Match> m = known.match(e)) {
                Expr v = Variable::make(e.type(), *m->name);
                return m->difference == 0 ? v : Add::make(v, make_const(e.type(), m->difference));
            }
            return IRMutator::mutate(e);
        }

    private:
        // A Let inside the value may rebind a name a key mentions.
        Expr visit(const Let *op) override { return op; }
        const KnownLetValues &known;
    };
    return Reuse(*this).mutate(e);
}

std::optional<int64_t> KnownLetValues::difference(const Expr &a, const Expr &b) const {
    const Variable *v = b.as<Variable>();
    if (!v) return std::nullopt;
    std::optional<Match> m = match(a);
    if (!m || *m->name != v->name) return std::nullopt;
    return m->difference;
}

} // namespace Internal
} // namespace loom
