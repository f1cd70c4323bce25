#include "lower/BoundsInference.h"

#include <algorithm>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"
#include "dsl/Substitute.h"
#include "lower/Bounds.h"
#include "lower/InjectDeviceCopies.h"
#include "lower/PruneEmptyLoops.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// The pure Vars of update stage k and the argument position each appears at.
std::vector<std::pair<std::string, int>> stage_pure_vars(const FunctionPtr &f, int k) {
    std::vector<std::pair<std::string, int>> vars;
    for (size_t i = 0; i < f->args.size(); i++) {
        std::string var = f->stage_pure_var(k, i);
        if (!var.empty()) vars.push_back({std::move(var), (int)i});
    }
    return vars;
}

std::string stage_var(const FunctionPtr &f, int k, const std::string &var) {
    return f->name + ".s" + std::to_string(k) + "." + var;
}

// What the update stages of f read of f itself, given each stage's pure variables range over
// their (symbolic) bounds. The pure stage computes that and what the consumers read, not what
// the updates only write: an update that writes a point without reading it there replaces the
// pure stage's value, and the points it writes that nobody reads need none (Halide 14 bounds a
// pure stage so; fuzz seed 2026 pair 251 computed a whole column of a Func per point of its
// consumer, for an update that writes two fixed rows: 99x Halide's time). Storage still covers
// every write (visit(const Realize *)); *written gets the box the updates write.
Box update_reads(const FunctionPtr &f, Box *written) {
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
        Box writes(d.args.size());
        for (size_t i = 0; i < d.args.size(); i++) {
            writes[i] = bounds_of_expr_in_scope(d.args[i], scope);
        }
        *written = box_union(*written, writes);
        Stmt reads;
        for (const Expr &v : d.values)
            reads = Block::make(reads, Evaluate::make(v));
        for (const Expr &a : d.args)
            reads = Block::make(reads, Evaluate::make(a));
        if (d.predicate.defined()) reads = Block::make(reads, Evaluate::make(d.predicate));
        auto read_boxes = boxes_required(reads, scope);
        auto it = read_boxes.find(f->name);
        if (it != read_boxes.end()) box = box_union(box, it->second);
    }
    return box;
}

// The loops of a statement, and whether it holds a rounded_up mark.
class LoopsAndRoundedUpMarks : public IRVisitor {
public:
    std::set<std::string> loops;
    bool marked = false;

private:
    using IRVisitor::visit;
    void visit(const For *op) override {
        loops.insert(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Call *op) override {
        marked = marked || op->is_intrinsic(Call::rounded_up);
        IRVisitor::visit(op);
    }
};

// rounded_up(v, last, loop) becomes v promised at most last, where `loop` is one of `loops`.
class KeepNeededPoints : public IRMutator {
public:
    explicit KeepNeededPoints(const std::set<std::string> &loops) : loops(loops) {}

private:
    const std::set<std::string> &loops;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        const StringImm *loop = op->is_intrinsic(Call::rounded_up) ? op->args[2].as<StringImm>()
                                                                    : nullptr;
        if (!loop || !loops.count(loop->value)) return IRMutator::visit(op);
        Expr v = mutate(op->args[0]);
        return Call::make_intrinsic(op->type, Call::promise_clamped, {v, v, op->args[1]});
    }
};

// The consumption `consumer` as far as what it needs of a producer computed around it goes. A
// RoundUp split's last block runs past its stage's region, at points nothing needs
// (ScheduleFunctions marks the split's variable rounded_up). Where the split's outer loop is
// inside `consumer`, so that the producer is computed once for all the blocks, the points past
// the region are left out of what the producer computes, as Halide 14 leaves them: they read
// whatever the producer's storage holds there (storage covers every read, visit(const Realize
// *)), and what they compute is never read. A producer computed per block (inside the outer
// loop) computes the whole block, as Halide's does. Fuzz seed 2026 pair 442: a Func computed at
// the root over 9 slices where 3 are needed, for an update split by 7 over one slice.
Stmt needed_points_only(const Stmt &consumer) {
    LoopsAndRoundedUpMarks found;
    consumer.accept(&found);
    if (!found.marked) return consumer;
    return KeepNeededPoints(found.loops).mutate(consumer);
}

