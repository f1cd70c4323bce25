// The LLVM code generator's core (the CodeGen class: CodeGen_LLVM_Internal.h): the pipeline's
// entry function and its arguments, types and constants, casts, arithmetic and comparisons,
// vectors, calls of math functions, the runtime and intrinsics, and the statements that only
// sequence others; codegen_llvm at the end. Loads and stores, allocations, loops and the GPU
// side are in files of their own.
#include "codegen/CodeGen_LLVM.h"

#include <climits>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/CodeGen_LLVM_Internal.h"
#include "codegen/DeviceGlue.h"
#include "codegen/ExpF32.h"
#include "codegen/FloatDivision.h"
#include "codegen/LoopOutlining.h"
#include "codegen/StreamingStores.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Random.h"
#include "lower/InjectDeviceCopies.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

namespace {

// Byte offsets of loom_buffer_t and loom_dimension_t fields (see runtime/loom_runtime.h).
constexpr int kDimensionSize = 16;
constexpr int kDimMinOffset = 0, kDimExtentOffset = 4, kDimStrideOffset = 8;

// libm names of the PureExtern math calls that have no exact LLVM intrinsic.
const std::map<std::string, std::string> &libm_names() {
    static const std::map<std::string, std::string> names = {
        {"exp_f64", "exp"},      {"log_f32", "logf"},     {"log_f64", "log"},
        {"pow_f32", "powf"},     {"pow_f64", "pow"},      {"sin_f32", "sinf"},
        {"sin_f64", "sin"},      {"cos_f32", "cosf"},     {"cos_f64", "cos"},
        {"tan_f32", "tanf"},     {"tan_f64", "tan"},      {"asin_f32", "asinf"},
        {"asin_f64", "asin"},    {"acos_f32", "acosf"},   {"acos_f64", "acos"},
        {"atan_f32", "atanf"},   {"atan_f64", "atan"},    {"atan2_f32", "atan2f"},
        {"atan2_f64", "atan2"},  {"sinh_f32", "sinhf"},   {"sinh_f64", "sinh"},
        {"cosh_f32", "coshf"},   {"cosh_f64", "cosh"},    {"tanh_f32", "tanhf"},
        {"tanh_f64", "tanh"},    {"asinh_f32", "asinhf"}, {"asinh_f64", "asinh"},
        {"acosh_f32", "acoshf"}, {"acosh_f64", "acosh"},  {"atanh_f32", "atanhf"},
        {"atanh_f64", "atanh"},  {"erf_f32", "erff"},     {"erf_f64", "erf"},
    };
    return names;
}

// Math calls that are exact, so an LLVM intrinsic gives the same bits as libm.
llvm::Intrinsic::ID exact_math_intrinsic(const std::string &name) {
    std::string base = name.substr(0, name.rfind('_'));
    if (base == "sqrt") return llvm::Intrinsic::sqrt;
    if (base == "floor") return llvm::Intrinsic::floor;
    if (base == "ceil") return llvm::Intrinsic::ceil;
    if (base == "trunc") return llvm::Intrinsic::trunc;
    if (base == "round") return llvm::Intrinsic::roundeven; // ties to even
    if (base == "fma") return llvm::Intrinsic::fma;         // rounds once, as the C library's fma
    return llvm::Intrinsic::not_intrinsic;
}

// Whether tm is an x86 machine with `feature` (another target's backend would warn that it
// does not know the feature's name).
bool has_x86_feature(const llvm::TargetMachine &tm, const char *feature) {
    return tm.getTargetTriple().isX86() && tm.getMCSubtargetInfo()->checkFeatures(feature);
}

} // namespace

CodeGen::CodeGen(llvm::LLVMContext &ctx, llvm::TargetMachine &tm, const std::string &name,
                 unsigned outline_threads, bool verify)
    : ctx(ctx), module(std::make_unique<llvm::Module>(name, ctx)), builder(ctx),
      has_avx512f(has_x86_feature(tm, "+avx512f")), has_avx512vl(has_x86_feature(tm, "+avx512vl")),
      has_avx512bw(has_x86_feature(tm, "+avx512bw")), has_fma(has_x86_feature(tm, "+fma")),
      has_avx512vbmi(has_x86_feature(tm, "+avx512vbmi")), is_x86(tm.getTargetTriple().isX86()),
      is_nvptx(tm.getTargetTriple().isNVPTX()), verify(verify), outline_threads(outline_threads) {
    module->setTargetTriple(tm.getTargetTriple().str());
    module->setDataLayout(tm.createDataLayout());
}

