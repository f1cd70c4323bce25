// Sliding window over Funcs with update definitions: a Func stored outside a serial loop and
// computed inside it computes, in each iteration after the first, only the rows past those of
// the previous iteration, in its pure stage and in every update, as long as each update writes
// and reads the Func only at its own pure Var along the slid dimension. Each test checks the
// outputs against a plain C++ reference and counts, by running the lowered loop nest's loop
// bounds with the buffer shapes given, the rows each stage computes per iteration of the slid
// loop. SlidingWindowInvariant: a region no loop between the storage and the production moves
// is computed in the first iteration of those loops only. UpdateBounds: what a pure stage
// computes when its updates write without reading. DeadUpdates: updates whose where() never
// holds.
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
Stmt lowered(const Func &output) {
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
IterationCounter count_iterations(const Func &output, const std::vector<int> &sizes,
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
std::vector<int64_t> per_iteration(const IterationCounter &c, const std::string &loop) {
    std::vector<int64_t> result;
    for (const auto &it : c.per_iteration) {
        auto found = it.find(loop);
        result.push_back(found == it.end() ? 0 : found->second);
    }
    return result;
}

// `first` in the first iteration, then `rest` in each of the `n - 1` others.
std::vector<int64_t> first_then(int64_t first, int64_t rest, int n) {
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
int pure_value(int x, int y) { return ((x * 7 + y * 13) % 17 + 17) % 17 - 8; }

// g: a pure definition and two updates at its own pixel, f a 3-row stencil of it.
TEST(SlidingWindowUpdates, PureVarUpdatesSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, y) = g(x, y) * 2 + x - y;
    g(x, y) = g(x, y) * g(x, y) + 1;
    f(x, y) = g(x, y - 1) + 3 * g(x, y) + 5 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) {
        int v = pure_value(x, y) * 2 + x - y;
        return v * v + 1;
    };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, y - 1) + 3 * g_ref(x, y) + 5 * g_ref(x, y + 1);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // The first row of f computes g's three rows, every later one the one new row, in each
    // stage: H + 2 rows in all, where recomputing the window would take 3 H.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(3, 1, H));
    EXPECT_EQ(c.total["g.s0.x"], W * (H + 2));
    EXPECT_EQ(c.total["g.s2.x"], W * (H + 2));
}

// An update over an RDom along x (a running sum across each row: it scatters along x, but
// keeps to its row), then a pure-Var one; stored at the root, computed per row of f.
TEST(SlidingWindowUpdates, RDomAlongTheOtherDimensionSlides) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(1, W - 1, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(r.x, y) = g(r.x, y) + g(r.x - 1, y);
    g(x, y) = g(x, y) * 3 - y;
    f(x, y) = g(x, y) + 2 * g(x, y + 2);
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> g_ref(H + 2, std::vector<int>(W));
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W; x++)
            g_ref[y][x] = pure_value(x, y);
        for (int x = 1; x < W; x++)
            g_ref[y][x] += g_ref[y][x - 1];
        for (int x = 0; x < W; x++)
            g_ref[y][x] = g_ref[y][x] * 3 - y;
    }
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref[y][x] + 2 * g_ref[y + 2][x];
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(3, 1, H));
    EXPECT_EQ(c.total["g.s1.r$x"], (W - 1) * (H + 2));
}

// A Func defined only by updates (+=, then *=): its implicit pure definition has Vars of its
// own (_0, _1), the updates the user's; each stage's region is named after its own Vars.
TEST(SlidingWindowUpdates, UpdatesOfAnImplicitPureDefinitionSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(0, 3, "r");
    g(x, y) += (x * 7 + y * 13 + r.x) % 17 - 8;
    g(x, y) *= 2;
    f(x, y) = g(x, y) + 3 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) {
        int sum = 0;
        for (int i = 0; i < 3; i++)
            sum += ((x * 7 + y * 13 + i) % 17 + 17) % 17 - 8;
        return sum * 2;
    };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, y) + 3 * g_ref(x, y + 1);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0._1"), first_then(2, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y"), first_then(2, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s2.y"), first_then(2, 1, H));
    EXPECT_EQ(c.total["g.s1.r$x"], 3 * W * (H + 1));
}

