#include "lower/BoundsInference.h"

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

class BoundsInference : public IRMutator {
public:
    using IRMutator::mutate;

private:
    Stmt visit(const Realize *op) override {
        // Inner Realizes first: their bound lets must exist for this Func's box to be
        // expressed in terms of variables outside it.
        Stmt body = mutate(op->body);
        std::map<std::string, Box> boxes = boxes_required(body);
        Box box;
        auto it = boxes.find(op->name);
        if (it != boxes.end()) box = it->second;
        // Storage covers what the produce writes, which a RoundUp or ShiftInwards split may
        // make larger than what the consumers read.
        Box written = boxes_provided(body)[op->name];
        Region bounds = op->bounds;
        for (size_t d = 0; d < bounds.size() && d < written.size(); d++) {
            internal_assert(written[d].is_bounded()) << "Unbounded region written to " << op->name;
            bounds[d] = Range(written[d].min, simplify(written[d].max - written[d].min + 1));
        }
        Stmt result = Realize::make(op->name, op->types, bounds, body);
        for (int d = (int)op->bounds.size() - 1; d >= 0; d--) {
            const Variable *mn = op->bounds[d].min.as<Variable>();
            internal_assert(mn) << "Realize " << op->name << " bound is not a variable";
            std::string prefix = mn->name.substr(0, mn->name.size() - 4);  // strip ".min"
            Expr lo, hi;
            if (box.empty()) {
                // Nobody reads it: compute nothing.
                lo = make_zero(Int(32));
                hi = make_const(Int(32), -1);
            } else {
                user_assert(box[d].is_bounded())
                    << "Can't infer the region of Func " << op->name
                    << " that its consumers read in dimension " << d
                    << ": an index expression has no " << (box[d].has_lower_bound() ? "upper" : "lower")
                    << " bound. Clamp the index (clamp(e, lo, hi)) or wrap the input with a "
                       "BoundaryConditions function.";
                lo = box[d].min;
                hi = box[d].max;
            }
            result = LetStmt::make(prefix + ".max", hi, result);
            result = LetStmt::make(prefix + ".min", lo, result);
        }
        return result;
    }
};

}  // namespace

Stmt bounds_inference(const Stmt &s, const std::vector<FunctionPtr> &outputs) {
    Stmt result = BoundsInference().mutate(s);
    // A split that rounds up or shifts inwards may write outside the output buffer; check
    // what each output's loops write against its buffer before running them.
    std::map<std::string, Box> written = boxes_provided(result);
    std::vector<Stmt> checks;
    for (const FunctionPtr &f : outputs) {
        const Box &box = written[f->name];
        for (int d = 0; d < (int)box.size(); d++) {
            std::string prefix = f->name + ".s0." + f->args[d];
            Scope<Interval> scope;
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
    checks.push_back(result);
    result = Block::make(checks);
    // Outputs cover their output buffers (all Tuple elements share the first one's region).
    for (auto it = outputs.rbegin(); it != outputs.rend(); ++it) {
        const FunctionPtr &f = *it;
        std::string buffer = f->buffer_name(0);
        for (int d = f->dimensions() - 1; d >= 0; d--) {
            std::string prefix = f->name + ".s0." + f->args[d];
            Expr mn = int_var(buffer + ".min." + std::to_string(d));
            Expr extent = int_var(buffer + ".extent." + std::to_string(d));
            result = LetStmt::make(prefix + ".max", mn + extent - 1, result);
            result = LetStmt::make(prefix + ".min", mn, result);
        }
    }
    return result;
}

}  // namespace Internal
}  // namespace loom
