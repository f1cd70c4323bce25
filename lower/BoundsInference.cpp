#include "lower/BoundsInference.h"

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/RDom.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// The pure Vars of update stage k and the argument position each appears at.
std::vector<std::pair<std::string, int>> stage_pure_vars(const FunctionPtr &f, int k) {
    std::vector<std::pair<std::string, int>> vars;
    const Definition &d = f->stage(k);
    for (size_t i = 0; i < d.args.size(); i++) {
        if (k == 0) {
            vars.push_back({f->args[i], (int)i});
        } else if (const Variable *v = d.args[i].as<Variable>(); v && !v->param && !v->rdom) {
            vars.push_back({v->name, (int)i});
        }
    }
    return vars;
}

std::string stage_var(const FunctionPtr &f, int k, const std::string &var) {
    return f->name + ".s" + std::to_string(k) + "." + var;
}

// What the update stages of f read and write of f itself, given each stage's pure variables
// range over their (symbolic) bounds.
Box update_footprint(const FunctionPtr &f) {
    Box box;
    for (int k = 1; k < f->stages(); k++) {
        const Definition &d = f->stage(k);
        Scope<Interval> scope;
        for (const auto &v : stage_pure_vars(f, k)) {
            scope.push(v.first, Interval(int_var(stage_var(f, k, v.first) + ".min"),
                                         int_var(stage_var(f, k, v.first) + ".max")));
        }
        if (d.rdom) {
            for (const ReductionVariable &rv : d.rdom->domain) {
                scope.push(rv.var, Interval(rv.min, simplify(rv.min + rv.extent - 1)));
            }
        }
        Box written(d.args.size());
        for (size_t i = 0; i < d.args.size(); i++) written[i] = bounds_of_expr_in_scope(d.args[i], scope);
        box = box_union(box, written);
        Stmt reads;
        for (const Expr &v : d.values) reads = Block::make(reads, Evaluate::make(v));
        auto read_boxes = boxes_required(reads, scope);
        auto it = read_boxes.find(f->name);
        if (it != read_boxes.end()) box = box_union(box, it->second);
    }
    return box;
}

void check_bounded(const Box &box, const std::string &func, const char *what) {
    for (size_t d = 0; d < box.size(); d++) {
        user_assert(box[d].is_bounded())
            << "Can't infer the region of Func " << func << " that " << what << " in dimension "
            << d << ": an index expression has no " << (box[d].has_lower_bound() ? "upper" : "lower")
            << " bound. Clamp the index (clamp(e, lo, hi)) or wrap the input with a "
               "BoundaryConditions function.";
    }
}

class BoundsInference : public IRMutator {
public:
    explicit BoundsInference(const Environment &env) : env(env) {}
    using IRMutator::mutate;

private:
    const Environment &env;

    // The production of a Func sits in a Block beside its consumption, at its compute level.
    // Its loop bounds are what the consumption reads there: one iteration of the loop it is
    // computed at, however far outside that its storage is.
    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        const ProducerConsumer *produce = first.as<ProducerConsumer>();
        const ProducerConsumer *consume = rest.as<ProducerConsumer>();
        Stmt block = Block::make(first, rest);
        if (!produce || !consume || !produce->is_producer || consume->is_producer ||
            produce->name != consume->name || !env.functions.count(produce->name)) {
            return block;
        }
        const FunctionPtr &f = env.functions.at(produce->name);
        Box consumed = boxes_required(rest)[f->name];
        check_bounded(consumed, f->name, "its consumers read");
        int dims = f->dimensions();
        if (consumed.empty()) {
            // Nobody reads it: compute nothing.
            consumed = Box(dims, Interval(make_zero(Int(32)), make_const(Int(32), -1)));
        }
        // bound(): the region is what the user gave, and consumers must read within it.
        std::vector<Stmt> checks;
        for (const Bound &b : f->schedule.bounds) {
            for (int d = 0; d < dims; d++) {
                if (f->args[d] != b.var) continue;
                Expr lo = b.min, hi = simplify(b.min + b.extent - 1);
                Expr ok = consumed[d].max < consumed[d].min ||
                          (lo <= consumed[d].min && consumed[d].max <= hi);
                checks.push_back(AssertStmt::make(
                    simplify(ok), Call::make(Int(32), "loom_error_bound_too_small",
                                             {Expr(f->name), Expr(b.var), lo, hi, consumed[d].min, consumed[d].max},
                                             Call::Extern)));
                consumed[d] = Interval(lo, hi);
            }
        }
        Box pure = box_union(consumed, update_footprint(f));
        check_bounded(pure, f->name, "its update definitions read or write");
        for (const Bound &b : f->schedule.bounds) {
            for (int d = 0; d < dims; d++) {
                if (f->args[d] == b.var) pure[d] = consumed[d];
            }
        }
        // The pure stage's lets refer to the update stages' lets, so those go outside.
        Stmt result = block;
        checks.push_back(result);
        result = Block::make(checks);
        for (int d = dims - 1; d >= 0; d--) {
            std::string p = stage_var(f, 0, f->args[d]);
            result = LetStmt::make(p + ".max", pure[d].max, result);
            result = LetStmt::make(p + ".min", pure[d].min, result);
        }
        for (int k = f->stages() - 1; k >= 1; k--) {
            for (const auto &v : stage_pure_vars(f, k)) {
                std::string p = stage_var(f, k, v.first);
                result = LetStmt::make(p + ".max", consumed[v.second].max, result);
                result = LetStmt::make(p + ".min", consumed[v.second].min, result);
            }
        }
        return result;
    }

    // Storage covers everything the stages write over all iterations of the loops between the
    // storage and the computation (a RoundUp or ShiftInwards split or an update may write more
    // than the consumers read).
    Stmt visit(const Realize *op) override {
        Stmt body = mutate(op->body);
        Box written = boxes_provided(body)[op->name];
        Region bounds = op->bounds;
        for (int d = 0; d < (int)bounds.size() && d < (int)written.size(); d++) {
            internal_assert(written[d].is_bounded()) << "Unbounded region written to " << op->name;
            bounds[d] = Range(written[d].min, simplify(written[d].max - written[d].min + 1));
        }
        return Realize::make(op->name, op->types, bounds, body);
    }
};

}  // namespace