// As the performance fuzzer's pair (seed 1, pair 2): a histogram of each row (an RDom over x
// scattering into bins along x), stored per plane z and computed per row y of its consumer,
// which reads rows y / 3 - 2 and y of it: hundreds of rows apart, so recomputing the window
// every row costs hundreds of rows per row. Sliding computes one new row per row.
TEST(SlidingWindowUpdates, HistogramStoredPerPlaneComputedPerRow) {
    const int w = 9, h = 40, planes = 3, bins = 6, inw = 12;
    Buffer<int> in(inw, h, planes);
    in.for_each_position(
        [&](const std::vector<int> &p) { in(p) = (p[0] * 5 + p[1] * 11 + p[2] * 3) % 9 - 1; });
    Var x("x"), y("y"), z("z");
    Func hist("hist"), f("f");
    RDom r(0, inw, "r");
    hist(x, y, z) = 0;
    hist(clamp(in(r.x, y, z), 0, bins - 1), y, z) += 1;
    f(x, y, z) = hist(x % bins, max(y / 3 - 2, 0), z) * 100 + hist(x % bins, y, z);
    hist.store_at(f, z).compute_at(f, y);

    auto hist_ref = [&](int bin, int y, int z) {
        int n = 0;
        for (int i = 0; i < inw; i++)
            n += std::min(std::max(in(i, y, z), 0), bins - 1) == bin;
        return n;
    };
    Buffer<int> out = f.realize({w, h, planes});
    int bad = 0;
    for (int z = 0; z < planes; z++) {
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                int e =
                    hist_ref(x % bins, std::max(y / 3 - 2, 0), z) * 100 + hist_ref(x % bins, y, z);
                bad += out(x, y, z) != e;
            }
        }
    }
    EXPECT_EQ(bad, 0);

    // Per row of f: the first row of each plane computes rows 0 .. 0 of hist, each later
    // one the one new row y; the histogram's RDom runs once per new row.
    IterationCounter c = count_iterations(f, {w, h, planes}, "f.s0.y");
    std::vector<int64_t> one_row(h * planes, 1);
    EXPECT_EQ(per_iteration(c, "hist.s0.y"), one_row);
    EXPECT_EQ(per_iteration(c, "hist.s1.y"), one_row);
    EXPECT_EQ(c.total["hist.s1.r$x"], inw * h * planes);
}

// A consumer reading row 2 y - 2 only: consecutive iterations' regions leave a row between
// them, so there is nothing to reuse and no iteration computes more than its own row (storage
// folding, which runs before sliding window, stores g in one row: a slid iteration computing
// the row in the gap too would overwrite it before the update reads it; fuzz seed 2, pipeline
// 11).
TEST(SlidingWindowUpdates, RegionsWithGapsComputeOnlyTheirOwnRows) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = g(x, 2 * y - 2) + 1;
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(x, 2 * y - 2) * 2 + x + 1;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // One row of each stage per row of f (the loops over one row of y are gone: count x).
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, W));
    EXPECT_EQ(per_iteration(c, "g.s1.x"), std::vector<int64_t>(H, W));
}

// An update that scatters along y through an RDom (a running sum down the columns over a
// fixed range of rows) needs rows of other iterations: g is not slid, every row recomputes
// its whole window, and the outputs stay right.
TEST(SlidingWindowUpdates, ScatterAlongTheSlidDimensionDoesNotSlide) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(1, H + 1, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, r.x) = g(x, r.x) + g(x, r.x - 1);
    f(x, y) = g(x, y) + 2 * g(x, y + 1);
    g.store_root().compute_at(f, y);

    std::vector<std::vector<int>> g_ref(H + 2, std::vector<int>(W));
    for (int y = 0; y < H + 2; y++) {
        for (int x = 0; x < W; x++)
            g_ref[y][x] = pure_value(x, y) + (y > 0 ? g_ref[y - 1][x] : 0);
    }
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref[y][x] + 2 * g_ref[y + 1][x];
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    // Each row of f computes all H + 2 rows of g the scatter covers, and runs the scatter
    // down every column.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), std::vector<int64_t>(H, H + 2));
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), std::vector<int64_t>(H, W * (H + 1)));
}

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