std::unique_ptr<llvm::Module> CodeGen::compile(const LoweredPipeline &p) {
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    auto *fn_type = llvm::FunctionType::get(builder.getInt32Ty(), {ptr, ptr}, false);
    function =
        llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, p.name, module.get());
    function->addFnAttr(llvm::Attribute::NoUnwind);
    user_context = function->getArg(0);
    llvm::Value *args = function->getArg(1);
    builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", function));

    for (size_t i = 0; i < p.args.size(); i++) {
        const LoweredArgument &a = p.args[i];
        llvm::Value *slot = builder.CreateConstGEP1_64(ptr, args, i);
        llvm::Value *arg_ptr = builder.CreateLoad(ptr, slot, a.name + ".arg");
        if (a.kind == Argument::InputScalar) {
            symbols.push(a.name, builder.CreateLoad(llvm_type(a.type), arg_ptr, a.name));
            continue;
        }
        llvm::Value *host = builder.CreateLoad(
            ptr, builder.CreateConstGEP1_64(builder.getInt8Ty(), arg_ptr, kBufferHostOffset),
            a.name + ".host");
        buffers.push(a.name, host);
        external_buffers.insert(a.name);
        // The loom_buffer_t itself, for the device-copy calls of lower/InjectDeviceCopies.
        symbols.push(buffer_struct_name(a.name), arg_ptr);
        llvm::Value *dims = builder.CreateLoad(
            ptr, builder.CreateConstGEP1_64(builder.getInt8Ty(), arg_ptr, kBufferDimOffset),
            a.name + ".dim");
        std::vector<llvm::Value *> extents, strides;
        for (int d = 0; d < a.dimensions; d++) {
            std::string ds = std::to_string(d);
            auto field = [&](int offset, const std::string &field_name) {
                llvm::Value *addr = builder.CreateConstGEP1_64(builder.getInt8Ty(), dims,
                                                               d * kDimensionSize + offset);
                llvm::Value *value = builder.CreateLoad(builder.getInt32Ty(), addr,
                                                        a.name + "." + field_name + "." + ds);
                symbols.push(a.name + "." + field_name + "." + ds, value);
                return value;
            };
            field(kDimMinOffset, "min");
            extents.push_back(field(kDimExtentOffset, "extent"));
            strides.push_back(field(kDimStrideOffset, "stride"));
        }
        if (a.kind == Argument::OutputBuffer) {
            output_buffers.push_back(a.name);
            symbols.push(streams_flag(a.name),
                         spans_enough_to_stream(builder, extents, strides, a.type.bytes(),
                                                p.streaming_min_bytes));
        }
    }
    entry_function = function;
    max_allocation_elements = p.max_allocation_elements;
    if (outline_threads > 0) outlined_loops = loops_to_outline(p.body, outline_threads);
    loaded_buffers = buffers_loaded(p.body);
    allocations_with_device_copies = buffers_with_device_copies(p.body);
    codegen(p.body);
    if (pipeline_streams) fence_streaming_stores(builder);
    builder.CreateRet(builder.getInt32(0));
    if (!entry_has_loops) {
        // All the work is in parallel tasks: the entry function checks the buffers, sets
        // up allocations and launches them, once per call, and is straight-line code.
        // Optimizing it bought nothing measurable but cost up to 40% of the compile time
        // of a small pipeline (LLVM skips optnone functions and selects instructions for
        // them the fast way).
        function->addFnAttr(llvm::Attribute::OptimizeNone);
        function->addFnAttr(llvm::Attribute::NoInline);
    } else if (!function_has_innermost_loop) {
        // Its loops only launch parallel loops or call outlined ones (conv_relu's loop
        // over the batch around its parallel rows): glue, as a task can be. Optimized,
        // conv_relu's entry (checks and that loop, 690 instructions) took 19 ms of O3 and
        // code generation; unoptimized, 3 ms.
        marks_as_glue(*function);
    }

    if (verify) {
        std::string errors;
        llvm::raw_string_ostream es(errors);
        internal_assert(!llvm::verifyModule(*module, &es))
            << "LLVM rejected the generated module: " << es.str();
    }
    return std::move(module);
}

