// The machine as Loom's auto-schedulers see it: cores, vector width, cache sizes and what a byte
// costs at each level, in cycles of one core. The cache sizes are read from the CPU (the
// operating system's view of CPUID); the last level's and the core count come from the caller's
// MachineParams, as Halide's auto-schedulers take them.
#pragma once

#include <cstdint>
#include <string>

#include "dsl/MachineParams.h"
#include "dsl/Target.h"

namespace loom {
namespace Internal {
namespace autoschedule {

struct MachineModel {
    int cores = 1;
    /** Bytes of the widest vector register the target has (64 with AVX-512). */
    int vector_bytes = 16;
    /** Per core. */
    int64_t l1_bytes = 32 << 10, l2_bytes = 1 << 20;
    /** Shared by the cores. */
    int64_t llc_bytes = 16 << 20;
    /** MachineParams::balance: a load from the last-level cache costs this many arithmetic
     * operations. */
    double balance = 40;

    static MachineModel of(const Target &target, const MachineParams &params);
    /** A current datacenter GPU (an H100 or H200) as the heuristic weighs its costs, the same on
     * any host: arithmetic as cheap against device memory as 64-byte vectors make it (about 10
     * operations a byte; an H200 does 12.5 fp32 operations in the time it moves a byte), an
     * SM's 256 KiB of L1 and shared memory, a 50 MiB L2, `params.balance` for device memory;
     * its cores the SMs. */
    static MachineModel cuda(const MachineParams &params);

    /** Vector registers: 32 with AVX-512, else 16. */
    int vector_registers() const { return vector_bytes >= 64 ? 32 : 16; }

    /** Lanes of a vector of elements of `bytes` each. */
    int lanes(int bytes) const {
        return bytes > 0 && vector_bytes > bytes ? vector_bytes / bytes : 1;
    }

    /** Cycles one core spends per byte it moves when the data it works on spans
     * `footprint_bytes`: a vector load or store a cycle from the first level, half that from the
     * second, a cache line per `balance` operations' time from the last, and memory's share of a
     * core beyond it (a quarter of the last level's rate: main memory's bandwidth shared by the
     * cores). The levels' ratios are those of current x86 server cores. */
    double byte_cost(double footprint_bytes) const;

    std::string to_string() const;
};

} // namespace autoschedule
} // namespace Internal
} // namespace loom
