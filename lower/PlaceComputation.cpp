#include "lower/PlaceComputation.h"

#include <cstdlib>
#include <set>
#include <utility>
#include <vector>

#include "dsl/Error.h"
#include "dsl/IRVisitor.h"
#include "dsl/Var.h"

namespace loom {
namespace Internal {

namespace {

// "g.s0.y" -> "g.y", "g.s1.x.xi" -> "g.update(0).x.xi": a loop as the user names it.
std::string display_loop(const std::string &loop) {
    size_t s = loop.find(".s");
    if (s == std::string::npos) return loop;
    size_t dot = loop.find('.', s + 2);
    if (dot == std::string::npos) return loop;
    int stage = std::atoi(loop.substr(s + 2, dot - s - 2).c_str());
    std::string func = loop.substr(0, s), rest = loop.substr(dot + 1);
    return stage == 0 ? func + "." + rest
                      : func + ".update(" + std::to_string(stage - 1) + ")." + rest;
}

// The loops around every read of a Func in the loop nest built so far (all its consumers
// are already placed): exactly the levels it may be computed at, outermost first.
class CommonLoops : public IRVisitor {
public:
    /** outermost_levels: a consumer's production counts as its Var::outermost() level
     * ("g.s0.__outermost"), around its loops (where ScheduleFunctions puts that level). */
    explicit CommonLoops(const std::string &name, bool outermost_levels = false,
                         const Environment *env = nullptr)
        : name(name), outermost_levels(outermost_levels), env(env) {}
    std::vector<std::string> common;
    std::set<std::string> vectorized; // the vectorized loops among them
    bool any = false;
    // With an environment, for each async Func whose productions read the Func: how many
    // loops lie around its storage, and around its production (see innermost_use).
    std::vector<std::pair<size_t, size_t>> async_reader_depths;

private:
    const std::string &name;
    const bool outermost_levels;
    const Environment *env;
    std::vector<std::string> stack;
    // The async Funcs whose storage is open, each with the loops around it and around the
    // production the walk is in (if it is in one).
    struct AsyncStorage {
        std::string func;
        size_t loops;
        std::vector<size_t> production_loops;
    };
    std::vector<AsyncStorage> async_storage;
    void visit(const Realize *op) override {
        const bool async =
            env && env->functions.count(op->name) && env->functions.at(op->name)->schedule.async;
        if (async) async_storage.push_back(AsyncStorage{op->name, stack.size(), {}});
        IRVisitor::visit(op);
        if (async) async_storage.pop_back();
    }
    void visit(const For *op) override {
        stack.push_back(op->name);
        if (op->for_type == ForType::Vectorized) vectorized.insert(op->name);
        IRVisitor::visit(op);
        stack.pop_back();
    }
    void visit(const ProducerConsumer *op) override {
        // An index, not a pointer: a Realize inside this production grows async_storage.
        size_t storage = async_storage.size();
        for (size_t i = 0; i < async_storage.size(); i++)
            if (op->is_producer && async_storage[i].func == op->name) storage = i;
        const bool in_storage = storage < async_storage.size();
        if (in_storage) async_storage[storage].production_loops.push_back(stack.size());
        const bool level = outermost_levels && op->is_producer;
        if (level) stack.push_back(op->name + ".s0." + Var::outermost().name());
        IRVisitor::visit(op);
        if (level) stack.pop_back();
        if (in_storage) async_storage[storage].production_loops.pop_back();
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type != Call::Halide || op->name != name) return;
        for (const AsyncStorage &a : async_storage)
            if (!a.production_loops.empty())
                async_reader_depths.push_back({a.loops, a.production_loops.back()});
        if (!any) {
            common = stack;
            any = true;
            return;
        }
        size_t n = 0;
        while (n < common.size() && n < stack.size() && common[n] == stack[n])
            n++;
        common.resize(n);
    }
};

// Storage outside a parallel loop with the computation inside it would have threads write
// the same buffer at once.
class CheckNoParallelBetween : public IRVisitor {
public:
    explicit CheckNoParallelBetween(const std::string &name) : name(name) {}
    std::string parallel_loop;

private:
    const std::string &name;
    bool in_storage = false;
    std::vector<std::string> open_parallel;
    void visit(const Realize *op) override {
        bool mine = op->name == name;
        bool was = in_storage;
        std::vector<std::string> saved = open_parallel;
        if (mine) {
            in_storage = true;
            open_parallel.clear();
        }
        IRVisitor::visit(op);
        in_storage = was;
        open_parallel = saved;
    }
    void visit(const For *op) override {
        bool par = in_storage && op->for_type == ForType::Parallel;
        if (par) open_parallel.push_back(op->name);
        IRVisitor::visit(op);
        if (par) open_parallel.pop_back();
    }
    void visit(const ProducerConsumer *op) override {
        if (op->is_producer && op->name == name && in_storage && !open_parallel.empty() &&
            parallel_loop.empty()) {
            parallel_loop = open_parallel.back();
        }
        IRVisitor::visit(op);
    }
};

// The vectorized loop a Func's production lies in, if any (an extern stage's call takes scalar
// regions: it can't be made once per lane).
class VectorizedLoopAround : public IRVisitor {
public:
    explicit VectorizedLoopAround(const std::string &name) : name(name) {}
    std::string loop;

private:
    const std::string &name;
    std::vector<std::string> open_vectorized;
    void visit(const For *op) override {
        const bool vectorized = op->for_type == ForType::Vectorized;
        if (vectorized) open_vectorized.push_back(op->name);
        IRVisitor::visit(op);
        if (vectorized) open_vectorized.pop_back();
    }
    void visit(const ProducerConsumer *op) override {
        if (op->is_producer && op->name == name && !open_vectorized.empty() && loop.empty())
            loop = open_vectorized.front();
        IRVisitor::visit(op);
    }
};

// Every read of a Func must be inside its storage and after its production: a compute level
// that is not around every use (say, in the pure stage's loop of a consumer whose update
// reads it) leaves reads outside.
class CheckUsesInside : public IRVisitor {
public:
    explicit CheckUsesInside(const std::string &name) : name(name) {}
    bool outside = false;

private:
    const std::string &name;
    int inside = 0;
    void visit(const ProducerConsumer *op) override {
        bool mine = op->name == name;
        inside += mine;
        IRVisitor::visit(op);
        inside -= mine;
    }
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (op->call_type == Call::Halide && op->name == name && !inside) outside = true;
    }
};

} // namespace

