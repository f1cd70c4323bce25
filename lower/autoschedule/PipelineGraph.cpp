#include "lower/autoschedule/PipelineGraph.h"

#include <algorithm>

#include "dsl/Buffer.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Parameter.h"
#include "dsl/RDom.h"
#include "dsl/Substitute.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace autoschedule {

int64_t points_in(const Region64 &r) {
    int64_t n = 1;
    for (const Span &s : r)
        n *= std::max<int64_t>(0, s.extent());
    return n;
}

Region64 region_union(const Region64 &a, const Region64 &b) {
    if (a.empty()) return b;
    if (b.empty()) return a;
    Region64 u = a;
    for (size_t d = 0; d < u.size() && d < b.size(); d++) {
        u[d].min = std::min(u[d].min, b[d].min);
        u[d].max = std::max(u[d].max, b[d].max);
    }
    return u;
}

bool StageInfo::independent(int d) const {
    const std::string &v = pure_vars.at(d);
    if (v.empty()) return false;
    for (const CallSite &c : self_calls) {
        const Variable *arg = c.args.at(d).as<Variable>();
        if (!arg || arg->name != v) return false;
    }
    return true;
}

namespace {

/** The reads of Funcs and images in the Exprs it visits, and their arithmetic. */
class StageReads : public IRVisitor {
public:
    explicit StageReads(const FunctionContents *self) : self(self) {}
    std::vector<CallSite> calls, self_calls;
    double op_bytes = 0, load_bytes = 0, nodes = 0;

private:
    const FunctionContents *self;
    int in_coordinates = 0; // depth of reads whose coordinates are being visited

    /** Counts e unless it is address arithmetic (inside a read's coordinates: folded into
     * addressing, or clamps that loop partitioning removes) or the same at every iteration
     * (hoisted out of the loops). */
    void count(const Expr &e, double weight = 1, bool even_in_coordinates = false) {
        nodes++;
        if (in_coordinates && !even_in_coordinates) return;
        if (!varies(e)) return;
        op_bytes += weight * e.type().bytes() * e.type().lanes();
    }

    /** Whether e depends on a loop (a Var or RVar) or reads memory. */
    static bool varies(const Expr &e) {
        class Finder : public IRVisitor {
        public:
            bool found = false;

        private:
            using IRVisitor::visit;
            void visit(const Variable *op) override { found = found || !op->param; }
            void visit(const Call *op) override {
                found = found || op->call_type == Call::Halide || op->call_type == Call::Image;
                if (!found) IRVisitor::visit(op);
            }
        } finder;
        e.accept(&finder);
        return finder.found;
    }

    using IRVisitor::visit;
#define LOOM_COUNT_OP(T)                                                                           \
    void visit(const T *op) override {                                                             \
        count(op);                                                                                 \
        IRVisitor::visit(op);                                                                      \
    }
    LOOM_COUNT_OP(Add)
    LOOM_COUNT_OP(Sub)
    LOOM_COUNT_OP(Mul)
    LOOM_COUNT_OP(EQ)
    LOOM_COUNT_OP(NE)
    LOOM_COUNT_OP(LT)
    LOOM_COUNT_OP(LE)
    LOOM_COUNT_OP(GT)
    LOOM_COUNT_OP(GE)
    LOOM_COUNT_OP(And)
    LOOM_COUNT_OP(Or)
    LOOM_COUNT_OP(Not)
    LOOM_COUNT_OP(Select)
    LOOM_COUNT_OP(Cast)
    LOOM_COUNT_OP(Min)
    LOOM_COUNT_OP(Max)
#undef LOOM_COUNT_OP
    // A division or remainder by a constant is a multiply and shifts; by a variable, tens of
    // cycles.
    void visit(const Div *op) override {
        count(op, is_const(op->b) ? 3 : 20, true);
        IRVisitor::visit(op);
    }
    void visit(const Mod *op) override {
        count(op, is_const(op->b) ? 4 : 20, true);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide || op->call_type == Call::Image) {
            in_coordinates++;
            IRVisitor::visit(op);
            in_coordinates--;
            CallSite site;
            site.callee = op->name;
            site.is_func = op->call_type == Call::Halide;
            site.args = op->args;
            site.bytes = op->type.bytes();
            load_bytes += site.bytes;
            nodes++;
            if (site.is_func && op->func.refers_to(self)) {
                self_calls.push_back(site);
            } else {
                calls.push_back(site);
            }
        } else {
            IRVisitor::visit(op);
            // Math functions (exp, log, pow...) expand to tens of operations; intrinsics such
            // as bitwise ones are one.
            Expr e(op);
            count(e, op->call_type == Call::PureExtern || op->call_type == Call::Extern ? 20 : 1);
        }
    }
};

