#include "lower/InjectPrefetches.h"

#include <map>
#include <utility>

#include "dsl/Function.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Parameter.h"
#include "dsl/Schedule.h"
#include "dsl/Substitute.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

constexpr int kCacheLineBytes = 64;

const Call *as_placeholder(const Stmt &s) {
    const Evaluate *e = s.as<Evaluate>();
    const Call *c = e ? e->value.as<Call>() : nullptr;
    return c && c->call_type == Call::Intrinsic && c->name == "prefetch_placeholder" ? c : nullptr;
}

// What a placeholder prefetches: its name, element type, and the coordinates its buffer holds
// in each dimension, [min, min + extent).
struct PrefetchedBuffer {
    std::string name;
    Type type;
    std::vector<Expr> mins, extents;
};

class InjectPrefetches : public IRMutator {
    using IRMutator::visit;

    // The Funcs realized around the statement being visited, and the loop it is in.
    std::map<std::string, const Realize *> realized;
    std::string loop;

    Stmt visit(const Realize *op) override {
        const Realize *outer = std::exchange(realized[op->name], op);
        Stmt s = IRMutator::visit(op);
        realized[op->name] = outer;
        return s;
    }

    Stmt visit(const For *op) override {
        const std::string outer = std::exchange(loop, op->name);
        Stmt s = IRMutator::visit(op);
        loop = outer;
        return s;
    }

    Stmt visit(const Block *op) override {
        const Call *placeholder = as_placeholder(op->first);
        if (!placeholder) return IRMutator::visit(op);
        Stmt rest = mutate(op->rest);
        Stmt fetch = prefetches(placeholder, buffer_of(placeholder), rest);
        return fetch.defined() ? Block::make(fetch, rest) : rest;
    }

    PrefetchedBuffer buffer_of(const Call *placeholder) const {
        PrefetchedBuffer b;
        if (placeholder->param) {
            const ParameterContents &image = *placeholder->param;
            b.name = image.name;
            b.type = image.type;
            for (int d = 0; d < image.dimensions; d++) {
                b.mins.push_back(Variable::make(Int(32), image.name + ".min." + std::to_string(d)));
                b.extents.push_back(
                    Variable::make(Int(32), image.name + ".extent." + std::to_string(d)));
            }
            return b;
        }
        const FunctionContents &f = *placeholder->func;
        auto it = realized.find(f.name);
        user_assert(it != realized.end() && it->second)
            << "In prefetch of " << f.name << " at loop " << loop << ": " << f.name
            << " is not computed into a buffer outside that loop, so there is nothing yet to "
               "prefetch. Compute it at a loop outside "
            << loop << " (or compute_root()), or prefetch at a loop inside its compute level.";
        b.name = f.name;
        b.type = it->second->types[0];
        for (const Range &r : it->second->bounds) {
            b.mins.push_back(r.min);
            b.extents.push_back(r.extent);
        }
        return b;
    }

    // A lone placeholder (its Block's rest was simplified away): nothing to prefetch.
    Stmt visit(const Evaluate *op) override {
        return as_placeholder(op) ? Evaluate::make(0) : IRMutator::visit(op);
    }

    static Stmt prefetches(const Call *placeholder, const PrefetchedBuffer &buffer,
                           const Stmt &rest) {
        const Variable *from = placeholder->args[0].as<Variable>();
        internal_assert(from) << "prefetch placeholder without its loop variable";
        const Expr &offset = placeholder->args[1];
        const auto strategy = (PrefetchBoundStrategy)*as_const_int(placeholder->args[2]);

        // The body as it runs `offset` iterations of `from` later. (Substituted, not a LetStmt
        // of the same name: a let of `from` in terms of itself would bind it recursively.)
        Stmt ahead = substitute(from->name, Variable::make(Int(32), from->name) + offset, rest);
        auto boxes = boxes_required(ahead);
        auto it = boxes.find(buffer.name);
        if (it == boxes.end()) return Stmt();
        Box box = it->second;
        Expr inside = const_true();
        for (size_t d = 0; d < box.size(); d++) {
            if (!box[d].is_bounded()) return Stmt();
            Expr lo = buffer.mins[d], hi = lo + buffer.extents[d] - 1;
            if (strategy == PrefetchBoundStrategy::Clamp) {
                box[d] = Interval(max(box[d].min, lo), min(box[d].max, hi));
            } else if (strategy == PrefetchBoundStrategy::GuardWithIf) {
                inside = inside && box[d].min >= lo && box[d].max <= hi;
            }
        }

        // Innermost dimension: one prefetch per cache line from the box's first element;
        // outer dimensions: one row of those per coordinate.
        const int per_line = std::max(1, kCacheLineBytes / buffer.type.bytes());
        const std::string line = buffer.name + ".prefetch.line";
        std::vector<Expr> at(box.size());
        at[0] = box[0].min + Variable::make(Int(32), line) * per_line;
        for (size_t d = 1; d < box.size(); d++)
            at[d] = Variable::make(Int(32), buffer.name + ".prefetch." + std::to_string(d));
        // The placeholder holds the image (param) or the Func (func), the other null; a Func's
        // element is its first value's (a Tuple's others are buffers of their own).
        Expr element = Call::make(buffer.type, buffer.name, at,
                                  placeholder->param ? Call::Image : Call::Halide,
                                  placeholder->func, 0, nullptr, placeholder->param);
        Stmt s = Evaluate::make(
            Call::make_intrinsic(Int(32), Call::prefetch, {element}, Call::Intrinsic));
        Expr lines = (box[0].max - box[0].min + per_line) / per_line;
        s = For::make(line, 0, simplify(lines), ForType::Serial, DeviceAPI::Host, s);
        for (size_t d = 1; d < box.size(); d++) {
            s = For::make(buffer.name + ".prefetch." + std::to_string(d), simplify(box[d].min),
                          simplify(box[d].max - box[d].min + 1), ForType::Serial, DeviceAPI::Host,
                          s);
        }
        if (strategy == PrefetchBoundStrategy::GuardWithIf)
            s = IfThenElse::make(simplify(inside), s);
        return s;
    }
};

} // namespace

Stmt inject_prefetches(const Stmt &s) { return InjectPrefetches().mutate(s); }

} // namespace Internal
} // namespace loom
