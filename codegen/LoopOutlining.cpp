#include "codegen/LoopOutlining.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {

namespace {

// IR nodes in a loop worth compiling on a thread of its own: an outlined function costs a
// fixed part of a millisecond of compile work (setting up the passes, its arguments), and the
// code generated per node of a vectorized loop nest takes tens of microseconds to compile.
// (80 before outlined loops took arguments and each thread built its own module; at 30,
// softmax's division loop and layer_norm's loops are outlined too: JIT -13% and -20%, run
// time within 1%, no other app changed.)
constexpr size_t kMinNodes = 30;
constexpr size_t kMathCallNodes = 40;

// A row loop this large is outlined even beyond one outlined loop per compile thread: its own
// compile dwarfs a function's fixed cost, and a call per row costs nothing next to its work
// (harris's output rows, 3431 nodes: JIT -12%, run time +0.4%). Smaller rows outlined beyond
// that cost more than they save (unsharp's, ~200 nodes each: run time +4%).
constexpr size_t kLargeRowNodes = 1000;

// A loop inside a loop of its own stage whose trip count is at most this is treated as one of
// constant extent (a few taps or channels per pixel), whatever its extent's expression: a piece
// of such a loop split by loop partitioning runs from one let to another (fuzz seed 2026 pair
// 268: the steady range of a 2x2 RDom's loop, outlined as a nest inside the loop over every
// pixel, one call per pixel: 3x the pipeline's run time). A stage's outermost loop keeps its
// place however short (the tail of a tile's sum over k, called once per tile).
constexpr int64_t kSmallTripCount = 16;

// Bounds of an integer expression from its constants and the lets bound around it, each side
// on its own (min(a, 1) is at most 1 whatever a is); nullopt where a side is unknown.
class ExtentBounds {
public:
    Scope<Expr> lets;

    std::optional<int64_t> upper(const Expr &e, int depth = 0) const {
        return bound(e, true, depth);
    }

private:
    std::optional<int64_t> bound(const Expr &e, bool upper, int depth) const {
        if (const int64_t *c = as_const_int(e)) return *c;
        if (depth > 12) return std::nullopt;
        if (const Variable *v = e.as<Variable>()) {
            const Expr *value = lets.find(v->name);
            return value ? bound(*value, upper, depth + 1) : std::nullopt;
        }
        auto both = [&](const Expr &a, bool ua, const Expr &b, bool ub,
                        auto combine) -> std::optional<int64_t> {
            std::optional<int64_t> x = bound(a, ua, depth + 1);
            std::optional<int64_t> y = x ? bound(b, ub, depth + 1) : std::nullopt;
            if (!y) return std::nullopt;
            return combine(*x, *y);
        };
        // min(a, b) <= each of a and b; max(a, b) >= each.
        auto either = [&](const Expr &a, const Expr &b, bool take_min) -> std::optional<int64_t> {
            std::optional<int64_t> x = bound(a, upper, depth + 1), y = bound(b, upper, depth + 1);
            if (x && y) return take_min ? std::min(*x, *y) : std::max(*x, *y);
            return x ? x : y;
        };
        auto plus = [](int64_t x, int64_t y) { return x + y; };
        auto minus = [](int64_t x, int64_t y) { return x - y; };
        auto smaller = [](int64_t x, int64_t y) { return std::min(x, y); };
        auto larger = [](int64_t x, int64_t y) { return std::max(x, y); };
        if (const Add *op = e.as<Add>()) return both(op->a, upper, op->b, upper, plus);
        if (const Sub *op = e.as<Sub>()) return both(op->a, upper, op->b, !upper, minus);
        if (const Min *op = e.as<Min>()) {
            return upper ? either(op->a, op->b, true) : both(op->a, false, op->b, false, smaller);
        }
        if (const Max *op = e.as<Max>()) {
            return upper ? both(op->a, true, op->b, true, larger) : either(op->a, op->b, false);
        }
        return std::nullopt;
    }
};

struct LoopInfo {
    size_t nodes = 0;
    bool has_inner_loop = false;
    bool constant_extent = false;
    bool in_own_stage = false;         // a loop of the same stage is around it
    int enclosing_loops = 0;           // serial loops of the function around it
    const For *parent = nullptr;       // the serial loop directly around it
    std::vector<const For *> children; // the serial loops directly in its body
};

size_t weight(const IRNode *) { return 1; }
// A math function is one node but many instructions (Loom's exp: ~30 per vector; a C library
// function, a call per lane), compiled at the cost of as many nodes.
size_t weight(const Call *op) { return op->call_type == Call::PureExtern ? 1 + kMathCallNodes : 1; }

// "prod.s1.k$x.ko" -> "prod.s1.": the Func and stage a loop belongs to (ScheduleFunctions
// names every loop <func>.s<stage>.<var>).
std::string stage_of(const std::string &loop) {
    size_t s = loop.find(".s");
    size_t dot = s == std::string::npos ? s : loop.find('.', s + 2);
    return dot == std::string::npos ? loop : loop.substr(0, dot + 1);
}

// Counts every node, and the nodes of each serial loop; stops at parallel loops' bodies.
class LoopSizes : public IRVisitor {
public:
    size_t nodes = 0;
    std::map<const For *, LoopInfo> loops;
    std::vector<const For *> top;      // the serial loops no loop encloses
    std::vector<const For *> in_order; // every serial loop, in the order of the body
    std::vector<const For *> parallel; // the parallel loops met, whose bodies were not walked

private:
    std::vector<const For *> open;
    ExtentBounds bounds;

