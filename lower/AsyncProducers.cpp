#include "lower/AsyncProducers.h"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "lower/BufferAccessVisitor.h"
#include "lower/Memoize.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

const char *const kForkSuffix = ".fork";

Stmt semaphore_op(Call::IntrinsicOp op, const std::string &semaphore, int count) {
    return Evaluate::make(Call::make_intrinsic(
        Int(32), op, {StringImm::make(semaphore), Expr(count)}, Call::Intrinsic));
}

// A semaphore's memory (two int32, loom_semaphore_* in the runtime) around body, starting at
// zero. On the heap: a stack allocation passed to an outlined loop is copied for it
// (codegen/CodeGen_Loops.cpp), and a copy is not the semaphore.
Stmt with_semaphore(const std::string &name, const Stmt &body) {
    Stmt s = Block::make({semaphore_op(Call::semaphore_init, name, 0), body, Free::make(name)});
    return Allocate::make(name, Int(32), {Expr(2)}, s, MemoryType::Heap);
}

bool is_semaphore_init(const Stmt &s) {
    const Evaluate *e = s.as<Evaluate>();
    const Call *call = e ? e->value.as<Call>() : nullptr;
    return call && call->is_intrinsic(Call::semaphore_init);
}

// Whether s is the statement that computes f: its production, or the let around
// it that memoization binds (whose value already writes f's storage from the cache).
bool is_production_unit(const Stmt &s, const std::string &f) {
    if (const ProducerConsumer *pc = s.as<ProducerConsumer>())
        return pc->is_producer && pc->name == f;
    if (const LetStmt *let = s.as<LetStmt>()) return let->name == memoization_hit_name(f);
    return false;
}

bool computes(const Stmt &s, const std::string &f) {
    class Finder : public IRVisitor {
    public:
        Finder(const std::string &f) : f(f) {}
        bool found = false;

    private:
        const std::string &f;
        using IRVisitor::visit;
        void visit(const ProducerConsumer *op) override {
            found = found || (op->is_producer && op->name == f);
            if (!found) IRVisitor::visit(op);
        }
    } finder(f);
    s.accept(&finder);
    return finder.found;
}

// A task can't be forked inside a vectorized loop or a GPU loop: an error naming f and the loop.
void check_fork_allowed_in(const std::string &f, const For *loop) {
    user_assert(loop->for_type != ForType::Vectorized)
        << "Func " << f << " is async, but it is computed inside the vectorized loop " << loop->name
        << ", where its production can't run as a task of its own. Compute it "
        << "outside that loop (compute_at a loop around it), or drop async().";
    user_assert(loop->for_type != ForType::GPUBlock && loop->for_type != ForType::GPUThread &&
                loop->device_api == DeviceAPI::Host)
        << "Func " << f << " is async, but it is computed inside the GPU loop " << loop->name
        << ". Drop async(): a GPU kernel's blocks already run independently.";
}

// Whether one of f's productions in s is inside a parallel loop of s (see
// check_fork_allowed_in for the loops that are errors).
bool computed_in_parallel_loop(const Stmt &s, const std::string &f) {
    class Finder : public IRVisitor {
    public:
        Finder(const std::string &f) : f(f) {}
        bool found = false;

    private:
        const std::string &f;
        std::vector<const For *> loops;
        using IRVisitor::visit;
        void visit(const For *op) override {
            // Another async Func's fork runs its two tasks as if one after the other.
            if (as_fork_loop(op)) return IRVisitor::visit(op);
            loops.push_back(op);
            IRVisitor::visit(op);
            loops.pop_back();
        }
        void visit(const ProducerConsumer *op) override {
            if (op->is_producer && op->name == f) {
                for (const For *loop : loops) {
                    check_fork_allowed_in(f, loop);
                    found = found || loop->for_type == ForType::Parallel;
                }
            }
            IRVisitor::visit(op);
        }
    } finder(f);
    s.accept(&finder);
    return finder.found;
}

