#include "dsl/Target.h"

#include <sstream>
#include <vector>

#include "dsl/Error.h"

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
};

}  // namespace

Target::Target(const std::string &spec) {
    if (spec == "host") {
        *this = get_host_target();
        return;
    }
    std::istringstream in(spec);
    std::string token;
    std::vector<std::string> tokens;
    while (std::getline(in, token, '-')) tokens.push_back(token);
    size_t i = 0;
    if (i < tokens.size() && tokens[i] == "host") {
        *this = get_host_target();
        i++;
    } else {
        user_assert(tokens.size() >= 3 && tokens[0] == "x86" && tokens[1] == "64" && tokens[2] == "linux")
            << "Target \"" << spec << "\" is not understood. Loom targets look like "
            << "\"x86-64-linux\" followed by features such as \"-avx2-fma\", or \"host\".";
        arch = X86;
        bits = 64;
        os = Linux;
        i = 3;
    }
    for (; i < tokens.size(); i++) {
        bool found = false;
        for (const FeatureName &f : feature_names) {
            if (tokens[i] == f.name) {
                features.insert(f.feature);
                found = true;
            }
        }
        user_assert(found) << "Unknown target feature \"" << tokens[i] << "\" in \"" << spec << "\"";
    }
}

std::string Target::to_string() const {
    if (is_host_default()) return "host";
    std::string s = "x86-64-linux";
    for (const FeatureName &f : feature_names) {
        if (has_feature(f.feature)) s += std::string("-") + f.name;
    }
    return s;
}

Target get_host_target() {
    Target t;
    t.arch = Target::X86;
    t.bits = 64;
    t.os = Target::Linux;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.1")) t.features.insert(Target::SSE41);
    if (__builtin_cpu_supports("avx")) t.features.insert(Target::AVX);
    if (__builtin_cpu_supports("avx2")) t.features.insert(Target::AVX2);
    if (__builtin_cpu_supports("fma")) t.features.insert(Target::FMA);
    if (__builtin_cpu_supports("avx512f")) t.features.insert(Target::AVX512);
    if (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
        __builtin_cpu_supports("avx512dq")) {
        t.features.insert(Target::AVX512_Skylake);
    }
    return t;
}

Target get_jit_target_from_environment() { return Target(); }

}  // namespace loom
