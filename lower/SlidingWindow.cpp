#include "lower/SlidingWindow.h"

#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "lower/Simplify.h"
#include "dsl/Substitute.h"

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
    std::vector<std::string> defined;           // names bound inside the loops, in order

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
        defined.push_back(op->name);
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
            defined.push_back(op->name);
            Stmt body = mutate(op->body);
            defined.pop_back();
            if (value.same_as(op->value) && body.same_as(op->body)) return op;
            return LetStmt::make(op->name, value, body);
        }
        return slide(*func, op);
    }

    const FunctionPtr *production_of(const std::string &let_name) {
        for (auto &entry : realized_at) {
            auto it = env.functions.find(entry.first);
            if (it == env.functions.end()) continue;
            const FunctionPtr &f = it->second;
            if (!f->args.empty() && let_name == f->name + ".s0." + f->args[0] + ".min") return &it->second;
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
        Stmt inner = mutate(s);
        size_t dims = f->args.size();
        std::vector<Expr> mins(dims), maxs(dims);
        for (auto &l : lets) {
            for (size_t d = 0; d < dims; d++) {
                if (l.first == prefix + f->args[d] + ".min") mins[d] = l.second;
                if (l.first == prefix + f->args[d] + ".max") maxs[d] = l.second;
            }
        }
        std::vector<Stmt> checks;
        for (const StorageFold &fold : f->schedule.folds) {
            for (size_t d = 0; d < dims; d++) {
                if (f->args[d] != fold.var || !mins[d].defined()) continue;
                Expr window = simplify(maxs[d] - mins[d] + 1);
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
                if (!expr_uses_var(mins[d], loop->name) && !expr_uses_var(maxs[d], loop->name)) continue;
                if (!only_outer_names(mins[d], *loop) || !only_outer_names(maxs[d], *loop)) break;
                if (!steps_forward(mins[d], loop->name) || !steps_forward(maxs[d], loop->name)) break;
                bool others_fixed = true;
                for (size_t e = 0; e < dims; e++) {
                    if (e == d) continue;
                    others_fixed &= mins[e].defined() && maxs[e].defined() &&
                                    !expr_uses_var(mins[e], loop->name) && !expr_uses_var(maxs[e], loop->name);
                }
                if (!others_fixed) break;
                slide_dim = (int)d;
                Expr previous_max = substitute(loop->name, v - 1, maxs[d]);
                mins[d] = simplify(select(v > loop->min, previous_max + 1, mins[d]));
            }
        }
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
        size_t outer = realized_at[f->name];
        if (loops.size() <= outer) return nullptr;
        const Loop &l = loops.back();
        return l.serial ? &l : nullptr;
    }

    // Whether e uses, besides the loop variable, only names bound outside the loop.
    bool only_outer_names(const Expr &e, const Loop &loop) {
        bool inside = false;
        for (auto it = defined.rbegin(); it != defined.rend(); ++it) {
            if (*it == loop.name) break;
            inside |= expr_uses_var(e, *it);
        }
        return !inside;
    }

    // e(v + 1) - e(v) is a non-negative constant.
    static bool steps_forward(const Expr &e, const std::string &v) {
        Expr step = simplify(substitute(v, int_var(v) + 1, e) - e);
        const int64_t *c = as_const_int(step);
        return c && *c >= 0;
    }
};

}  // namespace

Stmt sliding_window(const Stmt &s, const Environment &env) { return SlidingWindow(env).mutate(s); }

}  // namespace Internal
}  // namespace loom