// Whether s reads, writes or hands on the memory of `buffer` (its Free aside).
bool uses_buffer(const Stmt &s, const std::string &buffer) {
    class Uses : public BufferAccessVisitor {
    public:
        Uses(const std::string &buffer) : buffer(buffer) {}
        bool found = false;

    private:
        const std::string &buffer;
        using BufferAccessVisitor::visit;
        void stored(const std::string &b) override { found = found || b == buffer; }
        void read(const std::string &b) override { found = found || b == buffer; }
        void effect() override {}
        // Semaphores and the memoization cache name their buffer by a string.
        void visit(const Call *op) override {
            int named = -1;
            if (op->is_intrinsic(Call::semaphore_init) ||
                op->is_intrinsic(Call::semaphore_release) ||
                op->is_intrinsic(Call::semaphore_acquire))
                named = 0;
            if (op->is_intrinsic(Call::memoize_lookup) || op->is_intrinsic(Call::memoize_store))
                named = 1;
            const StringImm *name = named >= 0 ? op->args[named].as<StringImm>() : nullptr;
            found = found || (name && name->value == buffer);
            BufferAccessVisitor::visit(op);
        }
    } uses(buffer);
    s.accept(&uses);
    return uses.found;
}

Stmt without_free(const Stmt &s, const std::string &buffer) {
    class RemoveFree : public IRMutator {
    public:
        RemoveFree(const std::string &buffer) : buffer(buffer) {}

    private:
        const std::string &buffer;
        using IRMutator::visit;
        Stmt visit(const Free *op) override { return op->name == buffer ? make_no_op() : op; }
    } remove(buffer);
    return remove.mutate(s);
}

// The producer task: the loops, lets and conditions that lead to f's productions, each
// production kept whole and followed by its release. Everything else goes: stores and calls
// of the consumer's work, other Funcs' productions, the consumer's frees, storage the
// productions do not use. A wait for another async Func's production on the way is kept, on a
// copy of its semaphore (`copies`): the consumer task keeps waiting on the original, and each
// wait takes a count.
class ProducerTask : public IRMutator {
public:
    ProducerTask(const std::string &f, const std::string &produced,
                 const std::set<std::string> &allocated_inside,
                 std::map<std::string, std::vector<std::string>> &copies)
        : f(f), produced(produced), allocated_inside(allocated_inside), copies(copies) {}

private:
    const std::string &f, &produced;
    const std::set<std::string> &allocated_inside;
    std::map<std::string, std::vector<std::string>> &copies;
    using IRMutator::visit;

    Stmt production(const Stmt &unit) const {
        Stmt release = semaphore_op(Call::semaphore_release, produced, 1);
        return ProducerConsumer::make(f, true, Block::make(unit, release));
    }

