#include "lower/AddImageChecks.h"

#include <set>

#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "lower/Bounds.h"
#include "lower/InjectDeviceCopies.h"
#include "lower/Simplify.h"
#include "lower/StorageFlattening.h"

namespace loom {
namespace Internal {

namespace {

// An ImageParam (not a Buffer baked into the pipeline): Pipeline::infer_input_bounds binds one
// without memory to learn the region the pipeline reads.
bool is_queryable_input(const LoweredArgument &a) {
    return a.kind == Argument::InputBuffer && !a.buffer && a.param;
}

Expr is_bounds_query(const std::string &buffer) { return buffer_is_bounds_query(buffer) != 0; }

// Without 64-bit offsets, every element of an external buffer must lie within max_elements of
// its base in each dimension, and the buffer hold no more than max_elements (Halide 14's two
// checks): the flat offsets codegen computes are then exact in 32 bits. In 64 bits, so that
// the product of the extents and strides cannot wrap.
void add_size_checks(std::vector<Stmt> &checks, const std::string &which, const LoweredArgument &a,
                     int64_t max_elements) {
    const Expr most = make_const(Int(64), max_elements);
    const std::string fix = ". " + kLargeBuffersAdvice + ", or pass a smaller buffer.";
    auto check = [&](const Expr &size, const std::string &what) {
        const Expr message =
            Call::make_intrinsic(Handle(), Call::stringify,
                                 {Expr(which + " buffer " + a.name + " " + what), size,
                                  Expr(" elements, more than the " + std::to_string(max_elements) +
                                       " that 32-bit offsets address" + fix)});
        checks.push_back(AssertStmt::make(
            size <= most, Call::make(Int(32), "loom_error", {message}, Call::Extern)));
    };
    Expr total;
    for (int d = 0; d < a.dimensions; d++) {
        const std::string ds = std::to_string(d);
        const Expr extent = cast(Int(64), int_var(a.name + ".extent." + ds));
        const Expr stride = cast(Int(64), int_var(a.name + ".stride." + ds));
        check(abs(extent * stride), "spans, in dimension " + ds + " (extent times stride), ");
        total = total.defined() ? total * extent : extent;
        if (d > 0) check(total, "holds, in dimensions 0 to " + ds + ", ");
    }
}

} // namespace

Stmt add_image_checks(const Stmt &s, const std::vector<LoweredArgument> &args,
                      int64_t max_elements) {
    // The checks go inside the region lets at the top (the outputs', then those of the Funcs
    // computed at the root), so that the boxes may name them: expanding every let into the
    // boxes would repeat each consumer's region in its producers', exponentially in the
    // pipeline's depth. The asserts among those lets (outputs' sizes, storage folds) come
    // after these checks, as they did when these were first; lets only compute values, so
    // evaluating them before the asserts changes nothing.
    std::vector<const LetStmt *> lets;
    std::vector<Stmt> asserts;
    Stmt body = s;
    while (true) {
        if (const LetStmt *l = body.as<LetStmt>()) {
            lets.push_back(l);
            body = l->body;
        } else if (const Block *b = body.as<Block>(); b && b->first.as<AssertStmt>()) {
            asserts.push_back(b->first);
            body = b->rest;
        } else {
            break;
        }
    }
    // The regions of every input, in one walk through the statements that read any of them.
    std::set<std::string> inputs;
    for (const LoweredArgument &a : args) {
        if (a.kind == Argument::InputBuffer) inputs.insert(a.name);
    }
    const std::map<std::string, Box> read = boxes_required_of(body, inputs, FixedRegionLets::Named);
    std::vector<Stmt> checks;
    Expr any_input_query; // whether some ImageParam is a bounds query
    for (const LoweredArgument &a : args) {
        if (a.kind == Argument::InputScalar) {
            // A Param's range, checked before anything reads the value.
            if (!a.param) continue;
            const Expr value = Variable::make(a.type, a.name, a.param);
            auto check_range = [&](const Expr &bound, bool minimum) {
                if (!bound.defined()) return;
                Expr ok = minimum ? value >= bound : value <= bound;
                Expr message = Call::make(Int(32), "loom_error_param_out_of_range",
                                          {Expr(a.name), cast(Float(64), value),
                                           cast(Float(64), bound), Expr((int32_t)minimum)},
                                          Call::Extern);
                checks.push_back(AssertStmt::make(ok, message));
            };
            check_range(a.param->min_value, true);
            check_range(a.param->max_value, false);
            continue;
        }
        const std::string which = a.kind == Argument::OutputBuffer ? "Output" : "Input";
        // This buffer's checks, and for an ImageParam the bounds query that replaces them
        // where it has no memory (infer_input_bounds: the region read is written into it).
        std::vector<Stmt> own, queries;
        const std::vector<DimConstraint> constraints = constraints_of(a);
        for (int d = 0; d < (int)constraints.size(); d++) {
            const DimConstraint &c = constraints[d];
            const std::string ds = std::to_string(d);
            auto check = [&](const char *field, const Expr &wanted) {
                if (!wanted.defined()) return;
                const Expr actual = int_var(a.name + "." + field + "." + ds);
                Expr message;
                if (d == 0 && std::string(field) == "stride" && is_const_one(wanted)) {
                    // The default constraint.
                    message = Expr(which + " buffer " + a.name +
                                   " must be dense in dimension 0 (stride 1). Pass a buffer "
                                   "whose innermost dimension is contiguous.");
                } else {
                    message = Call::make_intrinsic(
                        Handle(), Call::stringify,
                        {Expr(which + " buffer " + a.name + " is constrained to have " + field +
                              " "),
                         wanted, Expr(" in dimension " + ds + ", but has "), actual,
                         Expr(std::string(". Pass a buffer that meets the constraint, or lift it "
                                          "(dim(") +
                              ds + ").set_" + field + "(Expr())).")});
                }
                own.push_back(AssertStmt::make(
                    actual == wanted, Call::make(Int(32), "loom_error", {message}, Call::Extern)));
            };
            check("min", c.min);
            check("extent", c.extent);
            check("stride", c.stride);
        }
        if (max_elements < INT64_MAX) add_size_checks(own, which, a, max_elements);
        // set_host_alignment: the host pointer is a multiple of the alignment.
        const int alignment = a.param && a.param->is_buffer ? a.param->host_alignment
                              : a.output                    ? a.output->output_host_alignment
                                                            : 0;
        if (alignment > 1) {
            const Expr address = Call::make_intrinsic(UInt(64), Call::buffer_host, {Expr(a.name)});
            const Expr message = Call::make_intrinsic(
                Handle(), Call::stringify,
                {Expr(which + " buffer " + a.name + " has the host pointer "), address,
                 Expr(", which is not aligned to " + std::to_string(alignment) +
                      " bytes (set_host_alignment). Pass a buffer allocated with that "
                      "alignment.")});
            own.push_back(AssertStmt::make(
                address % make_const(UInt(64), alignment) == make_const(UInt(64), 0),
                Call::make(Int(32), "loom_error", {message}, Call::Extern)));
        }
        auto found = read.find(a.name);
        const bool reads_it =
            a.kind == Argument::InputBuffer && found != read.end() && !found->second.empty();
        const Box &box = reads_it ? found->second : Box();
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
            own.push_back(AssertStmt::make(simplify(ok), message));
            queries.push_back(bounds_query_answer(a.name, d, box[d].min, box[d].max));
        }
        if (!is_queryable_input(a)) {
            checks.insert(checks.end(), own.begin(), own.end());
            continue;
        }
        const Expr is_query = is_bounds_query(a.name);
        any_input_query = any_input_query.defined() ? any_input_query || is_query : is_query;
        Stmt query = queries.empty() ? make_no_op() : Block::make(queries);
        Stmt check = own.empty() ? make_no_op() : Block::make(own);
        checks.push_back(IfThenElse::make(is_query, query, check));
    }
    // An input without memory asks for its region: the pipeline computes nothing unless the
    // outputs ask for theirs too (the bounds-query branch inside `body`, which then runs).
    if (any_input_query.defined()) {
        Expr output_query = const_false();
        for (const LoweredArgument &a : args) {
            if (a.kind == Argument::OutputBuffer) {
                output_query = is_bounds_query(a.name);
                break;
            }
        }
        body = IfThenElse::make(!any_input_query || output_query, body);
    }
    checks.insert(checks.end(), asserts.begin(), asserts.end());
    checks.push_back(body);
    Stmt result = Block::make(checks);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
        result = LetStmt::make((*it)->name, (*it)->value, result);
    }
    return result;
}

}  // namespace Internal
}  // namespace loom
