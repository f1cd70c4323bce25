#include "lower/autoschedule/CostModel.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

#include "dsl/Buffer.h"
#include "dsl/IR.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/PromoteAccumulators.h"
#include "lower/Simplify.h"
#include "lower/autoschedule/PipelineGraph.h"

namespace loom {
namespace Internal {
namespace autoschedule {
namespace {

/** A loop iteration's branch and increment. */
constexpr double kLoopIterationCycles = 1;
/** malloc and free of a buffer a loop allocates each iteration (larger than the accumulators
 * kept on the stack). */
constexpr double kHeapAllocationCycles = 200;
/** The least a load or store of one register costs: two a cycle, as the ports of current x86
 * cores take them from L1. */
constexpr double kAccessCycles = 0.5;
/** Vector registers a register tile's step needs besides its accumulators: the vectors it
 * loads and the value it broadcasts. */
constexpr double kRegistersForOperands = 4;
/** Handing one parallel iteration to a thread of the pool, and starting and joining the loop. */
constexpr double kParallelTaskCycles = 500, kParallelLoopCycles = 5000;
/** A division by a value that is not a constant, and a math library call (exp, log, ...),
 * against one vector operation. */
constexpr double kDivisionFactor = 20, kMathCallFactor = 20;

/** The operations and memory traffic of one evaluation of an expression: arithmetic in vector
 * operations (a vector of floats wider than the machine's registers takes several), loads in
 * cycles by their buffer's size. Index arithmetic is free (it folds into addressing or strength
 * reduction) except divisions; scalar integer arithmetic costs half (most of it is loop
 * invariant, hoisted). */
class ExprCost : public IRVisitor {
public:
    /** `cost_per_byte(buffer, index, bytes)`: what a byte costs of an access of `bytes` at
     * `index` of the buffer. `loaded_before(buffer, index)`:
     * whether the iteration has loaded that element already (and notes that it has). */
    ExprCost(const MachineModel &machine,
             const std::function<double(const std::string &, const Expr &, double)> &cost_per_byte,
             const std::function<bool(const std::string &, const Expr &)> &loaded_before)
        : machine(machine), cost_per_byte(cost_per_byte), loaded_before(loaded_before) {}

    double arithmetic = 0, memory = 0;

    void count(const Expr &e) {
        if (e.defined()) e.accept(this);
    }
    /** A load or store's index: its divisions and loads count, nothing else. */
    void count_index(const Expr &e) {
        const bool was = in_index;
        in_index = true;
        count(e);
        in_index = was;
    }
    /** A let statement's value: as an expression's, but scalar integer arithmetic is free
     * (lowering's lets are loop bounds and row offsets, invariant in the loop inside them or
     * strength-reduced). */
    void count_let_value(const Expr &e) {
        const bool was = scalar_ints_free;
        scalar_ints_free = true;
        count(e);
        scalar_ints_free = was;
    }
    /** A load or store of `t` at `index` in `buffer`. */
    void count_access(const std::string &buffer, Type t, const Expr &index) {
        const int lanes = t.lanes();
        const double bytes = (double)lanes * std::max(1, t.bytes());
        const Ramp *ramp = index.as<Ramp>();
        const bool dense = lanes == 1 || (ramp && is_const(ramp->stride, 1));
        const bool broadcast = index.as<Broadcast>() != nullptr;
        const double moved = broadcast ? std::max(1, t.bytes()) : bytes;
        const double per_byte = cost_per_byte(buffer, index, moved);
        // A load or store is an operation of the core's load and store ports whatever its
        // bytes (a broadcast costs a vector's slot): at least kAccessCycles a register's width.
        const double operations = std::ceil(moved / machine.vector_bytes);
        memory += per_byte > 0 ? std::max(moved * per_byte, operations * kAccessCycles) : 0;
        // A gather or scatter moves its lanes one at a time.
        if (!dense && !broadcast) arithmetic += lanes * 0.5;
        count_index(index);
    }

private:
    const MachineModel &machine;
    const std::function<double(const std::string &, const Expr &, double)> &cost_per_byte;
    const std::function<bool(const std::string &, const Expr &)> &loaded_before;
    bool in_index = false, scalar_ints_free = false;

    double vector_ops(Type t) const {
        const double bytes = (double)t.lanes() * std::max(1, t.bytes());
        if (t.lanes() == 1 && !t.is_float()) return scalar_ints_free ? 0 : 0.5;
        return std::max(1.0, std::ceil(bytes / machine.vector_bytes));
    }
    void op(Type t, double factor = 1) {
        if (!in_index) arithmetic += vector_ops(t) * factor;
    }

