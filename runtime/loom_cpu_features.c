/* CPU feature detection for multi-target ahead-of-time libraries, from CPUID and XGETBV: a
 * feature counts only when the OS also saves the registers it uses (XCR0), as a kernel that
 * does not would fault on the first wide instruction. */
#include "loom_runtime.h"

#include <cpuid.h>

static uint32_t detect(void) {
    unsigned eax, ebx, ecx, edx;
    uint32_t found = 0;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return 0;
    const int has_osxsave = (ecx >> 27) & 1;
    if ((ecx >> 19) & 1) found |= loom_cpu_sse41;
    uint64_t xcr0 = 0;
    if (has_osxsave) {
        unsigned lo, hi;
        __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
        xcr0 = ((uint64_t)hi << 32) | lo;
    }
    const int os_avx = (xcr0 & 0x6) == 0x6;         /* XMM and YMM state */
    const int os_avx512 = (xcr0 & 0xe6) == 0xe6;    /* and opmask, ZMM_Hi256, Hi16_ZMM */
    if (os_avx && ((ecx >> 28) & 1)) found |= loom_cpu_avx;
    if (os_avx && ((ecx >> 12) & 1)) found |= loom_cpu_fma;
    if (os_avx && ((ecx >> 29) & 1)) found |= loom_cpu_f16c;
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) {
        if (os_avx && ((ebx >> 5) & 1)) found |= loom_cpu_avx2;
        if (os_avx512 && ((ebx >> 16) & 1) && ((ebx >> 28) & 1)) found |= loom_cpu_avx512;
        if (os_avx512 && ((ebx >> 30) & 1) && ((ebx >> 17) & 1) && ((ebx >> 31) & 1)) {
            found |= loom_cpu_avx512_skylake;
        }
    }
    return found;
}

int32_t loom_cpu_has_features(uint32_t mask) {
    /* Detection is idempotent, so a race between first callers only repeats it. */
    static volatile uint32_t cached = 0, cached_valid = 0;
    if (!cached_valid) {
        cached = detect();
        cached_valid = 1;
    }
    return (cached & mask) == mask;
}
