#include "lower/InjectPrefetches.h"

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

class InjectPrefetches : public IRMutator {
    using IRMutator::visit;

    Stmt visit(const Block *op) override {
        const Call *placeholder = as_placeholder(op->first);
        if (!placeholder) return IRMutator::visit(op);
        Stmt rest = mutate(op->rest);
        Stmt fetch = prefetches(placeholder, rest);
        return fetch.defined() ? Block::make(fetch, rest) : rest;
    }

    // A lone placeholder (its Block's rest was simplified away): nothing to prefetch.
    Stmt visit(const Evaluate *op) override {
        return as_placeholder(op) ? Evaluate::make(0) : IRMutator::visit(op);
    }

    static Stmt prefetches(const Call *placeholder, const Stmt &rest) {
        const ParameterContents &image = *placeholder->param;
        const Variable *from = placeholder->args[0].as<Variable>();
        internal_assert(from) << "prefetch placeholder without its loop variable";
        const Expr &offset = placeholder->args[1];
        const auto strategy = (PrefetchBoundStrategy)*as_const_int(placeholder->args[2]);

        // The body as it runs `offset` iterations of `from` later. (Substituted, not a LetStmt
        // of the same name: a let of `from` in terms of itself would bind it recursively.)
        Stmt ahead = substitute(from->name, Variable::make(Int(32), from->name) + offset, rest);
        auto boxes = boxes_required(ahead);
        auto it = boxes.find(image.name);
        if (it == boxes.end()) return Stmt();
        Box box = it->second;
        Expr inside = const_true();
        for (size_t d = 0; d < box.size(); d++) {
            if (!box[d].is_bounded()) return Stmt();
            Expr lo = Variable::make(Int(32), image.name + ".min." + std::to_string(d));
            Expr hi = lo + Variable::make(Int(32), image.name + ".extent." + std::to_string(d)) - 1;
            if (strategy == PrefetchBoundStrategy::Clamp) {
                box[d] = Interval(max(box[d].min, lo), min(box[d].max, hi));
            } else if (strategy == PrefetchBoundStrategy::GuardWithIf) {
                inside = inside && box[d].min >= lo && box[d].max <= hi;
            }
        }

        // Innermost dimension: one prefetch per cache line from the box's first element;
        // outer dimensions: one row of those per coordinate.
        const int per_line = std::max(1, kCacheLineBytes / image.type.bytes());
        const std::string line = image.name + ".prefetch.line";
        std::vector<Expr> at(box.size());
        at[0] = box[0].min + Variable::make(Int(32), line) * per_line;
        for (size_t d = 1; d < box.size(); d++)
            at[d] = Variable::make(Int(32), image.name + ".prefetch." + std::to_string(d));
        Expr element = Call::make(image.type, image.name, at, Call::Image, nullptr, 0, nullptr,
                                  placeholder->param);
        Stmt s = Evaluate::make(
            Call::make_intrinsic(Int(32), Call::prefetch, {element}, Call::Intrinsic));
        Expr lines = (box[0].max - box[0].min + per_line) / per_line;
        s = For::make(line, 0, simplify(lines), ForType::Serial, DeviceAPI::Host, s);
        for (size_t d = 1; d < box.size(); d++) {
            s = For::make(image.name + ".prefetch." + std::to_string(d), simplify(box[d].min),
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
