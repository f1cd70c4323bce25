// The boxes a statement reads or writes of each Func or buffer (lower/Bounds.h): interval
// arithmetic (Bounds.cpp) over every call and Provide, with the scope of the loops, lets and
// guards around it.
#include "lower/Bounds.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_set>

#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// Marks the loops, lets and ifs that call or provide the Func or buffer `name` somewhere inside
// them (their own expressions included), in one walk.
class MarkTouching : public IRVisitor {
public:
    explicit MarkTouching(const std::set<std::string> &names) : names(names) {}
    std::unordered_set<const IRNode *> marked;

private:
    const std::set<std::string> &names;
    bool found = false; // in the node being walked, so far
    template <typename Node> void mark(const Node *op) {
        bool outer = found;
        found = false;
        IRVisitor::visit(op);
        if (found) marked.insert(op);
        found = found || outer;
    }
    void visit(const For *op) override { mark(op); }
    void visit(const LetStmt *op) override { mark(op); }
    void visit(const IfThenElse *op) override { mark(op); }
    void visit(const Call *op) override {
        found = found || names.count(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Provide *op) override {
        found = found || names.count(op->name);
        IRVisitor::visit(op);
    }
};

int count_uses(const Expr &e, const std::string &name) {
    class Count : public IRVisitor {
    public:
        explicit Count(const std::string &name) : name(name) {}
        int n = 0;

    private:
        const std::string &name;
        void visit(const Variable *op) override { n += op->name == name; }
    } c(name);
    e.accept(&c);
    return c.n;
}

class BoxesRequired : public IRVisitor {
public:
    BoxesRequired(const Scope<Interval> &outer, bool provided, FixedRegionLets region_lets,
                  const std::set<std::string> *only = nullptr)
        : scope(outer), provided(provided), region_lets(region_lets), only(only) {}
    std::map<std::string, Box> boxes;

    // The boxes, with the fixed regions they name bound by Lets around them.
    std::map<std::string, Box> result() {
        if (named.empty()) return boxes;
        // A name used once is substituted; one used more is bound by a Let.
        auto wrap = [&](Expr e) {
            if (!e.defined()) return e;
            for (auto it = named.rbegin(); it != named.rend(); ++it) {
                int uses = count_uses(e, it->first);
                if (uses == 1) {
                    e = substitute(it->first, it->second, e);
                } else if (uses > 1) {
                    e = Let::make(it->first, it->second, e);
                }
            }
            return simplify(e);
        };
        std::map<std::string, Box> r = boxes;
        for (auto &entry : r) {
            for (Interval &i : entry.second)
                i = Interval(wrap(i.min), wrap(i.max));
        }
        return r;
    }

private:
    // The caller's bindings plus the loops entered so far. Every interval in it is already
    // expressed in variables bound outside the statement being walked.
    Scope<Interval> scope;
    // Lets entered so far, as expressions in loop variables and outer symbols. Substituting
    // them (instead of taking each let's interval on its own) keeps correlated terms together:
    // a loop over [m, m + (M - m + 1) - 1] has the bounds of [m, M], not twice that.
    std::map<std::string, Expr> let_values;
    bool provided; // collect the boxes Provides write instead of the boxes Calls read
    // Whether a region let (<f>.s<k>.<var>.min / .max) whose value is the same in every
    // iteration of the loops walked is kept as a name (bound in `named`) instead of being
    // expanded into every bound that uses it (Bounds.h). The value is exact either way;
    // expanding it repeats the regions of every Func computed in the same loop in each of its
    // producers'.
    FixedRegionLets region_lets;
    // NamedWhenLarge names a value past this many nodes.
    static constexpr size_t kLargeRegionNodes = 48;
    std::vector<std::pair<std::string, Expr>> named; // fresh name -> value, outermost first
    // When set, only these Funcs' boxes are wanted: loops, lets and ifs that neither call nor
    // provide one of them (those not in `touching`) are not walked, which saves the bounds of
    // their loops, lets and calls (bounds inference asks for one Func's box at each production,
    // over the whole rest of the pipeline).
    const std::set<std::string> *only;
    std::unordered_set<const IRNode *> touching;

public:
    void walk(const Stmt &s) {
        if (only) {
            MarkTouching m(*only);
            s.accept(&m);
            touching = std::move(m.marked);
        }
        s.accept(this);
    }

private:
    bool skip(const IRNode *op) const { return only && !touching.count(op); }

    // Let values are stored as written and expanded when a bound is asked for, so that a
    // variable refined by a guard later (hidden from let_values, in the scope) is seen refined
    // inside every let that uses it.
    Interval bounds(const Expr &e) {
        auto known = memo.find(e);
        if (known != memo.end()) return known->second;
        Expr expanded = e;
        for (int depth = 0; depth < 64; depth++) {
            Expr next = substitute(let_values, expanded);
            if (next.same_as(expanded)) break;
            expanded = next;
        }
        Interval result = bounds_of_expr_in_scope(simplify_for_bounds(expanded), scope);
        memo.emplace(e, result);
        return result;
    }