/** The Variables of Params and image dimensions in the Exprs it visits. */
class ParamUses : public IRVisitor {
public:
    std::map<std::string, const Variable *> uses;

private:
    using IRVisitor::visit;
    void visit(const Variable *op) override {
        if (op->param) uses.emplace(op->name, op);
    }
};

std::optional<int64_t> constant_of(const Expr &e) {
    if (!e.defined()) return std::nullopt;
    Expr s = simplify(e);
    if (const int64_t *c = as_const_int(s)) return *c;
    if (const uint64_t *c = as_const_uint(s)) return (int64_t)*c;
    return std::nullopt;
}

} // namespace

PipelineGraph::PipelineGraph(const std::vector<FunctionPtr> &outputs,
                             const std::function<void(const std::string &)> &warn)
    : env(find_environment(outputs)), warn(warn) {
    // Params and image dimensions matter where they size or place a read or an RDom: their
    // estimates are gathered while the stages are read, and used once all are known.
    ParamUses params;
    for (const std::string &name : env.order) {
        const FunctionPtr &f = env.functions.at(name);
        FuncNode &n = nodes[name];
        n.func = f;
        n.is_output = std::any_of(outputs.begin(), outputs.end(),
                                  [&](const FunctionPtr &o) { return o == f; });
        for (const Type &t : f->output_types)
            n.bytes += t.bytes();
        for (int k = 0; k < f->stages(); k++) {
            const Definition &def = f->stage(k);
            StageInfo s;
            for (int d = 0; d < f->dimensions(); d++)
                s.pure_vars.push_back(f->stage_pure_var(k, d));
            for (const Expr &a : def.args)
                a.accept(&params);
            if (def.rdom) {
                for (const ReductionVariable &rv : def.rdom->domain) {
                    s.rvars.push_back(rv.var);
                    rv.min.accept(&params);
                    rv.extent.accept(&params);
                }
            }
            StageReads reads(f.get());
            for (const Expr &v : def.values)
                v.accept(&reads);
            if (k > 0) {
                for (const Expr &a : def.args)
                    a.accept(&reads);
            }
            if (def.predicate.defined()) def.predicate.accept(&reads);
            if (def.rdom && def.rdom->predicate.defined()) def.rdom->predicate.accept(&reads);
            for (const CallSite &c : reads.calls) {
                for (const Expr &a : c.args)
                    a.accept(&params);
            }
            s.calls = std::move(reads.calls);
            s.self_calls = std::move(reads.self_calls);
            // An extern stage reads each input Func over a region its bounds query tells at run
            // time: taken here as the point it computes (for the regions), read once a point.
            if (f->is_extern()) {
                for (const ExternStage::Arg &a : f->extern_stage->args) {
                    if (a.kind != ExternStage::Arg::Func) continue;
                    CallSite site;
                    site.callee = a.func->name;
                    site.is_func = true;
                    for (int d = 0; d < (int)a.func->args.size(); d++) {
                        site.args.push_back(d < f->dimensions() ? Expr(int_var(f->args[d]))
                                                                : Expr(0));
                    }
                    for (const Type &t : a.func->output_types)
                        site.bytes += t.bytes();
                    s.load_bytes += site.bytes;
                    s.calls.push_back(site);
                }
            }
            s.op_bytes = reads.op_bytes;
            s.load_bytes = reads.load_bytes;
            s.nodes = reads.nodes;
            n.stages.push_back(std::move(s));
        }
        for (const StageInfo &s : n.stages) {
            for (const CallSite &c : s.calls) {
                if (c.is_func) nodes[c.callee].consumers.insert(name);
            }
        }
    }
    for (const auto &[name, v] : params.uses)
        add_estimate_of(v);
    // The RDoms' spans, now that the Params that bound them have their estimates.
    for (auto &[name, n] : nodes) {
        for (int k = 0; k < n.func->stages(); k++) {
            const Definition &def = n.func->stage(k);
            if (!def.rdom) continue;
            for (const ReductionVariable &rv : def.rdom->domain) {
                std::optional<int64_t> min = constant_of(with_estimates(rv.min));
                std::optional<int64_t> extent = constant_of(with_estimates(rv.extent));
                n.stages[k].rvar_spans.push_back(
                    Span{min.value_or(0), min.value_or(0) + extent.value_or(default_extent) - 1});
            }
        }
    }
    evaluate_regions(outputs);
}