    Stmt visit(const LetStmt *op) override {
        if (is_production_unit(op, f)) return production(op);
        Stmt body = mutate(op->body);
        return is_no_op(body) ? body : LetStmt::make(op->name, op->value, body);
    }
    Stmt visit(const ProducerConsumer *op) override {
        if (is_production_unit(op, f)) return production(op);
        Stmt body = mutate(op->body);
        if (op->is_producer || is_no_op(body)) return body;
        return ProducerConsumer::make(op->name, false, body);
    }
    Stmt visit(const For *op) override {
        Stmt body = mutate(op->body);
        if (as_fork_loop(op)) {
            // Another async Func's fork: where f is computed on one side only, that side.
            const IfThenElse *tasks = body.as<IfThenElse>();
            if (!tasks) return body;
            if (is_no_op(tasks->then_case)) return tasks->else_case;
            if (!tasks->else_case.defined()) return tasks->then_case;
        }
        if (is_no_op(body)) return body;
        return For::make(op->name, op->min, op->extent, op->for_type, op->device_api, body);
    }
    Stmt visit(const Block *op) override {
        Stmt first = mutate(op->first), rest = mutate(op->rest);
        if (is_no_op(first)) return rest;
        if (is_no_op(rest)) return first;
        return Block::make(first, rest);
    }
    Stmt visit(const IfThenElse *op) override {
        Stmt then_case = mutate(op->then_case);
        Stmt else_case = op->else_case.defined() ? mutate(op->else_case) : Stmt();
        if (is_no_op(then_case) && is_no_op(else_case)) return make_no_op();
        return IfThenElse::make(op->condition, then_case, is_no_op(else_case) ? Stmt() : else_case);
    }
    // Storage stays where the production uses it (a Func stored here and computed inside f's
    // production, say), with its free at the end; the rest is the consumer's.
    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (!uses_buffer(body, op->name)) return body;
        return Allocate::make(op->name, op->type, op->extents,
                              Block::make(body, Free::make(op->name)), op->memory_type);
    }
    // A wait on the way for a production of an enclosing fork's producer (which comes first
    // when the tasks run one after the other) is kept, on a copy; a wait for a producer
    // forked in here (which comes after) goes: what this task reads of it is refused
    // (check_producer_reads), so the wait serves only the consumer.
    Stmt visit(const Evaluate *op) override {
        const Call *call = op->value.as<Call>();
        if (call && call->is_intrinsic(Call::semaphore_acquire) &&
            !allocated_inside.count(call->args[0].as<StringImm>()->value)) {
            const std::string &original = call->args[0].as<StringImm>()->value;
            std::vector<std::string> &made = copies[original];
            made.push_back(original + ".copy" + std::to_string(made.size()));
            return semaphore_op(Call::semaphore_acquire, made.back(), 1);
        }
        return make_no_op();
    }
    Stmt visit(const Store *) override { return make_no_op(); }
    Stmt visit(const Provide *) override { return make_no_op(); }
    Stmt visit(const Free *) override { return make_no_op(); }
    Stmt visit(const Realize *op) override {
        internal_error << "Realize of " << op->name << " after storage flattening";
        return op;
    }
    // Checks stay: the producer may run ahead of the consumer's, and a failing one stops the
    // pipeline before the production reads out of bounds.
    Stmt visit(const AssertStmt *op) override { return op; }
};

// The consumer task: everything but f's productions, each replaced by a wait for it.
class ConsumerTask : public IRMutator {
public:
    ConsumerTask(const std::string &f, const std::string &produced) : f(f), produced(produced) {}

private:
    const std::string &f, &produced;
    using IRMutator::visit;

    Stmt wait() const { return semaphore_op(Call::semaphore_acquire, produced, 1); }
    Stmt visit(const LetStmt *op) override {
        return is_production_unit(op, f) ? wait() : IRMutator::visit(op);
    }
    Stmt visit(const ProducerConsumer *op) override {
        return is_production_unit(op, f) ? wait() : IRMutator::visit(op);
    }
    // Storage only the production used goes with it.
    Stmt visit(const Allocate *op) override {
        Stmt body = mutate(op->body);
        if (uses_buffer(body, op->name))
            return Allocate::make(op->name, op->type, op->extents, body, op->memory_type);
        return without_free(body, op->name);
    }
};

// The buffers a statement reads and writes.
class Accesses : public BufferAccessVisitor {
public:
    std::set<std::string> reads, writes;

private:
    void stored(const std::string &buffer) override { writes.insert(buffer); }
    void read(const std::string &buffer) override { reads.insert(buffer); }
    void effect() override {}
};

// Every buffer allocated in s.
std::set<std::string> allocations_in(const Stmt &s) {
    class Finder : public IRVisitor {
    public:
        std::set<std::string> names;

    private:
        using IRVisitor::visit;
        void visit(const Allocate *op) override {
            names.insert(op->name);
            IRVisitor::visit(op);
        }
    } finder;
    s.accept(&finder);
    return finder.names;
}