llvm::Type *CodeGen::llvm_type(Type t) {
    llvm::Type *s = nullptr;
    if (t.is_float()) {
        s = t.bits() == 64   ? builder.getDoubleTy()
            : t.bits() == 16 ? builder.getHalfTy()
                             : builder.getFloatTy();
    } else if (t.is_handle()) {
        s = llvm::PointerType::get(ctx, 0);
    } else {
        s = builder.getIntNTy(t.bits());
    }
    return t.is_vector() ? llvm::FixedVectorType::get(s, t.lanes()) : s;
}

llvm::Value *CodeGen::codegen(const Expr &e) {
    internal_assert(e.defined()) << "codegen of undefined Expr";
    value = nullptr;
    e.accept(this);
    internal_assert(value) << "codegen produced no value for " << e;
    return value;
}

void CodeGen::codegen(const Stmt &s) {
    if (s.defined()) s.accept(this);
}

llvm::Constant *CodeGen::const_of(Type t, int64_t v) {
    return llvm::cast<llvm::Constant>(codegen(make_const(t, v)));
}

// ---- constants and variables ----
void CodeGen::visit(const IntImm *op) {
    value = llvm::ConstantInt::get(llvm_type(op->type), (uint64_t)op->value, true);
}

void CodeGen::visit(const UIntImm *op) {
    value = llvm::ConstantInt::get(llvm_type(op->type), op->value, false);
}

void CodeGen::visit(const FloatImm *op) {
    value = llvm::ConstantFP::get(llvm_type(op->type), op->value);
}

void CodeGen::visit(const StringImm *op) { value = builder.CreateGlobalStringPtr(op->value); }

void CodeGen::visit(const Variable *op) {
    if (op->name == kUserContextName) {
        value = user_context;
        return;
    }
    const auto *v = symbols.find(op->name);
    internal_assert(v) << "Variable " << op->name << " is not bound in codegen";
    value = *v;
}

// ---- casts ----
void CodeGen::visit(const Cast *op) {
    Type from = op->value.type(), to = op->type;
    llvm::Value *v = codegen(op->value);
    llvm::Type *t = llvm_type(to);
    if (to.is_bool()) {
        value = from.is_float()
                    ? builder.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()))
                    : builder.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
    } else if (from.is_float() && to.is_float()) {
        value = builder.CreateFPCast(v, t);
    } else if (from.is_float()) {
        value = to.is_int() ? builder.CreateFPToSI(v, t) : builder.CreateFPToUI(v, t);
    } else if (to.is_float()) {
        value = from.is_int() ? builder.CreateSIToFP(v, t) : builder.CreateUIToFP(v, t);
    } else {
        value = builder.CreateIntCast(v, t, from.is_int());
    }
}

void CodeGen::visit(const Reinterpret *op) {
    value = builder.CreateBitCast(codegen(op->value), llvm_type(op->type));
}

// ---- arithmetic ----
void CodeGen::visit(const Add *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value = op->type.is_float() ? builder.CreateFAdd(a, b) : builder.CreateAdd(a, b);
}

void CodeGen::visit(const Sub *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value = op->type.is_float() ? builder.CreateFSub(a, b) : builder.CreateSub(a, b);
}

void CodeGen::visit(const Mul *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value = op->type.is_float() ? builder.CreateFMul(a, b) : builder.CreateMul(a, b);
}

llvm::Value *CodeGen::float_floor(llvm::Value *v) {
    return builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, v);
}