bool is_called(const std::string &name, const Stmt &nest) {
    CommonLoops uses(name);
    if (nest.defined()) nest.accept(&uses);
    return uses.any;
}

std::string legal_levels(const FunctionPtr &f, const Stmt &nest) {
    CommonLoops c(f->name);
    if (nest.defined()) nest.accept(&c);
    std::string s = "root";
    for (const std::string &loop : c.common)
        s += ", " + display_loop(loop);
    return s;
}

LoopLevel innermost_use(const FunctionPtr &f, const Stmt &nest, const Environment &env) {
    CommonLoops c(f->name, f->is_extern(), &env);
    if (nest.defined()) nest.accept(&c);
    // An async Func's productions run ahead of the work beside them, from its storage down:
    // a Func they read is computed inside them or before that storage, never beside them
    // (fuzz seed 8901 pipeline 724: an extern stage read by an async Func stored at the root
    // was put at its consumer's outermost level, which the schedule then refused).
    for (bool moved = true; moved;) {
        moved = false;
        for (const auto &[storage, production] : c.async_reader_depths) {
            if (c.common.size() > storage && c.common.size() <= production) {
                c.common.resize(storage);
                moved = true;
            }
        }
    }
    // An extern stage's call takes scalars (its buffers' regions): it goes around the
    // outermost vectorized loop, as Halide 14 puts it (fuzz seed 7005 pair 104: called inside
    // one, with vector coordinates, it crashed); where that is a consumer's outermost loop, at
    // the consumer's Var::outermost(), inside its production, as Halide's __outermost loop
    // (fuzz seed 8602 pair 995: at the root instead, it read a Func computed at that level).
    if (f->is_extern()) {
        for (size_t i = 0; i < c.common.size(); i++) {
            if (c.vectorized.count(c.common[i])) {
                c.common.resize(i);
                break;
            }
        }
    }
    if (c.common.empty()) return LoopLevel::root();
    const std::string &loop = c.common.back();
    size_t s = loop.find(".s"), dot = loop.find('.', s + 2);
    return LoopLevel(loop.substr(0, s), loop.substr(dot + 1),
                     std::atoi(loop.substr(s + 2, dot - s - 2).c_str()));
}