    // The bounds found since the scope and the lets last changed, by expression structure: a
    // Func inlined several times reads its producers at the same indices over and over
    // (harris's response reads Ix at 9 points, 72 times). Cleared by every loop, let and guard
    // entered or left, which change what an expression's bounds are.
    std::map<Expr, Interval, ExprStructureLess> memo;

    static bool is_region_let(const std::string &name) {
        auto ends_with = [&](const char *suffix) {
            size_t n = std::strlen(suffix);
            return name.size() > n && name.compare(name.size() - n, n, suffix) == 0;
        };
        return (ends_with(".min") || ends_with(".max")) && !ends_with(".loop_min") &&
               !ends_with(".loop_max");
    }

    void enter_let(const std::string &name, const Expr &value) {
        Expr v = value;
        if (region_lets != FixedRegionLets::Expanded && is_region_let(name) &&
            value.type().is_int()) {
            Interval i = bounds(value);
            if (i.is_single_point() && (region_lets == FixedRegionLets::Named ||
                                        expr_larger_than(i.min, kLargeRegionNodes))) {
                std::string fresh = name + ".n" + std::to_string(named.size());
                named.push_back({fresh, i.min});
                v = Variable::make(value.type(), fresh);
            }
        }
        auto it = let_values.find(name);
        saved.push_back({name, it == let_values.end() ? Expr() : it->second});
        let_values[name] = v;
        memo.clear();
    }
    void leave_let() {
        memo.clear();
        auto [name, previous] = saved.back();
        saved.pop_back();
        if (previous.defined()) {
            let_values[name] = previous;
        } else {
            let_values.erase(name);
        }
    }
    std::vector<std::pair<std::string, Expr>> saved;

    void add(const std::string &name, const std::vector<Expr> &args) {
        if (only && !only->count(name)) return;
        Box box(args.size());
        for (size_t i = 0; i < args.size(); i++)
            box[i] = bounds(args[i]);
        auto it = boxes.find(name);
        if (it == boxes.end()) {
            boxes[name] = box;
        } else {
            it->second = box_union(it->second, box);
        }
    }

    void visit(const Provide *op) override {
        IRVisitor::visit(op);
        if (provided) add(op->name, op->args);
    }

    // A select whose condition is made of constants alone reads only the side it takes: the
    // other side's calls (select(173 < 0, f(x, x - 1), f(x - 2, y)) reads no row x - 1 of f)
    // would widen the region, and simplification drops that side before any code runs.
    void visit(const Select *op) override {
        if (is_constant_expr(op->condition)) {
            Expr c = simplify(op->condition);
            if (is_const(c)) {
                (is_const_zero(c) ? op->false_value : op->true_value).accept(this);
                return;
            }
        }
        IRVisitor::visit(op);
    }

    // Inside `if (v <= e)` (a split's guard), v is known to be at most e.
    void visit(const IfThenElse *op) override {
        op->condition.accept(this);
        if (skip(op)) return;
        std::vector<std::pair<std::string, Interval>> refined;
        std::vector<Expr> pending{op->condition};
        while (!pending.empty()) {
            Expr c = pending.back();
            pending.pop_back();
            if (const Call *l = c.as<Call>(); l && l->is_intrinsic(Call::likely)) c = l->args[0];
            if (const And *a = c.as<And>()) {
                pending.push_back(a->a);
                pending.push_back(a->b);
            } else if (const LE *le = c.as<LE>()) {
                refine(le->a, le->b, true, refined);
            } else if (const LT *lt = c.as<LT>()) {
                refine(lt->a, lt->b - make_one(lt->b.type()), true, refined);
            } else if (const GE *ge = c.as<GE>()) {
                refine(ge->a, ge->b, false, refined);
            } else if (const GT *gt = c.as<GT>()) {
                refine(gt->a, gt->b + make_one(gt->b.type()), false, refined);
            }
        }
        // A refined variable is looked up in the scope, not substituted by its let value.
        std::vector<std::pair<std::string, Expr>> hidden;
        for (auto &r : refined) {
            auto it = let_values.find(r.first);
            hidden.push_back({r.first, it == let_values.end() ? Expr() : it->second});
            if (it != let_values.end()) let_values.erase(it);
            scope.push(r.first, r.second);
        }
        if (!refined.empty()) memo.clear();
        op->then_case.accept(this);
        for (auto &r : refined)
            scope.pop(r.first);
        for (auto &h : hidden) {
            if (h.second.defined()) let_values[h.first] = h.second;
        }
        if (!refined.empty()) memo.clear();
        if (op->else_case.defined()) op->else_case.accept(this);
    }

