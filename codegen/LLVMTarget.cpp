#include "codegen/LLVMTarget.h"

#include <llvm/Bitcode/BitcodeWriter.h>

#include <cmath>

#include <mutex>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/Transforms/Scalar/IndVarSimplify.h>
#include <llvm/Transforms/Vectorize/SLPVectorizer.h>

#include "dsl/Error.h"

namespace loom {
namespace Internal {

void initialize_llvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
        // Kernels for NVIDIA GPUs (Target::CUDA).
        LLVMInitializeNVPTXTargetInfo();
        LLVMInitializeNVPTXTarget();
        LLVMInitializeNVPTXTargetMC();
        LLVMInitializeNVPTXAsmPrinter();
        // X86's cmov-to-branch conversion turns the selects of a loop (clamps of float data,
        // a boundary condition's tests, an argmin's comparisons) back into branches when its
        // model judges them predictable; on image data they are not: fuzz seed 2026 pair 469
        // ran 25 ms with the branches, 5.5 ms with cmov. Loom's code is data-parallel, so the
        // selects stay selects. (A process-wide LLVM option, set once; Loom is the only user
        // of its LLVM in the process.)
        auto &options = llvm::cl::getRegisteredOptions();
        auto cmov = options.find("x86-cmov-converter");
        if (cmov != options.end()) cmov->second->addOccurrence(0, "x86-cmov-converter", "false");
        // LLVM 19's SLP vectorizer narrows a min reduction over zero-extended bytes to a
        // signed byte minimum (llvm.vector.reduce.smin.v4i8 where the scalar code took smin of
        // the i32 zero extensions): wrong for bytes of 128 and above (schedule-invariance fuzz
        // seed 7, pipeline 62: an argmin unrolled by LLVM). Its horizontal reductions stay off;
        // the store chains it vectorizes (a short loop unrolled whole) are unaffected.
        auto slp_reductions = options.find("slp-vectorize-hor");
        if (slp_reductions != options.end()) {
            slp_reductions->second->addOccurrence(0, "slp-vectorize-hor", "false");
        }
        // Loop-vectorize's loop versioning on a symbolic stride of 1: an access whose stride
        // is a run-time value (a column of an image, another Func's row length) got a vector
        // loop guarded by "stride == 1" and the scalar loop for every other stride, which in
        // an image pipeline is every stride that occurs (fuzz seed 2026 pair 158: a column of
        // a 3-row buffer read per pixel, the scalar loop always taken, 2.7x Halide's time ->
        // 1.7x). Without it the loop is vectorized with the strided lanes loaded one by one.
        auto versioning = options.find("enable-mem-access-versioning");
        if (versioning != options.end()) {
            versioning->second->addOccurrence(0, "enable-mem-access-versioning", "false");
        }
    });
}

namespace {

// LLVM feature strings for an explicit target's features.
std::string feature_string(const Target &t) {
    std::string f = "+sse2";
    if (t.has_feature(Target::SSE41)) f += ",+sse4.1";
    if (t.has_feature(Target::AVX)) f += ",+avx";
    if (t.has_feature(Target::AVX2)) f += ",+avx2";
    if (t.has_feature(Target::FMA)) f += ",+fma";
    if (t.has_feature(Target::F16C)) f += ",+f16c";
    if (t.has_feature(Target::AVX512)) f += ",+avx512f,+avx512cd";
    if (t.has_feature(Target::AVX512_Skylake)) f += ",+avx512bw,+avx512dq,+avx512vl";
    // Halide's Sapphire Rapids: Skylake's AVX-512 with Cannon Lake's (VBMI byte permutes, IFMA)
    // and Cascade Lake's (VNNI), BF16 and AVX-VNNI.
    if (t.has_feature(Target::AVX512_SapphireRapids)) {
        f += ",+avx512f,+avx512cd,+avx512bw,+avx512dq,+avx512vl,+avx512vbmi,+avx512ifma,"
             "+avx512vnni,+avx512bf16,+avxvnni";
    }
    return f;
}

}  // namespace

bool cpu_has_fast_gathers(const std::string &triple, const std::string &cpu) {
    initialize_llvm();
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
    if (!target) return false;
    std::unique_ptr<llvm::MCSubtargetInfo> info(target->createMCSubtargetInfo(triple, cpu, ""));
    return info && info->checkFeatures("+fast-gather");
}