    using IRVisitor::visit;
#define LOOM_COST_OP(T)                                                                            \
    void visit(const T *o) override {                                                              \
        op(o->type);                                                                               \
        IRVisitor::visit(o);                                                                       \
    }
    LOOM_COST_OP(Cast)
    LOOM_COST_OP(Add)
    LOOM_COST_OP(Sub)
    LOOM_COST_OP(Mul)
    LOOM_COST_OP(Min)
    LOOM_COST_OP(Max)
    LOOM_COST_OP(EQ)
    LOOM_COST_OP(NE)
    LOOM_COST_OP(LT)
    LOOM_COST_OP(LE)
    LOOM_COST_OP(GT)
    LOOM_COST_OP(GE)
    LOOM_COST_OP(And)
    LOOM_COST_OP(Or)
    LOOM_COST_OP(Not)
    LOOM_COST_OP(Select)
#undef LOOM_COST_OP

    void divide(Type t, const Expr &divisor) {
        const bool by_constant =
            as_const_int(divisor) || divisor.as<Broadcast>() || divisor.as<FloatImm>();
        const double factor = by_constant ? 2 : kDivisionFactor;
        if (in_index) {
            arithmetic += by_constant ? 0 : vector_ops(t) * factor;
        } else {
            op(t, factor);
        }
    }
    void visit(const Div *o) override {
        divide(o->type, o->b);
        IRVisitor::visit(o);
    }
    void visit(const Mod *o) override {
        divide(o->type, o->b);
        IRVisitor::visit(o);
    }
    void visit(const Load *o) override {
        // A register tile's rows each read the same vector of B, written once per row in the
        // unrolled body: LLVM loads it once.
        if (loaded_before(o->name, o->index)) return;
        count_access(o->name, o->type, o->index);
    }
    /** Math functions that are one instruction (or a few: sqrt's latency) on x86. */
    static bool is_instruction(const std::string &name) {
        for (const char *f : {"fma", "sqrt", "floor", "ceil", "round", "trunc"}) {
            const std::string n(f);
            if (name == n + "_f32" || name == n + "_f64") return true;
        }
        return false;
    }
    void visit(const Call *o) override {
        if (o->call_type == Call::Extern || o->call_type == Call::PureExtern) {
            op(o->type, is_instruction(o->name) ? 1 : kMathCallFactor);
        } else if (o->op != Call::likely && o->op != Call::promise_clamped &&
                   o->op != Call::rounded_up && o->op != Call::buffer_host) {
            op(o->type);
        }
        IRVisitor::visit(o);
    }
};

bool has_variables(const Expr &e) {
    class Finder : public IRVisitor {
    public:
        bool found = false;
        using IRVisitor::visit;
        void visit(const Variable *) override { found = true; }
    } finder;
    e.accept(&finder);
    return finder.found;
}

/** The cost of executing a statement once: its parts summed over every core, and its time. */
struct Cost {
    double arithmetic = 0, memory = 0, overhead = 0;
    double time = 0; // cycles, the parallel loops' iterations shared by the cores

    Cost &operator+=(const Cost &o) {
        arithmetic += o.arithmetic;
        memory += o.memory;
        overhead += o.overhead;
        time += o.time;
        return *this;
    }
    Cost times(double n) const { return Cost{arithmetic * n, memory * n, overhead * n, time * n}; }
    static Cost of_overhead(double cycles) { return Cost{0, 0, cycles, cycles}; }
};

class StmtCost {
public:
    StmtCost(const MachineModel &machine, const RunSizes &sizes)
        : machine(machine), sizes(sizes), known(sizes.values) {}

    int unknown_extents = 0;