// Euclidean division and modulo for signed ints, with x / 0 == 0 and INT_MIN / -1 wrapping.
void CodeGen::signed_div_mod(Type t, llvm::Value *a, llvm::Value *b, bool want_mod) {
    llvm::Value *zero = const_of(t, 0), *one = const_of(t, 1), *minus_one = const_of(t, -1);
    llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
    llvm::Value *b_minus_one = builder.CreateICmpEQ(b, minus_one);
    llvm::Value *trivial = builder.CreateOr(b_zero, b_minus_one);
    llvm::Value *safe_b = builder.CreateSelect(trivial, one, b);
    llvm::Value *r = builder.CreateSRem(a, safe_b);
    llvm::Value *r_negative = builder.CreateICmpSLT(r, zero);
    if (want_mod) {
        llvm::Value *abs_b = builder.CreateSelect(builder.CreateICmpSLT(safe_b, zero),
                                                  builder.CreateSub(zero, safe_b), safe_b);
        llvm::Value *m = builder.CreateSelect(r_negative, builder.CreateAdd(r, abs_b), r);
        value = builder.CreateSelect(trivial, zero, m);
        return;
    }
    llvm::Value *q = builder.CreateSDiv(a, safe_b);
    llvm::Value *step = builder.CreateSelect(builder.CreateICmpSGT(safe_b, zero), minus_one, one);
    q = builder.CreateSelect(r_negative, builder.CreateAdd(q, step), q);
    q = builder.CreateSelect(b_minus_one, builder.CreateSub(zero, a), q);
    value = builder.CreateSelect(b_zero, zero, q);
}

// A vector's lanes of 32-bit integers divided by a constant, as a float multiply where
// that gives every lane's quotient exactly (see FloatDivision.h), or nullptr.
llvm::Value *CodeGen::divide_by_float(const Div *op) {
    const Type t = op->type;
    if (!is_x86 || !t.is_vector() || !t.is_int_or_uint() || t.bits() != 32) return nullptr;
    const int64_t *d = as_const_int(op->b);
    const uint64_t *ud = as_const_uint(op->b);
    const int64_t divisor = d ? *d : ud && *ud <= (uint64_t)INT32_MAX ? (int64_t)*ud : 0;
    llvm::Type *lanes_of_float = llvm_type(Float(32, t.lanes()));
    if (has_fma) {
        if (std::optional<BiasedReciprocal> r = biased_reciprocal_for(op->a, divisor)) {
            llvm::Value *two_23 = const_of(t, 0x4B000000);
            llvm::Value *x =
                builder.CreateBitCast(builder.CreateAdd(codegen(op->a), two_23), lanes_of_float);
            llvm::Value *q =
                builder.CreateIntrinsic(llvm::Intrinsic::fma, {lanes_of_float},
                                        {x, llvm::ConstantFP::get(lanes_of_float, r->c),
                                         llvm::ConstantFP::get(lanes_of_float, r->k)});
            return builder.CreateSub(builder.CreateBitCast(q, llvm_type(t)),
                                     const_of(t, 0x4B000000 + kBiasedQuotientOffset));
        }
    }
    std::optional<float> reciprocal = float_reciprocal_for(op->a, divisor);
    if (!reciprocal) return nullptr;
    // Signed conversions both ways: every lane lies in [0, 2^24) (x86 converts signed
    // 32-bit lanes in one instruction at every vector width, unsigned only with AVX-512).
    llvm::Value *x = builder.CreateSIToFP(codegen(op->a), lanes_of_float);
    llvm::Value *q = builder.CreateFMul(x, llvm::ConstantFP::get(lanes_of_float, *reciprocal));
    return builder.CreateFPToSI(q, llvm_type(t));
}

void CodeGen::visit(const Div *op) {
    if (llvm::Value *q = divide_by_float(op)) {
        value = q;
        return;
    }
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        value = builder.CreateFDiv(a, b);
    } else if (t.is_uint()) {
        llvm::Value *zero = const_of(t, 0);
        llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
        llvm::Value *q = builder.CreateUDiv(a, builder.CreateSelect(b_zero, const_of(t, 1), b));
        value = builder.CreateSelect(b_zero, zero, q);
    } else {
        signed_div_mod(t, a, b, false);
    }
}