LoopLevel resolve_level(const LoopLevel &level, const FunctionPtr &of, const Environment &env,
                        const std::function<bool(const FunctionPtr &, int)> &stage_reads,
                        const char *directive, const Stmt &nest) {
    if (level.is_root() || level.is_inlined()) return level;
    auto it = env.functions.find(level.func());
    user_assert(it != env.functions.end())
        << "In " << directive << " of Func " << of->name << ": " << level.func()
        << " is not a Func of this pipeline. Legal locations are: " << legal_levels(of, nest)
        << ".";
    const FunctionPtr &g = it->second;
    int stage = level.stage_index();
    if (stage < 0) {
        stage = 0;
        for (int k = 0; k < g->stages(); k++) {
            if (stage_reads(g, k)) {
                stage = k;
                break;
            }
        }
    }
    user_assert(stage < g->stages()) << "In " << directive << " of Func " << of->name << ": "
                                     << g->name << " has no stage " << stage;
    if (level.var() == Var::outermost().name()) return LoopLevel(g->name, level.var(), stage);
    const std::vector<Dim> &dims = g->stage(stage).schedule.dims;
    std::string found;
    for (const Dim &d : dims) {
        if (loop_name_matches(d.var, level.var())) {
            user_assert(found.empty()) << "In " << directive << " of Func " << of->name << ": "
                                       << level.var() << " is ambiguous in " << g->name
                                       << "; it names both " << found << " and " << d.var;
            found = d.var;
        }
    }
    user_assert(!found.empty()) << "In " << directive << " of Func " << of->name << ": "
                                << level.var() << " is not a loop of " << g->name
                                << ". Its loops, outermost first, are: "
                                << loops_outermost_first(dims)
                                << ". Legal locations are: " << legal_levels(of, nest) << ".";
    return LoopLevel(g->name, found, stage);
}

void check_placement(const FunctionPtr &f, const LoopLevel &compute, const LoopLevel &store,
                     const Stmt &nest, const Stmt &nest_before) {
    CheckNoParallelBetween parallel(f->name);
    nest.accept(&parallel);
    user_assert(parallel.parallel_loop.empty())
        << "Func " << f->name << " is stored at " << store.to_string()
        << ", outside the parallel loop " << parallel.parallel_loop
        << ", but computed inside it at " << compute.to_string()
        << ": parallel iterations would write the same storage at once. Store it inside the "
        << "parallel loop (store_at the same loop or an inner one), or make the loop serial.";
    if (f->is_extern()) {
        VectorizedLoopAround vector(f->name);
        nest.accept(&vector);
        if (!vector.loop.empty()) {
            // The legal levels outside the vectorized loop.
            std::string outside = legal_levels(f, nest_before);
            const size_t at = outside.find(", " + display_loop(vector.loop));
            if (at != std::string::npos) outside.resize(at);
            user_error << "Func " << f->name << " is an extern stage computed at "
                       << compute.to_string() << ", inside the vectorized loop "
                       << display_loop(vector.loop)
                       << ": its function is called once per region, never once per vector "
                       << "lane. Compute it at a loop outside the vectorized one: " << outside
                       << ".";
        }
    }
    CheckUsesInside check(f->name);
    nest.accept(&check);
    user_assert(!check.outside)
        << "Func " << f->name << " is computed at " << compute.to_string()
        << ", but it is also read outside that loop (by another stage or Func). Compute it at "
        << "a loop around every use; legal locations are: " << legal_levels(f, nest_before) << ".";
}

} // namespace Internal
} // namespace loom