MachineSpec machine_spec(const Target &t) {
    check_target_is_supported(t);
    MachineSpec spec;
    spec.triple = llvm::sys::getProcessTriple();
    if (t.is_host_default()) {
        spec.cpu = llvm::sys::getHostCPUName().str();
        for (const auto &f : llvm::sys::getHostCPUFeatures()) {
            spec.features += (spec.features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") +
                             f.first().str();
        }
    } else {
        spec.cpu = "x86-64";
        spec.features = feature_string(t);
    }
    return spec;
}

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target &t) {
    initialize_llvm();
    const MachineSpec spec = machine_spec(t);
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(spec.triple, error);
    internal_assert(target) << "LLVM has no target for " << spec.triple << ": " << error;
    llvm::TargetOptions options;
    // Results must not depend on whether the backend fuses a multiply and an add.
    options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
    std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
        spec.triple, spec.cpu, spec.features, options, llvm::Reloc::PIC_, std::nullopt,
        llvm::CodeGenOptLevel::Aggressive));
    internal_assert(tm) << "Could not create an LLVM TargetMachine for " << spec.triple;
    return tm;
}

namespace {

// The function passes Loom's IR needs, in place of LLVM's O3 pipeline. Loom hands LLVM loops
// that are already scheduled: split, unrolled and vectorized as the user asked, every call to
// a function of its own outlined and marked noinline. What is left is scalar cleanup (stack
// tiles into registers, the index arithmetic that unrolling repeats, invariants out of loops,
// 64-bit induction variables) and the loops a schedule left scalar. O3 runs each cleanup
// several times besides inlining and unswitching passes that find nothing here; this list
// keeps the JIT time of every app well under Halide 14's.
// Each pass is here for code that is slower without it:
//   reassociate:    integer index sums regrouped, so that LICM hoists their invariant part
//                   (unsharp +8%, interpolate +7% without it);
//   loom-indvars:   IndVarSimplify without widening induction variables to 64 bits:
//                   canonical loops and exit values (the loop-deletion after it). The
//                   widening once kept camera_pipe's addresses free of sign extensions
//                   (+15% without it); codegen_offset now gives the innermost loops their
//                   own 64-bit index terms, and the widening cost a fifth of the JIT time
//                   of the performance fuzzer's pairs (SCEV rewrites across every loop;
//                   22 pairs of seed 2026: compile geomean 222 -> 175 ms, run time and the
//                   apps' table unchanged).
//   simplifycfg after loop-unroll: the branches of a fully unrolled loop's conditions (an
//                   RDom's where(), constant in each copy) fold before loop-vectorize sees
//                   the loop around it; left in, they make its loads conditional, which
//                   AVX2 has no masked load for at 16 bits, and the loop stays scalar (fuzz
//                   seed 2026 pair 380 on Zen 3: 7.5x -> 1.2x Halide's time; 159 1.8 ->
//                   1.1, 161 2.7 -> 1.6). It also lets the SLP vectorizer below see more
//                   straight-line code: pair 12's scalar loop packed into 2 lanes 17 -> 28 ms
//                   (Halide 37 ms);
//   instsimplify before loop-vectorize: the lanes of a small vectorized stage computed
//                   per point (a stack tile SROA made a vector value) are read and written
//                   behind branches that the simplifycfg above folds; the extracts of
//                   inserted lanes it leaves are vector-typed instructions, which keep
//                   loop-vectorize out of the pixel loop (fuzz seed 2026 pair 104 on
//                   Emerald Rapids: 2.9x -> 0.93x Halide's time). instsimplify folds them
//                   at no measurable JIT cost (instcombine there: +5%);
//   sroa and early-cse after loop-unroll: a block a Func computes per point of its consumer
//                   (16 rows of a ShiftInwards split, one of them read) is at constant offsets
//                   once its loops are unrolled, and goes to registers, where the rows nobody
//                   reads are dropped; an RDom's taps that repeat over its other dimension
//                   (4 rows of taps reading 2 columns) load and divide once (fuzz seed 2026
//                   pair 407: 3.4x -> 0.5x Halide's time, which has both in its O3);
//   loop-idiom: a loop that stores one byte pattern (a histogram's zeroing, computed per
//                   point of its consumer over as many bins as the point's x) or copies a
//                   row becomes a memset or memcpy, as in Halide 14's O3 (fuzz seed 2026 pair
//                   349: stored 16 lanes at a time, 2x Halide's time; 0.8x as a memset);
//   loop-deletion after the second instcombine: a reduction over constants (minimum of
//                   an RDom's coordinates) folds there, leaving its loop empty, and an empty
//                   loop inside a loop keeps the vectorizer out of it (fuzz seed 2026 pair 468);
//   loop-rotate, loop-unroll, loop-vectorize: a loop the schedule leaves scalar, as a
//                   user's first schedule does, gets what Halide 14's O3 gives it (LLVM
//                   vectorizes and unrolls it; invariant loads leave rotated loops). The
//                   performance fuzzer's pairs without a vectorize() ran 1.3-27x slower than
//                   Halide's without them (test/fuzz/perf_fuzz.cpp, BENCHMARKS.md). None of
//                   them changes a result: LLVM reorders no float operation without fast-math
//                   flags, which Loom never sets, and its vectorizer leaves loops of vector
//                   code (the scheduled ones) alone.
//   loom-scalar-slp: LLVM's slp-vectorizer on the functions that hold no vector code after
//                   loop-vectorize: a short loop unrolled whole, its lanes consecutive
//                   (fuzz seed 2026 pair 235, a 16-wide inner loop: 8x Halide's time
//                   scalar). On a function loop-vectorize vectorized, the SLP search
//                   spent half the JIT time of the slowest-compiling fuzz pairs in the
//                   scalarized gathers loop-vectorize leaves in boundary loops (600 loads
//                   and 600 insertelements in one function) and sped nothing up: over the
//                   first 150 pairs of seed 2026, run time without it unchanged (per-pair
//                   geomean 0.98), compile-time ratio p90 0.36 -> 0.29.
// InstCombine runs once per use: a fixpoint is not needed for the code to be right.
constexpr const char *kLoomFunctionPipeline = "function("
                                              "sroa<modify-cfg>,"
                                              "early-cse<>,"
                                              "simplifycfg,"
                                              "instcombine<max-iterations=1;no-verify-fixpoint>,"
                                              "reassociate,"
                                              "loop(loop-rotate),"
                                              "loop-mssa(licm<allowspeculation>),"
                                              "gvn<>,"
                                              "loop(loom-indvars,loop-deletion),"
                                              "loop-unroll<O3>,"
                                              "sroa<modify-cfg>,"
                                              "instcombine<max-iterations=1;no-verify-fixpoint>,"
                                              "early-cse<memssa>,"
                                              "simplifycfg,"
                                              "loop(loop-idiom,loop-deletion),"
                                              "loop-mssa(licm<allowspeculation>),"
                                              "instsimplify,"
                                              "loom-bool-to-float-selects,"
                                              "loop-vectorize,"
                                              "loom-scalar-slp,"
                                              "instcombine<max-iterations=1;no-verify-fixpoint>,"
                                              "dse,"
                                              "adce,"
                                              "simplifycfg)";

// SLPVectorizerPass on a function without vector code (see kLoomFunctionPipeline).
struct ScalarFunctionSLP : llvm::PassInfoMixin<ScalarFunctionSLP> {
    llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am) {
        for (const llvm::BasicBlock &block : f) {
            for (const llvm::Instruction &i : block) {
                if (i.getType()->isVectorTy()) return llvm::PreservedAnalyses::all();
            }
        }
        return slp.run(f, am);
    }
    llvm::SLPVectorizerPass slp;
};