// Whether a stage of some Func splits a loop with RoundUp, the splits whose variables
// ScheduleFunctions marks rounded_up: without one, no statement holds a mark, and neither
// needed_points_only nor the storage's reads need a walk of it.
bool any_round_up_split(const Environment &env) {
    auto rounds_up = [](const StageSchedule &schedule) {
        for (const Split &s : schedule.splits) {
            if (s.kind == Split::SplitVar && s.tail == TailStrategy::RoundUp) return true;
        }
        return false;
    };
    for (const auto &entry : env.functions) {
        const FunctionPtr &f = entry.second;
        for (int k = 0; k < f->stages(); k++) {
            const Definition &def = f->stage(k);
            if (rounds_up(def.schedule)) return true;
            for (const Specialization &spec : def.specializations) {
                if (spec.definition && rounds_up(spec.definition->schedule)) return true;
            }
        }
    }
    return false;
}

// r, the region of f in pure dimension d, widened as f's align_bounds / align_extent ask (as
// Halide 14 widens it: the min down to the remainder, the end up to a multiple of the modulus
// past it).
Interval aligned(const FunctionPtr &f, int d, Interval r) {
    for (const BoundAlignment &a : f->schedule.alignments) {
        if (a.var != f->args[d]) continue;
        if (a.remainder.defined()) {
            Expr mn = ((r.min - a.remainder) / a.modulus) * a.modulus + a.remainder;
            Expr end =
                ((r.max + 1 - a.remainder + a.modulus - 1) / a.modulus) * a.modulus + a.remainder;
            r = Interval(simplify(mn), simplify(end - 1));
        } else {
            Expr extent = ((r.max - r.min + a.modulus) / a.modulus) * a.modulus;
            r = Interval(r.min, simplify(r.min + extent - 1));
        }
    }
    return r;
}

void check_bounded(const Box &box, const std::string &func, const char *what) {
    for (size_t d = 0; d < box.size(); d++) {
        user_assert(box[d].is_bounded())
            << "Can't infer the region of Func " << func << " that " << what << " in dimension "
            << d << ": an index expression has no "
            << (box[d].has_lower_bound() ? "upper" : "lower")
            << " bound. Clamp the index (clamp(e, lo, hi)) or wrap the input with a "
               "BoundaryConditions function.";
    }
}

// A loop let's value is a few nodes: ((x.loop_extent + 16) - 1) / 16.
constexpr size_t kMaxConstantLetNodes = 16;

// A storage's start inlined from its Let expressions: a few nodes (y / 3 - 14).
constexpr size_t kMaxInlinedStartNodes = 16;

// A storage's extent or start with its own region's lets substituted is simplified only below
// this size: beyond it, it does not cancel to a constant, and its Lets, expanded, can grow
// exponentially (camera_pipe auto-scheduled with all its Funcs in the output's strips: 86 s).
constexpr size_t kMaxSubstitutedExtentNodes = 2000;

class BoundsInference : public IRMutator {
public:
    BoundsInference(const Environment &env, const std::vector<FunctionPtr> &outputs)
        : env(env), outputs(outputs), round_up_splits(any_round_up_split(env)) {}
    using IRMutator::mutate;

    // The names of the region lets made so far.
    std::set<std::string> region_lets;

    // Takes the region lets at the top of s out of it, outermost first: those not inside a loop,
    // a production or a branch of s, only behind consumptions, Realizes, asserts and other
    // region lets. They bind no loop variable of s, so they may go just outside it, where a
    // producer's region can name them instead of repeating their values (a let inside the
    // statement walked for a region is expanded into it, and expanding every consumer's region
    // into its producers' grows exponentially with the depth of the pipeline).
    Stmt lift_region_lets(const Stmt &s, std::vector<std::pair<std::string, Expr>> &lets) {
        if (const LetStmt *l = s.as<LetStmt>(); l && region_lets.count(l->name)) {
            lets.push_back({l->name, l->value});
            return lift_region_lets(l->body, lets);
        }
        if (const ProducerConsumer *pc = s.as<ProducerConsumer>(); pc && !pc->is_producer) {
            Stmt body = lift_region_lets(pc->body, lets);
            return body.same_as(pc->body) ? s : ProducerConsumer::make(pc->name, false, body);
        }
        if (const Realize *r = s.as<Realize>()) {
            Stmt body = lift_region_lets(r->body, lets);
            return body.same_as(r->body) ? s : Realize::make(r->name, r->types, r->bounds, body);
        }
        if (const Block *b = s.as<Block>(); b && b->first.as<AssertStmt>()) {
            Stmt rest = lift_region_lets(b->rest, lets);
            return rest.same_as(b->rest) ? s : Block::make(b->first, rest);
        }
        // A production inside an update's where() predicate (lower/ScheduleFunctions): its
        // region's values are pure, and the storage outside the if is sized by them.
        if (const IfThenElse *i = s.as<IfThenElse>(); i && !i->else_case.defined()) {
            Stmt then_case = lift_region_lets(i->then_case, lets);
            return then_case.same_as(i->then_case) ? s : IfThenElse::make(i->condition, then_case);
        }
        return s;
    }

private:
    const Environment &env;
    const std::vector<FunctionPtr> &outputs;
    const bool round_up_splits; // see any_round_up_split

