// Helpers of the sliding-window tests (sliding_window_updates_test.cpp,
// sliding_window_splits_test.cpp): an IterationCounter that runs a lowered loop nest's loop
// bounds on concrete buffer shapes, and a two-stage window (g read by f over 2 reach + 1 rows)
// with its C++ reference. In an unnamed namespace: each test file has its own copy.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <loom.h>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Substitute.h"
#include "lower/Lower.h"
#include "lower/Simplify.h"

using namespace loom;
using namespace loom::Internal;

namespace {

// Runs the loop structure of a lowered Stmt on concrete values of its free scalars: every
// loop's bounds, every integer let they use and every branch condition are evaluated by
// substituting the values known so far and simplifying to a constant. Stores and loads are not
// run. Counts the iterations of each loop, in total and in each iteration of the loop `per`.
class IterationCounter : public IRVisitor {
public:
    IterationCounter(std::map<std::string, Expr> known, std::string per)
        : known(std::move(known)), per(std::move(per)) {}

    std::map<std::string, int64_t> total;
    std::vector<std::map<std::string, int64_t>> per_iteration;
    std::vector<std::string> errors;

private:
    std::map<std::string, Expr> known;
    std::string per;
    using IRVisitor::visit;

    // The value of e, or an undefined Expr where it is not a constant.
    Expr evaluate(const Expr &e) {
        Expr v = simplify(substitute(known, e));
        if (const Call *c = v.as<Call>(); c && c->is_intrinsic(Call::likely)) v = c->args[0];
        return is_const(v) ? v : Expr();
    }

    int64_t evaluate_int(const Expr &e, const char *what) {
        Expr v = evaluate(e);
        if (!v.defined()) {
            std::ostringstream s;
            s << what << " not constant: " << simplify(substitute(known, e));
            errors.push_back(s.str());
            return 0;
        }
        return v.as<IntImm>()->value;
    }

    void visit(const LetStmt *op) override {
        auto saved = known.find(op->name) == known.end() ? Expr() : known[op->name];
        known.erase(op->name);
        if (op->value.type().is_int_or_uint() && op->value.type().is_scalar()) {
            Expr v = evaluate(op->value);
            if (v.defined()) known[op->name] = v;
        }
        op->body.accept(this);
        known.erase(op->name);
        if (saved.defined()) known[op->name] = saved;
    }

    void visit(const IfThenElse *op) override {
        Expr c = evaluate(op->condition);
        if (!c.defined()) {
            std::ostringstream s;
            s << "condition not constant: " << simplify(substitute(known, op->condition));
            errors.push_back(s.str());
            return;
        }
        if (!is_const_zero(c)) {
            op->then_case.accept(this);
        } else if (op->else_case.defined()) {
            op->else_case.accept(this);
        }
    }

    void visit(const AssertStmt *) override {}

    void visit(const For *op) override {
        int64_t mn = evaluate_int(op->min, "loop min"),
                extent = evaluate_int(op->extent, "loop extent");
        for (int64_t i = mn; i < mn + extent; i++) {
            total[op->name]++;
            known[op->name] = make_const(Int(32), i);
            std::map<std::string, int64_t> before = total;
            op->body.accept(this);
            if (op->name == per) {
                std::map<std::string, int64_t> diff;
                for (const auto &t : total)
                    diff[t.first] = t.second - before[t.first];
                per_iteration.push_back(diff);
            }
        }
        known.erase(op->name);
    }
};

// The lowered loop nest of `output`, with loom_buffer_is_bounds_query answered false.
inline Stmt lowered(const Func &output) {
    std::ostringstream log;
    LoweredPipeline p = lower({output.function()}, "p", Target(), CompileOptions(), {}, log);
    class NotAQuery : public IRMutator {
        using IRMutator::visit;
        Expr visit(const Call *op) override {
            if (op->name == "loom_buffer_is_bounds_query") return make_zero(op->type);
            return IRMutator::visit(op);
        }
    };
    return NotAQuery().mutate(p.body);
}

// Counts the iterations of the loops of `output`'s lowered nest over an output buffer of
// w x h (x h x d...) at min 0, per iteration of the loop `per`.
inline IterationCounter count_iterations(const Func &output, const std::vector<int> &sizes,
                                         const std::string &per) {
    std::map<std::string, Expr> known;
    int stride = 1;
    for (size_t d = 0; d < sizes.size(); d++) {
        std::string ds = std::to_string(d);
        known[output.name() + ".min." + ds] = make_const(Int(32), 0);
        known[output.name() + ".extent." + ds] = make_const(Int(32), sizes[d]);
        known[output.name() + ".stride." + ds] = make_const(Int(32), stride);
        stride *= sizes[d];
    }
    Stmt s = lowered(output);
    IterationCounter counter(known, per);
    s.accept(&counter);
    EXPECT_TRUE(counter.errors.empty()) << counter.errors.front() << "\n" << s;
    return counter;
}

// The iterations of loop `loop` in each iteration of the counted `per` loop.
inline std::vector<int64_t> per_iteration(const IterationCounter &c, const std::string &loop) {
    std::vector<int64_t> result;
    for (const auto &it : c.per_iteration) {
        auto found = it.find(loop);
        result.push_back(found == it.end() ? 0 : found->second);
    }
    return result;
}

// `first` in the first iteration, then `rest` in each of the `n - 1` others.
inline std::vector<int64_t> first_then(int64_t first, int64_t rest, int n) {
    std::vector<int64_t> v(n, rest);
    v[0] = first;
    return v;
}

template <typename T>
int mismatches(const Buffer<T> &out, const std::vector<std::vector<T>> &expected) {
    int bad = 0;
    for (int y = 0; y < out.height(); y++) {
        for (int x = 0; x < out.width(); x++)
            bad += const_cast<Buffer<T> &>(out)(x, y) != expected[y][x];
    }
    return bad;
}

const int W = 13, H = 17;

// Loom's % of an int is never negative (as Halide's), unlike C++'s.
inline int pure_value(int x, int y) { return ((x * 7 + y * 13) % 17 + 17) % 17 - 8; }

// g's rows as f reads them, from rows y - reach .. y + reach, each a sum of g's reads with
// weights 1, 2, 3, ...
template <typename G> std::vector<std::vector<int>> window_sums(G g_ref, int reach) {
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++) {
            for (int dy = -reach; dy <= reach; dy++)
                expected[y][x] += (dy + reach + 1) * g_ref(x, y + dy);
        }
    }
    return expected;
}

inline Expr window_sum(const Func &g, const Var &x, const Var &y, int reach) {
    Expr sum = 0;
    for (int dy = -reach; dy <= reach; dy++)
        sum = sum + (dy + reach + 1) * g(x, y + dy);
    return sum;
}

// g's pure definition over x and y, its consumer f, and the Vars of a split of y.
struct SplitWindow {
    Var x{"x"}, y{"y"}, yo{"yo"}, yi{"yi"};
    Func g{"g"}, f{"f"};
    SplitWindow() { g(x, y) = (x * 7 + y * 13) % 17 - 8; }
};

} // namespace
