#include "lower/autoschedule/GpuMapping.h"

#include <algorithm>
#include <sstream>
#include <utility>

#include "codegen/CodeGen_LLVM.h"
#include "dsl/Error.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

/** The first call in an expression that a kernel cannot make, following the Funcs inlined
 * into it: a C library math function or a call into the host's runtime. */
class HostOnlyCall : public IRVisitor {
public:
    HostOnlyCall(const PipelineGraph &graph, const std::set<std::string> &inlined)
        : graph(graph), inlined(inlined) {}
    std::string found;

private:
    const PipelineGraph &graph;
    const std::set<std::string> &inlined;
    std::set<std::string> followed;

    void visit(const Call *op) override {
        if (!found.empty()) return;
        if (op->call_type == Call::PureExtern && !has_device_math(op->name)) {
            found = "calls " + op->name + ", which has no GPU version";
            return;
        }
        if (op->call_type == Call::Extern) {
            found = "calls " + op->name + " in the host's runtime";
            return;
        }
        if (op->call_type == Call::Halide && inlined.count(op->name) && graph.has(op->name) &&
            followed.insert(op->name).second) {
            for (const Expr &v : graph.node(op->name).func->init.values)
                v.accept(this);
            if (!found.empty()) found += " (inlined from " + op->name + ")";
        }
        IRVisitor::visit(op);
    }
};

/** The pure dimensions of stage s that may run in parallel, innermost first. */
std::vector<int> parallel_dims(const StageInfo &s) {
    std::vector<int> dims;
    for (int d = 0; d < (int)s.pure_vars.size(); d++) {
        if (!s.pure_vars[d].empty() && s.independent(d)) dims.push_back(d);
    }
    return dims;
}

int64_t ceil_pow2(int64_t v) {
    int64_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

bool is_pow2_between(int v, int lo, int hi) { return v >= lo && v <= hi && (v & (v - 1)) == 0; }

/** Names for the loops a mapping makes, none of them one the Func already has. */
class FreshNames {
public:
    explicit FreshNames(std::set<std::string> taken) : taken(std::move(taken)) {}
    /** `base`, or base2, base3, ... where that is taken. */
    std::string operator()(const std::string &base) {
        std::string name = base;
        for (int i = 2; taken.count(name); i++)
            name = base + std::to_string(i);
        taken.insert(name);
        return name;
    }

private:
    std::set<std::string> taken;
};

/** Marks `vars` (innermost first, at most three) gpu_threads, or gpu_blocks. */
void map_to_gpu_axes(Stage stage, const std::vector<std::string> &vars, bool blocks) {
    internal_assert(!vars.empty() && vars.size() <= 3) << vars.size() << " GPU axes";
    auto v = [&](size_t i) { return VarOrRVar(vars[i]); };
    if (vars.size() == 1) {
        blocks ? stage.gpu_blocks(v(0)) : stage.gpu_threads(v(0));
    } else if (vars.size() == 2) {
        blocks ? stage.gpu_blocks(v(0), v(1)) : stage.gpu_threads(v(0), v(1));
    } else {
        blocks ? stage.gpu_blocks(v(0), v(1), v(2)) : stage.gpu_threads(v(0), v(1), v(2));
    }
}

/** The points a thread computes as a vector of a staged Func's first dimension: `lanes`, or
 * one where its region in a block, `box`, is narrower. */
int staged_lanes(const Region64 &box, int lanes) { return box[0].extent() < lanes ? 1 : lanes; }

bool is_serial(const GpuBlock &block, int d) {
    return std::find(block.serial.begin(), block.serial.end(), d) != block.serial.end();
}

std::string stage_name(int k) {
    return k == 0 ? "its definition" : "update " + std::to_string(k - 1);
}

} // namespace

std::string host_only_call(const PipelineGraph &graph, const std::string &func,
                           const std::set<std::string> &inlined) {
    const FuncNode &n = graph.node(func);
    for (int k = 0; k < (int)n.stages.size(); k++) {
        const Definition &d = k == 0 ? n.func->init : n.func->updates[k - 1];
        HostOnlyCall host(graph, inlined);
        for (const Expr &e : d.values)
            e.accept(&host);
        for (const Expr &e : d.args)
            e.accept(&host);
        if (d.predicate.defined()) d.predicate.accept(&host);
        if (!host.found.empty()) return stage_name(k) + " " + host.found;
    }
    return "";
}