    Cost cost(const Stmt &s) {
        Cost c;
        if (!s.defined()) return c;
        if (const Block *b = s.as<Block>()) {
            c = cost(b->first);
            c += cost(b->rest);
        } else if (const ProducerConsumer *pc = s.as<ProducerConsumer>()) {
            c = cost(pc->body);
        } else if (const LetStmt *l = s.as<LetStmt>()) {
            ExprCost value = expr_counter();
            value.count_let_value(l->value);
            c = of(value);
            const std::optional<Expr> saved = bind(l->name, evaluate(l->value));
            std::optional<std::set<std::string>> saved_loops;
            if (auto it = let_loops.find(l->name); it != let_loops.end()) saved_loops = it->second;
            let_loops[l->name] = loops_used_by(l->value);
            c += cost(l->body);
            if (saved_loops) {
                let_loops[l->name] = *saved_loops;
            } else {
                let_loops.erase(l->name);
            }
            restore(l->name, saved);
        } else if (const For *f = s.as<For>()) {
            c = loop_cost(f);
        } else if (const Store *st = s.as<Store>()) {
            ExprCost e = expr_counter();
            e.count(st->value);
            e.count_access(st->name, st->value.type(), st->index);
            c = of(e);
        } else if (const Allocate *a = s.as<Allocate>()) {
            c = allocation_cost(a);
        } else if (const IfThenElse *i = s.as<IfThenElse>()) {
            c = expr_cost(i->condition);
            const Expr condition = evaluate(i->condition);
            if (is_const(condition)) {
                c += cost(is_const(condition, 0) ? i->else_case : i->then_case);
            } else {
                // Unknown until run: the costlier branch (the work, not a bounds query's
                // answer; a guard's body, not its empty else).
                const Cost then_cost = cost(i->then_case), else_cost = cost(i->else_case);
                c += then_cost.time >= else_cost.time ? then_cost : else_cost;
            }
        } else if (const Evaluate *e = s.as<Evaluate>()) {
            c = expr_cost(e->value);
        }
        // Assertions, Frees: nothing per point.
        return c;
    }

private:
    const MachineModel &machine;
    const RunSizes &sizes;
    /** Constant values of the free variables, of the enclosing loops (their middle iteration)
     * and of the lets that evaluate to constants. */
    std::map<std::string, Expr> known;
    /** What a byte of each allocation in scope costs (by its size; accumulators in registers
     * nothing, or their spilled share). */
    std::map<std::string, double> allocation_cost_per_byte;
    /** The sizes of the allocations in scope that are not registers. */
    std::map<std::string, double> allocation_bytes;
    std::function<double(const std::string &, const Expr &, double)> per_byte =
        [this](const std::string &buffer, const Expr &index, double bytes) {
            return cost_per_byte(buffer, index, bytes);
        };
    /** The enclosing loops, outermost first, with their extents. */
    std::vector<std::pair<std::string, double>> loops;
    /** For each let and loop variable in scope, the enclosing loops its value changes with (a
     * loop's own, and those its bounds change with: a strip's rows start where the strip
     * does). */
    std::map<std::string, std::set<std::string>> let_loops;
    /** The elements loaded in one iteration of the innermost loop being costed (its body is
     * costed once), by buffer and index evaluated there; an index that does not evaluate to
     * constants is not remembered. */
    std::set<std::pair<std::string, std::string>> loaded;
    std::function<bool(const std::string &, const Expr &)> dedupe =
        [this](const std::string &buffer, const Expr &index) {
            const Expr at = evaluate(index);
            if (has_variables(at)) return false;
            std::ostringstream key;
            key << at;
            return !loaded.insert({buffer, key.str()}).second;
        };
    int loop_depth = 0;
    bool in_parallel = false;

    /** The enclosing loops whose iterations `e` changes with (through lets too). */
    std::set<std::string> loops_used_by(const Expr &e) const {
        class Names : public IRVisitor {
        public:
            std::set<std::string> names;
            using IRVisitor::visit;
            void visit(const Variable *v) override { names.insert(v->name); }
        } finder;
        e.accept(&finder);
        std::set<std::string> used;
        for (const std::string &n : finder.names) {
            if (auto it = let_loops.find(n); it != let_loops.end()) {
                used.insert(it->second.begin(), it->second.end());
            } else {
                used.insert(n);
            }
        }
        return used;
    }

    /** What a byte costs of an access of `bytes` at `index` of `buffer`, by where the data
     * comes from: walking out from the innermost loop, the data one iteration touches grows
     * with each loop the index moves with; a loop it does not move with runs its iterations
     * over the same data again (a register tile's rows over a block of B), and all but the
     * first find it in the cache level it fits. The first touch costs the level of the
     * buffer's whole size. A register accumulator costs nothing (or its spilled share). */
    double cost_per_byte(const std::string &buffer, const Expr &index, double bytes) const {
        double whole = (double)machine.llc_bytes;
        if (auto it = allocation_cost_per_byte.find(buffer); it != allocation_cost_per_byte.end())
            return it->second;
        if (auto it = allocation_bytes.find(buffer); it != allocation_bytes.end()) {
            whole = it->second;
        } else if (auto it = sizes.buffer_bytes.find(buffer); it != sizes.buffer_bytes.end()) {
            whole = it->second;
        }
        const std::set<std::string> used = loops_used_by(index);
        // Per loop from the innermost: the share of accesses that reuse data at this loop and
        // what they cost; the rest go on outward.
        double cost = 0, share = 1, footprint = bytes;
        for (auto it = loops.rbegin(); it != loops.rend() && share > 0; ++it) {
            const double extent = std::max(1.0, it->second);
            if (used.count(it->first)) {
                footprint = std::min(whole, footprint * extent);
            } else if (extent > 1) {
                const double reused = share * (1 - 1 / extent);
                cost += reused * machine.byte_cost(std::min(whole, footprint));
                share -= reused;
            }
        }
        return cost + share * machine.byte_cost(whole);
    }

