// Loom's float32 exponential, emitted inline so that it vectorizes.
#pragma once

namespace llvm {
class IRBuilderBase;
class Value;
} // namespace llvm

namespace loom {
namespace Internal {

/** Emits e^x for `x` of type float or <N x float>. Every lane goes through the same sequence of
 * IEEE float operations (explicit fused multiply-adds, each rounded once whether the CPU has
 * them or fmaf computes them; no fast-math flags, no table lookups), so the result is the same
 * bit for bit for any vector width, schedule or x86 target: a scalar lane and lane 7 of a
 * 16-wide vector agree. Accuracy: at most 0.85 ulp from the exact value, and equal to the
 * correctly rounded result for 99.67% of the floats in [-104, 89] (measured over all). e^x
 * overflows to +inf above about 88.72, flushes to +0 below about -103.97, and is NaN for NaN;
 * results in the subnormal range are rounded once.
 *
 * Where the target has AVX-512 (has_avx512f for 16 lanes, has_avx512vl for 4 or 8), the final
 * scaling by 2^k is one `vscalefps` (e^r * 2^k, rounded once) instead of two multiplies by
 * powers of two built in integer registers. Both round the exact product once, so the bits are
 * the same either way. */
llvm::Value *emit_exp_f32(llvm::IRBuilderBase &builder, llvm::Value *x, bool has_avx512f,
                          bool has_avx512vl);

} // namespace Internal
} // namespace loom
