#include "lower/GuardedSplitTails.h"

#include <utility>

#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace {

// Replaces `if (guard) s` by s, for the iterations of a partitioned loop where it holds. What
// the guard said stays with the split's old variable: its let becomes
// promise_clamped(value, value, highest). Bounds inference and the image checks bound the
// points by it; from the loops alone they would add the largest start of the loop around to the
// largest count, taken at different iterations of the loops further out (a Func computed per
// iteration of its consumer: up to a factor past the region, and an input it reads asked for
// that much more). Below, the value is its own bound: the split never takes var under its
// loop's min (outer and inner start at 0), and a clamp from below, max(min + outer * factor,
// min), would keep a block's region max - min from cancelling (a vectorized producer per block
// would then be bounded as if shifted inwards a whole vector and read before the input).
class RemoveGuard : public IRMutator {
public:
    explicit RemoveGuard(const SplitGuard &split) : split(split) {}
    using IRMutator::mutate;

private:
    const SplitGuard &split;
    Stmt visit(const IfThenElse *op) override {
        if (op->condition.same_as(split.guard) && !op->else_case.defined())
            return mutate(op->then_case);
        return IRMutator::visit(op);
    }
    Stmt visit(const LetStmt *op) override {
        if (split.var.empty() || op->name != split.var) return IRMutator::visit(op);
        Expr promised = Call::make_intrinsic(op->value.type(), Call::promise_clamped,
                                             {op->value, op->value, split.highest});
        return LetStmt::make(op->name, promised, mutate(op->body));
    }
};

// In the tail of a partitioned GuardWithIf split, the loop over the split's inner variable runs
// only the iterations the guard lets through, serially and in the same order: the inner loop
// starts at 0, and the guard `outer * factor + inner <= old extent - 1` holds for the first
// `old extent - outer * factor` values of inner (`remaining`). The tail runs once per entry of the
// split's outer loop at most; kept unrolled it would be `factor` guarded copies of the body for
// the compiler to optimize (half of a register-blocked matrix product's code).
class ShrinkTailLoop : public IRMutator {
public:
    ShrinkTailLoop(std::string loop, Expr remaining, const SplitGuard &split)
        : loop(std::move(loop)), remaining(std::move(remaining)), split(split) {}
    using IRMutator::mutate;

private:
    // Held by value: the caller builds them in the expression that runs the mutator.
    const std::string loop;
    const Expr remaining;
    const SplitGuard &split;
    Stmt visit(const For *op) override {
        if (op->name != loop ||
            (op->for_type != ForType::Serial && op->for_type != ForType::Unrolled)) {
            return IRMutator::visit(op);
        }
        return For::make(op->name, op->min, min(op->extent, remaining), ForType::Serial,
                         op->device_api, RemoveGuard(split).mutate(op->body));
    }
};

// A block of the tail of a GuardWithIf split whose inner loop is unrolled: the inner loop's
// iterations [first, first + count), unrolled, unguarded (the guard holds for all of them: they
// are below `remaining`). The iteration is also promised at most remaining - 1 (as RemoveGuard
// promises the split's variable), so that bounds inference bounds it by the iterations left
// as it bounds the serial tail's by its extent; specialized_tail writes `first` so that its
// intervals stay inside them too. (A min instead of the promise would stay in the coordinates
// and keep lower/PromoteAccumulators from seeing a tile's points.)
class UnrollTailBlock : public IRMutator {
public:
    UnrollTailBlock(std::string loop, Expr first, int count, Expr remaining,
                    const SplitGuard &split)
        : loop(std::move(loop)), first(std::move(first)), count(count),
          remaining(std::move(remaining)), split(split) {}
    using IRMutator::mutate;

private:
    const std::string loop;
    const Expr first;
    const int count;
    const Expr remaining;
    const SplitGuard &split;
    Stmt visit(const For *op) override {
        if (op->name != loop || op->for_type != ForType::Unrolled) return IRMutator::visit(op);
        const Expr i = Variable::make(Int(32), op->name);
        const Expr iteration =
            Call::make_intrinsic(Int(32), Call::promise_clamped, {i, i, op->min + remaining - 1});
        return For::make(op->name, op->min + first, count, ForType::Unrolled, op->device_api,
                         substitute(op->name, iteration, RemoveGuard(split).mutate(op->body)));
    }
};

// The most iterations an unrolled inner loop of a GuardWithIf split may have for its split's
// tail to be specialized by the iterations left (specialized_tail): the copies of the body it
// makes grow as the factor's square.
constexpr int kMaxSpecializedTailFactor = 8;

