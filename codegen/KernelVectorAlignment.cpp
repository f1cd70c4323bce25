#include "codegen/KernelVectorAlignment.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {
namespace {

// value = remainder (mod modulus); modulus 0: value is exactly remainder. Moduli are kept
// below 2^24, so that products of two stay far from overflowing: a larger one is replaced by the
// largest power of two that divides it (capped), still a divisor, so the congruence stays true
// and keeps what alignment asks about.
struct Congruence {
    int64_t modulus = 1, remainder = 0;

    static Congruence exactly(int64_t v) { return {0, v}; }
    static Congruence unknown() { return {1, 0}; }
    static Congruence make(int64_t m, int64_t r) {
        m = std::llabs(m);
        if (m >= (1 << 24)) m = std::min<int64_t>(m & -m, 1 << 23);
        if (m == 0) return exactly(r);
        return {m, ((r % m) + m) % m};
    }
    bool is_multiple_of(int64_t n) const {
        return modulus == 0 ? remainder % n == 0 : modulus % n == 0 && remainder % n == 0;
    }
};

Congruence add(Congruence a, Congruence b) {
    if (a.modulus == 0 && b.modulus == 0) return Congruence::exactly(a.remainder + b.remainder);
    return Congruence::make(std::gcd(a.modulus, b.modulus), a.remainder + b.remainder);
}

Congruence negate(Congruence a) { return Congruence::make(a.modulus, -a.remainder); }

// (ma*i + ra)(mb*j + rb) = ma*mb*ij + ma*rb*i + mb*ra*j + ra*rb.
Congruence multiply(Congruence a, Congruence b) {
    if (a.modulus == 0 && b.modulus == 0) return Congruence::exactly(a.remainder * b.remainder);
    int64_t m =
        std::gcd(std::gcd(a.modulus * b.modulus, a.modulus * b.remainder), b.modulus * a.remainder);
    return Congruence::make(m, a.remainder * b.remainder);
}

// Either of two values (min, max, select): what both share.
Congruence either(Congruence a, Congruence b) {
    if (a.modulus == 0 && b.modulus == 0 && a.remainder == b.remainder) return a;
    int64_t m = std::gcd(std::gcd(a.modulus, b.modulus), std::llabs(a.remainder - b.remainder));
    return Congruence::make(m, a.remainder);
}

// The congruence of an index expression, with the let-bound names in scope expanded and some
// of the kernel's scalars assumed to be multiples of a number.
class CongruenceOf {
public:
    CongruenceOf(const Scope<Expr> &lets, const std::map<std::string, int> &assumed)
        : lets(lets), assumed(assumed) {}

    Congruence of(const Expr &e) {
        if (const IntImm *i = e.as<IntImm>()) return Congruence::exactly(i->value);
        if (const Add *op = e.as<Add>()) return add(of(op->a), of(op->b));
        if (const Sub *op = e.as<Sub>()) return add(of(op->a), negate(of(op->b)));
        if (const Mul *op = e.as<Mul>()) return multiply(of(op->a), of(op->b));
        if (const Min *op = e.as<Min>()) return either(of(op->a), of(op->b));
        if (const Max *op = e.as<Max>()) return either(of(op->a), of(op->b));
        if (const Select *op = e.as<Select>())
            return either(of(op->true_value), of(op->false_value));
        if (const Cast *op = e.as<Cast>()) {
            // Widening (or same-width) integer casts keep every value.
            if (op->type.is_int_or_uint() && op->value.type().is_int_or_uint() &&
                op->type.bits() >= op->value.type().bits())
                return of(op->value);
            return Congruence::unknown();
        }
        if (const Variable *v = e.as<Variable>()) {
            if (const Expr *value = lets.find(v->name)) return of(*value);
            auto it = assumed.find(v->name);
            if (it != assumed.end()) {
                used.insert(v->name);
                return Congruence::make(it->second, 0);
            }
            return Congruence::unknown();
        }
        return Congruence::unknown();
    }

    std::set<std::string> used; // assumptions consulted

private:
    const Scope<Expr> &lets;
    const std::map<std::string, int> &assumed;
};

class Planner : public IRVisitor {
public:
    Planner(const std::set<std::string> &scalars, const std::set<std::string> &buffers)
        : scalars(scalars), buffers(buffers) {}

    KernelVectorAlignment plan;

private:
    const std::set<std::string> &scalars, &buffers;
    Scope<Expr> lets;

    using IRVisitor::visit;

    void visit(const LetStmt *op) override {
        op->value.accept(this);
        ScopedBinding<Expr> bind(lets, op->name, op->value);
        op->body.accept(this);
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        ScopedBinding<Expr> bind(lets, op->name, op->value);
        op->body.accept(this);
    }
    void visit(const Load *op) override {
        consider(op, op->name, op->index, op->type);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        consider(op, op->name, op->index, op->value.type());
        IRVisitor::visit(op);
    }

    // Plans `access` (of `type`, at `index` of `buffer`) wide where its base can be proven
    // aligned; the assumptions it needs join the kernel's.
    void consider(const IRNode *access, const std::string &buffer, const Expr &index, Type type) {
        const Ramp *ramp = index.as<Ramp>();
        if (!ramp || !buffers.count(buffer)) return;
        const IntImm *stride = ramp->stride.as<IntImm>();
        const int element_bytes = type.element_of().bytes();
        if (!stride || stride->value != 1 || element_bytes <= 0) return;
        // A span of a power of two bytes, or of whole 16-byte pieces, is accessed in pieces
        // that each start at a multiple of their size.
        const int span = element_bytes * type.lanes();
        const bool whole_pieces = (span & (span - 1)) == 0 || span % 16 == 0;
        if (span < 8 || !whole_pieces) return;
        const int alignment = std::min(span, 16);
        if (alignment % element_bytes != 0) return;
        const int elements = alignment / element_bytes;

        // Every scalar assumed a multiple first; then each assumption the proof does without
        // is dropped, so that a launch checks only what the index needs.
        std::map<std::string, int> assumed;
        for (const std::string &s : scalars)
            assumed[s] = elements;
        CongruenceOf all(lets, assumed);
        if (!all.of(ramp->base).is_multiple_of(elements)) return;
        std::map<std::string, int> needed;
        for (const std::string &s : all.used)
            needed[s] = elements;
        for (const std::string &s : all.used) {
            std::map<std::string, int> without = needed;
            without.erase(s);
            if (CongruenceOf(lets, without).of(ramp->base).is_multiple_of(elements)) {
                needed = std::move(without);
            }
        }
        plan.access_alignment[access] = alignment;
        for (const auto &[name, multiple] : needed) {
            int &m = plan.multiple_of[name];
            m = std::max(m, multiple); // powers of two: the larger is a multiple of the smaller
        }
        int &pointer = plan.pointer_alignment[buffer];
        pointer = std::max(pointer, alignment);
    }
};

} // namespace

KernelVectorAlignment plan_kernel_vector_alignment(const For *kernel,
                                                   const std::set<std::string> &scalars,
                                                   const std::set<std::string> &buffers) {
    Planner planner(scalars, buffers);
    kernel->accept(&planner);
    return std::move(planner.plan);
}

} // namespace Internal
} // namespace loom
