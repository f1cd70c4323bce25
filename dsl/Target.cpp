#include "dsl/Target.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

#include "dsl/Error.h"
#include "dsl/IR.h"
#include "runtime/loom_runtime.h"

namespace loom {
namespace {

struct FeatureName {
    Target::Feature feature;
    const char *name;
};

const FeatureName feature_names[] = {
    {Target::SSE41, "sse41"},
    {Target::AVX, "avx"},
    {Target::AVX2, "avx2"},
    {Target::FMA, "fma"},
    {Target::F16C, "f16c"},
    {Target::AVX512, "avx512"},
    {Target::AVX512_Skylake, "avx512_skylake"},
    {Target::AVX512_SapphireRapids, "avx512_sapphirerapids"},
    {Target::CUDA, "cuda"},
    {Target::Debug, "debug"},
    {Target::NoBoundsQuery, "no_bounds_query"},
    {Target::TraceLoads, "trace_loads"},
    {Target::TraceStores, "trace_stores"},
    {Target::TraceRealizations, "trace_realizations"},
    {Target::TracePipeline, "trace_pipeline"},
    {Target::OpenCL, "opencl"},
    {Target::Metal, "metal"},
    {Target::D3D12Compute, "d3d12compute"},
    {Target::OpenGLCompute, "openglcompute"},
    {Target::NoRuntime, "no_runtime"},
    {Target::NoAsserts, "no_asserts"},
    {Target::JIT, "jit"},
    {Target::StrictFloat, "strict_float"},
    {Target::LargeBuffers, "large_buffers"},
};

const char *os_name(Target::OS os) {
    switch (os) {
    case Target::OSUnknown:
        return "unknown";
    case Target::Linux:
        return "linux";
    case Target::Windows:
        return "windows";
    case Target::OSX:
        return "osx";
    case Target::Android:
        return "android";
    case Target::IOS:
        return "ios";
    case Target::QuRT:
        return "qurt";
    case Target::NoOS:
        return "noos";
    case Target::Fuchsia:
        return "fuchsia";
    case Target::WebAssemblyRuntime:
        return "wasmrt";
    }
    return "unknown";
}

const char *arch_name(Target::Arch arch) {
    switch (arch) {
    case Target::ArchUnknown:
        return "unknown";
    case Target::X86:
        return "x86";
    case Target::ARM:
        return "arm";
    case Target::MIPS:
        return "mips";
    case Target::Hexagon:
        return "hexagon";
    case Target::POWERPC:
        return "powerpc";
    case Target::WebAssembly:
        return "wasm";
    case Target::RISCV:
        return "riscv";
    }
    return "unknown";
}

} // namespace

Target::Target(const std::string &spec) {
    // Halide's grammar: "host" first (the machine this runs on) or not at all, then any of an
    // architecture, a bit width, an OS and features, each once, in any order.
    std::istringstream in(spec);
    std::string token;
    std::vector<std::string> tokens;
    while (std::getline(in, token, '-'))
        tokens.push_back(token);
    user_assert(!spec.empty() && !tokens.empty())
        << "An empty target string; use \"host\" or \"x86-64-linux\" with features";
    const bool from_host = tokens[0] == "host";
    size_t i = 0;
    if (from_host) {
        *this = get_host_target();
        i = 1;
    }
    bool arch_given = false, bits_given = false, os_given = false;
    std::string not_supported;
    for (; i < tokens.size(); i++) {
        const std::string &t = tokens[i];
        Arch a = ArchUnknown;
        OS o = OSUnknown;
        for (int k = X86; k <= RISCV; k++)
            if (t == arch_name((Arch)k)) a = (Arch)k;
        for (int k = Linux; k <= WebAssemblyRuntime; k++)
            if (t == os_name((OS)k)) o = (OS)k;
        if (a != ArchUnknown) {
            user_assert(!arch_given) << "Target \"" << spec << "\" names two architectures";
            arch_given = true;
            if (a != X86) not_supported += " the " + t + " architecture";
            arch = X86;
        } else if (t == "32" || t == "64") {
            user_assert(!bits_given) << "Target \"" << spec << "\" names two bit widths";
            bits_given = true;
            if (t == "32") not_supported += " 32-bit code";
            bits = 64;
        } else if (o != OSUnknown) {
            user_assert(!os_given) << "Target \"" << spec << "\" names two operating systems";
            os_given = true;
            if (o != Linux) not_supported += std::string(" code for ") + t;
            os = Linux;
        } else {
            Feature f = feature_from_name(t);
            user_assert(f != FeatureEnd)
                << "Unknown target feature \"" << t << "\" in \"" << spec
                << "\". Loom targets look like \"x86-64-linux\" followed by features such as "
                   "\"-avx2-fma\", or \"host\" followed by features.";
            features.insert(f);
        }
    }
    user_assert(not_supported.empty())
        << "Target \"" << spec << "\" asks for" << not_supported
        << ": Loom generates code for x86-64 Linux only. Compile for \"host\" or "
           "\"x86-64-linux\" with features, on (or for) an x86-64 Linux machine.";
    if (!from_host) {
        user_assert(arch_given && bits_given && os_given)
            << "Target \"" << spec << "\" must name the architecture, bit width and OS "
            << "(\"x86-64-linux\" followed by features) or start with \"host\"";
    }
}

std::string Target::to_string() const {
    if (is_host_default()) return "host";
    std::string s = std::string(arch_name(arch)) + "-" + std::to_string(bits) + "-" + os_name(os);
    for (const FeatureName &f : feature_names) {
        if (has_feature(f.feature)) s += std::string("-") + f.name;
    }
    return s;
}

int Target::natural_vector_size(const Type &t) const {
    if (is_host_default()) return get_host_target().natural_vector_size(t);
    user_assert(arch == X86) << "natural_vector_size of Target " << to_string()
                             << ": Loom generates code for x86-64 only.";
    const bool is_integer = t.is_int_or_uint();
    const int bytes = std::max(t.bytes(), 1);
    if (is_integer ? has_feature(AVX512_Skylake)
                   : has_feature(AVX512) || has_feature(AVX512_Skylake))
        return 64 / bytes;
    if (has_feature(AVX2) || (!is_integer && has_feature(AVX))) return 32 / bytes;
    return 16 / bytes;
}

Target get_host_target() {
    Target t;
    t.arch = Target::X86;
    t.bits = 64;
    t.os = Target::Linux;
    // The same detection as the entry points of ahead-of-time libraries use (CPUID and the
    // OS's saved register state), so that "host" means one set of features everywhere.
    const std::pair<uint32_t, Target::Feature> features[] = {
        {loom_cpu_sse41, Target::SSE41},   {loom_cpu_avx, Target::AVX},
        {loom_cpu_avx2, Target::AVX2},     {loom_cpu_fma, Target::FMA},
        {loom_cpu_avx512, Target::AVX512}, {loom_cpu_avx512_skylake, Target::AVX512_Skylake},
    };
    for (const auto &[bit, feature] : features) {
        if (loom_cpu_has_features(bit)) t.features.insert(feature);
    }
    return t;
}

Target get_jit_target_from_environment() { return Target(); }

Target get_target_from_environment() {
    const char *spec = getenv("HL_TARGET");
    return spec && *spec ? Target(spec) : get_host_target();
}

Target::Feature target_feature_for_device_api(Internal::DeviceAPI api) {
    return api == Internal::DeviceAPI::CUDA || api == Internal::DeviceAPI::Default_GPU
               ? Target::CUDA
               : Target::FeatureEnd;
}

std::string Target::feature_to_name(Feature f) {
    for (const FeatureName &n : feature_names) {
        if (n.feature == f) return n.name;
    }
    return "";
}

Target::Feature Target::feature_from_name(const std::string &name) {
    for (const FeatureName &n : feature_names) {
        if (name == n.name) return n.feature;
    }
    return FeatureEnd;
}

bool Target::validate_target_string(const std::string &s) {
    try {
        Target t(s);
        return true;
    } catch (const CompileError &) {
        return false;
    }
}

bool Target::supported() const {
    if (is_host_default()) return true;
    return arch == X86 && bits == 64 && os == Linux &&
           !features_any_of({OpenCL, Metal, D3D12Compute, OpenGLCompute});
}

bool Target::supports_device_api(Internal::DeviceAPI api) const {
    return api == Internal::DeviceAPI::Host ||
           ((api == Internal::DeviceAPI::CUDA || api == Internal::DeviceAPI::Default_GPU) &&
            has_feature(CUDA));
}

Internal::DeviceAPI Target::get_required_device_api() const {
    return has_feature(CUDA) ? Internal::DeviceAPI::CUDA : Internal::DeviceAPI::Host;
}

// codegen/PTX.cpp compiles kernels for sm_70.
int Target::get_cuda_capability_lower_bound() const { return 70; }

bool host_supports_target_device(const Target &t) {
    if (t.features_any_of(
            {Target::OpenCL, Target::Metal, Target::D3D12Compute, Target::OpenGLCompute}))
        return false;
    if (!t.has_feature(Target::CUDA)) return true;
    char why[256];
    return loom_cuda_available(why, sizeof why) != 0;
}

namespace Internal {

void check_target_is_supported(const Target &t) {
    if (t.is_host_default()) return;
    user_assert(t.arch == Target::X86 && t.bits == 64 && t.os == Target::Linux)
        << "Target " << t.to_string() << ": Loom generates code for x86-64 Linux only. Use "
        << "get_host_target() or a target such as \"x86-64-linux-avx2-fma\".";
    for (Target::Feature f :
         {Target::OpenCL, Target::Metal, Target::D3D12Compute, Target::OpenGLCompute}) {
        user_assert(!t.has_feature(f))
            << "Target " << t.to_string() << " asks for a GPU API Loom has no backend for; "
            << "Loom's GPU backend is CUDA: use Target::CUDA instead.";
    }
}

} // namespace Internal

} // namespace loom
