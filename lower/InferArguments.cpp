#include "lower/InferArguments.h"

#include <algorithm>
#include <map>

#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "dsl/Parameter.h"
#include "dsl/RDom.h"
#include "lower/ExternStages.h"

namespace loom {
namespace Internal {
namespace {

class FindInputs : public IRVisitor {
public:
    std::map<std::string, LoweredArgument> inputs;

private:
    void add(LoweredArgument arg, const void *identity) {
        auto it = inputs.find(arg.name);
        if (it != inputs.end()) {
            const void *existing = it->second.buffer ? (const void *)it->second.buffer.get()
                                                     : (const void *)it->second.param.get();
            user_assert(existing == identity)
                << "Two different pipeline inputs are named " << arg.name
                << ". Give each Buffer, ImageParam and Param a distinct name.";
            return;
        }
        inputs[arg.name] = std::move(arg);
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type != Call::Image) return;
        LoweredArgument a;
        a.name = op->name;
        a.kind = Argument::InputBuffer;
        a.type = op->type;
        a.dimensions = (int)op->args.size();
        a.buffer = op->buffer;
        a.param = op->param;
        const void *identity = op->buffer ? (const void *)op->buffer.get() : (const void *)op->param.get();
        add(std::move(a), identity);
    }
    void visit(const Variable *op) override {
        if (!op->param) return;
        LoweredArgument a;
        if (op->param->is_buffer) {
            // A shape field (in.extent.0) of an ImageParam: the ImageParam is an input.
            a.name = op->param->name;
            a.kind = Argument::InputBuffer;
            a.type = op->param->type;
            a.dimensions = op->param->dimensions;
        } else {
            a.name = op->name;
            a.kind = Argument::InputScalar;
            a.type = op->type;
        }
        a.param = op->param;
        const bool first = !inputs.count(a.name);
        add(std::move(a), op->param.get());
        // The Params a range is given in are inputs too: the range is checked at each run.
        if (first && !op->param->is_buffer) {
            if (op->param->min_value.defined()) op->param->min_value.accept(this);
            if (op->param->max_value.defined()) op->param->max_value.accept(this);
        }
    }
};

}  // namespace

std::vector<LoweredArgument> infer_arguments(const std::vector<FunctionPtr> &outputs,
                                             const Environment &env,
                                             const std::vector<Argument> &requested,
                                             const std::vector<std::vector<Expr>> &also_read) {
    FindInputs finder;
    // The Params a requirement reads (Pipeline::add_requirement).
    for (const std::vector<Expr> &exprs : also_read)
        for (const Expr &e : exprs)
            e.accept(&finder);
    for (const std::string &name : env.order) {
        const FunctionPtr &f = env.functions.at(name);
        for (int k = 0; k < f->stages(); k++) {
            const Definition &d = f->stage(k);
            for (const Expr &v : d.values) v.accept(&finder);
            for (const Expr &a : d.args) a.accept(&finder);
            if (d.predicate.defined()) d.predicate.accept(&finder);
            for (const Specialization &sp : d.specializations) {
                sp.condition.accept(&finder);
                if (sp.definition) {
                    for (const Split &split : sp.definition->schedule.splits) {
                        if (split.factor.defined()) split.factor.accept(&finder);
                    }
                }
            }
            // A split factor may be a Param.
            for (const Split &split : d.schedule.splits) {
                if (split.factor.defined()) split.factor.accept(&finder);
            }
            if (d.rdom) {
                for (const ReductionVariable &rv : d.rdom->domain) {
                    rv.min.accept(&finder);
                    rv.extent.accept(&finder);
                }
            }
        }
        // An extern stage's scalars and images (lower/ExternStages.h).
        if (f->is_extern()) {
            for (const ExternStage::Arg &a : f->extern_stage->args) {
                if (a.kind == ExternStage::Arg::Scalar) {
                    a.expr.accept(&finder);
                } else if (a.kind != ExternStage::Arg::Func) {
                    const int dims = extern_input_dimensions(a);
                    extern_input_call(a, 0, std::vector<Expr>(dims, Expr(0))).accept(&finder);
                }
            }
        }
        for (const Bound &b : f->schedule.bounds) {
            if (b.min.defined()) b.min.accept(&finder);
            b.extent.accept(&finder);
        }
        for (const StorageFold &fold : f->schedule.folds) fold.extent.accept(&finder);
    }
    std::vector<LoweredArgument> args;
    if (requested.empty()) {
        for (auto &entry : finder.inputs) args.push_back(entry.second);
    } else {
        for (const Argument &r : requested) {
            auto it = finder.inputs.find(r.name);
            if (it == finder.inputs.end()) {
                // An argument the pipeline does not read is allowed (Halide allows it too).
                LoweredArgument a;
                a.name = r.name;
                a.kind = r.kind;
                a.type = r.type;
                a.dimensions = r.dimensions;
                args.push_back(a);
                continue;
            }
            user_assert(it->second.kind == r.kind && it->second.type == r.type)
                << "Argument " << r.name << " is listed with a kind or type that differs from "
                << "its use in the pipeline";
            args.push_back(it->second);
            finder.inputs.erase(it);
        }
        std::string missing;
        for (auto &entry : finder.inputs) {
            if (entry.second.buffer) {
                args.push_back(entry.second);  // a concrete Buffer needs no argument slot
            } else {
                missing += (missing.empty() ? "" : ", ") + entry.first;
            }
        }
        user_assert(missing.empty()) << "The pipeline reads " << missing
                                     << ", which the argument list does not include. Add it.";
    }
    for (const FunctionPtr &f : outputs) {
        for (int i = 0; i < f->outputs(); i++) {
            LoweredArgument a;
            a.name = f->buffer_name(i);
            a.kind = Argument::OutputBuffer;
            a.type = f->output_types[i];
            a.dimensions = f->dimensions();
            a.output = f;
            a.value_index = i;
            args.push_back(a);
        }
    }
    return args;
}

std::vector<DimConstraint> constraints_of(const LoweredArgument &a) {
    if (a.param && a.param->is_buffer && !a.param->constraints.empty()) return a.param->constraints;
    if (a.output && !a.output->output_constraints.empty()) return a.output->output_constraints;
    return default_constraints(a.dimensions);
}

}  // namespace Internal
}  // namespace loom
