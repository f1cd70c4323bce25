// Type: names, sizes, ranges and which values a type can hold.
#include <gtest/gtest.h>

#include "dsl/Type.h"

namespace loom {
namespace {

TEST(Type, ToString) {
    EXPECT_EQ(type_to_string(Int(32)), "int32");
    EXPECT_EQ(type_to_string(Int(8)), "int8");
    EXPECT_EQ(type_to_string(UInt(16)), "uint16");
    EXPECT_EQ(type_to_string(UInt(8, 16)), "uint8x16");
    EXPECT_EQ(type_to_string(Float(32)), "float32");
    EXPECT_EQ(type_to_string(Float(64, 4)), "float64x4");
    EXPECT_EQ(type_to_string(Bool()), "bool");
    EXPECT_EQ(type_to_string(Bool(8)), "boolx8");
    EXPECT_EQ(type_to_string(Handle()), "handle64");
}

TEST(Type, TypeOfCppTypes) {
    EXPECT_EQ(type_of<int8_t>(), Int(8));
    EXPECT_EQ(type_of<int16_t>(), Int(16));
    EXPECT_EQ(type_of<int32_t>(), Int(32));
    EXPECT_EQ(type_of<int64_t>(), Int(64));
    EXPECT_EQ(type_of<uint8_t>(), UInt(8));
    EXPECT_EQ(type_of<uint16_t>(), UInt(16));
    EXPECT_EQ(type_of<uint32_t>(), UInt(32));
    EXPECT_EQ(type_of<uint64_t>(), UInt(64));
    EXPECT_EQ(type_of<float>(), Float(32));
    EXPECT_EQ(type_of<double>(), Float(64));
    EXPECT_EQ(type_of<bool>(), UInt(1));
}

TEST(Type, Properties) {
    EXPECT_TRUE(Bool().is_bool());
    EXPECT_TRUE(Bool().is_uint());
    EXPECT_FALSE(UInt(8).is_bool());
    EXPECT_EQ(Bool().bytes(), 1);
    EXPECT_EQ(Int(16).bytes(), 2);
    EXPECT_EQ(Float(64).bytes(), 8);
    EXPECT_EQ(Int(32, 8).lanes(), 8);
    EXPECT_TRUE(Int(32, 8).is_vector());
    EXPECT_TRUE(Int(32).is_scalar());
    EXPECT_EQ(Int(32, 8).element_of(), Int(32));
    EXPECT_EQ(Int(32).with_lanes(4), Int(32, 4));
    EXPECT_EQ(Int(32).with_code(Type::UInt), UInt(32));
    EXPECT_EQ(UInt(8).with_bits(16), UInt(16));
    EXPECT_NE(Int(32), UInt(32));
    EXPECT_NE(Int(32), Int(32, 4));
}

TEST(Type, Ranges) {
    EXPECT_EQ(Int(8).min_int(), -128);
    EXPECT_EQ(Int(8).max_int(), 127);
    EXPECT_EQ(UInt(8).min_int(), 0);
    EXPECT_EQ(UInt(8).max_int(), 255);
    EXPECT_EQ(UInt(16).max_uint(), 65535u);
    EXPECT_EQ(Int(32).min_int(), INT32_MIN);
    EXPECT_EQ(Int(64).min_int(), INT64_MIN);
    EXPECT_EQ(Int(64).max_int(), INT64_MAX);
    EXPECT_EQ(UInt(64).max_uint(), UINT64_MAX);
}

TEST(Type, CanRepresentConstants) {
    EXPECT_TRUE(UInt(8).can_represent(int64_t(255)));
    EXPECT_FALSE(UInt(8).can_represent(int64_t(256)));
    EXPECT_FALSE(UInt(8).can_represent(int64_t(-1)));
    EXPECT_TRUE(Int(8).can_represent(int64_t(-128)));
    EXPECT_FALSE(Int(8).can_represent(int64_t(128)));
    EXPECT_TRUE(Int(16).can_represent(int64_t(-32768)));
    EXPECT_TRUE(Float(32).can_represent(int64_t(1) << 40));
}

TEST(Type, CanRepresentTypes) {
    EXPECT_TRUE(Int(16).can_represent(UInt(8)));
    EXPECT_FALSE(Int(16).can_represent(UInt(16)));
    EXPECT_TRUE(Int(32).can_represent(Int(8)));
    EXPECT_FALSE(Int(8).can_represent(Int(16)));
    EXPECT_FALSE(UInt(32).can_represent(Int(8)));
    EXPECT_TRUE(UInt(32).can_represent(UInt(16)));
    EXPECT_TRUE(Float(64).can_represent(Float(32)));
    EXPECT_FALSE(Float(32).can_represent(Float(64)));
    EXPECT_TRUE(Float(32).can_represent(Int(16)));
    EXPECT_FALSE(Float(32).can_represent(Int(32)));
    EXPECT_TRUE(Float(64).can_represent(Int(32)));
    EXPECT_FALSE(Float(64).can_represent(Int(64)));
    EXPECT_FALSE(Int(32).can_represent(Float(32)));
    EXPECT_FALSE(Int(32).can_represent(Int(32, 4)));
}

}  // namespace
}  // namespace loom
