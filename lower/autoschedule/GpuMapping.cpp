#include "lower/autoschedule/GpuMapping.h"

#include <algorithm>
#include <sstream>

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

std::string map_stage_to_gpu(Stage stage, const FuncNode &n, int k, const GpuBlock &block) {
    const StageInfo &s = n.stages[k];
    const std::vector<int> dims = parallel_dims(s);
    internal_assert(!dims.empty()) << n.func->name << " has no parallel dimension";
    std::set<std::string> taken(n.func->args.begin(), n.func->args.end());
    taken.insert(s.rvars.begin(), s.rvars.end());
    auto fresh = [&](const std::string &base) {
        std::string name = base;
        for (int i = 2; taken.count(name); i++)
            name = base + std::to_string(i);
        taken.insert(name);
        return name;
    };
    std::set<std::string> mapped;
    for (int d : dims)
        mapped.insert(s.pure_vars[d]);
    const std::string x = s.pure_vars[dims[0]];
    const std::string lane = fresh(x + "_lane"), thread = fresh(x + "_thread"),
                      first_block = fresh(x + "_block");

    std::vector<VarOrRVar> order;
    if (block.lanes > 1) {
        stage.split(VarOrRVar(x), VarOrRVar(x), VarOrRVar(lane), block.lanes,
                    TailStrategy::GuardWithIf);
        order.emplace_back(lane);
    }
    stage.split(VarOrRVar(x), VarOrRVar(first_block), VarOrRVar(thread), block.threads,
                TailStrategy::GuardWithIf);
    // Inside each thread: the stage's other loops in their order (an update's RVars, and the
    // dimensions its reads of itself order).
    const Definition &def = k == 0 ? n.func->init : n.func->updates[k - 1];
    for (const Dim &loop : default_loops(def)) {
        if (!mapped.count(loop.var)) order.emplace_back(loop.var);
    }
    order.emplace_back(thread);
    std::vector<std::string> grid{first_block};
    for (size_t i = 1; i < dims.size(); i++)
        grid.push_back(s.pure_vars[dims[i]]);
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
    stage.gpu_threads(VarOrRVar(thread));
    if (grid.size() == 1) {
        stage.gpu_blocks(VarOrRVar(grid[0]));
    } else if (grid.size() == 2) {
        stage.gpu_blocks(VarOrRVar(grid[0]), VarOrRVar(grid[1]));
    } else {
        stage.gpu_blocks(VarOrRVar(grid[0]), VarOrRVar(grid[1]), VarOrRVar(grid[2]));
    }
    std::ostringstream said;
    said << "a GPU kernel: blocks of " << block.threads << " threads along " << x;
    if (block.lanes > 1) said << ", " << block.lanes << " points a thread as a vector";
    said << "; grid";
    for (const std::string &g : grid)
        said << " " << g;
    return said.str();
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
