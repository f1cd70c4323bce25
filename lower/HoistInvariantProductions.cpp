#include "lower/HoistInvariantProductions.h"

#include <set>
#include <string>
#include <vector>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Substitute.h"
#include "lower/BufferAccessVisitor.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

// The buffers a statement stores into and loads from, and whether it holds an effect.
class Accesses : public BufferAccessVisitor {
public:
    std::set<std::string> stored_buffers, loaded;
    bool has_effect = false;

private:
    void stored(const std::string &buffer) override { stored_buffers.insert(buffer); }
    void read(const std::string &buffer) override { loaded.insert(buffer); }
    void effect() override { has_effect = true; }
};

Accesses accesses_of(const Stmt &s) {
    Accesses a;
    s.accept(&a);
    return a;
}

void flatten_block(const Stmt &s, std::vector<Stmt> &out) {
    if (const Block *b = s.as<Block>()) {
        flatten_block(b->first, out);
        flatten_block(b->rest, out);
    } else if (s.defined()) {
        out.push_back(s);
    }
}

// A loop body taken apart around a production that may leave the loop: the lets above it
// (they stay in the loop), the consume markers above it (of productions that left the loop
// before: they move out with it, so that it stays inside them), the allocations holding the
// production's buffers (outermost first), the production, and the statements after it in the
// allocations' scope, without the allocations' Frees.
struct Candidate {
    Stmt loop_body; // owns the nodes below
    std::vector<const LetStmt *> lets;
    std::vector<std::string> consumed;
    std::vector<const Allocate *> allocations;
    Stmt production;
    std::vector<Stmt> after;
};

// Peels `body` into a Candidate, or returns false where it does not have that shape.
bool take_apart(Stmt body, Candidate &c) {
    c.loop_body = body;
    for (;;) {
        if (const LetStmt *l = body.as<LetStmt>()) {
            c.lets.push_back(l);
            body = l->body;
        } else if (const ProducerConsumer *pc = body.as<ProducerConsumer>();
                   pc && !pc->is_producer) {
            c.consumed.push_back(pc->name);
            body = pc->body;
        } else {
            break;
        }
    }
    std::set<std::string> allocated;
    for (;;) {
        const Allocate *a = body.as<Allocate>();
        if (!a) return false;
        c.allocations.push_back(a);
        allocated.insert(a->name);
        std::vector<Stmt> stmts;
        flatten_block(a->body, stmts);
        // The allocation's scope ends with its Free, which moves out of the loop with it.
        std::vector<Stmt> kept;
        for (const Stmt &st : stmts) {
            const Free *f = st.as<Free>();
            if (!(f && allocated.count(f->name))) kept.push_back(st);
        }
        if (kept.size() == 1 && kept[0].as<Allocate>()) {
            body = kept[0]; // a Tuple's next buffer
            continue;
        }
        if (kept.empty()) return false;
        const ProducerConsumer *pc = kept[0].as<ProducerConsumer>();
        if (!pc || !pc->is_producer) return false;
        c.production = kept[0];
        c.after.assign(kept.begin() + 1, kept.end());
        return true;
    }
}

// Whether the production `c` took from the body of `loop` may run once before the loop.
bool invariant_in(const For *loop, const Candidate &c) {
    if (loop->for_type != ForType::Serial && loop->for_type != ForType::Unrolled) return false;
    if (!can_prove(loop->extent >= 1)) return false;
    // Names bound inside the loop: the production and the extents may use none of them.
    std::vector<std::string> bound{loop->name};
    for (const LetStmt *l : c.lets) bound.push_back(l->name);
    for (const std::string &n : bound) {
        if (stmt_uses_var(c.production, n)) return false;
        for (const Allocate *a : c.allocations) {
            for (const Expr &e : a->extents)
                if (expr_uses_var(e, n)) return false;
        }
    }
    const Accesses produced = accesses_of(c.production);
    if (produced.has_effect) return false;
    std::set<std::string> allocated;
    for (const Allocate *a : c.allocations) allocated.insert(a->name);
    // It fills only its own buffers (the consumers' buffers are the rest's to write).
    for (const std::string &b : produced.stored_buffers) {
        if (!allocated.count(b)) return false;
    }
    // What it reads stays the same across the iterations.
    for (const Stmt &st : c.after) {
        for (const std::string &b : accesses_of(st).stored_buffers) {
            if (produced.loaded.count(b) || allocated.count(b)) return false;
        }
    }
    return true;
}

// `loop` with the body left once the production of `c` is taken out.
Stmt without_production(const For *loop, const Candidate &c) {
    // Nothing after the production (its consumer's loops were found empty): the loop is left
    // with nothing to do.
    if (c.after.empty()) return make_no_op();
    Stmt body = Block::make(c.after);
    for (auto it = c.lets.rbegin(); it != c.lets.rend(); ++it)
        body = LetStmt::make((*it)->name, (*it)->value, body);
    return For::make(loop->name, loop->min, loop->extent, loop->for_type, loop->device_api, body);
}

// The production of `c` computed before `loop`, inside its allocations and consume markers.
Stmt with_production_before(const Candidate &c, const Stmt &loop) {
    Stmt result = Block::make(c.production, loop);
    for (auto it = c.allocations.rbegin(); it != c.allocations.rend(); ++it) {
        result = Block::make(result, Free::make((*it)->name));
        result =
            Allocate::make((*it)->name, (*it)->type, (*it)->extents, result, (*it)->memory_type);
    }
    for (auto it = c.consumed.rbegin(); it != c.consumed.rend(); ++it)
        result = ProducerConsumer::make(*it, false, result);
    return result;
}

class HoistInvariantProductions : public IRMutator {
    using IRMutator::visit;

    // Inner loops first: a production that left an inner loop is at the top of this loop's
    // body, and may leave this one too. Productions leave one after another, the first
    // outermost (a second one sits inside the first's consume marker).
    Stmt visit(const For *op) override {
        Stmt s = IRMutator::visit(op);
        std::vector<Candidate> taken;
        while (const For *loop = s.as<For>()) {
            Candidate c;
            if (!take_apart(loop->body, c) || !invariant_in(loop, c)) break;
            s = without_production(loop, c);
            taken.push_back(std::move(c));
        }
        for (auto it = taken.rbegin(); it != taken.rend(); ++it) s = with_production_before(*it, s);
        return s;
    }
};

}  // namespace

Stmt hoist_invariant_productions(const Stmt &s) { return HoistInvariantProductions().mutate(s); }

}  // namespace Internal
}  // namespace loom