void CodeGen::visit(const Mod *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    if (t.is_float()) {
        // a - b * floor(a / b), each step rounded as written.
        value = builder.CreateFSub(a, builder.CreateFMul(b, float_floor(builder.CreateFDiv(a, b))));
    } else if (t.is_uint()) {
        llvm::Value *zero = const_of(t, 0);
        llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
        llvm::Value *r = builder.CreateURem(a, builder.CreateSelect(b_zero, const_of(t, 1), b));
        value = builder.CreateSelect(b_zero, zero, r);
    } else {
        signed_div_mod(t, a, b, true);
    }
}

void CodeGen::visit(const Min *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    llvm::Value *lt = t.is_float() ? builder.CreateFCmpOLT(a, b)
                      : t.is_int() ? builder.CreateICmpSLT(a, b)
                                   : builder.CreateICmpULT(a, b);
    value = builder.CreateSelect(lt, a, b);
}

void CodeGen::visit(const Max *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    Type t = op->type;
    llvm::Value *gt = t.is_float() ? builder.CreateFCmpOGT(a, b)
                      : t.is_int() ? builder.CreateICmpSGT(a, b)
                                   : builder.CreateICmpUGT(a, b);
    value = builder.CreateSelect(gt, a, b);
}

// ---- comparisons ----
void CodeGen::compare(const Expr &ea, const Expr &eb, llvm::CmpInst::Predicate fp,
                      llvm::CmpInst::Predicate sp, llvm::CmpInst::Predicate up) {
    llvm::Value *a = codegen(ea), *b = codegen(eb);
    Type t = ea.type();
    llvm::CmpInst::Predicate p = t.is_float() ? fp : t.is_int() ? sp : up;
    value = t.is_float() ? builder.CreateFCmp(p, a, b) : builder.CreateICmp(p, a, b);
}

// Float comparisons follow C: ordered, except != which is true when either is NaN.
void CodeGen::visit(const EQ *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::ICMP_EQ, llvm::CmpInst::ICMP_EQ);
}

void CodeGen::visit(const NE *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_UNE, llvm::CmpInst::ICMP_NE, llvm::CmpInst::ICMP_NE);
}

void CodeGen::visit(const LT *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_OLT, llvm::CmpInst::ICMP_SLT,
            llvm::CmpInst::ICMP_ULT);
}

void CodeGen::visit(const LE *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_OLE, llvm::CmpInst::ICMP_SLE,
            llvm::CmpInst::ICMP_ULE);
}

void CodeGen::visit(const GT *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_OGT, llvm::CmpInst::ICMP_SGT,
            llvm::CmpInst::ICMP_UGT);
}

void CodeGen::visit(const GE *op) {
    compare(op->a, op->b, llvm::CmpInst::FCMP_OGE, llvm::CmpInst::ICMP_SGE,
            llvm::CmpInst::ICMP_UGE);
}

void CodeGen::visit(const And *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value = builder.CreateAnd(a, b);
}

void CodeGen::visit(const Or *op) {
    llvm::Value *a = codegen(op->a), *b = codegen(op->b);
    value = builder.CreateOr(a, b);
}

void CodeGen::visit(const Not *op) { value = builder.CreateNot(codegen(op->a)); }

void CodeGen::visit(const Select *op) {
    llvm::Value *c = codegen(op->condition);
    llvm::Value *t = codegen(op->true_value), *f = codegen(op->false_value);
    value = builder.CreateSelect(c, t, f);
}

// ---- vectors and lets ----
void CodeGen::visit(const Ramp *op) {
    llvm::Value *base = codegen(op->base), *stride = codegen(op->stride);
    Type t = op->type;
    std::vector<llvm::Constant *> lanes;
    for (int i = 0; i < op->lanes; i++)
        lanes.push_back(const_of(t.element_of(), i));
    llvm::Value *iota = llvm::ConstantVector::get(lanes);
    llvm::Value *b = builder.CreateVectorSplat(op->lanes, base);
    llvm::Value *s = builder.CreateVectorSplat(op->lanes, stride);
    value =
        t.is_float()
            ? builder.CreateFAdd(b, builder.CreateFMul(s, builder.CreateSIToFP(iota, llvm_type(t))))
            : builder.CreateAdd(b, builder.CreateMul(s, iota));
}

