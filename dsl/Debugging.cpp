// print and print_when (dsl/IROperator.h): one effectful intrinsic, Call::print, which code
// generation turns into a line built on the stack and handed to loom_print; require, whose
// intrinsic hands such a line to loom_error_requirement_failed where its condition fails. And the
// tracing directives of Func (lower/InjectTracing.h turns them into events).
#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"

namespace loom {

Expr print_when(const Expr &condition, const std::vector<Expr> &values) {
    user_assert(!values.empty()) << "print() and print_when() need at least one value to print.";
    user_assert(condition.defined() && condition.type().is_bool())
        << "print_when()'s condition must be a boolean Expr (a comparison, say); it has type "
        << (condition.defined() ? type_to_string(condition.type()) : std::string("undefined"));
    for (const Expr &v : values)
        user_assert(v.defined()) << "print() of an undefined Expr.";
    const Expr &first = values[0];
    user_assert(!first.type().is_handle())
        << "print()'s first argument is also its value, so it must be a number, not a string "
           "(\""
        << (first.as<Internal::StringImm>() ? first.as<Internal::StringImm>()->value : "")
        << "\"): write print(value, \"text\", ...).";
    // The pieces: the values, a space between each two, a newline at the end (Halide's line).
    std::vector<Expr> args{condition, first};
    for (size_t i = 0; i < values.size(); i++) {
        user_assert(values[i].type().is_scalar() ||
                    values[i].type().lanes() == first.type().lanes())
            << "print() of vectors of different widths";
        args.push_back(values[i]);
        args.push_back(Expr(std::string(i + 1 < values.size() ? " " : "\n")));
    }
    return Internal::Call::make_intrinsic(first.type(), Internal::Call::print, std::move(args),
                                          Internal::Call::Intrinsic);
}

Expr print(const std::vector<Expr> &values) { return print_when(Internal::const_true(), values); }

Expr require(const Expr &condition, const std::vector<Expr> &values) {
    user_assert(condition.defined() && condition.type().is_bool())
        << "require()'s condition must be a boolean Expr (a comparison, say); it has type "
        << (condition.defined() ? type_to_string(condition.type()) : std::string("undefined"));
    user_assert(!values.empty() && values[0].defined() && !values[0].type().is_handle())
        << "require() needs a value after its condition: require(condition, value, \"text\", ...).";
    const Expr &value = values[0];
    // Halide's message: "Requirement Failed: (false) " and the values, a space between each two.
    std::vector<Expr> args{condition, value, Expr(std::string("Requirement Failed: (false) "))};
    for (size_t i = 0; i < values.size(); i++) {
        user_assert(values[i].defined()) << "require() of an undefined Expr.";
        user_assert(values[i].type().is_scalar() ||
                    values[i].type().lanes() == value.type().lanes())
            << "require() of vectors of different widths";
        args.push_back(values[i]);
        if (i + 1 < values.size()) args.push_back(Expr(std::string(" ")));
    }
    return Internal::Call::make_intrinsic(value.type(), Internal::Call::require, std::move(args),
                                          Internal::Call::Intrinsic);
}

Func &Func::trace_loads() {
    func->trace.loads = true;
    return *this;
}

Func &Func::trace_stores() {
    func->trace.stores = true;
    return *this;
}

Func &Func::trace_realizations() {
    func->trace.realizations = true;
    return *this;
}

Func &Func::add_trace_tag(const std::string &trace_tag) {
    user_assert(trace_tag.find('\0') == std::string::npos)
        << "add_trace_tag() on Func " << name() << ": a tag may not contain a null character.";
    func->trace.tags.push_back(trace_tag);
    return *this;
}

} // namespace loom