    // The enclosing lets whose values are constants (the loop lets of splits by a constant:
    // a consumer's tile width, its vector's), which a production's region names.
    std::map<std::string, Expr> constant_lets;

    // Takes `name` out of constant_lets for a let's or loop's body (the body's own binding
    // hides the enclosing one), and puts back the enclosing value when destroyed.
    class ConstantLetScope {
    public:
        ConstantLetScope(std::map<std::string, Expr> &constants, const std::string &name)
            : constants(constants), name(name) {
            auto found = constants.find(name);
            if (found == constants.end()) return;
            shadowed = found->second;
            constants.erase(found);
        }
        ~ConstantLetScope() {
            if (shadowed.defined()) {
                constants[name] = shadowed;
            } else {
                constants.erase(name);
            }
        }
        ConstantLetScope(const ConstantLetScope &) = delete;
        ConstantLetScope &operator=(const ConstantLetScope &) = delete;

    private:
        std::map<std::string, Expr> &constants;
        std::string name;
        Expr shadowed;
    };

    Stmt visit(const LetStmt *op) override {
        Expr value;
        if (!expr_larger_than(op->value, kMaxConstantLetNodes)) {
            value = simplify(substitute(constant_lets, op->value));
        }
        ConstantLetScope scope(constant_lets, op->name);
        if (value.defined() && is_const(value)) constant_lets[op->name] = value;
        return IRMutator::visit(op);
    }

    Stmt visit(const For *op) override {
        ConstantLetScope scope(constant_lets, op->name);
        return IRMutator::visit(op);
    }

    static Stmt wrap_lets(Stmt s, const std::vector<std::pair<std::string, Expr>> &lets) {
        for (auto it = lets.rbegin(); it != lets.rend(); ++it)
            s = LetStmt::make(it->first, it->second, s);
        return s;
    }

    // The region lets of f, computed at this level: what `rest` reads of it (and what its
    // updates read of it, for the pure stage), after `lets`; checks of its bound()s to `checks`.
    void add_region_lets(const FunctionPtr &f, const Stmt &rest,
                         std::vector<std::pair<std::string, Expr>> &lets,
                         std::vector<Stmt> &checks) {
        Box consumed = box_required(round_up_splits ? needed_points_only(rest) : rest, f->name,
                                    FixedRegionLets::NamedWhenLarge);
        check_bounded(consumed, f->name, "its consumers read");
        int dims = f->dimensions();
        if (consumed.empty()) {
            // Nobody reads it: compute nothing.
            consumed = Box(dims, Interval(make_zero(Int(32)), make_const(Int(32), -1)));
        }
        // bound(): the region is what the user gave, and consumers must read within it.
        for (const Bound &b : f->schedule.bounds) {
            for (int d = 0; d < dims; d++) {
                if (f->args[d] != b.var) continue;
                Expr lo = b.min.defined() ? b.min : consumed[d].min;
                Expr hi = simplify(lo + b.extent - 1);
                Expr ok = consumed[d].max < consumed[d].min ||
                          (lo <= consumed[d].min && consumed[d].max <= hi);
                checks.push_back(
                    AssertStmt::make(simplify(ok), Call::make(Int(32), "loom_error_bound_too_small",
                                                              {Expr(f->name), Expr(b.var), lo, hi,
                                                               consumed[d].min, consumed[d].max},
                                                              Call::Extern)));
                consumed[d] = Interval(lo, hi);
            }
        }
        Box written;
        Box pure = box_union(consumed, update_reads(f, &written));
        check_bounded(written, f->name, "its update definitions write");
        check_bounded(pure, f->name, "its update definitions read");
        for (const Bound &b : f->schedule.bounds) {
            for (int d = 0; d < dims; d++) {
                if (f->args[d] == b.var) pure[d] = consumed[d];
            }
        }
        // The pure stage's lets refer to the update stages' lets, so those go outside.
        for (int k = 1; k < f->stages(); k++) {
            std::vector<std::pair<std::string, int>> vars = stage_pure_vars(f, k);
            for (auto v = vars.rbegin(); v != vars.rend(); ++v) {
                std::string p = stage_var(f, k, v->first);
                const Interval r = aligned(f, v->second, consumed[v->second]);
                lets.push_back({p + ".min", r.min});
                lets.push_back({p + ".max", r.max});
            }
        }
        for (int d = 0; d < dims; d++) {
            std::string p = stage_var(f, 0, f->args[d]);
            const Interval r = aligned(f, d, pure[d]);
            lets.push_back({p + ".min", r.min});
            lets.push_back({p + ".max", r.max});
        }
    }