// s as its statements in order, and the frees at its end split off.
void split_trailing_frees(const Stmt &s, std::vector<Stmt> &work, std::vector<Stmt> &frees) {
    std::function<void(const Stmt &)> flatten = [&](const Stmt &t) {
        if (const Block *b = t.as<Block>()) {
            flatten(b->first);
            flatten(b->rest);
        } else {
            work.push_back(t);
        }
    };
    flatten(s);
    while (!work.empty() && work.back().as<Free>()) {
        frees.insert(frees.begin(), work.back());
        work.pop_back();
    }
}

// Forks one async Func f's productions from the rest, where f is stored (see fork_point).
class ForkAsyncProducer : public IRMutator {
public:
    ForkAsyncProducer(const FunctionContents &f, const Environment &env,
                      std::map<std::string, std::vector<std::string>> &copies)
        : f(f), env(env), copies(copies) {}

private:
    const FunctionContents &f;
    const Environment &env;
    std::map<std::string, std::vector<std::string>> &copies;
    using IRMutator::visit;

    std::vector<const For *> loops; // around the statement being visited

    Stmt visit(const For *op) override {
        loops.push_back(op);
        Stmt s = IRMutator::visit(op);
        loops.pop_back();
        return s;
    }

    Stmt visit(const Allocate *op) override {
        if (op->name != f.buffer_name(0)) return IRMutator::visit(op);
        for (const For *loop : loops)
            check_fork_allowed_in(f.name, loop);
        return fork_point(op);
    }

    // The fork goes around the smallest statement inside f's storage that holds all its
    // productions, going down through storage (its frees left after the fork), lets, markers,
    // semaphores' starts, and into the side of another Func's fork that computes f. Funcs are
    // forked producers first, so a Func that reads f and is forked later finds f's fork around it,
    // and its producer task runs after f's where the tasks run one after the other.
    Stmt fork_point(const Stmt &s) {
        if (const Allocate *op = s.as<Allocate>()) {
            std::vector<Stmt> work, frees;
            split_trailing_frees(op->body, work, frees);
            std::vector<Stmt> body{fork_point(Block::make(work))};
            body.insert(body.end(), frees.begin(), frees.end());
            return Allocate::make(op->name, op->type, op->extents, Block::make(body),
                                  op->memory_type);
        }
        if (const LetStmt *op = s.as<LetStmt>())
            return LetStmt::make(op->name, op->value, fork_point(op->body));
        if (const Block *op = s.as<Block>(); op && is_semaphore_init(op->first))
            return Block::make(op->first, fork_point(op->rest));
        if (const ProducerConsumer *op = s.as<ProducerConsumer>();
            op && !is_production_unit(op, f.name))
            return ProducerConsumer::make(op->name, op->is_producer, fork_point(op->body));
        if (const For *op = s.as<For>()) {
            if (auto tasks = as_fork_loop(op)) {
                const bool in_producer = computes(tasks->producer, f.name);
                const bool in_consumer = computes(tasks->consumer, f.name);
                if (in_producer != in_consumer) {
                    Stmt p = in_producer ? fork_point(tasks->producer) : tasks->producer;
                    Stmt c = in_consumer ? fork_point(tasks->consumer) : tasks->consumer;
                    return For::make(op->name, op->min, op->extent, op->for_type, op->device_api,
                                     IfThenElse::make(op->body.as<IfThenElse>()->condition, p, c));
                }
            }
        }
        return fork(s);
    }

    Stmt fork(const Stmt &s) {
        if (!computes(s, f.name)) return s;
        check_loops(s);
        const std::string produced = f.name + ".produced";
        const std::set<std::string> allocated_inside = allocations_in(s);
        Stmt producer = ProducerTask(f.name, produced, allocated_inside, copies).mutate(s);
        Stmt consumer = ConsumerTask(f.name, produced).mutate(s);
        Accesses in_producer, in_consumer;
        producer.accept(&in_producer);
        consumer.accept(&in_consumer);
        if (reads_what_an_async_consumer_side_computes(in_producer, in_consumer)) return s;
        check_producer_reads(in_producer, in_consumer, consumer, allocated_inside);
        const std::string index = f.name + kForkSuffix;
        Stmt tasks = IfThenElse::make(int_var(index) == 0, producer, consumer);
        return with_semaphore(produced,
                              For::make(index, 0, 2, ForType::Parallel, DeviceAPI::Host, tasks));
    }