Expr window_sum(const Func &g, const Var &x, const Var &y, int reach) {
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

// An update whose loop over the slid dimension is split with GuardWithIf computes exactly the
// slid region: g slides, each stage computing one new row per row of f.
TEST(SlidingWindowUpdates, GuardedSplitOfAnUpdateSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y);
    g.update(0).split(y, yo, yi, 2, TailStrategy::GuardWithIf);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 2 + x; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yo"), first_then(2, 1, H));
}

// A pure stage split with ShiftInwards (Auto's choice): a slid region of one row is shorter
// than the factor, so the block of 4 rows ending at it is computed again (its older rows are
// the same values); the window of 7 rows took two blocks, 8 rows, before the slide.
TEST(SlidingWindowSplits, ShiftedSplitOfAPureStageSlidesByWholeBlocks) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 3);
    g.store_root().compute_at(f, y);
    g.split(y, yo, yi, 4);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 3)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y.yi"), first_then(8, 4, H));
}

// A RoundUp split of an update (Auto's choice for an update's pure Var) under a ShiftInwards
// split of the pure stage: both stages start at the same row, the end of a whole ShiftInwards
// block and the start of a RoundUp block of the iteration's region before the slide, so every
// row the update touches was reset by the pure stage first, and no block reaches past the
// rows computed before the slide.
TEST(SlidingWindowSplits, RoundedUpdateUnderAShiftedPureStageSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 3 + y;
    f(x, y) = window_sum(g, x, y, 3);
    g.store_root().compute_at(f, y);
    g.split(y, yo, yi, 3);
    g.update(0).split(y, yo, yi, 2);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 3 + y; }, 3)), 0);

    // Before the slide: 7 rows, 3 blocks of 3 (9 rows) and 4 blocks of 2. After: from the
    // region's max - 2, one block of 3 and two of 2.
    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y.yi"), first_then(9, 3, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yi"), first_then(8, 4, H));
}

// A RoundUp block wider than the window starts at the slid row, as Halide 14's does: the pure
// stage computes one new row per row of f, the update one block from it, and storage grows by
// the rows the last block runs past (aligned to the region's start, as before, a block of 4
// over a window of 3 slid nothing: fuzz seed 2026 pair 397, 2.5x Halide's time).
TEST(SlidingWindowSplits, RoundedUpdateBlockWiderThanTheWindowSlides) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 3 + y;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y);
    g.update(0).split(y, yo, yi, 4, TailStrategy::RoundUp);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 3 + y; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 1, H));
    EXPECT_EQ(per_iteration(c, "g.s1.y.yi"), std::vector<int64_t>(H, 4));
}

