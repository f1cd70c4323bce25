#include "lower/ScheduleFunctions.h"

#include <map>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "lower/Substitute.h"

namespace loom {
namespace Internal {

bool is_inlined(const FunctionPtr &f, const std::vector<FunctionPtr> &outputs) {
    for (const FunctionPtr &o : outputs) {
        if (o == f) return false;
    }
    return f->schedule.compute_level.is_inlined();
}

namespace {

// Replaces calls to inlined Funcs by their (already inlined) definitions.
class InlineCalls : public IRMutator {
public:
    InlineCalls(const std::vector<FunctionPtr> &outputs,
                std::map<std::string, std::vector<Expr>> &inlined_values)
        : outputs(outputs), inlined_values(inlined_values) {}
    using IRMutator::mutate;

    const std::vector<Expr> &values_of(const FunctionPtr &f) {
        auto it = inlined_values.find(f->name);
        if (it != inlined_values.end()) return it->second;
        std::vector<Expr> values;
        for (const Expr &v : f->init.values) values.push_back(mutate(v));
        return inlined_values[f->name] = values;
    }

private:
    const std::vector<FunctionPtr> &outputs;
    std::map<std::string, std::vector<Expr>> &inlined_values;

    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (c->call_type != Call::Halide || !is_inlined(c->func, outputs)) return e;
        const std::vector<Expr> &values = values_of(c->func);
        std::map<std::string, Expr> args;
        for (size_t i = 0; i < c->args.size(); i++) args[c->func->args[i]] = c->args[i];
        return substitute(args, values[c->value_index]);
    }
};

std::string loop_var(const FunctionPtr &f, const std::string &var) {
    return f->name + ".s0." + var;
}

Stmt build_produce(const FunctionPtr &f, const std::vector<Expr> &values) {
    std::map<std::string, Expr> rename;
    std::vector<Expr> args;
    for (const std::string &a : f->args) {
        Expr v = int_var(loop_var(f, a));
        rename[a] = v;
        args.push_back(v);
    }
    std::vector<Expr> renamed;
    for (const Expr &v : values) renamed.push_back(substitute(rename, v));
    Stmt body = Provide::make(f->name, renamed, args);
    // dims are innermost first, so wrapping in order puts the last one outermost.
    for (const Dim &d : f->init.schedule.dims) {
        std::string name = loop_var(f, d.var);
        Expr mn = int_var(name + ".min"), mx = int_var(name + ".max");
        body = For::make(name, mn, mx - mn + 1, d.for_type, d.device_api, body);
    }
    return body;
}

}  // namespace

Stmt schedule_functions(const std::vector<FunctionPtr> &outputs, const Environment &env) {
    std::map<std::string, std::vector<Expr>> inlined_values;
    InlineCalls inliner(outputs, inlined_values);

    for (const auto &entry : env.functions) {
        const FunctionPtr &f = entry.second;
        const LoopLevel &level = f->schedule.compute_level;
        internal_assert(level.is_inlined() || level.is_root())
            << "Func " << f->name << " has a compute level this version cannot lower";
    }

    std::vector<Stmt> produce_outputs;
    for (const FunctionPtr &out : outputs) {
        produce_outputs.push_back(
            ProducerConsumer::make(out->name, true, build_produce(out, inliner.values_of(out))));
    }
    Stmt s = Block::make(produce_outputs);

    for (auto it = env.order.rbegin(); it != env.order.rend(); ++it) {
        const FunctionPtr &f = env.functions.at(*it);
        bool is_output = false;
        for (const FunctionPtr &o : outputs) is_output |= (o == f);
        if (is_output || is_inlined(f, outputs)) continue;
        Stmt produce = ProducerConsumer::make(f->name, true, build_produce(f, inliner.values_of(f)));
        Stmt consume = ProducerConsumer::make(f->name, false, s);
        Region bounds;
        for (const std::string &a : f->args) {
            Expr mn = int_var(loop_var(f, a) + ".min"), mx = int_var(loop_var(f, a) + ".max");
            bounds.emplace_back(mn, mx - mn + 1);
        }
        s = Realize::make(f->name, f->output_types, bounds, Block::make(produce, consume));
    }
    return s;
}

}  // namespace Internal
}  // namespace loom