    void visit(const LetStmt *op) override {
        nodes += weight(op);
        op->value.accept(this);
        ScopedBinding<Expr> bind(bounds.lets, op->name, op->value);
        op->body.accept(this);
    }

#define LOOM_COUNT(T)                                                                              \
    void visit(const T *op) override {                                                             \
        nodes += weight(op);                                                                       \
        IRVisitor::visit(op);                                                                      \
    }
    LOOM_FOR_EACH_IR_EXPR(LOOM_COUNT)
    // Every statement but For and LetStmt, counted below.
    LOOM_COUNT(AssertStmt)
    LOOM_COUNT(ProducerConsumer)
    LOOM_COUNT(Store)
    LOOM_COUNT(Provide)
    LOOM_COUNT(Allocate)
    LOOM_COUNT(Free)
    LOOM_COUNT(Realize)
    LOOM_COUNT(Block)
    LOOM_COUNT(IfThenElse)
    LOOM_COUNT(Evaluate)
#undef LOOM_COUNT

    void visit(const For *op) override {
        nodes++;
        if (op->for_type == ForType::Parallel) parallel.push_back(op);
        if (op->for_type != ForType::Serial) return; // its body is another function
        if (!open.empty()) {
            loops[open.back()].has_inner_loop = true;
            loops[open.back()].children.push_back(op);
        } else {
            top.push_back(op);
        }
        in_order.push_back(op);
        LoopInfo &info = loops[op];
        info.enclosing_loops = (int)open.size();
        const std::string stage = stage_of(op->name);
        for (const For *outer : open)
            info.in_own_stage = info.in_own_stage || stage_of(outer->name) == stage;
        info.parent = open.empty() ? nullptr : open.back();
        const std::optional<int64_t> most = bounds.upper(op->extent);
        info.constant_extent =
            is_const(op->extent) || (info.in_own_stage && most && *most <= kSmallTripCount);
        const size_t before = nodes;
        open.push_back(op);
        IRVisitor::visit(op);
        open.pop_back();
        loops[op].nodes = nodes - before + 1;
    }
};

} // namespace