std::string gpu_obstacle(const PipelineGraph &graph, const std::string &func,
                         const std::set<std::string> &inlined) {
    const FuncNode &n = graph.node(func);
    if (n.func->dimensions() == 0) return "has no dimension to spread over threads";
    for (int k = 0; k < (int)n.stages.size(); k++) {
        if (parallel_dims(n.stages[k]).empty()) {
            return stage_name(k) + " has no pure dimension whose points are independent "
                                   "(threads would race)";
        }
    }
    return host_only_call(graph, func, inlined);
}

GpuBlock gpu_block_for(const FuncNode &n, int k, const std::pair<int, int> *asked) {
    const std::vector<int> dims = parallel_dims(n.stages[k]);
    internal_assert(!dims.empty()) << n.func->name << " has no parallel dimension";
    GpuBlock block;
    int widest = 1;
    for (const Type &t : n.func->output_types)
        widest = std::max(widest, t.bytes());
    block.lanes = dims[0] != 0 ? 1 : widest >= 8 ? 2 : 4;
    const int64_t extent = std::max<int64_t>(1, n.region[dims[0]].extent());
    while (block.lanes > extent)
        block.lanes /= 2;
    const int64_t per_lanes = (extent + block.lanes - 1) / block.lanes;
    block.threads = (int)std::clamp<int64_t>(ceil_pow2(per_lanes), 32, 256);
    if (asked && is_pow2_between(asked->first, 32, 1024) && is_pow2_between(asked->second, 1, 8)) {
        block.threads = asked->first;
        block.lanes = dims[0] == 0 ? asked->second : 1;
    }
    return block;
}

GpuBlock gpu_tile_for(const FuncNode &n, int k, GpuBlock block) {
    const std::vector<int> dims = parallel_dims(n.stages[k]);
    if (dims.size() < 2 || block.threads < 64) return block;
    const int64_t extent = std::max<int64_t>(1, n.region[dims[1]].extent());
    block.rows = (int)std::min<int64_t>({8, block.threads / 32, ceil_pow2(extent)});
    constexpr int64_t max_serial_extent = 16;
    for (size_t i = 2; i < dims.size(); i++) {
        if (n.region[dims[i]].extent() <= max_serial_extent) block.serial.push_back(dims[i]);
    }
    return block;
}

Region64 gpu_block_box(const FuncNode &n, int k, const GpuBlock &block) {
    const StageInfo &s = n.stages[k];
    const std::vector<int> dims = parallel_dims(s);
    Region64 box = n.region;
    // A block in the middle, away from the edges (where clamps may shrink what it reads).
    auto one_block = [&](int d, int64_t points) {
        const int64_t blocks = (box[d].extent() + points - 1) / points;
        box[d].min += (blocks / 2) * points;
        box[d].max = std::min(box[d].max, box[d].min + points - 1);
    };
    for (size_t i = 0; i < dims.size(); i++) {
        if (is_serial(block, dims[i])) continue; // whole in each thread
        if (i == 0) {
            one_block(dims[0], (int64_t)(block.threads / block.rows) * block.lanes);
        } else if (i == 1 && block.rows > 1) {
            one_block(dims[1], block.rows);
        } else {
            one_block(dims[i], 1); // a grid dimension: one point a block
        }
    }
    return box;
}

int64_t gpu_blocks_over(const FuncNode &n, int k, const GpuBlock &block) {
    const Region64 box = gpu_block_box(n, k, block);
    int64_t blocks = 1;
    for (int d : parallel_dims(n.stages[k])) {
        if (is_serial(block, d)) continue;
        const int64_t per = std::max<int64_t>(1, box[d].extent());
        blocks *= (std::max<int64_t>(1, n.region[d].extent()) + per - 1) / per;
    }
    return blocks;
}