    // The tasks walk the same loops one iteration after another: no parallel or vectorized
    // loop may lie between the fork and a production (Loom refuses storage above a parallel
    // loop that computes the Func; a vectorized one is refused here), and no GPU loop in it.
    void check_loops(const Stmt &s) const {
        const For *gpu = find_gpu_loop(s);
        user_assert(!gpu) << "Func " << f.name << " is async, and the work between its storage "
                          << "and its productions runs the GPU loop " << (gpu ? gpu->name : "")
                          << ". Loom forks async producers on the CPU only: drop async(), or "
                             "compute the GPU stages outside "
                          << f.name << "'s storage.";
        internal_assert(!computed_in_parallel_loop(s, f.name))
            << "Func " << f.name << " is stored above a parallel loop that computes it";
    }

    static const For *find_gpu_loop(const Stmt &s) {
        class Finder : public IRVisitor {
        public:
            const For *gpu = nullptr;

        private:
            using IRVisitor::visit;
            void visit(const For *op) override {
                if (op->device_api != DeviceAPI::Host || op->for_type == ForType::GPUBlock ||
                    op->for_type == ForType::GPUThread)
                    gpu = gpu ? gpu : op;
                IRVisitor::visit(op);
            }
        } finder;
        s.accept(&finder);
        return finder.gpu;
    }

    // Whether f's productions read a Func that an earlier fork computes beside them (f computed
    // on the consumer side of an async Func's fork, reading what its producer side computes:
    // f0 async, stored outside f1's productions and computed inside them). The producer task
    // keeps only the work that leads to f's productions, so it would read that Func before the
    // other side computed it. Halide 14 runs both at once; Loom then computes f in order, on
    // that consumer side, which waits for the Func as it does for any async Func (fuzz seed
    // 8502 pair 4030: refused before).
    bool reads_what_an_async_consumer_side_computes(const Accesses &in_producer,
                                                    const Accesses &in_consumer) const {
        for (const std::string &buffer : in_producer.reads) {
            if (!in_consumer.writes.count(buffer)) continue;
            auto owner = env.functions.find(owner_of(buffer));
            if (owner != env.functions.end() && owner->second->schedule.async) return true;
        }
        return false;
    }

    // The producer runs ahead of the consumer: it must not read what the consumer writes (a
    // Func computed at the same loop as f, outside f, that f reads), and storage made inside
    // the fork can't serve both tasks (each would get its own).
    void check_producer_reads(const Accesses &in_producer, const Accesses &in_consumer,
                              const Stmt &consumer,
                              const std::set<std::string> &allocated_inside) const {
        for (const std::string &buffer : in_producer.reads) {
            const bool shared_storage =
                allocated_inside.count(buffer) && uses_buffer(consumer, buffer);
            if (!in_consumer.writes.count(buffer) && !shared_storage) continue;
            const std::string name = owner_of(buffer);
            user_assert(false)
                << "Func " << f.name << " is async, but its production reads " << name
                << ", which is computed beside it (at the same loop, outside " << f.name
                << ") by the work that runs at the same time as the production. Compute " << name
                << " inside " << f.name << " (" << name << ".compute_at(" << f.name
                << ", ...)), or before " << f.name << "'s storage (compute_root, say), or make "
                << name << " async too and store it outside " << f.name << ".";
        }
    }

    std::string owner_of(const std::string &buffer) const {
        for (const auto &[name, g] : env.functions) {
            for (int i = 0; i < g->outputs(); i++) {
                if (g->buffer_name(i) == buffer) return name;
            }
        }
        return buffer;
    }
};