// Replaces each specialized tail (specialized_tail's IfThenElse, known by its condition) by its
// serial loop. In the tail of a split further out, which runs once per run of the stage at
// most (an image's last columns that do not fill a tile), the blocks would be copied for
// little gain: a matrix product's columns of tiles split by 16 and vectorized are partitioned
// into 4 copies there (lower/PartitionLoops), and the blocks in each took its compilation from
// 1.0 to 2.7 s.
class SerialTails : public IRMutator {
public:
    explicit SerialTails(const std::vector<Expr> &conditions) : conditions(conditions) {}
    using IRMutator::mutate;

private:
    const std::vector<Expr> &conditions;
    Stmt visit(const IfThenElse *op) override {
        for (const Expr &c : conditions) {
            if (op->condition.same_as(c)) return mutate(op->else_case);
        }
        return IRMutator::visit(op);
    }
};

} // namespace

Stmt remove_guard(const SplitGuard &split, const Stmt &s) { return RemoveGuard(split).mutate(s); }

Stmt shrink_tail_loop(const Stmt &body, const std::string &inner_loop, const Expr &remaining,
                      const SplitGuard &split) {
    return ShrinkTailLoop(inner_loop, remaining, split).mutate(body);
}

Stmt serial_tails(const std::vector<Expr> &conditions, const Stmt &s) {
    return conditions.empty() ? s : SerialTails(conditions).mutate(s);
}

// Whether the tail of GuardWithIf split `split` is specialized on the iterations left of its
// inner loop: that loop is unrolled by a constant factor of at most kMaxSpecializedTailFactor,
// and a serial loop runs between it and the split's outer loop (an update's RVars around a
// register tile). The tail then keeps the tile unrolled, its accumulators in registers across
// the loops around it (lower/PromoteAccumulators); as a serial loop inside those loops it
// accumulates through memory. A 3x3 convolution layer's 6-row tile over 64 pixels (10 tiles
// and 4 rows left) spent a sixth of its time in the 4 rows so (AVX2).
bool specializes_tail(const Split &split, const std::vector<Dim> &dims) {
    const int64_t *factor = as_const_int(split.factor);
    if (!factor || *factor < 2 || *factor > kMaxSpecializedTailFactor) return false;
    bool inside = false, serial_between = false;
    for (const Dim &d : dims) { // innermost first
        if (d.var == split.inner) {
            if (d.for_type != ForType::Unrolled) return false;
            inside = true;
        } else if (d.var == split.outer) {
            return inside && serial_between;
        } else if (inside && d.for_type == ForType::Serial) {
            serial_between = true;
        }
    }
    return false;
}

// The tail `body` of a split specializes_tail allows, `remaining` (< factor) iterations of its
// inner loop left: in blocks of 4, 2 and 1 iterations by the bits of `remaining`, each a copy
// of the tail's loops with the inner loop unrolled (UnrollTailBlock) at the iterations before
// it left to the larger blocks. Each point is computed whole in one block, in the loops' order.
// Any other count (none arises: the tail is the last iteration of the outer loop, left with old
// extent % factor iterations) runs the serial loop of ShrinkTailLoop.
Stmt specialized_tail(const Stmt &body, const std::string &inner_loop, const Expr &remaining,
                      const SplitGuard &split, int factor) {
    std::vector<Stmt> blocks;
    for (int count = kMaxSpecializedTailFactor / 2; count >= 1; count /= 2) {
        if (count >= factor) continue;
        // Where the block runs, the smaller blocks after it take remaining % count iterations:
        // it starts count before them. (So written, its iterations are within
        // [0, remaining - 1] in interval arithmetic too, also where the block does not run:
        // bounds inference takes every block's points, and one iteration is a single point,
        // which a promise does not narrow.)
        const Expr first = max(remaining - remaining % count - count, 0);
        blocks.push_back(IfThenElse::make(
            remaining / count % 2 == 1,
            UnrollTailBlock(inner_loop, first, count, remaining, split).mutate(body)));
    }
    return IfThenElse::make(remaining < factor && remaining >= 0, Block::make(blocks),
                            shrink_tail_loop(body, inner_loop, remaining, split));
}

// Whether a split's inner variable is a loop of the stage: no later split divides, fuses or
// renames it (the guard counts its values, which a loop over a part of it would not).
bool inner_is_a_loop(const Split &split, const std::vector<Split> &splits) {
    for (const Split &s : splits) {
        if (&s != &split &&
            (s.old_var == split.inner || s.inner == split.inner || s.outer == split.inner)) {
            return false;
        }
    }
    return true;
}

} // namespace Internal
} // namespace loom
