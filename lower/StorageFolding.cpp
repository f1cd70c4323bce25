#include "lower/StorageFolding.h"

#include <optional>
#include <set>

#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/Bounds.h"
#include "lower/Monotonic.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

// Whether s writes or reads Func `name`, and whether it does so inside a GPU loop.
class FindAccesses : public IRVisitor {
public:
    explicit FindAccesses(const std::string &name) : name(name) {}
    bool found = false, on_gpu = false;

private:
    const std::string &name;
    int gpu_depth = 0;

    void note() {
        found = true;
        on_gpu = on_gpu || gpu_depth > 0;
    }
    void visit(const Provide *op) override {
        if (op->name == name) note();
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        if (op->call_type == Call::Halide && op->name == name) note();
        IRVisitor::visit(op);
    }
    void visit(const For *op) override {
        const bool gpu = op->device_api != DeviceAPI::Host || op->for_type == ForType::GPUBlock ||
                         op->for_type == ForType::GPUThread;
        gpu_depth += gpu;
        IRVisitor::visit(op);
        gpu_depth -= gpu;
    }
};

bool accesses(const Stmt &s, const std::string &name) {
    FindAccesses f(name);
    s.accept(&f);
    return f.found;
}

// The outermost loop of `body` (a Realize's) around every access of `name`, if it is
// serial: the lets, markers and blocks above it hold none.
const For *loop_around_every_access(Stmt body, const std::string &name) {
    while (body.defined()) {
        if (const LetStmt *l = body.as<LetStmt>()) {
            body = l->body;
        } else if (const ProducerConsumer *pc = body.as<ProducerConsumer>()) {
            body = pc->body;
        } else if (const Realize *r = body.as<Realize>()) {
            // Another Func stored at the same level (its realization nested in this one's).
            body = r->body;
        } else if (const Block *b = body.as<Block>()) {
            const bool in_first = accesses(b->first, name), in_rest = accesses(b->rest, name);
            if (in_first && in_rest) return nullptr;
            body = in_first ? b->first : b->rest;
        } else if (const For *f = body.as<For>()) {
            return f->for_type == ForType::Serial && f->device_api == DeviceAPI::Host ? f : nullptr;
        } else {
            return nullptr;
        }
    }
    return nullptr;
}

// The coordinates past the end of an iteration's region along dimension d that a RoundUp split
// of a stage's loop over d may write once sliding window (which runs after) starts its blocks
// at the slid min: the largest such factor less one, 0 without one. A fold leaves room for
// them, so that they land in no slot a row of the window holds.
int64_t rows_past_a_slid_region(const FunctionContents &f, size_t d) {
    int64_t rows = 0;
    auto add_splits = [&](const StageSchedule &schedule, const std::string &var) {
        for (const Split &split : schedule.splits) {
            const int64_t *factor = as_const_int(split.factor);
            if (split.kind == Split::SplitVar && split.tail == TailStrategy::RoundUp &&
                split.old_var == var && factor)
                rows = std::max(rows, *factor - 1);
        }
    };
    for (int k = 0; k < f.stages(); k++) {
        const Definition &def = f.stage(k);
        const std::string var = f.stage_pure_var(k, d);
        if (var.empty()) continue;
        add_splits(def.schedule, var);
        for (const Specialization &spec : def.specializations) {
            if (spec.definition) add_splits(spec.definition->schedule, var);
        }
    }
    return rows;
}

// Every coordinate `dim` of `func` written or read, taken modulo `factor`.
class FoldAccesses : public IRMutator {
public:
    FoldAccesses(const std::string &func, const std::map<size_t, int64_t> &factors)
        : func(func), factors(factors) {}

private:
    const std::string &func;
    const std::map<size_t, int64_t> &factors;

    std::vector<Expr> folded(std::vector<Expr> args) {
        for (const auto &[d, k] : factors)
            args[d] = args[d] % make_const(args[d].type(), k);
        return args;
    }
    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        const Provide *p = s.as<Provide>();
        if (op->name != func) return s;
        return Provide::make(p->name, p->values, folded(p->args));
    }
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (op->call_type != Call::Halide || op->name != func) return e;
        return Call::with_args(c, folded(c->args));
    }
};

int64_t next_power_of_two(int64_t v) {
    int64_t p = 1;
    while (p < v)
        p *= 2;
    return p;
}

class StorageFolding : public IRMutator {
public:
    explicit StorageFolding(const Environment &env) : env(env) {
        for (const auto &[name, f] : env.functions) {
            if (!f->is_extern()) continue;
            passed_whole.insert(name);
            for (const ExternStage::Arg &a : f->extern_stage->args) {
                if (a.kind == ExternStage::Arg::Func) passed_whole.insert(a.func->name);
            }
        }
    }

private:
    const Environment &env;
    // The extern stages and the Funcs given to them: their storage is handed to a C function
    // as a plain buffer, which can't describe a fold.
    std::set<std::string> passed_whole;

