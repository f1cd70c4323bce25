// Scalar and vector types of Loom values. A Type is a code (signed or unsigned integer,
// float, opaque handle), a width in bits and a lane count. bool is UInt(1).
#pragma once

#include <cstdint>
#include <string>

#include "runtime/loom_runtime.h"

namespace loom {

struct Type {
    enum Code : uint8_t { Int = loom_type_int, UInt = loom_type_uint, Float = loom_type_float,
                          Handle = loom_type_handle };

    Code code = Int;
    uint8_t bit_width = 0;
    uint16_t lane_count = 0;

    Type() = default;
    Type(Code code, int bits, int lanes)
        : code(code), bit_width((uint8_t)bits), lane_count((uint16_t)lanes) {}

    int bits() const { return bit_width; }
    int bytes() const { return (bit_width + 7) / 8; }
    int lanes() const { return lane_count; }
    bool is_int() const { return code == Int; }
    bool is_uint() const { return code == UInt; }
    bool is_float() const { return code == Float; }
    bool is_handle() const { return code == Handle; }
    bool is_bool() const { return code == UInt && bit_width == 1; }
    bool is_scalar() const { return lane_count == 1; }
    bool is_vector() const { return lane_count > 1; }
    bool is_int_or_uint() const { return code == Int || code == UInt; }

    Type with_lanes(int lanes) const { return Type(code, bit_width, lanes); }
    Type with_bits(int bits) const { return Type(code, bits, lane_count); }
    Type with_code(Code c) const { return Type(c, bit_width, lane_count); }
    Type element_of() const { return with_lanes(1); }

    bool operator==(const Type &o) const {
        return code == o.code && bit_width == o.bit_width && lane_count == o.lane_count;
    }
    bool operator!=(const Type &o) const { return !(*this == o); }

    /** Whether every value of this type can be represented in `other`. */
    bool can_represent(Type other) const;
    /** Whether the integer constant fits in this type. Floats hold any int. */
    bool can_represent(int64_t value) const;

    /** Extreme values as int64/uint64/double; valid for int, uint and float types. */
    int64_t min_int() const;
    int64_t max_int() const;
    uint64_t max_uint() const;

    loom_type_t to_runtime() const { return loom_type_t{(uint8_t)code, bit_width, lane_count}; }
    static Type from_runtime(loom_type_t t) { return Type((Code)t.code, t.bits, t.lanes); }
};

inline Type Int(int bits, int lanes = 1) { return Type(Type::Int, bits, lanes); }
inline Type UInt(int bits, int lanes = 1) { return Type(Type::UInt, bits, lanes); }
inline Type Float(int bits, int lanes = 1) { return Type(Type::Float, bits, lanes); }
inline Type Bool(int lanes = 1) { return UInt(1, lanes); }
inline Type Handle(int lanes = 1) { return Type(Type::Handle, 64, lanes); }

/** "int32", "uint8x16", "float32", "bool". */
std::string type_to_string(Type t);

template<typename T>
struct TypeOf;
template<> struct TypeOf<bool> { static Type get() { return Bool(); } };
template<> struct TypeOf<int8_t> { static Type get() { return Int(8); } };
template<> struct TypeOf<int16_t> { static Type get() { return Int(16); } };
template<> struct TypeOf<int32_t> { static Type get() { return Int(32); } };
template<> struct TypeOf<int64_t> { static Type get() { return Int(64); } };
template<> struct TypeOf<uint8_t> { static Type get() { return UInt(8); } };
template<> struct TypeOf<uint16_t> { static Type get() { return UInt(16); } };
template<> struct TypeOf<uint32_t> { static Type get() { return UInt(32); } };
template<> struct TypeOf<uint64_t> { static Type get() { return UInt(64); } };
template<> struct TypeOf<float> { static Type get() { return Float(32); } };
template<> struct TypeOf<double> { static Type get() { return Float(64); } };
/** Every pointer is an opaque handle. */
template <typename T> struct TypeOf<T *> {
    static Type get() { return Handle(); }
};

/** The Loom type of a C++ scalar type: type_of<float>() == Float(32). */
template<typename T>
Type type_of() {
    return TypeOf<T>::get();
}

}  // namespace loom