Stmt bounds_inference(const Stmt &s, const std::vector<FunctionPtr> &outputs, const Environment &env) {
    Stmt result = BoundsInference(env).mutate(s);
    // A split that rounds up or shifts inwards, or an update, may write outside the output
    // buffer, and an update may read its own output outside it; check what each output's
    // stages touch against its buffer before running them.
    std::map<std::string, Box> written = boxes_provided(result);
    std::map<std::string, Box> read = boxes_required(result);
    std::vector<Stmt> checks;
    for (const FunctionPtr &f : outputs) {
        Box box = written[f->name];
        if (read.count(f->name)) box = box_union(box, read[f->name]);
        check_bounded(box, f->name, "its definitions write or read");
        for (int d = 0; d < (int)box.size(); d++) {
            std::string ds = std::to_string(d);
            for (int i = 0; i < f->outputs(); i++) {
                std::string buffer = f->buffer_name(i);
                Expr mn = int_var(buffer + ".min." + ds);
                Expr mx = mn + int_var(buffer + ".extent." + ds) - 1;
                Expr ok = box[d].max < box[d].min || (mn <= box[d].min && box[d].max <= mx);
                Expr message = Call::make(Int(32), "loom_error_output_too_small",
                                          {Expr(buffer), Expr(d), box[d].min, box[d].max, mn, mx},
                                          Call::Extern);
                checks.push_back(AssertStmt::make(simplify(ok), message));
            }
        }
    }
    for (const FunctionPtr &f : outputs) {
        for (const Bound &b : f->schedule.bounds) {
            for (int d = 0; d < f->dimensions(); d++) {
                if (f->args[d] != b.var) continue;
                std::string ds = std::to_string(d), buffer = f->buffer_name(0);
                Expr mn = int_var(buffer + ".min." + ds);
                Expr mx = mn + int_var(buffer + ".extent." + ds) - 1;
                Expr lo = b.min, hi = simplify(b.min + b.extent - 1);
                checks.push_back(AssertStmt::make(
                    simplify(mn == lo && mx == hi),
                    Call::make(Int(32), "loom_error_bound_too_small",
                               {Expr(f->name), Expr(b.var), lo, hi, mn, mx}, Call::Extern)));
            }
        }
    }
    checks.push_back(result);
    result = Block::make(checks);
    // Every stage of an output covers its output buffer (all Tuple elements share the first
    // one's region).
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
        const FunctionPtr &f = *it;
        std::string buffer = f->buffer_name(0);
        for (int k = f->stages() - 1; k >= 0; k--) {
            for (const auto &v : stage_pure_vars(f, k)) {
                std::string ds = std::to_string(v.second);
                std::string p = stage_var(f, k, v.first);
                Expr mn = int_var(buffer + ".min." + ds);
                Expr extent = int_var(buffer + ".extent." + ds);
                // bound() on an output: the region is the bound's (checked equal to the
                // buffer's above), so a constant extent can be unrolled or vectorized.
                for (const Bound &b : f->schedule.bounds) {
                    if (b.var == f->args[v.second]) {
                        mn = b.min;
                        extent = b.extent;
                    }
                }
                result = LetStmt::make(p + ".max", mn + extent - 1, result);
                result = LetStmt::make(p + ".min", mn, result);
            }
        }
    }
    return result;
}

}  // namespace Internal
}  // namespace loom
