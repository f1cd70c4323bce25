#include "lower/ExternStages.h"

#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// Where an extern stage's loops would have been changed: it has none of its own.
void check_no_loop_directives(const FunctionPtr &f) {
    const StageSchedule &s = f->init.schedule;
    bool changed = !s.splits.empty() || !s.prefetches.empty() || s.dims.size() != f->args.size();
    for (const Dim &d : s.dims)
        changed = changed || d.for_type != ForType::Serial || d.device_api != DeviceAPI::Host;
    user_assert(!changed)
        << "Func " << f->name << " is an extern stage (define_extern of "
        << f->extern_stage->function_name
        << "), called once per region it computes: it has no loops of its own to split, "
           "reorder, vectorize, parallelize or map to the GPU. Schedule where it is computed "
           "(compute_root, compute_at, store_at), or the loops of the Funcs that read it.";
    user_assert(f->init.specializations.empty())
        << "Func " << f->name << " is an extern stage: it can't be specialized.";
}

} // namespace

Expr extern_input_call(const ExternStage::Arg &a, int value_index, std::vector<Expr> args) {
    switch (a.kind) {
    case ExternStage::Arg::Func:
        return Call::make(a.func->output_types[value_index], a.func->name, std::move(args),
                          Call::Halide, FunctionRef(a.func), value_index);
    case ExternStage::Arg::Buffer:
        return buffer_call(a.buffer, std::move(args));
    case ExternStage::Arg::Image:
        return Call::make(a.param->type, a.param->name, std::move(args), Call::Image, nullptr, 0,
                          nullptr, a.param);
    case ExternStage::Arg::Scalar:
        break;
    }
    internal_error << "extern_input_call of a scalar argument";
    return Expr();
}

int extern_input_dimensions(const ExternStage::Arg &a) {
    switch (a.kind) {
    case ExternStage::Arg::Func:
        return a.func->dimensions();
    case ExternStage::Arg::Buffer:
        return (int)a.buffer->dims.size();
    case ExternStage::Arg::Image:
        return a.param->dimensions;
    case ExternStage::Arg::Scalar:
        break;
    }
    return 0;
}

namespace {

// A bounds-query buffer of an input: no memory; a Func's region all zeros (the function
// fills it in), an image's shape its own (as Halide copies the input's buffer).
Expr query_buffer(const ExternStage::Arg &a, Type t, const std::string &image) {
    std::vector<Expr> args{StringImm::make(""), make_zero(t), Expr(0), Expr(0)};
    for (int d = 0; d < extern_input_dimensions(a); d++) {
        const std::string ds = std::to_string(d);
        if (a.kind == ExternStage::Arg::Func) {
            for (int i = 0; i < 3; i++)
                args.push_back(Expr(0));
        } else {
            args.push_back(int_var(image + ".min." + ds));
            args.push_back(int_var(image + ".extent." + ds));
            args.push_back(int_var(image + ".stride." + ds));
        }
    }
    return Call::make_intrinsic(Handle(), Call::make_buffer, args);
}

} // namespace

Stmt build_extern_produce(const FunctionPtr &f, InlineCalls &inliner) {
    check_no_loop_directives(f);
    const ExternStage &stage = *f->extern_stage;
    const Expr function = StringImm::make(stage.function_name);
    std::vector<Expr> mins, maxs;
    for (const std::string &a : f->args) {
        mins.push_back(int_var(f->name + ".s0." + a + ".min"));
        maxs.push_back(int_var(f->name + ".s0." + a + ".max"));
    }

    // The arguments of the bounds query: every buffer without memory, the outputs over f's
    // region.
    std::vector<Expr> query;
    for (const ExternStage::Arg &a : stage.args) {
        switch (a.kind) {
        case ExternStage::Arg::Scalar:
            query.push_back(inliner.mutate(a.expr));
            break;
        case ExternStage::Arg::Func:
            user_assert(!inliner.inlines(a.func))
                << "Func " << a.func->name << " is read by the extern stage " << f->name
                << " (define_extern of " << stage.function_name
                << "), which takes it as a buffer, so it can't be inlined. Schedule it with "
                   "compute_root() or compute_at() a loop around "
                << f->name << ".";
            for (int k = 0; k < a.func->outputs(); k++)
                query.push_back(query_buffer(a, a.func->output_types[k], ""));
            break;
        case ExternStage::Arg::Buffer:
            query.push_back(query_buffer(a, a.buffer->type(), a.buffer->name));
            break;
        case ExternStage::Arg::Image:
            query.push_back(query_buffer(a, a.param->type, a.param->name));
            break;
        }
    }
    for (Type t : f->output_types) {
        std::vector<Expr> args{StringImm::make(""), make_zero(t), Expr(0), Expr(0)};
        for (size_t d = 0; d < mins.size(); d++) {
            args.push_back(mins[d]);
            args.push_back(simplify(maxs[d] - mins[d] + 1));
            args.push_back(Expr(0));
        }
        query.push_back(Call::make_intrinsic(Handle(), Call::make_buffer, args));
    }

    // The call itself: each input over the region its query gave.
    std::vector<Expr> call{function};
    size_t position = 0;
    for (const ExternStage::Arg &a : stage.args) {
        if (a.kind == ExternStage::Arg::Scalar) {
            call.push_back(query[position++]);
            continue;
        }
        const int elements = a.kind == ExternStage::Arg::Func ? a.func->outputs() : 1;
        for (int k = 0; k < elements; k++, position++) {
            std::vector<Expr> lo, hi;
            for (int d = 0; d < extern_input_dimensions(a); d++) {
                std::vector<Expr> q{function, Expr((int)position), Expr(d), Expr(0)};
                q.insert(q.end(), query.begin(), query.end());
                lo.push_back(Call::make_intrinsic(Int(32), Call::extern_bounds_query, q));
                q[3] = Expr(1);
                hi.push_back(Call::make_intrinsic(Int(32), Call::extern_bounds_query, q));
            }
            call.push_back(
                Call::make_intrinsic(Handle(), Call::extern_input,
                                     {extern_input_call(a, k, lo), extern_input_call(a, k, hi)}));
        }
    }
    for (int k = 0; k < f->outputs(); k++) {
        auto corner = [&](const std::vector<Expr> &at) {
            return Call::make(f->output_types[k], f->name, at, Call::Halide, FunctionRef(f), k);
        };
        call.push_back(
            Call::make_intrinsic(Handle(), Call::extern_output, {corner(mins), corner(maxs)}));
    }
    return Evaluate::make(Call::make_intrinsic(Int(32), Call::extern_stage, call, Call::Intrinsic));
}

} // namespace Internal
} // namespace loom
