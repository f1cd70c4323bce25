// What a pipeline is compiled for: an architecture, an OS and a set of features.
#pragma once

#include <bitset>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "dsl/Type.h"

namespace loom {

namespace Internal {
enum class DeviceAPI : uint8_t;
} // namespace Internal

struct Target {
    /** Loom generates code for x86-64 Linux; the other operating systems and architectures
     * are named so that Halide programs that test for them compile (compiling for one is an
     * error that says so). */
    enum OS {
        OSUnknown,
        Linux,
        Windows,
        OSX,
        Android,
        IOS,
        QuRT,
        NoOS,
        Fuchsia,
        WebAssemblyRuntime
    };
    enum Arch { ArchUnknown, X86, ARM, MIPS, Hexagon, POWERPC, WebAssembly, RISCV };
    /** The Trace* features trace every Func (as Func::trace_loads and the others do for one);
     * OpenCL, Metal, D3D12Compute and OpenGLCompute are GPU APIs Loom has no backend for
     * (host_supports_target_device says false; compiling for them is an error). */
    enum Feature {
        SSE41,
        AVX,
        AVX2,
        FMA,
        F16C,
        AVX512,
        AVX512_Skylake,
        AVX512_SapphireRapids,
        CUDA,
        Debug,
        NoBoundsQuery,
        TraceLoads,
        TraceStores,
        TraceRealizations,
        TracePipeline,
        OpenCL,
        Metal,
        D3D12Compute,
        OpenGLCompute,
        /** A static library without the runtime, for programs that link one runtime beside
         * several pipelines (compile_standalone_runtime writes it). Loom's objects never hold
         * the runtime. */
        NoRuntime,
        /** Halide's no_asserts: the pipeline checks nothing at run time (lower/StripAsserts.h):
         * no buffer, bound or allocation check, for slightly tighter code. */
        NoAsserts,
        /** Halide's jit: marks a target the JIT compiles for. Loom's JIT needs no mark; the
         * feature is accepted and changes nothing. */
        JIT,
        /** Halide's strict_float: float arithmetic as written. Loom never reassociates or
         * contracts float arithmetic, so every target is strict already; the feature is
         * accepted and changes nothing. */
        StrictFloat,
        /** 64-bit offsets into buffers: a buffer or a Func's storage may hold more than
         * 2^31 - 1 elements (without it such a buffer is refused at entry and such storage
         * at allocation, with a message). */
        LargeBuffers,
        FeatureEnd // not a feature: the count of them (Halide's)
    };

    OS os = OSUnknown;
    Arch arch = ArchUnknown;
    int bits = 0;
    std::set<Feature> features;

    /** A default Target means "the machine this runs on" (Halide's JIT default). */
    Target() = default;
    Target(OS os, Arch arch, int bits, const std::vector<Feature> &initial_features = {})
        : os(os), arch(arch), bits(bits),
          features(initial_features.begin(), initial_features.end()) {}
    /** Parses "host", "x86-64-linux", "x86-64-linux-avx2-fma", "host-avx2-no_runtime", ...
     * (Halide's grammar: "host" first or an architecture, bit width and OS, in any order,
     * then features). Another architecture, width or OS is an error that names it. */
    explicit Target(const std::string &spec);

    bool is_host_default() const { return arch == ArchUnknown; }
    /** Halide's natural_vector_size: how many elements of t fill one SIMD register of this
     * target (the host's, for a default Target): 64 bytes with AVX-512 (integers need its
     * Skylake subset), 32 with AVX2 (AVX: floats only), else 16. */
    int natural_vector_size(const Type &t) const;
    template <typename T> int natural_vector_size() const {
        return natural_vector_size(type_of<T>());
    }
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
    /** Adds (value true) or removes a feature, in place (Halide's set_feature). */
    void set_feature(Feature f, bool value = true) {
        if (value)
            features.insert(f);
        else
            features.erase(f);
    }
    void set_features(const std::vector<Feature> &fs, bool value = true) {
        for (Feature f : fs)
            set_feature(f, value);
    }
    bool features_any_of(const std::vector<Feature> &fs) const {
        for (Feature f : fs)
            if (has_feature(f)) return true;
        return false;
    }
    bool features_all_of(const std::vector<Feature> &fs) const {
        for (Feature f : fs)
            if (!has_feature(f)) return false;
        return true;
    }
    /** Whether the target asks for a GPU (any GPU API, supported or not). */
    bool has_gpu_feature() const {
        return features_any_of({CUDA, OpenCL, Metal, D3D12Compute, OpenGLCompute});
    }
    std::string to_string() const;

    // Halide's queries of a target. Loom compiles for x86-64 Linux, with CUDA kernels where
    // asked: supported() says whether this target is that.
    /** The feature's name in target strings ("avx2"), and back (FeatureEnd if unknown). */
    static std::string feature_to_name(Feature f);
    static Feature feature_from_name(const std::string &name);
    /** Whether Target(s) would parse s. */
    static bool validate_target_string(const std::string &s);
    /** Whether the OS, architecture or bit width is left unknown (a default Target). */
    bool has_unknowns() const { return os == OSUnknown || arch == ArchUnknown || bits == 0; }
    /** Whether Loom can generate code for this target (the host default included). */
    bool supported() const;
    /** Every Loom type runs on every target Loom supports (no 16-bit floats exist). */
    bool supports_type(const Type &t) const { return supported() && t.bits() > 0; }
    bool supports_device_api(Internal::DeviceAPI api) const;
    /** CUDA where the target asks for it, else Host. */
    Internal::DeviceAPI get_required_device_api() const;
    /** Whether buffers are addressed with 64-bit offsets (the LargeBuffers feature). */
    bool has_large_buffers() const { return has_feature(LargeBuffers); }
    /** The most elements a buffer or a Func's storage may hold: 2^63 - 1 on a 64-bit target
     * with LargeBuffers (Loom knows no other width), else 2^31 - 1 (Halide 14 counts
     * elements too, under this name). */
    int64_t maximum_buffer_size() const {
        return bits != 32 && has_large_buffers() ? INT64_MAX : (int64_t)INT32_MAX;
    }
    /** The compute capability Loom's PTX targets (sm_70: 70). */
    int get_cuda_capability_lower_bound() const;
    std::bitset<FeatureEnd> get_features_bitset() const {
        std::bitset<FeatureEnd> b;
        for (Feature f : features)
            b.set(f);
        return b;
    }

    bool operator==(const Target &o) const {
        return os == o.os && arch == o.arch && bits == o.bits && features == o.features;
    }
    bool operator!=(const Target &o) const { return !(*this == o); }
};

/** The features of the CPU this process runs on. */
Target get_host_target();
/** Halide's name for the target the JIT uses. */
Target get_jit_target_from_environment();
/** The target HL_TARGET names (Halide's variable), else the host's. */
Target get_target_from_environment();
/** The feature a device API needs (Target::CUDA for DeviceAPI::CUDA), FeatureEnd for Host. */
Target::Feature target_feature_for_device_api(Internal::DeviceAPI api);
/** Whether this machine can run code for the target's GPU API: true for a target without
 * one, for CUDA where a driver and device are present, false for the APIs Loom has no backend
 * for (OpenCL, Metal, ...). */
bool host_supports_target_device(const Target &t);

namespace Internal {
/** Throws a user error naming what Loom cannot generate code for in `t` (another OS or
 * architecture, a GPU API other than CUDA). */
void check_target_is_supported(const Target &t);
} // namespace Internal

}  // namespace loom