std::set<const For *> loops_to_outline(const Stmt &body, unsigned compile_threads) {
    LoopSizes sizes;
    if (body.defined()) body.accept(&sizes);
    // Compile time goes to loops (vector code), not to the scalar lets around them.
    size_t loop_nodes = 0;
    for (const For *loop : sizes.top)
        loop_nodes += sizes.loops[loop].nodes;
    std::set<const For *> outlined;
    bool outlined_whole_stage = false;
    std::vector<const For *> pending(sizes.top.rbegin(), sizes.top.rend());
    while (!pending.empty()) {
        const For *loop = pending.back();
        pending.pop_back();
        const LoopInfo &info = sizes.loops[loop];
        // Inside another loop, only a nest over a region of variable size (rows of an image),
        // never one of constant extent (a reduction over a few taps or channels per pixel);
        // or a large loop over a variable extent that is the whole of its stage there (no loop
        // of its stage around it: matmul's sum over k for one tile, once per tile; not
        // conv_relu's sum over channels, inside its loops over the filter's taps: outlined,
        // its run time +27%).
        const bool whole_stage =
            info.nodes >= kLargeRowNodes && !info.constant_extent && !info.in_own_stage;
        const bool callable_often_enough = info.enclosing_loops == 0 ||
                                           (info.has_inner_loop && !info.constant_extent) ||
                                           whole_stage;
        if (info.nodes >= kMinNodes && callable_often_enough &&
            loop_nodes - info.nodes >= kMinNodes) {
            outlined.insert(loop);
            outlined_whole_stage = outlined_whole_stage || (whole_stage && !info.has_inner_loop);
            continue;
        }
        pending.insert(pending.end(), info.children.rbegin(), info.children.rend());
    }
    std::vector<const For *> rows;
    for (const For *loop : sizes.in_order) {
        const LoopInfo &info = sizes.loops[loop];
        if (info.enclosing_loops == 1 && !outlined.count(info.parent) && !info.has_inner_loop &&
            !info.constant_extent && info.nodes >= kMinNodes &&
            loop_nodes - info.nodes >= kMinNodes) {
            rows.push_back(loop);
        }
    }
    // Largest first; ties in the order of the body.
    std::stable_sort(rows.begin(), rows.end(), [&](const For *a, const For *b) {
        return sizes.loops[a].nodes > sizes.loops[b].nodes;
    });
    // Where a stage's whole loop is outlined (a tile's reduction), what stays around it sets
    // the tile up and writes it out once per tile: every row goes too (matmul's copy of B's
    // strip), leaving glue (marks_as_glue) that compiles in a fraction of its optimized time.
    for (const For *loop : rows) {
        if (!outlined_whole_stage && outlined.size() >= compile_threads &&
            sizes.loops[loop].nodes < kLargeRowNodes) {
            break;
        }
        outlined.insert(loop);
    }
    return outlined;
}

bool worth_outlining_with_copies(const For *loop) {
    LoopSizes sizes;
    loop->accept(&sizes);
    return sizes.nodes >= kLargeRowNodes;
}

bool outlining_helps(const Stmt &pipeline_body, unsigned compile_threads) {
    if (compile_threads < 2 || !pipeline_body.defined()) return false;
    // The nodes of each function the pipeline compiles to: the entry's, and each parallel
    // loop's task (LoopSizes stops at parallel loops, whose bodies are functions of their own),
    // each node walked once.
    LoopSizes entry;
    pipeline_body.accept(&entry);
    std::vector<size_t> tasks;
    std::vector<const For *> pending = entry.parallel;
    while (!pending.empty()) {
        const For *loop = pending.back();
        pending.pop_back();
        LoopSizes task;
        loop->body.accept(&task);
        tasks.push_back(task.nodes);
        pending.insert(pending.end(), task.parallel.begin(), task.parallel.end());
    }
    if (tasks.size() < compile_threads) return true;
    // Enough functions, but one of them holds most of the work (a pipeline's stages at root
    // in its entry beside small parallel loops): the other threads wait for it unless its
    // loops are outlined (22 fuzz pairs of seed 2026: JIT time -18%, run time unchanged).
    size_t total = entry.nodes, largest = entry.nodes;
    for (size_t t : tasks) {
        total += t;
        largest = std::max(largest, t);
    }
    // More than 4/3 of an even share: with two threads, more than two thirds of the nodes.
    return largest * 3 * compile_threads > total * 4;
}

} // namespace Internal
} // namespace loom
