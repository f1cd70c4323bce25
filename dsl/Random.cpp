#include "dsl/Random.h"

#include <atomic>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {

// Args {kind, identity, seed}. The definition that holds the call replaces it; codegen
// refuses one that escaped into an RDom's where() or a specialization's condition.
const char *const random_variable_call_name = "loom.random_variable";

namespace {

enum class RandomKind { Float, UInt, Int };

Expr random_variable(RandomKind kind, Expr seed) {
    static std::atomic<int32_t> next_identity{0};
    if (seed.defined()) {
        user_assert(seed.type().is_int_or_uint() && seed.type().is_scalar())
            << "The seed of a random variable must be an integer, but " << seed << " has type "
            << seed.type() << ". Cast it (e.g. cast<int32_t>(seed)).";
        seed = cast(UInt(32), seed);
    } else {
        seed = make_zero(UInt(32));
    }
    const Type t = kind == RandomKind::Float  ? Float(32)
                   : kind == RandomKind::UInt ? UInt(32)
                                              : Int(32);
    return Call::make(t, random_variable_call_name,
                      {Expr((int32_t)kind), Expr(next_identity++), seed}, Call::Extern);
}

/** A bijection of 32-bit integers whose every output bit depends on every input bit (two
 * multiply-xorshift rounds; constants from the published search for low-bias mixers). */
uint32_t mix(uint32_t v) {
    v ^= v >> 16;
    v *= 0x7feb352du;
    v ^= v >> 15;
    v *= 0x846ca68bu;
    v ^= v >> 16;
    return v;
}

Expr mix(Expr v) {
    v = v ^ (v >> 16);
    v = v * Expr(0x7feb352du);
    v = v ^ (v >> 15);
    v = v * Expr(0x846ca68bu);
    return v ^ (v >> 16);
}

/** The same Func name, definition and identity give the same start on every run and machine. */
uint32_t start_of(const std::string &func_name, int definition, int32_t identity) {
    uint32_t h = 0x3c6ef372u;
    for (unsigned char ch : func_name)
        h = mix(h ^ ch);
    h = mix(h ^ (uint32_t)definition);
    return mix(h ^ (uint32_t)identity);
}

class DefineRandomVariables : public IRMutator {
public:
    DefineRandomVariables(const std::vector<Expr> &coordinates, const std::string &func_name,
                          int definition)
        : coordinates(coordinates), func_name(func_name), definition(definition) {}

private:
    const std::vector<Expr> &coordinates;
    const std::string &func_name;
    const int definition;

    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->call_type != Call::Extern || op->name != random_variable_call_name)
            return IRMutator::visit(op);
        const auto kind = (RandomKind)*as_const_int(op->args[0]);
        const auto identity = (int32_t)*as_const_int(op->args[1]);
        Expr h = mix(Expr(start_of(func_name, definition, identity)) ^ mutate(op->args[2]));
        for (const Expr &c : coordinates)
            h = mix(h ^ cast(UInt(32), c));
        switch (kind) {
        case RandomKind::Float:
            // 23 random bits as the mantissa of a float in [1, 2), less 1: [0, 1), evenly spaced.
            return reinterpret(Float(32), (h >> 9) | Expr(0x3f800000u)) - Expr(1.0f);
        case RandomKind::UInt:
            return h;
        case RandomKind::Int:
            return reinterpret(Int(32), h);
        }
        return h;
    }
};

} // namespace

std::vector<Expr> define_random_variables(const std::vector<Expr> &exprs,
                                          const std::vector<Expr> &coordinates,
                                          const std::string &func_name, int definition) {
    DefineRandomVariables mutator(coordinates, func_name, definition);
    std::vector<Expr> out;
    for (const Expr &e : exprs)
        out.push_back(e.defined() ? mutator.mutate(e) : e);
    return out;
}

} // namespace Internal

Expr random_float(Expr seed) {
    return Internal::random_variable(Internal::RandomKind::Float, std::move(seed));
}
Expr random_uint(Expr seed) {
    return Internal::random_variable(Internal::RandomKind::UInt, std::move(seed));
}
Expr random_int(Expr seed) {
    return Internal::random_variable(Internal::RandomKind::Int, std::move(seed));
}

} // namespace loom