void CodeGen::visit(const Broadcast *op) {
    value = builder.CreateVectorSplat(op->lanes, codegen(op->value));
}

void CodeGen::visit(const Let *op) {
    symbols.push(op->name, codegen(op->value));
    value = codegen(op->body);
    symbols.pop(op->name);
}

// ---- calls ----
llvm::FunctionCallee CodeGen::runtime_function(const std::string &name, llvm::Type *ret,
                                               std::vector<llvm::Type *> params) {
    auto *type = llvm::FunctionType::get(ret, params, false);
    return module->getOrInsertFunction(name, type);
}

// Calls a scalar C function once per lane.
llvm::Value *CodeGen::call_per_lane(llvm::FunctionCallee fn, Type t,
                                    std::vector<llvm::Value *> args) {
    auto call = [&](std::vector<llvm::Value *> a) {
        llvm::CallInst *c = builder.CreateCall(fn, a);
        // The C library's function, never a compiler's idea of it: same bits as libm.
        c->addFnAttr(llvm::Attribute::NoBuiltin);
        return c;
    };
    if (t.is_scalar()) return call(args);
    llvm::Value *result = llvm::UndefValue::get(llvm_type(t));
    for (int i = 0; i < t.lanes(); i++) {
        std::vector<llvm::Value *> lane;
        for (llvm::Value *a : args)
            lane.push_back(builder.CreateExtractElement(a, (uint64_t)i));
        result = builder.CreateInsertElement(result, call(lane), (uint64_t)i);
    }
    return result;
}

void CodeGen::visit(const Call *op) {
    Type t = op->type;
    if (op->call_type == Call::Intrinsic || op->call_type == Call::PureIntrinsic) {
        intrinsic(op);
        return;
    }
    if (op->call_type == Call::PureExtern) {
        std::vector<llvm::Value *> args;
        for (const Expr &a : op->args)
            args.push_back(codegen(a));
        if (op->name == "exp_f32") {
            value = emit_exp_f32(builder, args[0], has_avx512f, has_avx512vl);
            return;
        }
        llvm::Intrinsic::ID id = exact_math_intrinsic(op->name);
        if (id != llvm::Intrinsic::not_intrinsic) {
            value = builder.CreateIntrinsic(id, {args[0]->getType()}, args);
            return;
        }
        auto it = libm_names().find(op->name);
        internal_assert(it != libm_names().end()) << "Unknown math function " << op->name;
        user_assert(!is_nvptx)
            << "A GPU kernel calls " << op->name << ", which Loom computes with the C "
            << "library's function on the CPU; its CUDA backend has no version of it yet. "
               "Compute the Func that calls it on the CPU (schedule it without gpu_blocks).";
        llvm::Type *scalar = llvm_type(t.element_of());
        std::vector<llvm::Type *> params(args.size(), scalar);
        value = call_per_lane(runtime_function(it->second, scalar, params), t, args);
        return;
    }
    if (op->call_type == Call::Extern) {
        user_assert(op->name != random_variable_call_name)
            << "A random variable (random_float, random_int or random_uint) is used outside the "
               "values and arguments of a Func's definition (in an RDom's where() condition, a "
               "specialization's condition or a bound, say): it takes its value from the point "
               "of a definition. Define a Func with the random value and read that instead.";
        internal_assert(!is_nvptx) << "Runtime call " << op->name << " inside a GPU kernel";
        // Runtime error reporters: (user_context, args...) -> error code.
        std::vector<llvm::Value *> args{user_context};
        std::vector<llvm::Type *> params{llvm::PointerType::get(ctx, 0)};
        for (const Expr &a : op->args) {
            args.push_back(codegen(a));
            params.push_back(args.back()->getType());
        }
        value = builder.CreateCall(runtime_function(op->name, llvm_type(t), params), args);
        return;
    }
    internal_error << "Call to " << op->name << " reached codegen; it should have been lowered";
}