    Stmt visit(const Realize *op) override {
        Stmt body = mutate(op->body);
        auto it = env.functions.find(op->name);
        std::map<size_t, int64_t> factors;
        if (it != env.functions.end()) factors = fold_factors(*it->second, op->bounds, body);
        Region bounds = op->bounds;
        if (!factors.empty()) {
            for (const auto &[d, k] : factors)
                bounds[d] = Range(make_zero(Int(32)), make_const(Int(32), k));
            body = FoldAccesses(op->name, factors).mutate(body);
        }
        if (body.same_as(op->body) && factors.empty()) return op;
        return Realize::make(op->name, op->types, bounds, body);
    }

    std::map<size_t, int64_t> fold_factors(const FunctionContents &f, const Region &bounds,
                                           const Stmt &body) {
        std::map<size_t, int64_t> factors;
        // An async Func's producer runs ahead of its consumer (lower/AsyncProducers.h): a fold
        // would let it overwrite rows not yet read. A Func written to a file by debug_to_file
        // keeps its whole region for the dump at its end.
        if (!f.schedule.folds.empty() || f.args.empty() || passed_whole.count(f.name) ||
            f.schedule.async || !f.schedule.debug_file.empty())
            return factors;
        FindAccesses where(f.name);
        body.accept(&where);
        if (!where.found || where.on_gpu) return factors;
        const For *loop = loop_around_every_access(body, f.name);
        if (!loop) return factors;
        // The coordinates one iteration touches, as expressions of the loop's variable.
        Box touched = box_union(box_provided(loop->body, f.name, FixedRegionLets::NamedWhenLarge),
                                box_required(loop->body, f.name, FixedRegionLets::NamedWhenLarge));
        if (touched.size() != f.args.size()) return factors;
        Scope<Interval> iterations;
        iterations.push(loop->name, Interval(loop->min, simplify(loop->min + loop->extent - 1)));
        size_t innermost = 0;
        if (!f.schedule.storage_order.empty()) {
            for (size_t d = 0; d < f.args.size(); d++) {
                if (f.args[d] == f.schedule.storage_order[0]) innermost = d;
            }
        }
        for (size_t d = 0; d < f.args.size(); d++) {
            if (!touched[d].is_bounded()) continue;
            // The innermost dimension folds only to one coordinate: a wider fold would wrap a
            // vector's lanes. A column computed per iteration of its consumer's row loop is
            // then stored as one column (fuzz seed 2026 pair 407: 16 rows of a Func at one x
            // each, stored a row apart, 6x Halide's time). Decided first, without bounds over
            // the loop: a row's bounds along x are large expressions (the tails of a strip's
            // vectors), which those took minutes to reduce (camera_pipe's automatic schedule,
            // two dozen Funcs stored per strip).
            if (d == innermost && !deep_equal(touched[d].min, touched[d].max) &&
                const_int_value(simplify(touched[d].max - touched[d].min)) != 0) {
                continue;
            }
            Monotonic lo = is_monotonic(touched[d].min, loop->name);
            Monotonic hi = is_monotonic(touched[d].max, loop->name);
            const bool forward = (lo == Monotonic::Increasing || lo == Monotonic::Constant) &&
                                 (hi == Monotonic::Increasing || hi == Monotonic::Constant);
            const bool backward = (lo == Monotonic::Decreasing || lo == Monotonic::Constant) &&
                                  (hi == Monotonic::Decreasing || hi == Monotonic::Constant);
            if (!forward && !backward) continue;
            Expr extent = simplify(touched[d].max - touched[d].min + 1);
            std::optional<int64_t> k = const_int_value(extent);
            if (!k) k = const_int_value(bounds_of_expr_in_scope(extent, iterations).max);
            if (!k || *k <= 0) continue;
            const int64_t factor = next_power_of_two(*k + rows_past_a_slid_region(f, d));
            // Nothing to gain where the whole realization is no larger. (Its extent is
            // written with the region lets of its consumers as Let expressions: a block of
            // 16 rows was folded by 16 and indexed modulo 16 where it was not seen to be 16.)
            std::optional<int64_t> whole =
                const_int_value(simplify(substitute_lets(bounds[d].extent)));
            if (whole && *whole <= factor) continue;
            factors[d] = factor;
        }
        return factors;
    }
};

} // namespace

Stmt storage_folding(const Stmt &s, const Environment &env) {
    return StorageFolding(env).mutate(s);
}

} // namespace Internal
} // namespace loom
