#include "lower/SlidingWindow.h"

#include <map>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Substitute.h"
#include "lower/Monotonic.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

struct Loop {
    std::string name;
    Expr min;
    bool serial;
};

class SlidingWindow : public IRMutator {
public:
    explicit SlidingWindow(const Environment &env) : env(env) {}
    using IRMutator::mutate;

private:
    const Environment &env;
    std::vector<Loop> loops;                   // enclosing loops, outermost first
    std::map<std::string, size_t> realized_at;  // Func -> loops.size() at its Realize
    // Names bound inside the loops, in order, with the values lets had before any slide
    // (undefined for a loop variable).
    std::vector<std::pair<std::string, Expr>> defined;
    std::set<std::string> slid;  // the region lets a slide has changed

    Stmt visit(const Realize *op) override {
        auto saved = realized_at.find(op->name) == realized_at.end() ? -1 : (long)realized_at[op->name];
        realized_at[op->name] = loops.size();
        Stmt body = mutate(op->body);
        if (saved < 0) {
            realized_at.erase(op->name);
        } else {
            realized_at[op->name] = (size_t)saved;
        }
        if (body.same_as(op->body)) return op;
        return Realize::make(op->name, op->types, op->bounds, body);
    }

    Stmt visit(const For *op) override {
        Expr mn = mutate(op->min), ext = mutate(op->extent);
        loops.push_back(Loop{op->name, mn, op->for_type == ForType::Serial});
        size_t mark = defined.size();
        defined.push_back({op->name, Expr()});
        Stmt body = mutate(op->body);
        defined.resize(mark);
        loops.pop_back();
        if (mn.same_as(op->min) && ext.same_as(op->extent) && body.same_as(op->body)) return op;
        return For::make(op->name, mn, ext, op->for_type, op->device_api, body);
    }

    // The lets bounds inference put around a production: <f>.s0.<arg>.min / .max for each arg.
    Stmt visit(const LetStmt *op) override {
        const FunctionPtr *func = production_of(op->name);
        if (!func) {
            Expr value = mutate(op->value);
            defined.push_back({op->name, op->value});
            Stmt body = mutate(op->body);
            defined.pop_back();
            if (value.same_as(op->value) && body.same_as(op->body)) return op;
            return LetStmt::make(op->name, value, body);
        }
        return slide(*func, op);
    }

    // Bounds inference puts a Func's region lets at the top of its loop level, outside its
    // Realize when that is at the same level (at the root, where there is no loop to slide
    // over, they are still found so that its fold_storage is checked).
    const FunctionPtr *production_of(const std::string &let_name) {
        for (auto &entry : env.functions) {
            const FunctionPtr &f = entry.second;
            if (!f->args.empty() && let_name == f->name + ".s0." + f->args[0] + ".min") return &entry.second;
        }
        return nullptr;
    }