    // The production of a Func sits in a Block beside its consumption, at its compute level.
    // Its loop bounds are what the consumption reads there: one iteration of the loop it is
    // computed at, however far outside that its storage is.
    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        const ProducerConsumer *produce = first.as<ProducerConsumer>();
        const ProducerConsumer *consume = rest.as<ProducerConsumer>();
        if (!produce || !consume || !produce->is_producer || consume->is_producer ||
            produce->name != consume->name || !env.functions.count(produce->name)) {
            return Block::make(first, rest);
        }
        const FunctionPtr &f = env.functions.at(produce->name);
        // The consumers' regions at this level go first, and this Func's is written in their
        // names.
        std::vector<std::pair<std::string, Expr>> lets; // outermost first
        rest = lift_region_lets(rest, lets);
        std::vector<Stmt> checks;
        // The production of a compute_with group holds the stages of its other Funcs too.
        std::vector<FunctionPtr> produced{f};
        auto members = env.fused_members.find(f->name);
        if (members != env.fused_members.end()) {
            for (const std::string &m : members->second)
                produced.push_back(env.functions.at(m));
        }
        // (An output's region is its buffer: bounds_inference below.)
        for (const FunctionPtr &g : produced) {
            if (std::find(outputs.begin(), outputs.end(), g) == outputs.end())
                add_region_lets(g, rest, lets, checks);
        }
        for (const auto &l : lets)
            region_lets.insert(l.first);
        // With its region known, the production's empty tails go, before the boxes of the
        // loops around it are taken. Their extents are resolved through this Func's region
        // lets and the enclosing lets of constant value (a consumer's tile width); the
        // consumers' regions, which both ends of this one name, stay names and cancel.
        std::map<std::string, Expr> known = constant_lets;
        for (const auto &l : lets) {
            for (const FunctionPtr &g : produced) {
                if (l.first.compare(0, g->name.size() + 2, g->name + ".s") == 0)
                    known[l.first] = l.second;
            }
        }
        checks.push_back(Block::make(prune_empty_loops(first, known), rest));
        return wrap_lets(Block::make(checks), lets);
    }

    // Storage covers everything the stages write over all iterations of the loops between the
    // storage and the computation (a RoundUp or ShiftInwards split or an update may write more
    // than the consumers read), and everything the consumers read there: a RoundUp split's last
    // block may read past what they need (see needed_points_only); elsewhere they read only
    // what is computed.
    Stmt visit(const Realize *op) override {
        std::vector<std::pair<std::string, Expr>> lets;
        Stmt body = lift_region_lets(mutate(op->body), lets);
        Box written = box_provided(body, op->name, FixedRegionLets::Named);
        if (round_up_splits) {
            LoopsAndRoundedUpMarks found;
            body.accept(&found);
            if (found.marked)
                written = box_union(written, box_required(body, op->name, FixedRegionLets::Named));
        }
        // The Func's own region lets, when they are just outside, are substituted in the
        // extents, so that max - min cancels (a fixed-size block gets a constant extent, which
        // the simplifier can't see through lets whose values aren't linear). Their values name
        // the consumers' lets, so this stays small.
        std::map<std::string, Expr> own;
        for (const auto &l : lets) {
            if (l.first.compare(0, op->name.size() + 2, op->name + ".s") == 0)
                own[l.first] = l.second;
        }
        Region bounds = op->bounds;
        for (int d = 0; d < (int)bounds.size() && d < (int)written.size(); d++) {
            internal_assert(written[d].is_bounded()) << "Unbounded region written to " << op->name;
            Expr extent = simplify(written[d].max - written[d].min + 1);
            if (!is_const(extent) && !own.empty()) {
                // Not where that makes it large: the values may hold Lets naming large
                // regions (FixedRegionLets), which expand exponentially as trees.
                Expr substituted = substitute(own, extent);
                if (!expr_larger_than(substituted, kMaxSubstitutedExtentNodes))
                    extent = simplify(substituted);
            }
            // The start, written with Let expressions (boxes that name fixed regions), is
            // inlined where that leaves it small: the Lets hide equalities from the
            // simplifier (min(n + min(y / 3 - n - 14, 0), n) with n = y / 3 + 1 is y / 3 - 14,
            // a ShiftInwards block's first row), and where LLVM cannot see that the start is
            // the block's first row, the block's rows are not at constant offsets and it stays
            // in memory, computed whole per point (fuzz seed 2026 pair 407).
            Expr mn = written[d].min;
            if (!is_const(mn)) {
                Expr inlined = substitute_lets(mn);
                if (!expr_larger_than(inlined, kMaxSubstitutedExtentNodes)) {
                    inlined = simplify(inlined);
                    if (!expr_larger_than(inlined, kMaxInlinedStartNodes)) mn = inlined;
                }
            }
            bounds[d] = Range(mn, extent);
        }
        return wrap_lets(Realize::make(op->name, op->types, bounds, body), lets);
    }
};

} // namespace

