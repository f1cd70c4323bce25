#include "dsl/IROperator.h"

#include <cmath>

#include "dsl/Error.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"

namespace loom {

using namespace Internal;

namespace Internal {

Expr make_const(Type t, int64_t value) {
    Type s = t.element_of();
    Expr e;
    switch (s.code) {
    case Type::Int: e = IntImm::make(s, value); break;
    case Type::UInt: e = UIntImm::make(s, (uint64_t)value); break;
    case Type::Float: e = FloatImm::make(s, (double)value); break;
    default: internal_error << "make_const of type " << t;
    }
    return t.is_vector() ? Broadcast::make(e, t.lanes()) : e;
}

Expr make_const(Type t, uint64_t value) {
    Type s = t.element_of();
    Expr e;
    switch (s.code) {
    case Type::Int: e = IntImm::make(s, (int64_t)value); break;
    case Type::UInt: e = UIntImm::make(s, value); break;
    case Type::Float: e = FloatImm::make(s, (double)value); break;
    default: internal_error << "make_const of type " << t;
    }
    return t.is_vector() ? Broadcast::make(e, t.lanes()) : e;
}

Expr make_const(Type t, double value) {
    Type s = t.element_of();
    Expr e;
    switch (s.code) {
    case Type::Int: e = IntImm::make(s, (int64_t)value); break;
    case Type::UInt: e = UIntImm::make(s, (uint64_t)value); break;
    case Type::Float: e = FloatImm::make(s, value); break;
    default: internal_error << "make_const of type " << t;
    }
    return t.is_vector() ? Broadcast::make(e, t.lanes()) : e;
}

Expr make_zero(Type t) { return make_const(t, (int64_t)0); }
Expr make_one(Type t) { return make_const(t, (int64_t)1); }
Expr make_bool(bool value, int lanes) { return make_const(Bool(lanes), (int64_t)value); }
Expr const_true(int lanes) { return make_bool(true, lanes); }
Expr const_false(int lanes) { return make_bool(false, lanes); }

bool is_constant_expr(const Expr &e) {
    class Finder : public IRVisitor {
    public:
        bool found = false;

    private:
        void visit(const Variable *) override { found = true; }
        void visit(const Load *) override { found = true; }
        void visit(const Call *op) override {
            if (op->call_type != Call::PureIntrinsic) found = true;
            if (!found) IRVisitor::visit(op);
        }
    } finder;
    e.accept(&finder);
    return !finder.found;
}

const int64_t *as_const_int(const Expr &e) {
    if (!e.defined()) return nullptr;
    if (const auto *b = e.as<Broadcast>()) return as_const_int(b->value);
    if (const auto *i = e.as<IntImm>()) return &i->value;
    return nullptr;
}

const uint64_t *as_const_uint(const Expr &e) {
    if (!e.defined()) return nullptr;
    if (const auto *b = e.as<Broadcast>()) return as_const_uint(b->value);
    if (const auto *i = e.as<UIntImm>()) return &i->value;
    return nullptr;
}

const double *as_const_float(const Expr &e) {
    if (!e.defined()) return nullptr;
    if (const auto *b = e.as<Broadcast>()) return as_const_float(b->value);
    if (const auto *f = e.as<FloatImm>()) return &f->value;
    return nullptr;
}

std::optional<int64_t> const_int_value(const Expr &e) {
    const int64_t *value = as_const_int(e);
    return value ? std::optional<int64_t>(*value) : std::nullopt;
}

std::optional<uint64_t> const_uint_value(const Expr &e) {
    const uint64_t *value = as_const_uint(e);
    return value ? std::optional<uint64_t>(*value) : std::nullopt;
}

std::optional<double> const_float_value(const Expr &e) {
    const double *value = as_const_float(e);
    return value ? std::optional<double>(*value) : std::nullopt;
}

bool is_const(const Expr &e) {
    return as_const_int(e) || as_const_uint(e) || as_const_float(e);
}

bool is_const(const Expr &e, int64_t value) {
    if (const int64_t *i = as_const_int(e)) return *i == value;
    if (const uint64_t *u = as_const_uint(e)) return value >= 0 && *u == (uint64_t)value;
    if (const double *f = as_const_float(e)) return *f == (double)value;
    return false;
}

void match_types(Expr &a, Expr &b) {
    user_assert(a.defined() && b.defined()) << "An operand of an arithmetic operator is an "
                                               "undefined Expr. Give it a value before use.";
    if (a.type() == b.type()) return;
    user_assert(!a.type().is_handle() && !b.type().is_handle())
        << "Can't do arithmetic on handles (" << a << ", " << b << ")";
    // Broadcast a scalar to the other operand's lanes first.
    if (a.type().is_scalar() && b.type().is_vector()) {
        a = Broadcast::make(a, b.type().lanes());
    } else if (a.type().is_vector() && b.type().is_scalar()) {
        b = Broadcast::make(b, a.type().lanes());
    } else {
        user_assert(a.type().lanes() == b.type().lanes())
            << "Can't combine vectors of " << a.type().lanes() << " and " << b.type().lanes()
            << " lanes: " << a << ", " << b;
    }
    Type ta = a.type(), tb = b.type();
    if (ta == tb) return;
    if (!ta.is_float() && tb.is_float()) {
        a = cast(tb, a);
    } else if (ta.is_float() && !tb.is_float()) {
        b = cast(ta, b);
    } else if (ta.is_float() && tb.is_float()) {
        if (ta.bits() > tb.bits()) {
            b = cast(ta, b);
        } else {
            a = cast(tb, a);
        }
    } else if (ta.is_uint() && tb.is_uint()) {
        if (ta.bits() > tb.bits()) {
            b = cast(ta, b);
        } else {
            a = cast(tb, a);
        }
    } else {
        int bits = std::max(ta.bits(), tb.bits());
        a = cast(Int(bits, ta.lanes()), a);
        b = cast(Int(bits, tb.lanes()), b);
    }
}

void match_types_bitwise(Expr &a, Expr &b, const char *op_name) {
    user_assert(a.defined() && b.defined()) << "Operand of " << op_name << " is undefined";
    user_assert(a.type().is_int_or_uint() && b.type().is_int_or_uint())
        << "The operands of " << op_name << " must be integers, but got " << a.type() << " ("
        << a << ") and " << b.type() << " (" << b << "). Cast them first.";
    user_assert(a.type().is_bool() == b.type().is_bool() || a.type().code == b.type().code)
        << "The operands of " << op_name << " must both be signed or both be unsigned, but got "
        << a.type() << " and " << b.type() << ". Cast one of them.";
    if (a.type().is_scalar() && b.type().is_vector()) a = Broadcast::make(a, b.type().lanes());
    if (b.type().is_scalar() && a.type().is_vector()) b = Broadcast::make(b, a.type().lanes());
    user_assert(a.type().code == b.type().code)
        << "The operands of " << op_name << " must both be signed or both be unsigned, but got "
        << a.type() << " and " << b.type() << ". Cast one of them.";
    if (a.type().bits() > b.type().bits()) {
        b = cast(a.type(), b);
    } else if (b.type().bits() > a.type().bits()) {
        a = cast(b.type(), a);
    }
}

Expr type_min(Type t) {
    if (t.is_float()) return make_const(t, -INFINITY);
    return make_const(t, t.min_int());
}

Expr type_max(Type t) {
    if (t.is_float()) return make_const(t, INFINITY);
    if (t.is_uint()) return make_const(t, t.max_uint());
    return make_const(t, t.max_int());
}

Expr int_var(const std::string &name) { return Variable::make(Int(32), name); }

}  // namespace Internal

namespace {

// An int operand of a binary operator takes the other operand's type and must fit in it.
Expr int_operand(const Expr &other, int value, const char *op) {
    user_assert(other.defined()) << "Operand of " << op << " is an undefined Expr";
    Type t = other.type();
    user_assert(!t.is_handle()) << "Can't do arithmetic on handles";
    user_assert(t.can_represent((int64_t)value))
        << "Integer constant " << value << " used with " << op << " on " << other << " of type "
        << t << " can't be represented in that type. Cast the constant or the expression "
        << "explicitly.";
    return make_const(t, (int64_t)value);
}

void check_defined(const Expr &a, const char *what) {
    user_assert(a.defined()) << "Argument of " << what << " is an undefined Expr";
}

}  // namespace

Expr cast(Type t, Expr a) {
    check_defined(a, "cast");
    if (a.type() == t) return a;
    if (t.is_scalar() && a.type().is_vector()) t = t.with_lanes(a.type().lanes());
    user_assert(t.lanes() == a.type().lanes())
        << "Can't cast " << a << " of type " << a.type() << " to " << t
        << ": the lane counts differ";
    // Casting a constant folds now, so that literals keep the target type.
    if (const int64_t *i = as_const_int(a)) {
        if (t.is_bool()) return make_bool(*i != 0, t.lanes());
        return make_const(t, *i);
    }
    if (const uint64_t *u = as_const_uint(a)) {
        if (t.is_bool()) return make_bool(*u != 0, t.lanes());
        return make_const(t, *u);
    }
    if (const double *f = as_const_float(a)) {
        if (t.is_float()) return make_const(t, *f);
    }
    if (const auto *b = a.as<Broadcast>()) return Broadcast::make(cast(t.element_of(), b->value), t.lanes());
    return Cast::make(t, std::move(a));
}

Expr reinterpret(Type t, Expr a) {
    check_defined(a, "reinterpret");
    user_assert(t.bits() * t.lanes() == a.type().bits() * a.type().lanes())
        << "Can't reinterpret " << a << " of type " << a.type() << " as " << t
        << ": the total bit widths differ";
    if (t == a.type()) return a;
    return Reinterpret::make(t, std::move(a));
}

#define LOOM_DEFINE_ARITH(OP, Node)                                                             \
    Expr operator OP(Expr a, Expr b) {                                                          \
        match_types(a, b);                                                                      \
        return Node::make(std::move(a), std::move(b));                                          \
    }                                                                                           \
    Expr operator OP(Expr a, int b) {                                                           \
        Expr c = int_operand(a, b, #OP);                                                        \
        return Node::make(std::move(a), std::move(c));                                          \
    }                                                                                           \
    Expr operator OP(int a, Expr b) {                                                           \
        Expr c = int_operand(b, a, #OP);                                                        \
        return Node::make(std::move(c), std::move(b));                                          \
    }
LOOM_DEFINE_ARITH(+, Add)
LOOM_DEFINE_ARITH(-, Sub)
LOOM_DEFINE_ARITH(*, Mul)
LOOM_DEFINE_ARITH(/, Div)
LOOM_DEFINE_ARITH(%, Mod)
LOOM_DEFINE_ARITH(==, EQ)
LOOM_DEFINE_ARITH(!=, NE)
LOOM_DEFINE_ARITH(<, LT)
LOOM_DEFINE_ARITH(<=, LE)
LOOM_DEFINE_ARITH(>, GT)
LOOM_DEFINE_ARITH(>=, GE)
#undef LOOM_DEFINE_ARITH

Expr operator-(Expr a) {
    check_defined(a, "unary minus");
    Expr zero = make_zero(a.type());  // before a is moved from
    return Sub::make(std::move(zero), std::move(a));
}

Expr &operator+=(Expr &a, Expr b) { return a = a + cast(a.type(), std::move(b)); }
Expr &operator-=(Expr &a, Expr b) { return a = a - cast(a.type(), std::move(b)); }
Expr &operator*=(Expr &a, Expr b) { return a = a * cast(a.type(), std::move(b)); }
Expr &operator/=(Expr &a, Expr b) { return a = a / cast(a.type(), std::move(b)); }
Expr &operator%=(Expr &a, Expr b) { return a = a % cast(a.type(), std::move(b)); }

namespace {

Expr to_bool(Expr e, const char *op) {
    check_defined(e, op);
    user_assert(e.type().is_bool()) << "The operands of " << op << " must be bool, but " << e
                                    << " has type " << e.type()
                                    << ". Compare it with something first (e.g. x != 0).";
    return e;
}

}  // namespace

Expr operator&&(Expr a, Expr b) {
    a = to_bool(a, "&&");
    b = to_bool(b, "&&");
    match_types(a, b);
    return And::make(std::move(a), std::move(b));
}
Expr operator&&(Expr a, bool b) { return std::move(a) && make_bool(b); }
Expr operator&&(bool a, Expr b) { return make_bool(a) && std::move(b); }
Expr operator||(Expr a, Expr b) {
    a = to_bool(a, "||");
    b = to_bool(b, "||");
    match_types(a, b);
    return Or::make(std::move(a), std::move(b));
}
Expr operator||(Expr a, bool b) { return std::move(a) || make_bool(b); }
Expr operator||(bool a, Expr b) { return make_bool(a) || std::move(b); }
Expr operator!(Expr a) { return Not::make(to_bool(std::move(a), "!")); }

#define LOOM_DEFINE_BITWISE(OP, Op)                                                             \
    Expr operator OP(Expr a, Expr b) {                                                          \
        match_types_bitwise(a, b, #OP);                                                         \
        Type t = a.type();                                                                      \
        return Call::make_intrinsic(t, Call::Op, {std::move(a), std::move(b)});                 \
    }                                                                                           \
    Expr operator OP(Expr a, int b) {                                                           \
        check_defined(a, #OP);                                                                  \
        user_assert(a.type().is_int_or_uint())                                                  \
            << "The operands of " #OP " must be integers, but " << a << " has type "            \
            << a.type();                                                                        \
        Expr c = int_operand(a, b, #OP);                                                        \
        Type t = a.type();                                                                      \
        return Call::make_intrinsic(t, Call::Op, {std::move(a), std::move(c)});                 \
    }                                                                                           \
    Expr operator OP(int a, Expr b) { return std::move(b) OP a; }
LOOM_DEFINE_BITWISE(&, bitwise_and)
LOOM_DEFINE_BITWISE(|, bitwise_or)
LOOM_DEFINE_BITWISE(^, bitwise_xor)
#undef LOOM_DEFINE_BITWISE

Expr operator~(Expr a) {
    check_defined(a, "~");
    user_assert(a.type().is_int_or_uint())
        << "The operand of ~ must be an integer, but " << a << " has type " << a.type();
    Type t = a.type();
    return Call::make_intrinsic(t, Call::bitwise_not, {std::move(a)});
}

namespace {

Expr make_shift(Expr a, Expr b, Call::IntrinsicOp op, const char *name) {
    check_defined(a, name);
    check_defined(b, name);
    user_assert(a.type().is_int_or_uint() && b.type().is_int_or_uint())
        << "The operands of " << name << " must be integers, but got " << a.type() << " ("
        << a << ") and " << b.type() << " (" << b << ")";
    if (a.type().is_scalar() && b.type().is_vector()) a = Broadcast::make(a, b.type().lanes());
    if (b.type().is_scalar() && a.type().is_vector()) b = Broadcast::make(b, a.type().lanes());
    // The amount keeps its signedness (a negative signed amount reverses the shift) but takes
    // the width of the shifted value.
    b = cast(b.type().with_bits(a.type().bits()), b);
    Type t = a.type();
    return Call::make_intrinsic(t, op, {std::move(a), std::move(b)});
}

}  // namespace

Expr operator<<(Expr a, Expr b) { return make_shift(std::move(a), std::move(b), Call::shift_left, "<<"); }
Expr operator>>(Expr a, Expr b) { return make_shift(std::move(a), std::move(b), Call::shift_right, ">>"); }
Expr operator<<(Expr a, int b) {
    check_defined(a, "<<");
    Type t = a.type().with_code(Type::Int);
    user_assert(t.can_represent((int64_t)b)) << "Shift amount " << b << " is too large for " << a.type();
    return make_shift(std::move(a), make_const(t, (int64_t)b), Call::shift_left, "<<");
}
Expr operator>>(Expr a, int b) {
    check_defined(a, ">>");
    Type t = a.type().with_code(Type::Int);
    user_assert(t.can_represent((int64_t)b)) << "Shift amount " << b << " is too large for " << a.type();
    return make_shift(std::move(a), make_const(t, (int64_t)b), Call::shift_right, ">>");
}

Expr min(Expr a, Expr b) {
    match_types(a, b);
    return Min::make(std::move(a), std::move(b));
}
Expr min(Expr a, int b) {
    Expr c = int_operand(a, b, "min");
    return Min::make(std::move(a), std::move(c));
}
Expr min(int a, Expr b) { return min(std::move(b), a); }
Expr max(Expr a, Expr b) {
    match_types(a, b);
    return Max::make(std::move(a), std::move(b));
}
Expr max(Expr a, int b) {
    Expr c = int_operand(a, b, "max");
    return Max::make(std::move(a), std::move(c));
}
Expr max(int a, Expr b) { return max(std::move(b), a); }

Expr clamp(Expr a, const Expr &lo, const Expr &hi) {
    check_defined(a, "clamp");
    check_defined(lo, "clamp");
    check_defined(hi, "clamp");
    Type t = a.type();
    return Max::make(Min::make(a, cast(t, hi)), cast(t, lo));
}

Expr abs(Expr a) {
    check_defined(a, "abs");
    Type t = a.type();
    if (t.is_uint()) return a;
    if (t.is_int()) t = t.with_code(Type::UInt);
    return Call::make_intrinsic(t, Call::abs, {std::move(a)});
}

Expr absd(Expr a, Expr b) {
    match_types(a, b);
    Type t = a.type();
    if (t.is_int()) t = t.with_code(Type::UInt);
    return Call::make_intrinsic(t, Call::absd, {std::move(a), std::move(b)});
}

Expr select(Expr condition, Expr true_value, Expr false_value) {
    check_defined(condition, "select");
    user_assert(condition.type().is_bool())
        << "The condition of select must be bool, but " << condition << " has type "
        << condition.type() << ". Compare it with something (e.g. x != 0).";
    // A constant int on one side takes the other side's type, as with the operators.
    if (as_const_int(true_value) && !as_const_int(false_value) && false_value.defined() &&
        true_value.type() == Int(32)) {
        true_value = int_operand(false_value, (int)*as_const_int(true_value), "select");
    } else if (as_const_int(false_value) && !as_const_int(true_value) && true_value.defined() &&
               false_value.type() == Int(32)) {
        false_value = int_operand(true_value, (int)*as_const_int(false_value), "select");
    }
    match_types(true_value, false_value);
    if (condition.type().is_vector() && true_value.type().is_scalar()) {
        true_value = Broadcast::make(true_value, condition.type().lanes());
        false_value = Broadcast::make(false_value, condition.type().lanes());
    } else if (condition.type().is_scalar() && true_value.type().is_vector()) {
        // A scalar condition selects whole vectors.
    }
    return Select::make(std::move(condition), std::move(true_value), std::move(false_value));
}

namespace {

// Integer lerp: computed in the unsigned type of the values' width, with the weight rescaled
// to that width, rounding to nearest through a double-width intermediate (Halide's scheme).
Expr integer_lerp(Expr zero_val, Expr one_val, Expr weight) {
    Type result_type = zero_val.type();
    int lanes = result_type.lanes();
    Type comp = result_type.with_code(Type::UInt);
    Expr bias;
    if (result_type.is_int()) {
        bias = type_min(result_type);
        zero_val = Cast::make(comp, zero_val - bias);
        one_val = Cast::make(comp, one_val - bias);
    }
    int bits = comp.bits();
    user_assert(bits <= 32) << "lerp of 64-bit integers is not supported: the rounding needs a "
                               "128-bit intermediate. Cast the values to float64 first.";
    Expr w, inv_w;
    if (weight.type().is_float()) {
        if (bits == 32) {
            w = Cast::make(comp, cast(Float(64, lanes), Expr(65535.0f)) *
                                     cast(Float(64, lanes), Expr(65537.0f)) *
                                     Cast::make(Float(64, lanes), weight));
        } else {
            w = Cast::make(comp, cast(weight.type(), type_max(comp.element_of())) * weight);
        }
    } else {
        int diff = weight.type().bits() - bits;
        if (diff == 0) {
            w = weight;
        } else {
            int bits_left = diff < 0 ? -diff : diff;
            int shift = std::min(bits, weight.type().bits());
            uint64_t scale = 1;
            while (bits_left > 0) {
                scale = scale + (scale << shift);
                bits_left -= shift;
                shift *= 2;
            }
            if (diff < 0) {
                w = Cast::make(comp, weight) * make_const(comp, scale);
            } else {
                w = Cast::make(comp, weight / make_const(weight.type(), scale));
            }
        }
    }
    inv_w = Cast::make(comp, type_max(comp) - w);
    Expr result;
    if (bits == 1) {
        result = Select::make(cast(Bool(lanes), w), one_val, zero_val);
    } else {
        Type wide = UInt(2 * bits, lanes);
        Expr zero_wide = Cast::make(wide, zero_val), one_wide = Cast::make(wide, one_val);
        Expr rounding = make_const(wide, uint64_t(1) << (bits - 1));
        Expr divisor = make_const(wide, uint64_t(1) << bits);
        Expr prod_sum = zero_wide * Cast::make(wide, inv_w) + one_wide * Cast::make(wide, w) + rounding;
        Expr divided = (prod_sum / divisor + prod_sum) / divisor;
        result = Cast::make(comp, divided);
    }
    if (bias.defined()) result = Cast::make(result_type, result) + bias;
    return result;
}

}  // namespace

Expr lerp(Expr zero_val, Expr one_val, Expr weight) {
    check_defined(zero_val, "lerp");
    check_defined(one_val, "lerp");
    check_defined(weight, "lerp");
    // An int constant on one side takes the other side's type.
    if (as_const_int(zero_val) && !as_const_int(one_val)) zero_val = cast(one_val.type(), zero_val);
    if (as_const_int(one_val) && !as_const_int(zero_val)) one_val = cast(zero_val.type(), one_val);
    user_assert(zero_val.type() == one_val.type())
        << "lerp needs its zero and one values of the same type, but got " << zero_val.type()
        << " and " << one_val.type() << ". Cast one of them.";
    user_assert(weight.type().is_float() || weight.type().is_uint())
        << "The weight of lerp must be a float or an unsigned integer, but " << weight
        << " has type " << weight.type();
    if (weight.type().is_vector() && zero_val.type().is_scalar()) {
        zero_val = Broadcast::make(zero_val, weight.type().lanes());
        one_val = Broadcast::make(one_val, weight.type().lanes());
    } else if (zero_val.type().is_vector() && weight.type().is_scalar()) {
        weight = Broadcast::make(weight, zero_val.type().lanes());
    }
    if (zero_val.type().is_float()) {
        Type t = zero_val.type();
        if (weight.type().is_uint()) {
            double full = std::ldexp(1.0, weight.type().bits()) - 1;
            weight = Cast::make(t, Cast::make(Float(64, t.lanes()), weight) /
                                       make_const(Float(64, t.lanes()), full));
        } else {
            weight = cast(t, weight);
        }
        return zero_val * (make_one(t) - weight) + one_val * weight;
    }
    return integer_lerp(zero_val, one_val, weight);
}

namespace {

// Math functions take floats; anything else is cast to Float(32) first.
Expr float_arg(Expr x, const char *name) {
    user_assert(x.defined()) << "Argument of " << name << " is an undefined Expr";
    if (!x.type().is_float()) x = cast(Float(32, x.type().lanes()), x);
    return x;
}

Expr math_call(const char *name, std::vector<Expr> args) {
    Type t = args[0].type();
    std::string fn = std::string(name) + (t.bits() == 64 ? "_f64" : "_f32");
    return Call::make(t, fn, std::move(args), Call::PureExtern);
}

}  // namespace

#define LOOM_UNARY_MATH(NAME)                                                                   \
    Expr NAME(Expr x) { return math_call(#NAME, {float_arg(std::move(x), #NAME)}); }
LOOM_UNARY_MATH(sqrt)
LOOM_UNARY_MATH(exp)
LOOM_UNARY_MATH(log)
LOOM_UNARY_MATH(sin)
LOOM_UNARY_MATH(cos)
LOOM_UNARY_MATH(tan)
LOOM_UNARY_MATH(asin)
LOOM_UNARY_MATH(acos)
LOOM_UNARY_MATH(atan)
LOOM_UNARY_MATH(sinh)
LOOM_UNARY_MATH(cosh)
LOOM_UNARY_MATH(tanh)
LOOM_UNARY_MATH(asinh)
LOOM_UNARY_MATH(acosh)
LOOM_UNARY_MATH(atanh)
LOOM_UNARY_MATH(floor)
LOOM_UNARY_MATH(ceil)
LOOM_UNARY_MATH(round)
LOOM_UNARY_MATH(trunc)
LOOM_UNARY_MATH(erf)
#undef LOOM_UNARY_MATH

Expr hypot(const Expr &x, const Expr &y) {
    Expr fx = float_arg(x, "hypot"), fy = float_arg(y, "hypot");
    return sqrt(fx * fx + fy * fy);
}

namespace {

// x^n by squaring: x^n = (x^(n/2))^2, times x when n is odd; 1 / x^-n for negative n. Each
// multiplication rounds, so this is the exact order of operations, not just the value.
Expr integer_power(const Expr &x, int64_t n) {
    if (n == 0) return make_one(x.type());
    if (n == 1) return x;
    if (n < 0) return make_one(x.type()) / integer_power(x, -n);
    Expr half = integer_power(x, n / 2);
    Expr square = half * half;
    return n % 2 ? square * x : square;
}

}  // namespace

Expr pow(Expr x, Expr y) {
    x = float_arg(std::move(x), "pow");
    user_assert(y.defined()) << "Argument of pow is an undefined Expr";
    // An integer constant exponent is repeated multiplication (as in Halide), exact to the
    // last bit where the C library's pow may not be.
    if (const int64_t *n = as_const_int(y)) return integer_power(x, *n);
    y = cast(x.type(), std::move(y));
    return math_call("pow", {std::move(x), std::move(y)});
}

Expr atan2(Expr y, Expr x) {
    y = float_arg(std::move(y), "atan2");
    // The result has the type of y (Halide's rule); x is converted to it.
    x = cast(y.type(), std::move(x));
    return math_call("atan2", {std::move(y), std::move(x)});
}

Expr fma(Expr a, Expr b, Expr c) {
    user_assert(a.defined() && b.defined() && c.defined())
        << "An argument of fma is an undefined Expr. Give it a value before use.";
    match_types(a, b);
    match_types(a, c);
    match_types(b, c); // c may have widened a: widen b the same way
    user_assert(a.type().is_float())
        << "fma(" << a << ", " << b << ", " << c << ") needs float operands; its operands are "
        << a.type() << ". Cast one of them to a float type, or write a * b + c.";
    return math_call("fma", {std::move(a), std::move(b), std::move(c)});
}

Expr fract(Expr x) {
    x = float_arg(std::move(x), "fract");
    return x - trunc(x);
}

Expr is_nan(Expr x) {
    user_assert(x.defined() && x.type().is_float()) << "is_nan needs a float argument";
    return NE::make(x, x);
}

Expr is_inf(Expr x) {
    user_assert(x.defined() && x.type().is_float()) << "is_inf needs a float argument";
    Type t = x.type();
    Expr a = Call::make_intrinsic(t, Call::abs, {x});
    return EQ::make(a, make_const(t, INFINITY));
}

Expr is_finite(Expr x) {
    user_assert(x.defined() && x.type().is_float()) << "is_finite needs a float argument";
    return And::make(Not::make(is_nan(x)), Not::make(is_inf(x)));
}

namespace {

Expr bit_count(Expr x, Call::IntrinsicOp op, const char *name) {
    user_assert(x.defined() && x.type().is_int_or_uint())
        << name << " needs an integer argument";
    Type t = x.type();
    return Call::make_intrinsic(t, op, {std::move(x)});
}

}  // namespace

Expr popcount(Expr x) { return bit_count(std::move(x), Call::popcount, "popcount"); }
Expr count_leading_zeros(Expr x) {
    return bit_count(std::move(x), Call::count_leading_zeros, "count_leading_zeros");
}
Expr count_trailing_zeros(Expr x) {
    return bit_count(std::move(x), Call::count_trailing_zeros, "count_trailing_zeros");
}

Expr undef(Type t) {
    user_assert(t.is_scalar() && !t.is_handle())
        << "undef of type " << t << ": undef stands for a scalar value of a Func's element type.";
    return Call::make_intrinsic(t, Call::undef, {});
}

Expr likely(Expr e) {
    check_defined(e, "likely");
    Type t = e.type();
    return Call::make_intrinsic(t, Call::likely, {std::move(e)});
}

}  // namespace loom
