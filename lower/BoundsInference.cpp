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
        Stmt result = Realize::make(op->name, op->types, op->bounds, body);
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
