#include "codegen/ExpF32.h"

#include <vector>

#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>

namespace loom {
namespace Internal {
namespace {

// e^r = 1 + r + r^2 * q(r) on |r| <= ln(2) / 2, q of degree 4: Chebyshev interpolation of
// (e^r - 1 - r) / r^2 at 5 nodes on a 1% wider interval (fit in long double, rounded to float).
// q's own error is below 1e-8 relative, so the result's error is the float rounding of the
// evaluation: at most 0.85 ulp (0.8431 at x = 37.7769318, the worst over all floats).
constexpr float kQ[] = {5.000000000e-01f, 1.666657335e-01f, 4.166655007e-02f, 8.363778522e-03f,
                        1.392693242e-03f};

// ln(2) split Cody-Waite style: kLn2Hi has 9 significant bits, so k * kLn2Hi is exact for the
// |k| <= 150 that reach it, and x - k * kLn2Hi is exact too (the operands are within a factor
// of two); kLn2Lo is the rest of ln(2) to float precision.
constexpr float kLn2Hi = 0.693359375f;
constexpr float kLn2Lo = -2.12194440e-4f;
constexpr float kLog2E = 1.44269502f;
// Adding 1.5 * 2^23 rounds a float of magnitude below 2^22 to an integer (ties to even), and
// that integer sits in the low mantissa bits of the sum: bits(sum) = bits(1.5 * 2^23) + k.
constexpr float kRoundMagic = 12582912.0f;
constexpr int32_t kRoundMagicBits = 0x4B400000;
// Beyond these, e^x is +inf (above 88.7228) or rounds to +0 (below -103.9721); clamping keeps
// k in [-150, 128], where the two-factor scaling below is exact.
constexpr float kMaxArg = 89.0f, kMinArg = -104.0f;

// The AVX-512 scalef intrinsic for vectors of `lanes` floats, or not_intrinsic where the target
// lacks it for that width.
llvm::Intrinsic::ID scalef_intrinsic(int lanes, bool has_avx512f, bool has_avx512vl) {
    if (lanes == 16 && has_avx512f) return llvm::Intrinsic::x86_avx512_mask_scalef_ps_512;
    if (lanes == 8 && has_avx512vl) return llvm::Intrinsic::x86_avx512_mask_scalef_ps_256;
    if (lanes == 4 && has_avx512vl) return llvm::Intrinsic::x86_avx512_mask_scalef_ps_128;
    return llvm::Intrinsic::not_intrinsic;
}

} // namespace

llvm::Value *emit_exp_f32(llvm::IRBuilderBase &b, llvm::Value *x, bool has_avx512f,
                          bool has_avx512vl) {
    llvm::Type *ft = x->getType();
    llvm::Type *it = ft->isVectorTy()
                         ? llvm::VectorType::get(b.getInt32Ty(), llvm::cast<llvm::VectorType>(ft))
                         : (llvm::Type *)b.getInt32Ty();
    auto f = [&](float v) { return llvm::ConstantFP::get(ft, v); };
    auto i = [&](int32_t v) { return llvm::ConstantInt::get(it, v, true); };

    // Compare-and-select rather than minnum/maxnum: a NaN fails both compares and passes
    // through, so the result is NaN.
    x = b.CreateSelect(b.CreateFCmpOLT(x, f(kMinArg)), f(kMinArg), x);
    x = b.CreateSelect(b.CreateFCmpOGT(x, f(kMaxArg)), f(kMaxArg), x);

    // Fused multiply-adds (llvm.fma: one rounding, exact on every target; a call to fmaf
    // where the CPU lacks them) shorten the sequence and drop a rounding at each step.
    auto fma = [&](llvm::Value *a, llvm::Value *m, llvm::Value *c) {
        return b.CreateIntrinsic(llvm::Intrinsic::fma, {ft}, {a, m, c});
    };
    // x = k * ln(2) + r, k = round(x / ln(2)), |r| <= ln(2) / 2 (slightly more from rounding).
    llvm::Value *rounded = fma(x, f(kLog2E), f(kRoundMagic));
    llvm::Value *k = b.CreateFSub(rounded, f(kRoundMagic));
    llvm::Value *r = fma(k, f(-kLn2Hi), x);
    r = fma(k, f(-kLn2Lo), r);

    llvm::Value *q = f(kQ[4]);
    for (int n = 3; n >= 0; n--) q = fma(q, r, f(kQ[n]));
    // e^r = s + (r^2 q + c) with s = fl(1 + r) and c = (1 - s) + r its exact rounding error
    // (|r| < 1), so that the sum is rounded once, at the end, not also at fl(r + r^2 q).
    llvm::Value *r2 = b.CreateFMul(r, r);
    llvm::Value *s = b.CreateFAdd(f(1.0f), r);
    llvm::Value *c = b.CreateFAdd(b.CreateFSub(f(1.0f), s), r);
    llvm::Value *er = b.CreateFAdd(s, fma(r2, q, c));

    int lanes = ft->isVectorTy() ? (int)llvm::cast<llvm::FixedVectorType>(ft)->getNumElements() : 1;
    llvm::Intrinsic::ID scalef = scalef_intrinsic(lanes, has_avx512f, has_avx512vl);
    if (scalef != llvm::Intrinsic::not_intrinsic) {
        // vscalefps: er * 2^floor(k) rounded once under the default rounding mode (k is an
        // integer already), in all lanes (a mask of ones: the pass-through operand is unused);
        // the 512-bit form also takes the rounding, 4 = the current direction.
        std::vector<llvm::Value *> args = {er, k, er, b.getIntN(lanes < 8 ? 8 : lanes, -1)};
        if (lanes == 16) args.push_back(b.getInt32(4));
        return b.CreateIntrinsic(scalef, {}, args);
    }
    // e^x = e^r * 2^k1 * 2^k2 with k1 = floor(k / 2), k2 = k - k1: both factors are normal
    // floats for k in [-150, 128], so the first product is exact and the second rounds once,
    // also when the result is subnormal or overflows.
    // The integer k from the bits, not fptosi: fptosi of a NaN is poison in LLVM.
    llvm::Value *ki = b.CreateSub(b.CreateBitCast(rounded, it), i(kRoundMagicBits));
    llvm::Value *k1 = b.CreateAShr(ki, i(1));
    llvm::Value *k2 = b.CreateSub(ki, k1);
    auto power_of_two = [&](llvm::Value *e) {
        return b.CreateBitCast(b.CreateShl(b.CreateAdd(e, i(127)), i(23)), ft);
    };
    return b.CreateFMul(b.CreateFMul(er, power_of_two(k1)), power_of_two(k2));
}

} // namespace Internal
} // namespace loom