void PipelineGraph::add_estimate_of(const Variable *v) {
    const ParameterContents &p = *v->param;
    if (!p.is_buffer) {
        if (p.scalar_estimate.defined()) {
            estimates[v->name] = cast(v->type, p.scalar_estimate);
            return;
        }
        int64_t value = 0;
        if (p.type.is_int() && p.type.bits() <= 32) {
            value = p.type.bits() == 8    ? p.get_scalar<int8_t>()
                    : p.type.bits() == 16 ? p.get_scalar<int16_t>()
                                          : p.get_scalar<int32_t>();
        } else if (p.type.is_uint() && p.type.bits() <= 32) {
            value =
                (int64_t)(p.scalar_bits &
                          (p.type.bits() == 32 ? 0xffffffffull : ((1ull << p.type.bits()) - 1)));
        }
        estimates[v->name] = make_const(v->type, value);
        warn("Param " + p.name + " has no estimate: auto_schedule assumes its value now, " +
             std::to_string(value) + ". Call " + p.name + ".set_estimate(value) to state it.");
        return;
    }
    // An image's dimension: "<image>.<field>.<d>".
    const std::string rest = v->name.substr(p.name.size() + 1);
    const size_t dot = rest.find('.');
    const std::string field = rest.substr(0, dot);
    const int d = std::atoi(rest.substr(dot + 1).c_str());
    int64_t min = 0, extent = default_extent;
    if (d < (int)p.buffer_estimates.size() && p.buffer_estimates[d].min.defined()) {
        min = constant_of(with_estimates(p.buffer_estimates[d].min)).value_or(0);
        extent = constant_of(with_estimates(p.buffer_estimates[d].extent)).value_or(default_extent);
    } else if (p.buffer && d < (int)p.buffer->dims.size()) {
        // The buffer bound to the ImageParam now is the best guess of what it will be.
        min = p.buffer->dims[d].min;
        extent = p.buffer->dims[d].extent;
    } else {
        warn("ImageParam " + p.name + " has no estimate for dimension " + std::to_string(d) +
             ": auto_schedule assumes min 0, extent " + std::to_string(default_extent) + ". Call " +
             p.name + ".dim(" + std::to_string(d) + ").set_estimate(min, extent).");
    }
    const int64_t stride = 1;
    estimates[v->name] = make_const(v->type, field == "min"      ? min
                                             : field == "extent" ? extent
                                             : field == "max"    ? min + extent - 1
                                                                 : stride);
}

Expr PipelineGraph::with_estimates(const Expr &e) const {
    return estimates.empty() ? e : substitute(estimates, e);
}

std::optional<Region64> PipelineGraph::required(const std::string &consumer, int stage,
                                                const Region64 &box,
                                                const std::string &callee) const {
    const FuncNode &c = nodes.at(consumer);
    const StageInfo &s = c.stages.at(stage);
    Scope<Interval> scope;
    for (size_t d = 0; d < s.pure_vars.size() && d < box.size(); d++) {
        if (!s.pure_vars[d].empty()) {
            scope.push(s.pure_vars[d],
                       Interval(make_const(Int(32), box[d].min), make_const(Int(32), box[d].max)));
        }
    }
    for (size_t r = 0; r < s.rvars.size(); r++) {
        scope.push(s.rvars[r], Interval(make_const(Int(32), s.rvar_spans[r].min),
                                        make_const(Int(32), s.rvar_spans[r].max)));
    }
    Region64 result;
    for (const CallSite &call : s.calls) {
        if (call.callee != callee) continue;
        Region64 r;
        for (const Expr &a : call.args) {
            Interval i = bounds_of_expr_in_scope(with_estimates(a), scope);
            std::optional<int64_t> min = constant_of(i.min), max = constant_of(i.max);
            if (!min || !max) return std::nullopt;
            r.push_back(Span{*min, *max});
        }
        result = region_union(result, r);
    }
    return result;
}