void CodeGen::intrinsic(const Call *op) {
    Type t = op->type;
    switch (op->op) {
    case Call::prefetch: {
        if (is_nvptx) { // a CPU cache hint: a GPU kernel has no use for it
            value = builder.getInt32(0);
            return;
        }
        // The element's address, not its value: a read hint (rw 0), kept in every cache
        // level (locality 3), for data (cache type 1). Never faults.
        const Load *element = op->args[0].as<Load>();
        internal_assert(element && element->type.is_scalar())
            << "prefetch of something other than one element: " << op->args[0];
        llvm::Type *elem = llvm_type(element->type);
        llvm::Value *addr =
            builder.CreateGEP(elem, buffer_host(element->name), codegen_offset(element->index));
        builder.CreateIntrinsic(
            llvm::Intrinsic::prefetch, {addr->getType()},
            {addr, builder.getInt32(0), builder.getInt32(3), builder.getInt32(1)});
        value = builder.getInt32(0);
        return;
    }
    case Call::bitwise_and:
        value = builder.CreateAnd(codegen(op->args[0]), codegen(op->args[1]));
        return;
    case Call::bitwise_or:
        value = builder.CreateOr(codegen(op->args[0]), codegen(op->args[1]));
        return;
    case Call::bitwise_xor:
        value = builder.CreateXor(codegen(op->args[0]), codegen(op->args[1]));
        return;
    case Call::bitwise_not:
        value = builder.CreateNot(codegen(op->args[0]));
        return;
    case Call::shift_left:
    case Call::shift_right: {
        Type vt = op->args[0].type();
        llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
        bool left = op->op == Call::shift_left;
        auto shl = [&](llvm::Value *n) { return builder.CreateShl(a, n); };
        auto shr = [&](llvm::Value *n) {
            return vt.is_int() ? builder.CreateAShr(a, n) : builder.CreateLShr(a, n);
        };
        if (op->args[1].type().is_int()) {
            // A negative amount shifts the other way.
            llvm::Value *zero = llvm::Constant::getNullValue(b->getType());
            llvm::Value *neg = builder.CreateICmpSLT(b, zero);
            llvm::Value *mag = builder.CreateSelect(neg, builder.CreateSub(zero, b), b);
            llvm::Value *fwd = left ? shl(mag) : shr(mag);
            llvm::Value *rev = left ? shr(mag) : shl(mag);
            value = builder.CreateSelect(neg, rev, fwd);
        } else {
            value = left ? shl(b) : shr(b);
        }
        return;
    }
    case Call::abs: {
        Type at = op->args[0].type();
        llvm::Value *a = codegen(op->args[0]);
        if (at.is_float()) {
            value = builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
        } else {
            llvm::Value *zero = llvm::Constant::getNullValue(a->getType());
            value =
                builder.CreateSelect(builder.CreateICmpSLT(a, zero), builder.CreateSub(zero, a), a);
        }
        return;
    }
    case Call::absd: {
        Type at = op->args[0].type();
        llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
        if (at.is_float()) {
            // |a - b|: absd(-0.0, 0.0) is +0.0.
            value = builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, builder.CreateFSub(a, b));
        } else {
            // The larger minus the smaller, in the same width and read as unsigned, is exact.
            // As max and min, not a select between the two differences: LLVM folds a select's
            // compare with a constant operand into compares for equality, and byte vectors took
            // two compares, an or, two arithmetic ops and a blend (fuzz seed 2026 pair 35),
            // where a max, a min and a subtraction do.
            const bool is_signed = at.is_int();
            llvm::Value *larger = builder.CreateBinaryIntrinsic(
                is_signed ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, b);
            llvm::Value *smaller = builder.CreateBinaryIntrinsic(
                is_signed ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, b);
            value = builder.CreateSub(larger, smaller);
        }
        return;
    }
    case Call::count_leading_zeros:
        value = builder.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, codegen(op->args[0]),
                                              builder.getFalse());
        return;
    case Call::count_trailing_zeros:
        value = builder.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, codegen(op->args[0]),
                                              builder.getFalse());
        return;
    case Call::popcount:
        value = builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, codegen(op->args[0]));
        return;
    case Call::likely:
    case Call::promise_clamped:
    case Call::rounded_up:
    case Call::memoize_tag:
        value = codegen(op->args[0]);
        return;
    case Call::trace:
        trace(op);
        return;
    case Call::print:
        print(op);
        return;
    case Call::require:
        require(op);
        return;
    case Call::make_buffer:
        make_buffer(op);
        return;
    case Call::extern_stage:
        extern_stage(op);
        return;
    case Call::extern_bounds_query:
        extern_bounds_query(op);
        return;
    case Call::memoize_lookup:
    case Call::memoize_store:
        memoize_call(op);
        return;
    case Call::atomic_update:
        internal_error << "atomic_update outside the value of a Store";
        return;
    case Call::scatter_gather:
        internal_error << "A scatter/gather bundle reached codegen: each stage's Provide is "
                          "split into one per element (lower/ScatterGather.h)";
        return;
    case Call::undef:
        internal_error << "undef reached codegen: storage flattening drops the stores that "
                          "depend on one";
        return;
    case Call::extern_input:
    case Call::extern_output:
        internal_error << "An extern stage's " << Call::intrinsic_name(op->op)
                       << " reached codegen; storage flattening makes it a buffer";
        return;
    case Call::stringify:
        stringify(op);
        return;
    case Call::semaphore_init:
    case Call::semaphore_release:
    case Call::semaphore_acquire:
        semaphore_call(op);
        return;
    case Call::buffer_host: {
        const StringImm *name = op->args[0].as<StringImm>();
        internal_assert(name) << "buffer_host names its buffer";
        value = buffer_host(name->value);
        if (!op->type.is_handle()) value = builder.CreatePtrToInt(value, llvm_type(op->type));
        return;
    }
    case Call::NotIntrinsic:
        break;
    }
    internal_error << "Intrinsic " << op->name << " of type " << t << " has no codegen";
}

