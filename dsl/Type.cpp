#include "dsl/Type.h"

#include <limits>

namespace loom {

bool Type::can_represent(Type other) const {
    if (lanes() != other.lanes()) return false;
    if (*this == other) return true;
    switch (code) {
    case Float:
        if (other.is_float()) return bits() >= other.bits();
        // A float holds every integer of up to its mantissa width plus one.
        return other.is_int_or_uint() && other.bits() <= (bits() == 64 ? 53 : bits() == 32 ? 24 : 11);
    case Int:
        if (other.is_int()) return bits() >= other.bits();
        return other.is_uint() && bits() > other.bits();
    case UInt:
        return other.is_uint() && bits() >= other.bits();
    default:
        return false;
    }
}

bool Type::can_represent(int64_t value) const {
    if (is_float()) return true;
    if (is_int()) return value >= min_int() && value <= max_int();
    if (is_uint()) return value >= 0 && (uint64_t)value <= max_uint();
    return false;
}

int64_t Type::min_int() const {
    if (is_uint()) return 0;
    if (bits() >= 64) return std::numeric_limits<int64_t>::min();
    return -(int64_t(1) << (bits() - 1));
}

int64_t Type::max_int() const {
    if (is_uint()) return bits() >= 63 ? std::numeric_limits<int64_t>::max()
                                       : (int64_t)((uint64_t(1) << bits()) - 1);
    if (bits() >= 64) return std::numeric_limits<int64_t>::max();
    return (int64_t(1) << (bits() - 1)) - 1;
}

uint64_t Type::max_uint() const {
    if (bits() >= 64) return std::numeric_limits<uint64_t>::max();
    return (uint64_t(1) << bits()) - 1;
}

std::string type_to_string(Type t) {
    std::string s;
    if (t.is_bool()) {
        s = "bool";
    } else {
        switch (t.code) {
        case Type::Int: s = "int"; break;
        case Type::UInt: s = "uint"; break;
        case Type::Float: s = "float"; break;
        case Type::Handle: s = "handle"; break;
        }
        s += std::to_string(t.bits());
    }
    if (t.is_vector()) s += "x" + std::to_string(t.lanes());
    return s;
}

}  // namespace loom