// LLVM 19's SLP vectorizer narrows `uitofp (sext i1 %c to i8)` to `uitofp i1 %c` (1.0 where
// 255.0 is meant: its minimum-bit-width analysis drops the sign extension). Schedule-invariance
// fuzz seed 778 pipeline 192: an argmin's index, -1, cast to uint8 and then to float, gave 1
// in the lanes of a loop SLP vectorized. Before the vectorizers run, each conversion to float
// of a sign-extended bool becomes the select it computes (true: -1 read as the integer type,
// signed or unsigned), which they vectorize correctly and instcombine leaves alone.
struct BoolToFloatSelects : llvm::PassInfoMixin<BoolToFloatSelects> {
    llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &) {
        bool changed = false;
        for (llvm::BasicBlock &block : f) {
            for (auto it = block.begin(); it != block.end();) {
                llvm::Instruction &i = *it++;
                const bool is_unsigned = llvm::isa<llvm::UIToFPInst>(i);
                if (!is_unsigned && !llvm::isa<llvm::SIToFPInst>(i)) continue;
                auto *extended = llvm::dyn_cast<llvm::SExtInst>(i.getOperand(0));
                if (!extended || !extended->getSrcTy()->isIntOrIntVectorTy(1)) continue;
                const unsigned bits = extended->getDestTy()->getScalarSizeInBits();
                const double all_ones = is_unsigned ? std::ldexp(1.0, (int)bits) - 1.0 : -1.0;
                llvm::IRBuilder<> builder(&i);
                llvm::Value *select = builder.CreateSelect(
                    extended->getOperand(0), llvm::ConstantFP::get(i.getType(), all_ones),
                    llvm::ConstantFP::get(i.getType(), 0.0));
                i.replaceAllUsesWith(select);
                i.eraseFromParent();
                changed = true;
            }
        }
        return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
    }
};

} // namespace