// Each copy of a semaphore (made for a producer task that waits on it) is released with the
// original and lives beside it.
class ReleaseCopies : public IRMutator {
public:
    explicit ReleaseCopies(const std::map<std::string, std::vector<std::string>> &copies)
        : copies(copies) {}

private:
    const std::map<std::string, std::vector<std::string>> &copies;
    using IRMutator::visit;

    Stmt visit(const Allocate *op) override {
        Stmt s = IRMutator::visit(op);
        auto it = copies.find(op->name);
        if (it == copies.end()) return s;
        for (const std::string &copy : it->second)
            s = with_semaphore(copy, s);
        return s;
    }
    Stmt visit(const Evaluate *op) override {
        const Call *call = op->value.as<Call>();
        if (!call || !call->is_intrinsic(Call::semaphore_release)) return op;
        auto it = copies.find(call->args[0].as<StringImm>()->value);
        if (it == copies.end()) return op;
        std::vector<Stmt> releases{op};
        for (const std::string &copy : it->second)
            releases.push_back(semaphore_op(Call::semaphore_release, copy, 1));
        return Block::make(releases);
    }
};

} // namespace

std::optional<ForkTasks> as_fork_loop(const For *loop) {
    const std::string &name = loop->name;
    const size_t n = std::string(kForkSuffix).size();
    if (loop->for_type != ForType::Parallel || name.size() <= n ||
        name.compare(name.size() - n, n, kForkSuffix) != 0)
        return std::nullopt;
    const IfThenElse *tasks = loop->body.as<IfThenElse>();
    if (!tasks || !tasks->else_case.defined() || !is_const_zero(loop->min) ||
        !is_const(loop->extent, 2))
        return std::nullopt;
    class Semaphores : public IRVisitor {
    public:
        std::vector<std::string> names;

    private:
        using IRVisitor::visit;
        void visit(const Call *op) override {
            if (op->is_intrinsic(Call::semaphore_acquire) ||
                op->is_intrinsic(Call::semaphore_release)) {
                const std::string &s = op->args[0].as<StringImm>()->value;
                if (std::find(names.begin(), names.end(), s) == names.end()) names.push_back(s);
            }
            IRVisitor::visit(op);
        }
    } semaphores;
    loop->body.accept(&semaphores);
    return ForkTasks{tasks->then_case, tasks->else_case, semaphores.names};
}

Stmt fork_async_producers(const Stmt &s, const Environment &env) {
    std::map<std::string, std::vector<std::string>> copies;
    Stmt result = s;
    for (const std::string &name : env.order) {
        const FunctionContents &f = *env.functions.at(name);
        if (!f.schedule.async) continue;
        for (const auto &[holder, members] : env.fused_members) {
            const bool member = std::find(members.begin(), members.end(), name) != members.end();
            user_assert(holder != name && !member)
                << "Func " << name << " is async and computed together with "
                << (member ? holder : members[0])
                << " (compute_with): their shared loops can't be split into a producer task and "
                   "a consumer task. Drop one of the two directives.";
        }
        // Computed in order instead of forked: a Func whose folded storage (fold_storage)
        // holds only the rows the consumer reads now, which a producer running ahead would
        // overwrite; and a Func with update definitions stored outside the loop it is computed
        // in, whose productions may recompute points the production before computed (where
        // the sliding window does not apply), passing through its pure definition's values
        // while the consumer reads them.
        const LoopLevel &stored = f.schedule.store_level;
        const bool stored_apart = !stored.is_inlined() && !(stored == f.schedule.compute_level);
        if (!f.schedule.folds.empty() || (f.stages() > 1 && stored_apart)) continue;
        result = ForkAsyncProducer(f, env, copies).mutate(result);
    }
    if (!copies.empty()) result = ReleaseCopies(copies).mutate(result);
    return result;
}

} // namespace Internal
} // namespace loom