// h is computed beside a slid g whose rows are split with ShiftInwards, its region written in
// g's (the block's start, max - min rounded, subtracts g's slid min). The input covers exactly
// the rows the pipeline reads before the slide: the image checks ask for no more (checked
// before the slide; interval arithmetic over the slid min asked for rows past the input).
TEST(SlidingWindowSplits, ARegionBesideASlidSplitAsksTheInputForNoMoreRows) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func h("h"), g2("g2"), f2("f2");
    const int rows = 2 * (H + 4) + 1; // h's rows 0 .. 2 * (H + 4)
    Buffer<int> in(W, rows);
    for (int j = 0; j < rows; j++)
        for (int i = 0; i < W; i++)
            in(i, j) = i * 5 - j * 3 + 1;
    h(x, y) = in(x, y) + 1;
    g2(x, y) = h(x, 2 * y) * 3;
    f2(x, y) = g2(x, y) + g2(x, y + 5);
    g2.store_root().compute_at(f2, y).split(y, yo, yi, 4);
    h.store_root().compute_at(f2, y);

    std::string stmt = Pipeline(f2).lowered_stmt();
    EXPECT_NE(stmt.find("let g2.s0.y.min = select("), std::string::npos) << stmt;
    Buffer<int> out = f2.realize({W, H});
    auto g_ref = [&](int i, int j) { return (in(i, 2 * j) + 1) * 3; };
    for (int j = 0; j < H; j++)
        for (int i = 0; i < W; i++)
            ASSERT_EQ(out(i, j), g_ref(i, j) + g_ref(i, j + 5)) << i << ", " << j;
}

// A split of a folded dimension does not slide: a shifted or rounded block's extra rows would
// land in slots of the fold that rows of the window hold.
TEST(SlidingWindowSplits, SplitOfAFoldedDimensionDoesNotSlide) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fold_storage(y, 4);
    g.split(y, yo, yi, 2, TailStrategy::GuardWithIf);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, 3 * W));
}

// A Func whose rows are fused with its pixels (fuse(x, y): one loop over every point of the
// region, row after row) slides as if unfused: the fused loop's extent and its y are written in
// the region's lets, so a slid region of one new row is one row of points (fuzz seed 2026 pair
// 196: 5 rows recomputed per row of the consumer, 1.45x Halide's time, which slides it).
TEST(SlidingWindowFuse, RowsFusedAfterTheirPixelsSlide) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Var xy("xy");
    Func &g = w.g, &f = w.f;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fuse(x, y, xy);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x.xy"), first_then(3 * W, W, H));
}

// An update fused as its pure stage is slides with it, each computing one new row per row of
// the consumer.
TEST(SlidingWindowFuse, AFusedUpdateSlidesWithItsPureStage) {
    SplitWindow w;
    Var &x = w.x, &y = w.y;
    Var xy("xy");
    Func &g = w.g, &f = w.f;
    g(x, y) = g(x, y) * 2 + x;
    f(x, y) = window_sum(g, x, y, 1);
    g.store_root().compute_at(f, y).fuse(x, y, xy);
    g.update(0).fuse(x, y, xy);

    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(
        mismatches(out, window_sums([](int x, int y) { return pure_value(x, y) * 2 + x; }, 1)), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x.xy"), first_then(3 * W, W, H));
    EXPECT_EQ(per_iteration(c, "g.s1.x.xy"), first_then(3 * W, W, H));
}

// Rows fused as the inner part (fuse(y, x): the points of a column follow each other) are not
// a run of the fused loop, and a fused loop split again (vectorized) would compute its blocks
// past the new rows: neither slides, and the whole window is computed per row.
TEST(SlidingWindowFuse, RowsFusedInsideOrAFusedLoopSplitAgainDoNotSlide) {
    for (bool rows_inside : {true, false}) {
        SplitWindow w;
        Var &x = w.x, &y = w.y;
        Var xy("xy"), xyi("xyi");
        Func &g = w.g, &f = w.f;
        f(x, y) = window_sum(g, x, y, 1);
        g.store_root().compute_at(f, y);
        if (rows_inside) {
            g.reorder(y, x).fuse(y, x, xy);
        } else {
            g.fuse(x, y, xy).split(xy, xy, xyi, 4, TailStrategy::GuardWithIf);
        }

        Buffer<int> out = f.realize({W, H});
        EXPECT_EQ(mismatches(out, window_sums(pure_value, 1)), 0);

        IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
        const std::string inner = rows_inside ? "g.s0.y.xy" : "g.s0.x.xy.xyi";
        int64_t points = 0;
        for (int64_t n : per_iteration(c, inner))
            points += n;
        EXPECT_GE(points, int64_t(3) * W * H) << (rows_inside ? "fuse(y, x)" : "split of xy");
    }
}

// A region no loop between the storage and the production moves (f reads rows 0 and 2 of g
// in every row): the first iteration computes it, in every stage, and the others reuse it. The
// update scatters along y through an RDom, which would block a slide, but not this.
TEST(SlidingWindowInvariant, RegionTheLoopDoesNotMoveIsComputedOnce) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(0, 3, "r");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    g(x, r) = g(x, r) * 3 + r;
    f(x, y) = g(x, 0) * y + g(x, 2);
    g.store_root().compute_at(f, y);

    auto g_ref = [](int x, int y) { return pure_value(x, y) * 3 + y; };
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = g_ref(x, 0) * y + g_ref(x, 2);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(3, 0, H));
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), first_then(3 * W, 0, H));
}