    Stmt slide(const FunctionPtr &f, const LetStmt *first) {
        // Collect the chain of this Func's region lets.
        std::vector<std::pair<std::string, Expr>> lets;
        Stmt s = first;
        std::string prefix = f->name + ".s0.";
        while (const LetStmt *l = s.as<LetStmt>()) {
            if (l->name.compare(0, prefix.size(), prefix) != 0) break;
            lets.push_back({l->name, l->value});
            s = l->body;
        }
        size_t dims = f->args.size();
        std::vector<Expr> mins(dims), maxs(dims);
        for (auto &l : lets) {
            for (size_t d = 0; d < dims; d++) {
                if (l.first == prefix + f->args[d] + ".min") mins[d] = l.second;
                if (l.first == prefix + f->args[d] + ".max") maxs[d] = l.second;
            }
        }
        // The region as a function of the innermost loop's variable: the lets are written in
        // the names of the regions of the other Funcs computed in the same iteration, which
        // are expanded with their values before any slide (a slid min is not what this
        // Func's consumers read of it in the first iteration).
        std::vector<Expr> emins(dims), emaxs(dims);
        std::vector<bool> max_uses_slid(dims, false);
        for (size_t d = 0; d < dims; d++) {
            bool ignored = false;
            bool uses_slid = false;
            if (mins[d].defined()) emins[d] = expand_in_iteration(mins[d], ignored);
            if (maxs[d].defined()) emaxs[d] = expand_in_iteration(maxs[d], uses_slid);
            max_uses_slid[d] = uses_slid;
        }
        std::vector<Stmt> checks;
        for (const StorageFold &fold : f->schedule.folds) {
            for (size_t d = 0; d < dims; d++) {
                if (f->args[d] != fold.var || !mins[d].defined()) continue;
                Expr window = simplify(emaxs[d] - emins[d] + 1);
                checks.push_back(AssertStmt::make(
                    simplify(window <= fold.extent),
                    Call::make(Int(32), "loom_error_fold_too_small",
                               {Expr(f->name), Expr(fold.var), fold.extent, window}, Call::Extern)));
            }
        }
        int slide_dim = -1;
        const Loop *loop = innermost_serial_loop(f);
        if (loop && !f->has_updates()) {
            Expr v = int_var(loop->name);
            for (size_t d = 0; d < dims && slide_dim < 0; d++) {
                if (!mins[d].defined() || !maxs[d].defined()) break;
                if (!expr_uses_var(emins[d], loop->name) && !expr_uses_var(emaxs[d], loop->name)) continue;
                if (!only_outer_names(emins[d], *loop) || !only_outer_names(emaxs[d], *loop)) break;
                if (!never_decreases(emins[d], loop->name) ||
                    !never_decreases(emaxs[d], loop->name))
                    break;
                if (loops_over_transformed(*f, f->args[d])) break;
                // The max stays as written, so it must not depend on a slid min (whose value
                // differs from the one expanded into emaxs).
                if (max_uses_slid[d]) break;
                bool others_fixed = true;
                for (size_t e = 0; e < dims; e++) {
                    if (e == d) continue;
                    others_fixed &= mins[e].defined() && maxs[e].defined() &&
                                    !expr_uses_var(emins[e], loop->name) && !expr_uses_var(emaxs[e], loop->name);
                }
                if (!others_fixed) break;
                slide_dim = (int)d;
                // In the first iteration every slid min in mins[d] has its value before the
                // slide (all slide over this loop), so mins[d] may stay as written there.
                Expr previous_max = substitute(loop->name, v - 1, emaxs[d]);
                mins[d] = simplify(select(v > loop->min, previous_max + 1, mins[d]));
                slid.insert(prefix + f->args[d] + ".min");
            }
        }
        // The producers computed in the same iteration expand these lets as they were.
        size_t mark = defined.size();
        for (auto &l : lets) defined.push_back(l);
        Stmt inner = mutate(s);
        defined.resize(mark);
        checks.push_back(inner);
        Stmt result = Block::make(checks);
        for (auto it = lets.rbegin(); it != lets.rend(); ++it) {
            Expr value = it->second;
            if (slide_dim >= 0 && it->first == prefix + f->args[slide_dim] + ".min") value = mins[slide_dim];
            result = LetStmt::make(it->first, value, result);
        }
        return result;
    }

    // The innermost loop between the Func's storage and this production, if it is serial.
    const Loop *innermost_serial_loop(const FunctionPtr &f) {
        auto realized = realized_at.find(f->name);
        if (realized == realized_at.end() || loops.size() <= realized->second) return nullptr;
        const Loop &l = loops.back();
        return l.serial ? &l : nullptr;
    }

    // Whether e uses, besides the loop variable, only names bound outside the loop.
    bool only_outer_names(const Expr &e, const Loop &loop) {
        bool inside = false;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            if (it->first == loop.name) break;
            inside |= expr_uses_var(e, it->first);
        }
        return !inside;
    }

    // e with the lets bound inside the innermost loop substituted by their values before any
    // slide, as long as it uses one (a chain of lets); uses_slid tells whether a slid let was.
    Expr expand_in_iteration(const Expr &e, bool &uses_slid) {
        if (loops.empty()) return e;
        std::map<std::string, Expr> values;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            if (it->first == loops.back().name) break;
            if (it->second.defined() && !values.count(it->first)) values[it->first] = it->second;
        }
        Expr result = e;
        for (int depth = 0; depth < 64; depth++) {
            for (const auto &v : values) {
                if (slid.count(v.first) && expr_uses_var(result, v.first)) uses_slid = true;
            }
            Expr next = substitute(values, result);
            if (next.same_as(result)) break;
            result = next;
        }
        return result;
    }

    // The region's bound never moves back as the loop advances: then the rows a later
    // iteration needs are the ones past the previous iteration's max, or ones computed before.
    static bool never_decreases(const Expr &e, const std::string &v) {
        Monotonic m = is_monotonic(e, v);
        return m == Monotonic::Constant || m == Monotonic::Increasing;
    }

    // Whether the Func's own loop over `arg` is split, fused, or not a plain serial loop in
    // some version of its definition. A slid region may be shorter than the split factor (or
    // empty), and the rounded or shifted loop over it would compute outside the storage.
    static bool loops_over_transformed(const FunctionContents &f, const std::string &arg) {
        auto transforms = [&](const StageSchedule &s) {
            for (const Split &split : s.splits) {
                if (split.old_var == arg || split.outer == arg || split.inner == arg) return true;
            }
            for (const Dim &dim : s.dims) {
                if (dim.var == arg && dim.for_type != ForType::Serial) return true;
            }
            return false;
        };
        if (transforms(f.init.schedule)) return true;
        for (const Specialization &spec : f.init.specializations) {
            if (spec.definition && transforms(spec.definition->schedule)) return true;
        }
        return false;
    }
};

}  // namespace

Stmt sliding_window(const Stmt &s, const Environment &env) { return SlidingWindow(env).mutate(s); }

}  // namespace Internal
}  // namespace loom
