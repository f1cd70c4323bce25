// Linked into every program that JIT-compiles with Halide 14 as the oracle (the differential
// tests and the tutorial lessons' Halide side): before main(), where HL_JIT_TARGET is unset,
// it names the host target Halide 14 detects less the features this CPU can't run.
//
// Halide 14 takes any CPU with AVX512-BF16 and AVX512-VNNI for a Sapphire Rapids and then
// emits AVX512-FP16 instructions (vmovw), which AMD Zen 4 and Zen 5 lack: its JIT-compiled code
// died of SIGILL on a Zen 5 (ApiNamesVsHalide.SaturatingSum). Halide's realize() and
// compile_jit() read HL_JIT_TARGET for their default target, so the programs stay as written.
// (The benchmark's and the fuzzer's Halide peers drop the feature in their own target.)
#include <cpuid.h>

#include <cstdlib>

#include "Halide.h"

namespace {

bool cpu_has_avx512_fp16() {
    unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return false;
    return (edx >> 23) & 1;
}

const bool halide_jit_target_set = [] {
    if (std::getenv("HL_JIT_TARGET")) return false;
    const Halide::Target host = Halide::get_host_target();
    if (!host.has_feature(Halide::Target::AVX512_SapphireRapids) || cpu_has_avx512_fp16())
        return false;
    const Halide::Target runnable = host.without_feature(Halide::Target::AVX512_SapphireRapids)
                                        .with_feature(Halide::Target::JIT);
    return setenv("HL_JIT_TARGET", runnable.to_string().c_str(), 0) == 0;
}();

} // namespace
