#include "lower/autoschedule/Plan.h"

#include <limits>
#include <sstream>

namespace loom {
namespace Internal {
namespace autoschedule {

const char *placement_name(Placement p) {
    switch (p) {
    case Placement::Inline:
        return "inline";
    case Placement::Root:
        return "root";
    case Placement::Strip:
        return "strip";
    case Placement::Row:
        return "row";
    case Placement::Sliding:
        return "sliding";
    case Placement::Shared:
        return "shared";
    }
    return "root";
}

std::string asked_placement(const Choices &asked, const std::string &name) {
    auto it = asked.placement.find(name);
    return it == asked.placement.end() ? "" : it->second;
}

bool stage_reaches(const PipelineGraph &graph, const Plans &plans, const std::string &c, int k,
                   const std::string &f) {
    for (const CallSite &call : graph.node(c).stages[k].calls) {
        if (!call.is_func) continue;
        if (call.callee == f) return true;
        if (plans.count(call.callee) && plans.at(call.callee).placement == Placement::Inline &&
            stage_reaches(graph, plans, call.callee, 0, f)) {
            return true;
        }
    }
    return false;
}

void sites_of(const PipelineGraph &graph, const Plans &plans, const std::string &f,
              std::set<std::pair<std::string, int>> &sites) {
    for (const std::string &c : graph.node(f).consumers) {
        const Plan &p = plans.at(c);
        if (p.placement == Placement::Inline) {
            sites_of(graph, plans, c, sites);
        } else if (p.placement == Placement::Root) {
            for (int k = 0; k < (int)graph.node(c).stages.size(); k++) {
                if (stage_reaches(graph, plans, c, k, f)) sites.insert({c, k});
            }
        } else {
            sites.insert({p.group, p.group_stage});
        }
    }
}

double iteration_cycles(const StageInfo &s, const MachineModel &model) {
    return s.op_bytes / model.vector_bytes + s.load_bytes * near_byte_cost(model);
}

double near_byte_cost(const MachineModel &model) { return model.byte_cost((double)model.l2_bytes); }

double device_memory_byte_cost(const MachineModel &model) {
    return model.byte_cost(std::numeric_limits<double>::infinity());
}

double compute_cycles(const PipelineGraph &graph, const MachineModel &model, const std::string &f,
                      const Region64 &box) {
    const FuncNode &n = graph.node(f);
    double cycles = 0;
    for (int k = 0; k < (int)n.stages.size(); k++) {
        cycles += iteration_cycles(n.stages[k], model) * (double)graph.iterations(f, k, box);
    }
    return cycles;
}

std::string fmt(double v) {
    std::ostringstream s;
    s.precision(3);
    s << v;
    return s.str();
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
