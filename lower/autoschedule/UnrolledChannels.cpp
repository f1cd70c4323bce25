#include "lower/autoschedule/UnrolledChannels.h"

#include <map>
#include <utility>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

/** The position of the pure Var that `coordinate` is (plus a constant) among `vars` (a stage's
 * pure Vars), or -1. */
int var_position(const Expr &coordinate, const std::vector<std::string> &vars) {
    for (size_t j = 0; j < vars.size(); j++) {
        if (vars[j].empty()) continue;
        if (is_const(simplify(coordinate - Variable::make(coordinate.type(), vars[j]))))
            return (int)j;
    }
    return -1;
}

class Channels {
public:
    Channels(const PipelineGraph &graph, const Plans &plans) : graph(graph), plans(plans) {}

    /** Whether dimension d of f spans the same constant points for every size. */
    bool fixed_extent(const std::string &f, int d) {
        const auto key = std::make_pair(f, d);
        if (auto it = fixed.find(key); it != fixed.end()) return it->second;
        bool result = false;
        const FuncNode &n = graph.node(f);
        for (const Bound &b : n.func->schedule.bounds) {
            if (b.var == n.func->args[d] && b.extent.defined() && is_const(simplify(b.extent)))
                result = true;
        }
        if (!result && !n.is_output && !n.consumers.empty()) {
            result = true;
            for (const std::string &c : n.consumers) {
                for (const StageInfo &s : graph.node(c).stages) {
                    for (const CallSite &call : s.calls) {
                        if (!result) break;
                        if (!call.is_func || call.callee != f) continue;
                        const Expr &coordinate = call.args.at(d);
                        if (is_const(simplify(coordinate))) continue;
                        const int j = var_position(coordinate, s.pure_vars);
                        result = j >= 0 && fixed_extent(c, j);
                    }
                }
            }
        }
        return fixed[key] = result;
    }

    /** Whether the pure definition of f computes with its dimension d's coordinate, directly
     * or through the Funcs inlined into it. */
    bool computes_with(const std::string &f, int d) {
        const auto key = std::make_pair(f, d);
        if (auto it = used.find(key); it != used.end()) return it->second;
        used[key] = false; // a Func does not read itself in its pure definition
        const FunctionContents &func = *graph.node(f).func;
        class Finder : public IRVisitor {
        public:
            Finder(Channels &channels, const std::string &var) : channels(channels), var(var) {}
            bool found = false;

        private:
            Channels &channels;
            const std::string &var;
            int in_coordinates = 0;
            using IRVisitor::visit;
            void visit(const Variable *v) override {
                found = found || (v->name == var && in_coordinates == 0);
            }
            void visit(const Call *c) override {
                if (c->call_type != Call::Halide && c->call_type != Call::Image) {
                    IRVisitor::visit(c);
                    return;
                }
                // A read at the coordinate computes with it where the Func read is inlined
                // and computes with its own coordinate there.
                const bool inlined = c->call_type == Call::Halide && channels.graph.has(c->name) &&
                                     channels.plans.count(c->name) &&
                                     channels.plans.at(c->name).placement == Placement::Inline;
                for (size_t j = 0; j < c->args.size() && inlined && !found; j++) {
                    found = var_position(c->args[j], {var}) == 0 &&
                            channels.computes_with(c->name, (int)j);
                }
                in_coordinates++;
                IRVisitor::visit(c);
                in_coordinates--;
            }
        } finder(*this, func.args[d]);
        for (const Expr &v : func.init.values)
            v.accept(&finder);
        return used[key] = finder.found;
    }

    const PipelineGraph &graph;
    const Plans &plans;

private:
    std::map<std::pair<std::string, int>, bool> fixed, used;
};

} // namespace

std::vector<int> unrolled_channels(const PipelineGraph &graph, const Plans &plans,
                                   const std::string &func) {
    std::vector<int> dims;
    const FuncNode &n = graph.node(func);
    if (!n.func->init.specializations.empty()) return dims;
    Channels channels(graph, plans);
    for (int d = 1; d < n.func->dimensions(); d++) {
        const int64_t extent = n.region.at(d).extent();
        if (extent < 2 || extent > kMaxUnrolledChannels) continue;
        if (channels.fixed_extent(func, d) && channels.computes_with(func, d)) dims.push_back(d);
    }
    return dims;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