    /** Binds `name` to `value` where it is a constant (else forgets it); returns what it was. */
    std::optional<Expr> bind(const std::string &name, const Expr &value) {
        std::optional<Expr> saved;
        if (auto it = known.find(name); it != known.end()) saved = it->second;
        if (value.defined() && is_const(value)) {
            known[name] = value;
        } else {
            known.erase(name);
        }
        return saved;
    }
    void restore(const std::string &name, const std::optional<Expr> &saved) {
        if (saved) {
            known[name] = *saved;
        } else {
            known.erase(name);
        }
    }

    Expr evaluate(const Expr &e) const { return simplify(substitute(known, e)); }

    ExprCost expr_counter() const { return ExprCost(machine, per_byte, dedupe); }

    static Cost of(const ExprCost &e) {
        return Cost{e.arithmetic, e.memory, 0, e.arithmetic + e.memory};
    }

    Cost expr_cost(const Expr &e) {
        ExprCost c = expr_counter();
        c.count(e);
        return of(c);
    }

    Cost allocation_cost(const Allocate *a) {
        double points = 1;
        for (const Expr &e : a->extents) {
            const Expr value = evaluate(e);
            const int64_t *n = as_const_int(value);
            points *= n ? (double)std::max<int64_t>(*n, 0) : (double)machine.llc_bytes;
        }
        const double bytes = points * std::max(1, a->type.bytes());
        // The accumulators PromoteAccumulators makes live in registers, where they fit beside
        // the vectors each step loads; those that don't are spilled to L1 and back.
        const bool registers =
            a->name.find(".accumulators.") != std::string::npos && bytes <= kMaxAccumulatorBytes;
        std::optional<double> saved;
        if (auto it = allocation_cost_per_byte.find(a->name); it != allocation_cost_per_byte.end())
            saved = it->second;
        if (registers) {
            const double vectors = std::ceil(bytes / machine.vector_bytes);
            const double room = machine.vector_registers() - kRegistersForOperands;
            const double spilled = std::max(0.0, vectors - room) / vectors;
            allocation_cost_per_byte[a->name] = spilled * 2 * machine.byte_cost(0);
        }
        std::optional<double> saved_bytes;
        if (auto it = allocation_bytes.find(a->name); it != allocation_bytes.end())
            saved_bytes = it->second;
        if (!registers) {
            allocation_cost_per_byte.erase(a->name);
            allocation_bytes[a->name] = bytes;
        }
        Cost c;
        if (loop_depth > 0 && !registers && bytes > kMaxAccumulatorBytes)
            c = Cost::of_overhead(kHeapAllocationCycles);
        c += cost(a->body);
        if (saved) {
            allocation_cost_per_byte[a->name] = *saved;
        } else {
            allocation_cost_per_byte.erase(a->name);
        }
        if (saved_bytes) {
            allocation_bytes[a->name] = *saved_bytes;
        } else {
            allocation_bytes.erase(a->name);
        }
        return c;
    }

