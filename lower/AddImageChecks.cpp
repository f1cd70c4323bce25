#include "lower/AddImageChecks.h"

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

Stmt add_image_checks(const Stmt &s, const std::vector<LoweredArgument> &args) {
    std::map<std::string, Box> boxes = boxes_required(s);
    std::vector<Stmt> checks;
    for (const LoweredArgument &a : args) {
        if (a.kind == Argument::InputScalar) continue;
        std::string dense_message = (a.kind == Argument::OutputBuffer ? "Output" : "Input") +
                                    std::string(" buffer ") + a.name +
                                    " must be dense in dimension 0 (stride 1). Pass a buffer "
                                    "whose innermost dimension is contiguous.";
        if (a.dimensions > 0) {
            checks.push_back(AssertStmt::make(
                int_var(a.name + ".stride.0") == 1,
                Call::make(Int(32), "loom_error", {Expr(dense_message)}, Call::Extern)));
        }
        if (a.kind != Argument::InputBuffer) continue;
        auto it = boxes.find(a.name);
        if (it == boxes.end()) continue;
        const Box &box = it->second;
        for (int d = 0; d < (int)box.size(); d++) {
            user_assert(box[d].is_bounded())
                << "Can't infer the region of input " << a.name << " that the pipeline reads in "
                << "dimension " << d << ": an index expression has no "
                << (box[d].has_lower_bound() ? "upper" : "lower")
                << " bound. Clamp the index (clamp(e, lo, hi)) or wrap the input with a "
                   "BoundaryConditions function.";
            std::string ds = std::to_string(d);
            Expr valid_min = int_var(a.name + ".min." + ds);
            Expr valid_max = valid_min + int_var(a.name + ".extent." + ds) - 1;
            // An empty region (max < min) reads nothing and needs no check.
            Expr ok = box[d].max < box[d].min ||
                      (valid_min <= box[d].min && box[d].max <= valid_max);
            Expr message = Call::make(Int(32), "loom_error_access_out_of_bounds",
                                      {Expr(a.name), Expr(d), box[d].min, box[d].max, valid_min,
                                       valid_max},
                                      Call::Extern);
            checks.push_back(AssertStmt::make(simplify(ok), message));
        }
    }
    checks.push_back(s);
    return Block::make(checks);
}

}  // namespace Internal
}  // namespace loom
