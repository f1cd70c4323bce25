// Halide 14's short names for casts (Halide::ConciseCasts): u8(e) is cast<uint8_t>(e), u8_sat(e)
// saturating_cast<uint8_t>(e). Loom has no 16-bit floats, so f16 and bf16 are absent.
#pragma once

#include "dsl/IROperator.h"

namespace loom {
namespace ConciseCasts {

inline Expr f64(Expr e) { return cast(Float(64), std::move(e)); }
inline Expr f32(Expr e) { return cast(Float(32), std::move(e)); }
inline Expr i64(Expr e) { return cast(Int(64), std::move(e)); }
inline Expr i32(Expr e) { return cast(Int(32), std::move(e)); }
inline Expr i16(Expr e) { return cast(Int(16), std::move(e)); }
inline Expr i8(Expr e) { return cast(Int(8), std::move(e)); }
inline Expr u64(Expr e) { return cast(UInt(64), std::move(e)); }
inline Expr u32(Expr e) { return cast(UInt(32), std::move(e)); }
inline Expr u16(Expr e) { return cast(UInt(16), std::move(e)); }
inline Expr u8(Expr e) { return cast(UInt(8), std::move(e)); }
inline Expr i8_sat(Expr e) { return saturating_cast(Int(8), std::move(e)); }
inline Expr u8_sat(Expr e) { return saturating_cast(UInt(8), std::move(e)); }
inline Expr i16_sat(Expr e) { return saturating_cast(Int(16), std::move(e)); }
inline Expr u16_sat(Expr e) { return saturating_cast(UInt(16), std::move(e)); }
inline Expr i32_sat(Expr e) { return saturating_cast(Int(32), std::move(e)); }
inline Expr u32_sat(Expr e) { return saturating_cast(UInt(32), std::move(e)); }
inline Expr i64_sat(Expr e) { return saturating_cast(Int(64), std::move(e)); }
inline Expr u64_sat(Expr e) { return saturating_cast(UInt(64), std::move(e)); }

} // namespace ConciseCasts
} // namespace loom