    Cost loop_cost(const For *f) {
        const Expr min_value = evaluate(f->min), extent_value = evaluate(f->extent);
        const int64_t *min = as_const_int(min_value);
        const int64_t *extent_c = as_const_int(extent_value);
        if (!extent_c) unknown_extents++;
        const double extent = extent_c ? (double)std::max<int64_t>(*extent_c, 0) : 1;
        if (extent == 0) return Cost();
        const std::optional<Expr> saved =
            bind(f->name,
                 min && extent_c ? make_const(f->min.type(), *min + (*extent_c - 1) / 2) : Expr());
        const bool parallel = f->for_type == ForType::Parallel && !in_parallel && extent > 1;
        loop_depth++;
        const bool was_parallel = in_parallel;
        in_parallel = in_parallel || parallel;
        std::set<std::pair<std::string, std::string>> outer_loaded;
        outer_loaded.swap(loaded);
        loops.emplace_back(f->name, extent);
        std::set<std::string> moves_with = loops_used_by(f->min);
        const std::set<std::string> with_extent = loops_used_by(f->extent);
        moves_with.insert(with_extent.begin(), with_extent.end());
        moves_with.insert(f->name);
        std::optional<std::set<std::string>> saved_loops;
        if (auto it = let_loops.find(f->name); it != let_loops.end()) saved_loops = it->second;
        let_loops[f->name] = moves_with;
        Cost body = cost(f->body);
        if (saved_loops) {
            let_loops[f->name] = *saved_loops;
        } else {
            let_loops.erase(f->name);
        }
        loops.pop_back();
        loaded.swap(outer_loaded);
        in_parallel = was_parallel;
        loop_depth--;
        restore(f->name, saved);

        const bool counted_loop =
            f->for_type != ForType::Unrolled && f->for_type != ForType::Vectorized;
        if (counted_loop) body += Cost::of_overhead(kLoopIterationCycles);
        Cost total = body.times(extent);
        if (!parallel) return total;
        // The iterations go to the cores in turn: the loop takes as long as the most any core
        // runs, plus handing each out.
        const double cores = std::max(1, machine.cores);
        const double handing = kParallelLoopCycles + kParallelTaskCycles * extent / cores;
        total.time = std::ceil(extent / cores) * body.time;
        total += Cost::of_overhead(handing);
        return total;
    }
};

} // namespace

RunSizes run_sizes(const std::vector<LoweredArgument> &args, const PipelineGraph &graph) {
    RunSizes sizes;
    auto constant = [&](const std::string &name, Type t, int64_t fallback) -> int64_t {
        const Expr v = simplify(graph.with_estimates(Variable::make(t, name)));
        const int64_t *c = as_const_int(v);
        return c ? *c : fallback;
    };
    for (const LoweredArgument &a : args) {
        if (a.kind == Argument::InputScalar) {
            const Expr v = simplify(graph.with_estimates(Variable::make(a.type, a.name)));
            if (is_const(v)) sizes.values[a.name] = v;
            continue;
        }
        int64_t stride = 1;
        for (int d = 0; d < a.dimensions; d++) {
            const std::string field = a.name + ".", ds = "." + std::to_string(d);
            int64_t min = 0, extent = default_extent;
            if (a.output) {
                const Span &s = graph.node(a.output->name).region.at(d);
                min = s.min;
                extent = s.extent();
            } else if (a.buffer && d < (int)a.buffer->dims.size()) {
                min = a.buffer->dims[d].min;
                extent = a.buffer->dims[d].extent;
            } else if (a.param && d < (int)a.param->buffer_estimates.size() &&
                       a.param->buffer_estimates[d].extent.defined()) {
                // An ImageParam's estimates (the algorithm may not read its shape at all).
                const Expr m = simplify(graph.with_estimates(a.param->buffer_estimates[d].min));
                const Expr e = simplify(graph.with_estimates(a.param->buffer_estimates[d].extent));
                if (const int64_t *c = as_const_int(m)) min = *c;
                if (const int64_t *c = as_const_int(e)) extent = *c;
            } else if (a.param && a.param->buffer && d < (int)a.param->buffer->dims.size()) {
                min = a.param->buffer->dims[d].min;
                extent = a.param->buffer->dims[d].extent;
            } else {
                min = constant(field + "min" + ds, Int(32), min);
                extent = constant(field + "extent" + ds, Int(32), extent);
            }
            sizes.values[field + "min" + ds] = make_const(Int(32), min);
            sizes.values[field + "extent" + ds] = make_const(Int(32), extent);
            sizes.values[field + "max" + ds] = make_const(Int(32), min + extent - 1);
            sizes.values[field + "stride" + ds] = make_const(Int(32), stride);
            stride *= std::max<int64_t>(extent, 1);
        }
        sizes.buffer_bytes[a.name] = (double)stride * std::max(1, a.type.bytes());
    }
    return sizes;
}

CostEstimate estimate_cost(const Stmt &lowered, const MachineModel &machine,
                           const RunSizes &sizes) {
    StmtCost counter(machine, sizes);
    const Cost c = counter.cost(lowered);
    CostEstimate e;
    e.arithmetic = c.arithmetic;
    e.memory = c.memory;
    e.overhead = c.overhead;
    e.cycles = c.time;
    e.unknown_extents = counter.unknown_extents;
    return e;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
