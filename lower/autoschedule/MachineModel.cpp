#include "lower/autoschedule/MachineModel.h"

#include <algorithm>
#include <sstream>
#include <unistd.h>

namespace loom {
namespace Internal {
namespace autoschedule {

MachineModel MachineModel::of(const Target &target, const MachineParams &params) {
    MachineModel m;
    m.cores = params.parallelism;
    m.llc_bytes = (int64_t)params.last_level_cache_size;
    m.balance = params.balance;
    m.vector_bytes = target.has_feature(Target::AVX512)                                    ? 64
                     : target.has_feature(Target::AVX2) || target.has_feature(Target::AVX) ? 32
                                                                                           : 16;
#if defined(_SC_LEVEL1_DCACHE_SIZE) && defined(_SC_LEVEL2_CACHE_SIZE)
    // 0 or -1 where the system does not say (some virtual machines): the defaults stay.
    if (long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE); l1 > 0) m.l1_bytes = l1;
    if (long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE); l2 > 0) m.l2_bytes = l2;
#endif
    return m;
}

MachineModel MachineModel::cuda(const MachineParams &params) {
    MachineModel m;
    m.cores = 132;
    m.vector_bytes = 64;
    m.l1_bytes = 256 << 10;
    m.l2_bytes = m.llc_bytes = 50 << 20;
    m.balance = params.balance;
    return m;
}

double MachineModel::byte_cost(double footprint_bytes) const {
    const double l1 = 1.0 / vector_bytes;
    if (footprint_bytes <= l1_bytes) return l1;
    if (footprint_bytes <= l2_bytes) return 2 * l1;
    const double llc = balance / 64.0 / 4.0;
    if (footprint_bytes <= llc_bytes) return std::max(2 * l1, llc);
    return std::max(2 * l1, 4 * llc);
}

std::string MachineModel::to_string() const {
    std::ostringstream s;
    s << cores << " cores, " << vector_bytes * 8 << "-bit vectors, L1 " << (l1_bytes >> 10)
      << " KiB, L2 " << (l2_bytes >> 10) << " KiB, last level " << (llc_bytes >> 20)
      << " MiB, balance " << balance;
    return s.str();
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
