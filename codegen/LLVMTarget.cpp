#include "codegen/LLVMTarget.h"

#include <mutex>

#include <llvm/Analysis/CGSCCPassManager.h>
#include <llvm/Analysis/LoopAnalysisManager.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/PassManager.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Passes/StandardInstrumentations.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>

#include "dsl/Error.h"

namespace loom {
namespace Internal {

void initialize_llvm() {
    static std::once_flag once;
    std::call_once(once, [] {
        llvm::InitializeNativeTarget();
        llvm::InitializeNativeTargetAsmPrinter();
        llvm::InitializeNativeTargetAsmParser();
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
    return f;
}

}  // namespace

std::unique_ptr<llvm::TargetMachine> make_target_machine(const Target &t) {
    initialize_llvm();
    std::string triple = llvm::sys::getProcessTriple();
    std::string error;
    const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
    internal_assert(target) << "LLVM has no target for " << triple << ": " << error;
    std::string cpu, features;
    if (t.is_host_default()) {
        cpu = llvm::sys::getHostCPUName().str();
        for (const auto &f : llvm::sys::getHostCPUFeatures()) {
            features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
        }
    } else {
        cpu = "x86-64";
        features = feature_string(t);
    }
    llvm::TargetOptions options;
    // Results must not depend on whether the backend fuses a multiply and an add.
    options.AllowFPOpFusion = llvm::FPOpFusion::Strict;
    std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
        triple, cpu, features, options, llvm::Reloc::PIC_, std::nullopt,
        llvm::CodeGenOptLevel::Aggressive));
    internal_assert(tm) << "Could not create an LLVM TargetMachine for " << triple;
    return tm;
}

void optimize_module(llvm::Module &m, llvm::TargetMachine &tm) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions tuning;
    // Loom's schedules vectorize explicitly (vectorize() makes the vector IR), so LLVM's own
    // loop and SLP vectorizers find nothing worth doing in scheduled code, yet they cost up to
    // three quarters of the compile time of a large pipeline (bilateral_grid: 561 ms -> 152 ms
    // without them, same run time). A loop the schedule leaves scalar stays scalar, as the
    // user asked, rather than being vectorized behind the schedule's back.
    tuning.LoopVectorization = false;
    tuning.SLPVectorization = false;
    // The standard instrumentation makes the pass managers skip optnone functions.
    llvm::PassInstrumentationCallbacks callbacks;
    llvm::StandardInstrumentations instrumentation(m.getContext(), /*DebugLogging=*/false);
    instrumentation.registerCallbacks(callbacks, &mam);
    llvm::PassBuilder pb(&tm, tuning, std::nullopt, &callbacks);
    pb.registerModuleAnalyses(mam);
    pb.registerCGSCCAnalyses(cgam);
    pb.registerFunctionAnalyses(fam);
    pb.registerLoopAnalyses(lam);
    pb.crossRegisterProxies(lam, fam, cgam, mam);
    llvm::ModulePassManager mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
    mpm.run(m, mam);
}

std::string module_to_llvm_ir(const llvm::Module &m) {
    std::string text;
    llvm::raw_string_ostream os(text);
    m.print(os, nullptr);
    os.flush();
    return text;
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
