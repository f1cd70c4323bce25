#include "lower/PrintLoopNest.h"

#include <map>
#include <set>
#include <sstream>

#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "lower/BoundsInference.h"
#include "lower/FindEnvironment.h"
#include "lower/FusedGroups.h"
#include "lower/ScheduleFunctions.h"
#include "lower/Simplify.h"
#include "lower/SlidingWindow.h"
#include "lower/StorageFolding.h"

namespace loom {
namespace Internal {
namespace {

class PrintLoops : public IRVisitor {
public:
    /** `shared`: the loops compute_with shares (their parents' loops). */
    PrintLoops(std::ostream &out, const Environment &env, std::set<std::string> shared)
        : out(out), env(env), shared(std::move(shared)) {}

private:
    std::ostream &out;
    const Environment &env;
    const std::set<std::string> shared;
    int indent = 0;
    std::map<std::string, Expr> constants; // lets of constant value around the loop printed

    using IRVisitor::visit;

    std::string pad() const { return std::string(indent, ' '); }

    // A loop's name without its Func and stage, and an RVar's without its RDom's suffix, as
    // Halide prints them ("f.s0.x.xo" -> "x.xo", "f.s1.r$x" -> "r").
    static std::string loop_name(const std::string &name) {
        size_t first = name.find('.');
        size_t second = first == std::string::npos ? first : name.find('.', first + 1);
        std::string loop = second == std::string::npos ? name : name.substr(second + 1), kept;
        bool keep = true;
        for (char c : loop) {
            if (c == '$') keep = false;
            if (c == '.') keep = true;
            if (keep) kept += c;
        }
        return kept;
    }

    static const char *device(DeviceAPI api) {
        switch (api) {
        case DeviceAPI::Host: return "";
        case DeviceAPI::CUDA: return "<CUDA>";
        case DeviceAPI::Default_GPU: return "<Default_GPU>";
        case DeviceAPI::None:
        case DeviceAPI::OpenCL:
        case DeviceAPI::OpenGLCompute:
        case DeviceAPI::Metal:
        case DeviceAPI::Hexagon:
        case DeviceAPI::HexagonDma:
        case DeviceAPI::D3D12Compute:
            break; // refused by the directives
        }
        return "";
    }

    Expr constant_of(const Expr &e) const {
        if (const Variable *v = e.as<Variable>()) {
            auto it = constants.find(v->name);
            if (it != constants.end()) return it->second;
        }
        return e;
    }

    void nested(const Stmt &body) {
        indent += 2;
        body.accept(this);
        indent -= 2;
    }

    void visit(const For *op) override {
        std::string name = loop_name(op->name);
        if (shared.count(op->name)) {
            // Halide names a shared loop "fused." before its last component ("x.fused.xo").
            const size_t dot = name.rfind('.');
            name = dot == std::string::npos
                       ? "fused." + name
                       : name.substr(0, dot + 1) + "fused." + name.substr(dot + 1);
        }
        out << pad() << for_type_name(op->for_type) << " " << name;
        const Expr mn = constant_of(op->min), extent = constant_of(op->extent);
        if (is_const(mn) && is_const(extent)) {
            out << " in [" << mn << ", " << simplify(mn + extent - 1) << "]";
        }
        out << device(op->device_api) << ":\n";
        nested(op->body);
    }

    void visit(const Realize *op) override {
        // Storage outside the computation is shown; storage at it goes without saying.
        auto it = env.functions.find(op->name);
        if (it != env.functions.end() &&
            !(it->second->schedule.store_level == it->second->schedule.compute_level) &&
            !it->second->schedule.store_level.is_inlined()) {
            out << pad() << "store " << op->name << ":\n";
            nested(op->body);
        } else {
            op->body.accept(this);
        }
    }

    // A compute_with group's production holds its other Funcs' too: each is named, nested, as
    // Halide 14 nests them (the others in reverse order).
    void visit(const ProducerConsumer *op) override {
        std::vector<std::string> names{op->name};
        auto members = env.fused_members.find(op->name);
        if (members != env.fused_members.end())
            names.insert(names.end(), members->second.rbegin(), members->second.rend());
        for (const std::string &n : names) {
            out << pad() << (op->is_producer ? "produce " : "consume ") << n << ":\n";
            indent += 2;
        }
        op->body.accept(this);
        indent -= 2 * (int)names.size();
    }

    void visit(const Provide *op) override { out << pad() << op->name << "(...) = ...\n"; }

    void visit(const LetStmt *op) override {
        if (!is_const(op->value)) {
            op->body.accept(this);
            return;
        }
        auto shadowed = constants.find(op->name);
        Expr outer = shadowed == constants.end() ? Expr() : shadowed->second;
        constants[op->name] = op->value;
        op->body.accept(this);
        if (outer.defined()) {
            constants[op->name] = outer;
        } else {
            constants.erase(op->name);
        }
    }

    // Checks and calls are not part of the loop nest.
    void visit(const AssertStmt *) override {}
    void visit(const Evaluate *) override {}
};

}  // namespace

std::string print_loop_nest(const std::vector<FunctionPtr> &outputs) {
    Environment env = find_environment(outputs);
    const std::vector<FusedGroup> groups = find_fused_groups(env, outputs);
    Stmt s = schedule_functions(outputs, env, groups);
    s = bounds_inference(s, outputs, env);
    s = storage_folding(s, env);
    s = sliding_window(s, env);
    s = simplify(s);
    // The loops compute_with shares: a parent stage's outer loops, as many as its children
    // share.
    std::set<std::string> shared;
    for (const FusedGroup &g : groups) {
        for (const auto &[child, count] : g.shared_loops) {
            const StageRef parent = fuse_parent(env.functions.at(child.first)->stage(child.second));
            const FunctionPtr &f = env.functions.at(parent.first);
            auto add = [&](const Definition &d) {
                for (int p = 0; p < count; p++)
                    shared.insert(stage_loop_name(parent, d, p));
            };
            add(f->stage(parent.second));
            for (const Specialization &spec : f->stage(parent.second).specializations) {
                if (spec.definition) add(*spec.definition);
            }
        }
    }
    std::ostringstream text;
    PrintLoops printer(text, env, std::move(shared));
    s.accept(&printer);
    return text.str();
}

}  // namespace Internal
}  // namespace loom