// While the module is optimized for a CPU whose LLVM tuning lacks fast gathers (AMD's Zen
// cores: LLVM still vectorizes with them where AVX-512 is present), its x86 functions tell
// LLVM's vectorizers to prefer no gathers: a loop the schedule leaves scalar, vectorized by
// LLVM with gathers of a column (16 rows of an image, one lane each) ran 4.3x Halide's time
// on a Zen 4 machine (fuzz seed 2026 pair 407; 1.9x with the lanes loaded one by one). On
// Intel's cores (fast-gather: Skylake and later) gathers beat the lanes loaded one by one:
// on an Emerald Rapids machine, 114 pairs of fuzz seed 2026 rerun with and without the
// preference, Loom/Halide x0.94, pairs above 2.0 8 -> 6 (16: 2.00 -> 0.84, 430 2.03 -> 0.97,
// 488 2.95 -> 1.43). Code generation afterwards sees the functions as they were, so the
// hardware gathers Loom's own lowering asks for (16 lanes and more,
// codegen/CodeGen_Memory.cpp) stay: with them scalarized, bilateral_grid and local_laplacian
// ran 10-15% slower.
class VectorizersAvoidGathers {
public:
    VectorizersAvoidGathers(llvm::Module &m, const llvm::TargetMachine &tm) {
        if (!tm.getTargetTriple().isX86()) return;
        if (cpu_has_fast_gathers(tm.getTargetTriple().str(), tm.getTargetCPU().str())) return;
        for (llvm::Function &f : m) {
            if (f.isDeclaration()) continue;
            llvm::Attribute old = f.getFnAttribute("target-features");
            const std::string features =
                old.isValid() ? old.getValueAsString().str() : tm.getTargetFeatureString().str();
            saved.push_back({&f, old});
            f.addFnAttr("target-features",
                        features + (features.empty() ? "" : ",") + "+prefer-no-gather");
        }
    }
    ~VectorizersAvoidGathers() {
        for (auto &[f, old] : saved) {
            if (old.isValid())
                f->addFnAttr(old);
            else
                f->removeFnAttr("target-features");
        }
    }

private:
    std::vector<std::pair<llvm::Function *, llvm::Attribute>> saved;
};

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm) {
    VectorizersAvoidGathers avoid_gathers(m, tm);
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    // The standard instrumentation makes the pass managers skip optnone functions.
    llvm::PassInstrumentationCallbacks callbacks;
    llvm::StandardInstrumentations instrumentation(m.getContext(), /*DebugLogging=*/false);
    instrumentation.registerCallbacks(callbacks, &mam);
    llvm::PassBuilder pb(&tm, llvm::PipelineTuningOptions(), std::nullopt, &callbacks);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::FunctionPassManager &fpm,
                                          llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name != "loom-scalar-slp") return false;
        fpm.addPass(ScalarFunctionSLP());
        return true;
    });
    pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::FunctionPassManager &fpm,
                                          llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name != "loom-bool-to-float-selects") return false;
        fpm.addPass(BoolToFloatSelects());
        return true;
    });
    pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::LoopPassManager &lpm,
                                          llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
        if (name != "loom-indvars") return false;
        lpm.addPass(llvm::IndVarSimplifyPass(/*WidenIndVars=*/false));
        return true;
    });
    llvm::ModulePassManager mpm;
    if (llvm::Error error = pb.parsePassPipeline(mpm, kLoomFunctionPipeline)) {
        internal_error << "LLVM rejected Loom's pass pipeline: "
                       << llvm::toString(std::move(error));
    }
    mpm.run(m, mam);
}

std::string module_to_llvm_ir(const llvm::Module &m) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m.print(os, nullptr);
    os.flush();
    return text;
}

std::string module_to_bitcode(const llvm::Module &m) {
    std::string bytes;
    llvm::raw_string_ostream os(bytes);
    llvm::WriteBitcodeToFile(m, os);
    os.flush();
    return bytes;
}

namespace {

std::string emit(llvm::Module &m, llvm::TargetMachine &tm, llvm::CodeGenFileType type) {
    llvm::SmallString<16384> buffer;
    llvm::raw_svector_ostream os(buffer);
    llvm::legacy::PassManager pm;
    bool failed = tm.addPassesToEmitFile(pm, os, nullptr, type);
    internal_assert(!failed) << "LLVM can't emit this file type for the target";
    pm.run(m);
    return std::string(buffer.str());
}

} // namespace

std::string module_to_assembly(llvm::Module &m, llvm::TargetMachine &tm) {
    return emit(m, tm, llvm::CodeGenFileType::AssemblyFile);
}

std::string module_to_object(llvm::Module &m, llvm::TargetMachine &tm) {
    return emit(m, tm, llvm::CodeGenFileType::ObjectFile);
}

}  // namespace Internal
}  // namespace loom
