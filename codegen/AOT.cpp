#include "codegen/AOT.h"

#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Object/Archive.h>
#include <llvm/Object/ArchiveWriter.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include <cctype>
#include <sstream>

#include "codegen/CEntryPoint.h"
#include "codegen/CodeGen_LLVM.h"
#include "codegen/EmbeddedRuntime.h"
#include "codegen/LLVMTarget.h"
#include "dsl/Error.h"

namespace loom {
namespace Internal {

namespace {

/** A short name for a target's variant: the features, joined. */
std::string variant_suffix(const Target &t) {
    std::string s = t.is_host_default() ? "host" : t.to_string();
    for (char &c : s) {
        if (!std::isalnum((unsigned char)c)) c = '_';
    }
    return s;
}

/** Every function of m is compiled for tm's CPU, whichever machine emits the module it is
 * linked into: that is what lets one object hold an AVX-512 and a baseline version. */
void pin_subtarget(llvm::Module &m, const llvm::TargetMachine &tm) {
    for (llvm::Function &f : m) {
        if (f.isDeclaration()) continue;
        f.addFnAttr("target-cpu", tm.getTargetCPU());
        f.addFnAttr("target-features", tm.getTargetFeatureString());
    }
}

/** fn_name becomes a C symbol and a declaration in a header: it must be an identifier. */
void check_function_name(const std::string &fn_name) {
    bool ok = !fn_name.empty() && (std::isalpha((unsigned char)fn_name[0]) || fn_name[0] == '_');
    for (char c : fn_name)
        ok = ok && (std::isalnum((unsigned char)c) || c == '_');
    user_assert(ok) << "\"" << fn_name
                    << "\" is not a C function name. Pass fn_name as a C identifier.";
}

std::string c_scalar_type(Type t) {
    if (t.is_float()) return t.bits() == 32 ? "float" : "double";
    if (t.is_bool()) return "bool";
    return std::string(t.is_uint() ? "uint" : "int") + std::to_string(t.bits()) + "_t";
}

} // namespace

std::string compile_aot(const std::vector<AOTVariant> &variants, const std::string &fn_name,
                        AOTOutput output) {
    user_assert(!variants.empty())
        << "compile_to_static_library for " << fn_name << " needs at least one target";
    check_function_name(fn_name);
    llvm::LLVMContext ctx;
    // The entry point and anything shared is compiled for the last (least capable) target:
    // it must run on every CPU the library may be loaded on.
    std::vector<std::unique_ptr<llvm::TargetMachine>> machines;
    for (const AOTVariant &v : variants)
        machines.push_back(make_target_machine(v.target));
    llvm::TargetMachine &base_tm = *machines.back();
    auto module = std::make_unique<llvm::Module>(fn_name, ctx);
    module->setTargetTriple(base_tm.getTargetTriple().str());
    module->setDataLayout(base_tm.createDataLayout());

    std::vector<EntryVariant> entries;
    for (size_t i = 0; i < variants.size(); i++) {
        const AOTVariant &v = variants[i];
        llvm::TargetMachine &tm = *machines[i];
        LoweredPipeline lowered = v.lowered;
        lowered.name = variants.size() == 1 ? fn_name + "_argv"
                                            : fn_name + "_argv_" + variant_suffix(v.target);
        std::unique_ptr<llvm::Module> part = codegen_llvm(lowered, ctx, tm);
        pin_subtarget(*part, tm);
        optimize_module(*part, tm);
        internal_assert(!llvm::Linker::linkModules(*module, std::move(part)))
            << "Linking the " << v.target.to_string() << " version of " << fn_name << " failed";
        // Every variant, the last included, is guarded: a library compiled for AVX-512 only
        // reports an error on an older CPU instead of dying of an illegal instruction.
        entries.push_back({lowered.name, cpu_feature_mask(v.target)});
    }
    add_c_entry_point(*module, variants.front().lowered.args, fn_name, entries);

    switch (output) {
    case AOTOutput::LLVMAssembly:
        return module_to_llvm_ir(*module);
    case AOTOutput::Bitcode:
        return module_to_bitcode(*module);
    case AOTOutput::Assembly:
        return module_to_assembly(*module, base_tm);
    case AOTOutput::Object:
        break;
    }
    return module_to_object(*module, base_tm);
}

namespace {

void write_archive(const std::string &path, const std::vector<llvm::NewArchiveMember> &members) {
    llvm::Error error = llvm::writeArchive(path, members, llvm::SymtabWritingMode::NormalSymtab,
                                           llvm::object::Archive::K_GNU, /*Deterministic=*/true,
                                           /*Thin=*/false);
    if (error) {
        std::string text = llvm::toString(std::move(error));
        user_error << "Can't write the static library " << path << ": " << text;
    }
}

llvm::NewArchiveMember runtime_member() {
    const EmbeddedObject o = embedded_runtime_object();
    return llvm::NewArchiveMember(
        llvm::MemoryBufferRef(llvm::StringRef((const char *)o.data, o.size), o.member_name));
}

} // namespace

void write_static_library(const std::string &path, const std::string &object,
                          const std::string &fn_name, const Target &target) {
    std::vector<llvm::NewArchiveMember> members;
    const std::string object_name = fn_name + ".o";
    members.emplace_back(llvm::MemoryBufferRef(object, object_name));
    if (!target.has_feature(Target::NoRuntime)) members.push_back(runtime_member());
    write_archive(path, members);
}

namespace {

void check_runtime_target(const Target &target) {
    const Target t = target.is_host_default() ? get_host_target() : target;
    user_assert(t.arch == Target::X86 && t.bits == 64 && t.os == Target::Linux)
        << "The runtime for " << t.to_string() << ": Loom's runtime is built for x86-64 Linux only";
}

} // namespace

std::string runtime_object(const Target &target) {
    check_runtime_target(target);
    const EmbeddedObject o = embedded_runtime_object();
    return std::string((const char *)o.data, o.size);
}

void write_runtime_static_library(const std::string &path, const Target &target) {
    check_runtime_target(target);
    std::vector<llvm::NewArchiveMember> members;
    members.push_back(runtime_member());
    write_archive(path, members);
}

std::string runtime_c_header() {
    return std::string("/* Loom's runtime: the types and functions ahead-of-time pipelines use. "
                       "Generated by Loom;\n * do not edit. */\n") +
           embedded_runtime_header();
}

std::string c_header(const std::vector<LoweredArgument> &args, const std::string &fn_name,
                     const std::vector<Target> &targets) {
    check_function_name(fn_name);
    std::string guard = "LOOM_PIPELINE_" + fn_name + "_H";
    for (char &c : guard)
        c = (char)std::toupper((unsigned char)c);
    std::ostringstream h;
    h << "/* " << fn_name << ": an ahead-of-time Loom pipeline. Generated by Loom; do not edit.\n"
      << " * Compiled for:";
    for (const Target &t : targets)
        h << " " << t.to_string();
    h << " (the first the running CPU supports is used).\n"
      << " * Link the static library (or object) that holds it with -lm -lpthread; nothing else "
         "is\n"
      << " * needed. */\n"
      << "#ifndef " << guard << "\n#define " << guard << "\n\n"
      << "#ifndef __cplusplus\n#include <stdbool.h>\n#endif\n\n"
      << embedded_runtime_header() << "\n"
      << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
      << "/* Runs the pipeline. Buffers are described by loom_buffer_t (element type, dimension\n"
      << " * count, and per dimension min, extent and stride in elements); each output buffer's\n"
      << " * region is what the pipeline computes. Returns 0, or a negative loom_error_code_t\n"
      << " * after passing a message to the error handler (loom_set_error_handler):\n"
      << " * loom_code_bad_buffer for a NULL buffer or a wrong type or dimension count,\n"
      << " * loom_code_out_of_bounds when an input does not cover the region the pipeline\n"
      << " * reads, loom_code_buffer_too_small when an output is smaller than its computed "
         "region.\n"
      << " *\n";
    for (const LoweredArgument &a : args) {
        if (is_embedded(a)) {
            h << " *   (" << a.name << ": a Buffer the pipeline reads, embedded in the library as "
              << "it was when the library was compiled; no parameter)\n";
            continue;
        }
        h << " *   " << a.name << ": ";
        if (a.kind == Argument::InputScalar) {
            h << "scalar " << c_scalar_type(a.type);
        } else {
            h << (a.kind == Argument::InputBuffer ? "input" : "output") << " buffer of "
              << type_to_string(a.type) << ", " << a.dimensions << " dimension"
              << (a.dimensions == 1 ? "" : "s");
        }
        h << "\n";
    }
    h << " */\nint32_t " << fn_name << "(";
    bool first = true;
    for (size_t i = 0; i < args.size(); i++) {
        const LoweredArgument &a = args[i];
        if (is_embedded(a)) continue;
        std::string name = a.name;
        for (char &c : name) {
            if (!std::isalnum((unsigned char)c)) c = '_';
        }
        h << (first ? "" : ", ")
          << (a.kind == Argument::InputScalar ? c_scalar_type(a.type) + " " : "loom_buffer_t *")
          << name;
        first = false;
    }
    h << ");\n\n#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif /* " << guard
      << " */\n";
    return h.str();
}

} // namespace Internal
} // namespace loom