// Computed per pixel of f, stored at the root, reading a fixed 2 x 2 corner of g: only the
// first pixel of the image computes it (the first iteration of both loops).
TEST(SlidingWindowInvariant, InvariantAcrossTwoLoopsIsComputedByTheFirstOfBoth) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    f(x, y) = g(0, 0) + g(1, 1) * x - y;
    g.store_root().compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(0, 0) + pure_value(1, 1) * x - y;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.y"), first_then(2, 0, H));
    EXPECT_EQ(c.total["g.s0.x"], 4);
}

// Stored per row and computed per pixel: the first pixel of each row computes it, since the
// storage is inside the row loop.
TEST(SlidingWindowInvariant, StorageInsideAnOuterLoopRecomputesPerIterationOfIt) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = (x * 7 + y * 13) % 17 - 8;
    f(x, y) = g(0, y) + g(3, y) * x;
    g.store_at(f, y).compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(0, y) + pure_value(3, y) * x;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    EXPECT_EQ(per_iteration(c, "g.s0.x"), std::vector<int64_t>(H, 4));
}

// Rows split by 4 with GuardWithIf, g computed per inner row: the region moves with neither
// loop. The outer rows whose inner loop runs all 4 rows share one production, in the first
// inner row of the first; the tail outer row (its own loop, whose inner extent moves with it)
// computes g again in its first inner row.
TEST(SlidingWindowInvariant, InvariantOverASplitLoopIsComputedOnce) {
    SplitWindow w;
    Var &x = w.x, &y = w.y, &yo = w.yo, &yi = w.yi;
    Func &g = w.g, &f = w.f;
    f(x, y) = g(x, 0) * y + g(x, 2);
    f.split(y, yo, yi, 4, TailStrategy::GuardWithIf);
    g.store_root().compute_at(f, yi);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = pure_value(x, 0) * y + pure_value(x, 2);
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y.yo");
    std::vector<int64_t> rows = first_then(3, 0, (H + 3) / 4);
    rows.back() = 3;
    EXPECT_EQ(per_iteration(c, "g.s0.y"), rows);
}

// An update that writes two fixed rows without reading the Func: the pure stage computes only
// what the consumer reads (one point per point of the consumer), not the rows the update
// writes, as Halide 14 bounds it (fuzz seed 2026 pair 251: a whole column per point, 99x
// Halide's time). The update still writes its rows, and the consumer sees them.
TEST(UpdateBounds, PureStageComputesWhatIsReadNotWhatUpdatesOnlyWrite) {
    Var x("x"), y("y");
    Func g("g"), f("f");
    RDom r(3, 2, "r");
    g(x, y) = x + y * 3;
    g(x, r) = r * 7 - x;
    f(x, y) = g(x, y) + 1;
    g.compute_at(f, x);

    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = (y == 3 || y == 4 ? y * 7 - x : x + y * 3) + 1;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);

    IterationCounter c = count_iterations(f, {W, H}, "f.s0.y");
    // The pure stage's region is one point: its loops, of one iteration, are gone. (Bounded by
    // what the update writes too, rows min(y, 3) to max(y, 4), it looped over 2 to 14 rows.)
    EXPECT_EQ(c.total["g.s0.y"], 0);
    EXPECT_EQ(c.total["g.s0.x"], 0);
    EXPECT_EQ(per_iteration(c, "g.s1.r$x"), std::vector<int64_t>(H, 2 * W));
}