// ---- statements ----
void CodeGen::visit(const LetStmt *op) {
    symbols.push(op->name, codegen(op->value));
    codegen(op->body);
    symbols.pop(op->name);
}

void CodeGen::visit(const AssertStmt *op) {
    internal_assert(!is_nvptx) << "A check inside a GPU kernel: " << op->condition;
    llvm::Value *cond = codegen(op->condition);
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "assert_failed", function);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "assert_ok", function);
    builder.CreateCondBr(cond, ok, fail);
    builder.SetInsertPoint(fail);
    llvm::Value *code = codegen(op->message);
    return_error(code);
    builder.SetInsertPoint(ok);
}

void CodeGen::visit(const ProducerConsumer *op) { codegen(op->body); }

void CodeGen::visit(const Block *op) {
    codegen(op->first);
    codegen(op->rest);
}

void CodeGen::visit(const IfThenElse *op) {
    llvm::Value *c = codegen(op->condition);
    llvm::BasicBlock *then_bb = llvm::BasicBlock::Create(ctx, "then", function);
    llvm::BasicBlock *else_bb = llvm::BasicBlock::Create(ctx, "else", function);
    llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, "after_if", function);
    builder.CreateCondBr(c, then_bb, else_bb);
    builder.SetInsertPoint(then_bb);
    codegen(op->then_case);
    builder.CreateBr(after);
    builder.SetInsertPoint(else_bb);
    codegen(op->else_case);
    builder.CreateBr(after);
    builder.SetInsertPoint(after);
}

void CodeGen::visit(const Evaluate *op) { codegen(op->value); }

void CodeGen::visit(const Provide *op) {
    internal_error << "Provide to " << op->name << " reached codegen";
}

void CodeGen::visit(const Realize *op) {
    internal_error << "Realize of " << op->name << " reached codegen";
}

} // namespace codegen_detail

bool has_device_math(const std::string &pure_extern) {
    return pure_extern == "exp_f32" ||
           codegen_detail::exact_math_intrinsic(pure_extern) != llvm::Intrinsic::not_intrinsic;
}

std::unique_ptr<llvm::Module> codegen_llvm(const LoweredPipeline &pipeline,
                                           llvm::LLVMContext &context, llvm::TargetMachine &tm,
                                           unsigned outline_threads, bool verify) {
    return codegen_detail::CodeGen(context, tm, pipeline.name, outline_threads, verify)
        .compile(pipeline);
}

} // namespace Internal
} // namespace loom