Stmt bounds_inference(const Stmt &s, const std::vector<FunctionPtr> &outputs,
                      const Environment &env) {
    BoundsInference inference(env, outputs);
    // The regions of the Funcs computed at the root, which the checks below may name.
    std::vector<std::pair<std::string, Expr>> root_lets;
    Stmt result = inference.lift_region_lets(inference.mutate(s), root_lets);
    // A split that rounds up or shifts inwards, or an update, may write outside the output
    // buffer, and an update may read its own output outside it; check what each output's
    // stages touch against its buffer before running them.
    // A bounds query (an output without memory, see loom_buffer_bounds_query) gets the same
    // regions written into its buffers instead.
    std::vector<Stmt> checks, queries;
    for (const FunctionPtr &f : outputs) {
        Box box = box_union(box_provided(result, f->name, FixedRegionLets::Named),
                            box_required(result, f->name, FixedRegionLets::Named));
        check_bounded(box, f->name, "its definitions write or read");
        for (int d = 0; d < (int)box.size(); d++) {
            std::string ds = std::to_string(d);
            for (int i = 0; i < f->outputs(); i++) {
                std::string buffer = f->buffer_name(i);
                queries.push_back(
                    bounds_query_answer(buffer, d, simplify(box[d].min), simplify(box[d].max)));
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
                Expr lo = b.min.defined() ? b.min : mn, hi = simplify(lo + b.extent - 1);
                checks.push_back(AssertStmt::make(
                    simplify(mn == lo && mx == hi),
                    Call::make(Int(32), "loom_error_bound_too_small",
                               {Expr(f->name), Expr(b.var), lo, hi, mn, mx}, Call::Extern)));
            }
        }
    }
    checks.push_back(result);
    result = Block::make(checks);
    if (!outputs.empty()) {
        if (queries.empty()) queries.push_back(Evaluate::make(0)); // zero-dimensional outputs
        Expr is_query = buffer_is_bounds_query(outputs[0]->buffer_name(0));
        result = IfThenElse::make(is_query != 0, Block::make(queries), result);
    }
    // Inside the outputs' lets, which the root Funcs' regions refer to.
    for (auto it = root_lets.rbegin(); it != root_lets.rend(); ++it) {
        result = LetStmt::make(it->first, it->second, result);
    }
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
                // A constraint on the output buffer (output_buffer().dim(d).set_bounds, checked
                // at entry) or bound() on the output: the region is theirs, so a constant
                // extent can be unrolled or vectorized.
                if (v.second < (int)f->output_constraints.size()) {
                    const DimConstraint &c = f->output_constraints[v.second];
                    if (c.min.defined()) mn = c.min;
                    if (c.extent.defined()) extent = c.extent;
                }
                for (const Bound &b : f->schedule.bounds) {
                    if (b.var == f->args[v.second]) {
                        if (b.min.defined()) mn = b.min;
                        extent = b.extent;
                    }
                }
                // An output's alignment widens it past its buffer, which the checks above then
                // refuse unless the buffer covers it.
                const Interval r = aligned(f, v.second, Interval(mn, mn + extent - 1));
                result = LetStmt::make(p + ".max", r.max, result);
                result = LetStmt::make(p + ".min", r.min, result);
            }
        }
    }
    return result;
}

} // namespace Internal
} // namespace loom