// A RoundUp split's last block runs past the stage's region. A producer computed outside the
// split's outer loop covers only the points the region needs, as Halide 14's does (the block's
// other points read what its storage holds, and nothing reads what they compute); one
// computed per block covers the whole block. Fuzz seed 2026 pair 442: 2.7x Halide's time,
// computing a root Func over 9 slices where 3 were needed.
TEST(UpdateBounds, ARoundedUpBlockWidensOnlyAProducerComputedPerBlock) {
    Var x("x"), xo("xo"), xi("xi");
    Func g("g"), f("f"), h("h"), out("out");
    g(x) = x * 2;
    f(x) = g(x) + 1;
    h(x) = x;
    h(x) = h(x) + g(x + 1);
    out(x) = f(x) + h(x);
    g.compute_root();
    f.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    h.compute_root();
    h.update(0).split(x, xo, xi, 8, TailStrategy::RoundUp);
    const int n = 13; // two blocks of 8 each, the second rounded up past 12
    Buffer<int> result = out.realize({n});
    for (int i = 0; i < n; i++)
        EXPECT_EQ(result(i), (2 * i + 1) + (i + 2 * (i + 1))) << "at " << i;
    // g at 0 .. 13: f needs 0 .. 12, h's update 1 .. 13 (over the blocks, 0 .. 16).
    IterationCounter c = count_iterations(out, {n}, "out.s0.x");
    EXPECT_EQ(c.total["g.s0.x"], n + 1);
    EXPECT_EQ(c.total["f.s0.x.xi"], 16);
    EXPECT_EQ(c.total["h.s1.x.xi"], 16);

    Func p("p"), q("q"), q_out("q_out");
    p(x) = x * 3;
    q(x) = p(x) - 1;
    q_out(x) = q(x);
    q.compute_root().split(x, xo, xi, 8, TailStrategy::RoundUp);
    p.compute_at(q, xo);
    Buffer<int> blocks = q_out.realize({n});
    for (int i = 0; i < n; i++)
        EXPECT_EQ(blocks(i), 3 * i - 1) << "at " << i;
    IterationCounter per_block = count_iterations(q_out, {n}, "q.s0.x.xo");
    EXPECT_EQ(per_iteration(per_block, "p.s0.x"), std::vector<int64_t>(2, 8));
}

// An update whose where() is false at every point of its RDom (r = -1, r % 2 == 1) never runs:
// it gets no loops, so the Func it alone reads is neither computed nor placed around it, and
// the result is the pure definition's (fuzz seed 2026 pair 484, where such a dead reduction
// widened a producer's placement: 10x Halide's time).
TEST(DeadUpdates, UpdateWhosePredicateIsFalseEverywhereIsDropped) {
    Var x("x"), y("y");
    Func g("g"), h("h"), f("f");
    RDom r(-1, 1, "r");
    r.where(r.x % 2 != 1);
    g(x, y) = x * 5 + y;
    g(x, y) = g(x, y) * 2; // an update: g is computed at a loop, not inlined
    h(x, y) = 7;
    h(x, y) += g(x + r.x, y);
    f(x, y) = h(x, y) + x;
    Stmt s = lowered(f);
    std::ostringstream text;
    text << s;
    EXPECT_EQ(text.str().find("produce g"), std::string::npos) << text.str();
    std::vector<std::vector<int>> expected(H, std::vector<int>(W));
    for (int y = 0; y < H; y++) {
        for (int x = 0; x < W; x++)
            expected[y][x] = 7 + x;
    }
    Buffer<int> out = f.realize({W, H});
    EXPECT_EQ(mismatches(out, expected), 0);
}

} // namespace