GpuKernel map_stage_to_gpu(Stage stage, const FuncNode &n, int k, const GpuBlock &block) {
    const StageInfo &s = n.stages[k];
    const std::vector<int> dims = parallel_dims(s);
    internal_assert(!dims.empty()) << n.func->name << " has no parallel dimension";
    internal_assert(block.rows == 1 || dims.size() >= 2)
        << n.func->name << " has rows of threads but one parallel dimension";
    std::set<std::string> taken(n.func->args.begin(), n.func->args.end());
    taken.insert(s.rvars.begin(), s.rvars.end());
    FreshNames fresh(std::move(taken));
    std::set<std::string> mapped;
    for (int d : dims)
        mapped.insert(s.pure_vars[d]);
    const std::string x = s.pure_vars[dims[0]];
    const std::string lane = fresh(x + "_lane"), thread = fresh(x + "_thread"),
                      first_block = fresh(x + "_block");
    const int threads_x = block.threads / block.rows;

    std::vector<VarOrRVar> order;
    if (block.lanes > 1) {
        stage.split(VarOrRVar(x), VarOrRVar(x), VarOrRVar(lane), block.lanes,
                    TailStrategy::GuardWithIf);
        order.emplace_back(lane);
    }
    stage.split(VarOrRVar(x), VarOrRVar(first_block), VarOrRVar(thread), threads_x,
                TailStrategy::GuardWithIf);
    std::vector<std::string> threads{thread}, grid{first_block};
    if (block.rows > 1) {
        const std::string y = s.pure_vars[dims[1]];
        const std::string row = fresh(y + "_thread"), row_block = fresh(y + "_block");
        stage.split(VarOrRVar(y), VarOrRVar(row_block), VarOrRVar(row), block.rows,
                    TailStrategy::GuardWithIf);
        threads.push_back(row);
        grid.push_back(row_block);
    }
    // Inside each thread: the stage's other loops in their order (an update's RVars, and the
    // dimensions its reads of itself order).
    const Definition &def = k == 0 ? n.func->init : n.func->updates[k - 1];
    for (const Dim &loop : default_loops(def)) {
        if (!mapped.count(loop.var)) order.emplace_back(loop.var);
    }
    for (int d : block.serial)
        order.emplace_back(s.pure_vars[d]);
    for (size_t i = block.rows > 1 ? 2 : 1; i < dims.size(); i++) {
        if (!is_serial(block, dims[i])) grid.push_back(s.pure_vars[dims[i]]);
    }
    for (const std::string &t : threads)
        order.emplace_back(t);
    for (const std::string &g : grid)
        order.emplace_back(g);
    stage.reorder(order);
    // CUDA's grid has three dimensions: the outermost beyond them become one.
    while (grid.size() > 3) {
        const std::string inner = grid[grid.size() - 2], outer = grid.back();
        const std::string fused = fresh(inner + "_" + outer);
        stage.fuse(VarOrRVar(inner), VarOrRVar(outer), VarOrRVar(fused));
        grid.pop_back();
        grid.back() = fused;
    }
    if (block.lanes > 1) stage.vectorize(VarOrRVar(lane));
    map_to_gpu_axes(stage, threads, false);
    map_to_gpu_axes(stage, grid, true);
    std::ostringstream said;
    said << "a GPU kernel: blocks of " << threads_x << " threads along " << x;
    if (block.rows > 1) said << " by " << block.rows << " along " << s.pure_vars[dims[1]];
    if (block.lanes > 1) said << ", " << block.lanes << " points a thread as a vector";
    for (int d : block.serial)
        said << ", " << s.pure_vars[d] << " in each thread";
    said << "; grid";
    for (const std::string &g : grid)
        said << " " << g;
    return {said.str(), grid[0]};
}

int64_t staged_threads(const Region64 &box, int lanes) {
    lanes = staged_lanes(box, lanes);
    int64_t threads = (box[0].extent() + lanes - 1) / lanes;
    if (box.size() > 1) threads *= box[1].extent();
    return threads;
}

std::string map_staged_to_gpu(Func f, const FuncNode &n, const Region64 &box, int lanes) {
    const std::vector<std::string> &args = n.func->args;
    const std::string lane = FreshNames({args.begin(), args.end()})(args[0] + "_lane");
    lanes = staged_lanes(box, lanes);
    std::vector<VarOrRVar> order;
    if (lanes > 1) {
        f.split(VarOrRVar(args[0]), VarOrRVar(args[0]), VarOrRVar(lane), lanes,
                TailStrategy::GuardWithIf);
        order.emplace_back(lane);
    }
    // Thread loops nest directly in one another: the dimensions past the second run inside.
    for (size_t d = 2; d < args.size(); d++)
        order.emplace_back(args[d]);
    for (size_t d = 0; d < args.size() && d < 2; d++)
        order.emplace_back(args[d]);
    if (order.size() > 1) f.reorder(order);
    if (lanes > 1) f.vectorize(VarOrRVar(lane));
    map_to_gpu_axes(f.stage(), {args.begin(), args.begin() + std::min<size_t>(args.size(), 2)},
                    false);
    std::ostringstream said;
    said << "in shared memory, " << points_in(box) * n.bytes << " bytes a block, by "
         << staged_threads(box, lanes) << " threads";
    if (lanes > 1) said << " of " << lanes << " points";
    return said.str();
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
