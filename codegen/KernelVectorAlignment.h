// Wide memory accesses in GPU kernels. A dense vector load or store of 8 or 16 bytes is one
// ld.global.v2 / v4 instruction only where its address is a multiple of its size; otherwise the
// NVPTX backend splits it into one access per lane. A kernel's indices are sums of its thread
// and block indices (scaled by the split factors) and of the scalars it is given (buffer mins,
// strides, extents), whose values are known only at launch. So the alignment is proven in two
// parts: from the index's form, assuming those scalars are suitable multiples, and at launch,
// where the host checks the assumptions and the buffers' device pointers once and launches
// the kernel compiled with wide accesses, or the one with per-lane accesses where a check fails.
#pragma once

#include <map>
#include <set>
#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** What a kernel's wide accesses rest on: each access the alignment (bytes) it may assume when
 * every scalar in multiple_of is a multiple of its number and every buffer's device pointer is a
 * multiple of its number of bytes. Empty where no access can be made wider. */
struct KernelVectorAlignment {
    std::map<const IRNode *, int> access_alignment; // Load and Store nodes of the kernel
    std::map<std::string, int> multiple_of;         // kernel scalars
    std::map<std::string, int> pointer_alignment;   // kernel buffers
    bool empty() const { return access_alignment.empty(); }
};

/** The plan for `kernel` (its loop nest from the outermost block loop in), whose parameters are
 * the scalars `scalars` and the buffers `buffers` (device pointers). An access is made wide
 * when its index is a ramp of stride 1 spanning at least 8 bytes whose base is proven a multiple
 * of the alignment's elements from the fewest assumptions on scalars; one whose base is not
 * (an input read at x + 1, say) keeps its per-lane accesses and adds no assumption. */
KernelVectorAlignment plan_kernel_vector_alignment(const For *kernel,
                                                   const std::set<std::string> &scalars,
                                                   const std::set<std::string> &buffers);

} // namespace Internal
} // namespace loom
