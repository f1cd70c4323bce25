// The heuristic scheduler's GPU side (Heuristic.h), for a CUDA target: which Funcs run as
// kernels and which on the CPU, which are staged in a kernel's shared memory, and the
// directives for both. The inlining decisions come first (Heuristic.cpp); this completes them.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "lower/autoschedule/Choices.h"
#include "lower/autoschedule/GpuMapping.h"
#include "lower/autoschedule/MachineModel.h"
#include "lower/autoschedule/PipelineGraph.h"
#include "lower/autoschedule/Plan.h"

namespace loom {
namespace Internal {
namespace autoschedule {

class GpuPlacement {
public:
    /** `costs`: the GPU's model (MachineModel::cuda). `plans`: every Func's plan after the
     * inlining, completed here; `made`: receives the GPU knobs as applied. */
    GpuPlacement(const PipelineGraph &graph, const MachineModel &costs, const Choices &asked,
                 Plans &plans, Choices &made);

    /** Every Func stored runs at root: as GPU kernels, or on the CPU where a kernel cannot
     * compute it (gpu_obstacle says why; returned, for the CPU's strips). A Func that calls what
     * no kernel can (sin, say) is stored, not inlined: inlined, it would keep its consumers off
     * the GPU too. */
    std::vector<std::string> decide_devices();

    /** Consumers first: a Func stored on the GPU with one stage, read by one kernel only
     * (directly, through Funcs inlined into it, or through Funcs staged in it), is computed in
     * that kernel's blocks, in shared memory, where that costs less than a round trip through
     * device memory: its recompute where the blocks' regions overlap (a stencil's halo) against
     * writing it and reading it back. The kernel's block becomes a 2-D tile, whose halo is
     * smaller. At most 48 KiB of shared memory and 1024 threads a block. */
    void decide_staging();

    bool stages_in_shared_memory() const { return !kernel_tiles.empty(); }
    bool runs_on_gpu(const std::string &name) const { return on_gpu.count(name) != 0; }

    /** The directives of a Func computed at root as kernels, one a stage. */
    void schedule_root(const std::string &name);
    /** The directives of a Func staged in a kernel's blocks; after its kernel's. */
    void schedule_staged(const std::string &name);

private:
    const PipelineGraph &graph;
    const MachineModel &costs;
    const Choices &asked;
    Plans &plans;
    Choices &made;
    std::set<std::string> on_gpu;
    /** The innermost block loop of each kernel (Func, stage) scheduled: where Funcs staged in
     * it are computed. */
    std::map<std::pair<std::string, int>, std::string> kernel_loops;
    /** The 2-D tile of each kernel (Func, stage) that Funcs are staged in. */
    std::map<std::pair<std::string, int>, GpuBlock> kernel_tiles;

    GpuBlock kernel_block(const std::string &name, int k, bool staging) const;
    bool in_blocks_of(const std::string &f, const std::string &root,
                      const std::string &candidate) const;
    std::optional<std::map<std::string, Region64>>
    block_regions(const std::string &root, int stage, GpuBlock &block,
                  const std::string &candidate) const;
    /** Whether `f` has storage of its own in the blocks of kernel `root` (staged there; not
     * the kernel's Func, nor a Func inlined into it). */
    bool has_storage_in_blocks(const std::string &f, const std::string &root) const;
    /** Whether the Funcs with storage in `regions` (a block of kernel `root`, with `candidate`
     * staged there) cover other regions in the block of `box`: of other sizes, or where not
     * `sizes_only`, at other places. */
    bool regions_differ(const std::string &root, int stage, const Region64 &box,
                        const std::string &candidate,
                        const std::map<std::string, Region64> &regions, bool sizes_only) const;
    bool block_sizes_vary(const std::string &root, int stage, const GpuBlock &block,
                          const std::string &candidate,
                          const std::map<std::string, Region64> &regions) const;
    std::string stage_in_shared_memory(const std::string &name);
};

} // namespace autoschedule
} // namespace Internal
} // namespace loom