    void refine(const Expr &lhs, const Expr &bound, bool upper,
                std::vector<std::pair<std::string, Interval>> &refined) {
        const Variable *v = lhs.as<Variable>();
        if (!v || !v->type.is_int() || v->type.bits() < 32) return;
        Interval current = bounds(lhs);
        Interval b = bounds(bound);
        // A GuardWithIf split's guard, `v <= v.loop_max`, keeps a single point one: where it
        // fails the body does not run, so the point clamped to the loop's last (a point of the
        // loop all the same) serves as well as the empty interval [p, min(p, last)], and a
        // region whose min and max are one expression keeps its extent exact in the loops
        // around (their difference, taken apart by interval arithmetic, reached far past the
        // region). Not for other conditions: their bound need not be a point the body sees.
        // The same holds of a compute_with stage's guards to its own points of a loop it
        // shares, `v >= v.loop_min` and `v <= v.loop_max` (lower/StageNest.cpp): the shared
        // loop runs over the union of the group's bounds, and a region read at v clamped into
        // the stage's own bounds, one expression at both ends, keeps the extent of what each
        // iteration reads exact (taken apart, max(v, first) at one end and min(v, last) at the
        // other, a ShiftInwards block's start asked an input for points far past those any
        // iteration reads: fuzz seed 6161 pair 532).
        const Variable *limit = bound.as<Variable>();
        if (upper && limit && limit->name == v->name + ".loop_max" && current.is_single_point() &&
            b.max.defined()) {
            Expr p = simplify(Min::make(current.min, b.max));
            refined.push_back({v->name, Interval(p, p)});
            return;
        }
        if (!upper && limit && limit->name == v->name + ".loop_min" && current.is_single_point() &&
            b.min.defined()) {
            Expr p = simplify(Max::make(current.min, b.min));
            refined.push_back({v->name, Interval(p, p)});
            return;
        }
        if (upper && b.max.defined()) {
            current.max = current.max.defined() ? simplify(Min::make(current.max, b.max)) : b.max;
        } else if (!upper && b.min.defined()) {
            current.min = current.min.defined() ? simplify(Max::make(current.min, b.min)) : b.min;
        } else {
            return;
        }
        refined.push_back({v->name, current});
    }

    void visit(const Call *op) override {
        // An extern stage writes its region of its Func: extern_output(call at the mins, call
        // at the maxs), a box given by its corners, which are not reads (lower/ExternStages.h).
        if (op->is_intrinsic(Call::extern_output)) {
            if (!provided) return;
            for (const Expr &corner : op->args) {
                const Call *c = corner.as<Call>();
                add(c->name, c->args);
            }
            return;
        }
        IRVisitor::visit(op);
        if (provided || (op->call_type != Call::Halide && op->call_type != Call::Image)) return;
        add(op->name, op->args);
    }

    void visit(const Let *op) override {
        op->value.accept(this);
        enter_let(op->name, op->value);
        op->body.accept(this);
        leave_let();
    }

    void visit(const LetStmt *op) override {
        op->value.accept(this);
        if (skip(op)) return;
        enter_let(op->name, op->value);
        op->body.accept(this);
        leave_let();
    }

    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        if (skip(op)) return;
        Interval mn = bounds(op->min);
        Interval last = bounds(Sub::make(Add::make(op->min, op->extent), make_one(op->min.type())));
        {
            ScopedBinding<Interval> bind(scope, op->name, Interval(mn.min, last.max));
            memo.clear();
            op->body.accept(this);
        }
        memo.clear();
    }
};

} // namespace

std::map<std::string, Box> boxes_required(const Stmt &s, const Scope<Interval> &scope,
                                          FixedRegionLets region_lets) {
    BoxesRequired b(scope, false, region_lets);
    s.accept(&b);
    return b.result();
}

std::map<std::string, Box> boxes_provided(const Stmt &s, const Scope<Interval> &scope,
                                          FixedRegionLets region_lets) {
    BoxesRequired b(scope, true, region_lets);
    s.accept(&b);
    return b.result();
}

namespace {

std::map<std::string, Box> only_boxes(const Stmt &s, const std::set<std::string> &funcs,
                                      bool provided, FixedRegionLets region_lets) {
    BoxesRequired b({}, provided, region_lets, &funcs);
    b.walk(s);
    return b.result();
}

Box one_box(const Stmt &s, const std::string &func, bool provided, FixedRegionLets region_lets) {
    auto boxes = only_boxes(s, {func}, provided, region_lets);
    auto it = boxes.find(func);
    return it == boxes.end() ? Box() : it->second;
}

} // namespace

std::map<std::string, Box> boxes_required_of(const Stmt &s, const std::set<std::string> &funcs,
                                             FixedRegionLets region_lets) {
    return only_boxes(s, funcs, /*provided=*/false, region_lets);
}

Box box_required(const Stmt &s, const std::string &func, FixedRegionLets region_lets) {
    return one_box(s, func, /*provided=*/false, region_lets);
}

Box box_provided(const Stmt &s, const std::string &func, FixedRegionLets region_lets) {
    return one_box(s, func, /*provided=*/true, region_lets);
}

} // namespace Internal
} // namespace loom