std::optional<std::map<std::string, Region64>>
PipelineGraph::regions_within(const std::string &root, int stage, const Region64 &box,
                              const std::function<bool(const std::string &)> &inside) const {
    std::map<std::string, Region64> boxes;
    boxes[root] = box;
    for (auto it = order().rbegin(); it != order().rend(); ++it) { // consumers first
        auto b = boxes.find(*it);
        if (b == boxes.end()) continue;
        const FuncNode &n = node(*it);
        for (int k = 0; k < (int)n.stages.size(); k++) {
            if (*it == root && k != stage) continue;
            for (const CallSite &call : n.stages[k].calls) {
                if (!call.is_func || !inside(call.callee)) continue;
                std::optional<Region64> r = required(*it, k, b->second, call.callee);
                if (!r) return std::nullopt;
                boxes[call.callee] = region_union(boxes[call.callee], *r);
            }
        }
    }
    return boxes;
}

int64_t PipelineGraph::iterations(const std::string &func, int stage, const Region64 &box) const {
    const StageInfo &s = nodes.at(func).stages.at(stage);
    int64_t n = 1;
    for (size_t d = 0; d < box.size(); d++) {
        // A dimension an update scatters along is not a loop of the update.
        if (!s.pure_vars[d].empty()) n *= std::max<int64_t>(0, box[d].extent());
    }
    for (const Span &r : s.rvar_spans)
        n *= std::max<int64_t>(0, r.extent());
    return n;
}

void PipelineGraph::evaluate_regions(const std::vector<FunctionPtr> &outputs) {
    // A Func's own estimate (or a bound), else nullopt.
    auto stated_region = [&](const FunctionPtr &f) -> std::optional<Region64> {
        Region64 r;
        for (const std::string &arg : f->args) {
            std::optional<Span> span;
            for (const std::vector<Bound> *list : {&f->schedule.bounds, &f->schedule.estimates}) {
                for (const Bound &b : *list) {
                    if (b.var != arg || span || !b.min.defined()) continue;
                    std::optional<int64_t> min = constant_of(with_estimates(b.min));
                    std::optional<int64_t> extent = constant_of(with_estimates(b.extent));
                    if (min && extent) span = Span{*min, *min + *extent - 1};
                }
            }
            if (!span) return std::nullopt;
            r.push_back(*span);
        }
        return r;
    };
    for (const FunctionPtr &f : outputs) {
        FuncNode &n = nodes.at(f->name);
        if (std::optional<Region64> r = stated_region(f)) {
            n.region = *r;
            continue;
        }
        for (const std::string &arg : f->args) {
            n.region.push_back(Span{0, default_extent - 1});
            warn("Output Func " + f->name + " has no estimate for " + arg +
                 ": auto_schedule assumes min 0, extent " + std::to_string(default_extent) +
                 ". Call " + f->name + ".set_estimate(" + arg + ", min, extent).");
        }
    }
    // Consumers before producers: each Func's region is complete when its stages are read.
    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        FuncNode &n = nodes.at(*it);
        if ((n.region.empty() || !n.bounded) && n.func->dimensions() > 0) {
            // Read at coordinates with no constant bounds (data-dependent ones, say), or by no
            // stage at all: its own estimate says how much of it is computed.
            if (std::optional<Region64> stated = stated_region(n.func)) {
                n.region = *stated;
            } else {
                n.region = region_union(
                    n.region, Region64(n.func->dimensions(), Span{0, default_extent - 1}));
                warn("Func " + n.func->name +
                     " is read at coordinates auto_schedule cannot bound: "
                     "it assumes min 0, extent " +
                     std::to_string(default_extent) + " in each dimension. Call " + n.func->name +
                     ".set_estimates(...) to state them.");
            }
        }
        for (int k = 0; k < (int)n.stages.size(); k++) {
            for (const CallSite &call : n.stages[k].calls) {
                if (!call.is_func) continue;
                FuncNode &producer = nodes.at(call.callee);
                std::optional<Region64> r = required(*it, k, n.region, call.callee);
                if (r) {
                    producer.region = region_union(producer.region, *r);
                } else {
                    producer.bounded = false;
                }
            }
        }
    }
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
