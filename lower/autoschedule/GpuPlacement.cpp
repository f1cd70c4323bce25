#include "lower/autoschedule/GpuPlacement.h"

#include <algorithm>

#include "dsl/Func.h"
#include "dsl/Stage.h"

namespace loom {
namespace Internal {
namespace autoschedule {

GpuPlacement::GpuPlacement(const PipelineGraph &graph, const MachineModel &costs,
                           const Choices &asked, Plans &plans, Choices &made)
    : graph(graph), costs(costs), asked(asked), plans(plans), made(made) {}

std::vector<std::string> GpuPlacement::decide_devices() {
    std::vector<std::string> on_cpu;
    std::set<std::string> inlined;
    for (const auto &[name, plan] : plans) {
        if (plan.placement == Placement::Inline) inlined.insert(name);
    }
    for (const std::string &name : graph.order()) { // producers first
        Plan &plan = plans.at(name);
        if (plan.placement != Placement::Inline) continue;
        const std::string host_only = host_only_call(graph, name, inlined);
        if (host_only.empty()) continue;
        plan.placement = Placement::Root;
        plan.why = "stored, not inlined: " + host_only;
        inlined.erase(name);
    }
    for (const std::string &name : graph.order()) {
        Plan &plan = plans.at(name);
        if (plan.placement == Placement::Inline) continue;
        plan.placement = Placement::Root;
        plan.group = name;
        const std::string obstacle = gpu_obstacle(graph, name, inlined);
        if (obstacle.empty()) {
            on_gpu.insert(name);
        } else {
            on_cpu.push_back(name);
            plan.why += "; on the CPU: " + obstacle;
        }
    }
    return on_cpu;
}

/** The block of stage k of kernel `name`: a 2-D tile where Funcs are staged in it. */
GpuBlock GpuPlacement::kernel_block(const std::string &name, int k, bool staging) const {
    const FuncNode &n = graph.node(name);
    auto it = asked.gpu.find(stage_key(name, k));
    const GpuBlock block = gpu_block_for(n, k, it == asked.gpu.end() ? nullptr : &it->second);
    return staging ? gpu_tile_for(n, k, block) : block;
}

/** Whether a Func is computed in the blocks of kernel `root`: staged there,
 * inlined, or `candidate`. */
bool GpuPlacement::in_blocks_of(const std::string &f, const std::string &root,
                                const std::string &candidate) const {
    if (f == candidate) return true;
    auto p = plans.find(f);
    return p != plans.end() &&
           (p->second.placement == Placement::Inline ||
            (p->second.placement == Placement::Shared && p->second.group == root));
}

bool GpuPlacement::has_storage_in_blocks(const std::string &f, const std::string &root) const {
    return f != root && plans.at(f).placement != Placement::Inline;
}

bool GpuPlacement::regions_differ(const std::string &root, int stage, const Region64 &box,
                                  const std::string &candidate,
                                  const std::map<std::string, Region64> &regions,
                                  bool sizes_only) const {
    auto other = graph.regions_within(
        root, stage, box, [&](const std::string &f) { return in_blocks_of(f, root, candidate); });
    if (!other) return true;
    for (const auto &[f, region] : regions) {
        if (!has_storage_in_blocks(f, root)) continue;
        const Region64 &o = other->at(f);
        for (size_t i = 0; i < region.size(); i++) {
            if (o[i].extent() != region[i].extent()) return true;
            if (!sizes_only && o[i].min != region[i].min) return true;
        }
    }
    return false;
}

/** The regions computed in one block of stage `stage` of kernel `root` with `block`, with
 * `candidate` among the Funcs staged there; where a Func staged there reads along a
 * dimension `block` runs serially in each thread, that dimension goes back to the grid
 * (its region would span the whole dimension, of a size not known when compiling). */
std::optional<std::map<std::string, Region64>>
GpuPlacement::block_regions(const std::string &root, int stage, GpuBlock &block,
                            const std::string &candidate) const {
    const FuncNode &r = graph.node(root);
    auto inside = [&](const std::string &f) { return in_blocks_of(f, root, candidate); };
    for (;;) {
        const Region64 box = gpu_block_box(r, stage, block);
        auto regions = graph.regions_within(root, stage, box, inside);
        if (!regions) return std::nullopt;
        auto moves = [&](int d) {
            Region64 shifted = box;
            shifted[d].min = shifted[d].max = box[d].min + 1;
            return regions_differ(root, stage, shifted, candidate, *regions, false);
        };
        auto it = std::find_if(block.serial.begin(), block.serial.end(),
                               [&](int d) { return r.region[d].extent() > 1 && moves(d); });
        if (it == block.serial.end()) return regions;
        block.serial.erase(it);
    }
}

/** Whether the size of some Func's region in a block of kernel `root` depends on which
 * block it is: its shared storage would then have no constant size to compile (a block of
 * channel c reading channel 3 too spans |3 - c| + 1 channels). Compared between the block
 * `regions` are of and its neighbour along each dimension the grid spans. */
bool GpuPlacement::block_sizes_vary(const std::string &root, int stage, const GpuBlock &block,
                                    const std::string &candidate,
                                    const std::map<std::string, Region64> &regions) const {
    const FuncNode &r = graph.node(root);
    const Region64 box = gpu_block_box(r, stage, block);
    for (size_t d = 0; d < box.size(); d++) {
        const int64_t step = box[d].extent();
        if (step >= r.region[d].extent()) continue; // one block spans it
        Region64 next = box;
        const int64_t shift = box[d].max + step <= r.region[d].max ? step : -step;
        next[d].min += shift;
        next[d].max += shift;
        if (regions_differ(root, stage, next, candidate, regions, true)) return true;
    }
    return false;
}

void GpuPlacement::decide_staging() {
    for (auto it = graph.order().rbegin(); it != graph.order().rend(); ++it) {
        const std::string &name = *it;
        Plan &plan = plans.at(name);
        const FuncNode &n = graph.node(name);
        // A Func with updates is a kernel of its own per stage (its summary says so).
        if (n.is_output || plan.placement != Placement::Root || !on_gpu.count(name) ||
            asked_placement(asked, name) == "root" || n.stages.size() != 1) {
            continue;
        }
        const std::string not_staged = stage_in_shared_memory(name);
        if (!not_staged.empty()) plan.why += "; in device memory: " + not_staged;
    }
}

/** Stages `name` in the blocks of the kernel that reads it where it can and that costs
 * less; otherwise says why not. */
std::string GpuPlacement::stage_in_shared_memory(const std::string &name) {
    constexpr int64_t max_shared_bytes = 48 << 10, max_threads = 1024;
    Plan &plan = plans.at(name);
    const FuncNode &n = graph.node(name);
    if (!n.bounded) return "it is read at coordinates with no constant bounds";
    std::set<std::pair<std::string, int>> sites;
    sites_of(graph, plans, name, sites);
    if (sites.size() != 1) return "read in " + std::to_string(sites.size()) + " loop nests";
    const auto [root, stage] = *sites.begin();
    if (!on_gpu.count(root) || plans.at(root).placement != Placement::Root)
        return "its reader " + root + " is not a GPU kernel";
    auto tile = kernel_tiles.find({root, stage});
    GpuBlock block = tile != kernel_tiles.end() ? tile->second : kernel_block(root, stage, true);
    auto regions = block_regions(root, stage, block, name);
    if (!regions || !regions->count(name))
        return "its region in a block of " + root + " has no constant bounds";
    if (block_sizes_vary(root, stage, block, name, *regions))
        return "the size of its region in a block of " + root + " depends on the block";
    const Region64 &box = regions->at(name);
    int64_t shared_bytes = 0;
    for (const auto &[f, r] : *regions) {
        if (has_storage_in_blocks(f, root)) shared_bytes += points_in(r) * graph.node(f).bytes;
    }
    if (shared_bytes > max_shared_bytes) {
        return "staged in " + root + "'s blocks, they would need " + std::to_string(shared_bytes) +
               " bytes of shared memory";
    }
    if (const int64_t threads = staged_threads(box, block.lanes); threads > max_threads) {
        return "staged in " + root + "'s blocks, it would need " + std::to_string(threads) +
               " threads";
    }
    const double blocks = (double)gpu_blocks_over(graph.node(root), stage, block);
    // Each point written once and read back once, from shared memory or from device
    // memory (a stencil's other reads of it hit a cache either way).
    const double points = (double)points_in(n.region);
    const double computed = (double)points_in(box) * blocks;
    const double cost_shared = compute_cycles(graph, costs, name, box) * blocks +
                               computed * n.bytes * 2 * costs.byte_cost(0);
    const double cost_root = compute_cycles(graph, costs, name, n.region) +
                             points * n.bytes * 2 * device_memory_byte_cost(costs);
    const std::string weighed = fmt(computed / std::max(1.0, points)) + " computations a point; " +
                                fmt(cost_shared) + " cycles against " + fmt(cost_root) +
                                " in device memory";
    if (cost_shared > cost_root && asked_placement(asked, name) != "shared")
        return "staged in " + root + "'s blocks, " + weighed;
    kernel_tiles[{root, stage}] = block;
    plan.placement = Placement::Shared;
    plan.group = root;
    plan.group_stage = stage;
    plan.box = box;
    plan.why += "; staged in " + root + "'s blocks (" + weighed + ")";
    return "";
}

void GpuPlacement::schedule_root(const std::string &name) {
    const FuncNode &n = graph.node(name);
    Func f(n.func);
    if (!n.is_output) f.compute_root();
    Plan &plan = plans.at(name);
    for (int k = 0; k < (int)n.stages.size(); k++) {
        Stage stage = k == 0 ? f.stage() : f.update(k - 1);
        auto tile = kernel_tiles.find({name, k});
        const GpuBlock block =
            tile != kernel_tiles.end() ? tile->second : kernel_block(name, k, false);
        made.gpu[stage_key(name, k)] = block.knob();
        const GpuKernel kernel = map_stage_to_gpu(stage, n, k, block);
        plan.why +=
            (k == 0 ? "; " : "; update " + std::to_string(k - 1) + ": ") + kernel.description;
        kernel_loops[{name, k}] = kernel.block_loop;
    }
}

void GpuPlacement::schedule_staged(const std::string &name) {
    Plan &p = plans.at(name);
    const FuncNode &n = graph.node(name);
    Func f(n.func);
    f.compute_at(LoopLevel(p.group, kernel_loops.at({p.group, p.group_stage}), p.group_stage));
    p.why += "; " + map_staged_to_gpu(f, n, p.box, kernel_tiles.at({p.group, p.group_stage}).lanes);
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
