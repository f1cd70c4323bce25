// What a pipeline is compiled for: an architecture, an OS and a set of features.
#pragma once

#include <set>
#include <string>

namespace loom {

struct Target {
    enum OS { OSUnknown, Linux };
    enum Arch { ArchUnknown, X86 };
    enum Feature { SSE41, AVX, AVX2, FMA, F16C, AVX512, AVX512_Skylake, AVX512_SapphireRapids,
                   CUDA, Debug, NoBoundsQuery };

    OS os = OSUnknown;
    Arch arch = ArchUnknown;
    int bits = 0;
    std::set<Feature> features;

    /** A default Target means "the machine this runs on" (Halide's JIT default). */
    Target() = default;
    /** Parses "host", "x86-64-linux", "x86-64-linux-avx2-fma", ... */
    explicit Target(const std::string &spec);

    bool is_host_default() const { return arch == ArchUnknown; }
    bool has_feature(Feature f) const { return features.count(f) != 0; }
    Target with_feature(Feature f) const {
        Target t = *this;
        t.features.insert(f);
        return t;
    }
    Target without_feature(Feature f) const {
        Target t = *this;
        t.features.erase(f);
        return t;
    }
    std::string to_string() const;
    bool operator==(const Target &o) const {
        return os == o.os && arch == o.arch && bits == o.bits && features == o.features;
    }
};

/** The features of the CPU this process runs on. */
Target get_host_target();
/** Halide's name for the target the JIT uses. */
Target get_jit_target_from_environment();

}  // namespace loom
