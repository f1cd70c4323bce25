#include "lower/InjectTracing.h"

#include <map>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Undef.h"
#include "lower/Bounds.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {

namespace {

// runtime/loom_runtime.h's loom_trace_event_code_t.
enum TraceEvent {
    load = 0,
    store = 1,
    begin_realization = 2,
    end_realization = 3,
    produce = 4,
    end_produce = 5,
    consume = 6,
    end_consume = 7,
    begin_pipeline = 8,
    end_pipeline = 9,
    tag = 10
};

const char *const kPipelineId = "pipeline.trace_id";
const char *const kTypeAndDimTag = "func_type_and_dim:";

std::string trace_id(const std::string &func) { return func + ".trace_id"; }

// A Call::trace (dsl/IR.h): events with a value (loads and stores) return it; the others return
// the event's id.
Expr trace_event(const std::string &func, TraceEvent event, const Expr &parent_id, int value_index,
                 const Expr &tag_text, const Expr &value, const std::vector<Expr> &coordinates) {
    std::vector<Expr> args{Expr(func),        Expr((int)event), parent_id,
                           Expr(value_index), tag_text,         value.defined() ? value : Expr(0)};
    args.insert(args.end(), coordinates.begin(), coordinates.end());
    Type t = value.defined() ? value.type() : Int(32);
    return Call::make_intrinsic(t, Call::trace, std::move(args), Call::Intrinsic);
}

Expr event_without_value(const std::string &func, TraceEvent event, const Expr &parent_id,
                         const std::vector<Expr> &coordinates = {},
                         const Expr &tag_text = Expr("")) {
    return trace_event(func, event, parent_id, 0, tag_text, Expr(), coordinates);
}

// Which Funcs a pipeline traces and how: their own directives, or the target's Trace* features.
class TraceSelection {
public:
    TraceSelection(const Environment &env, const Target &t)
        : env(env), all_loads(t.has_feature(Target::TraceLoads)),
          all_stores(t.has_feature(Target::TraceStores)),
          // As Halide: tracing every load or store traces every realization too.
          all_realizations(t.features_any_of(
              {Target::TraceLoads, Target::TraceStores, Target::TraceRealizations})) {}

    bool loads(const FunctionContents &f) const { return all_loads || f.trace.loads; }
    /** An input image's loads (an ImageParam's trace_loads; Halide's `<name>_im` Func). */
    bool image_loads(const ParameterContents *image) const {
        return all_loads || (image && image->trace_loads);
    }
    bool stores(const FunctionContents &f) const { return all_stores || f.trace.stores; }
    bool realizations(const FunctionContents &f) const {
        return all_realizations || f.trace.realizations;
    }
    const FunctionContents *func(const std::string &name) const {
        auto it = env.functions.find(name);
        return it == env.functions.end() ? nullptr : it->second.get();
    }

private:
    const Environment &env;
    const bool all_loads, all_stores, all_realizations;
};

// Before bounds inference: the load and store events, and which Funcs have events.
class InjectElementEvents : public IRMutator {
public:
    explicit InjectElementEvents(const TraceSelection &selection) : selection(selection) {}

    // The traced Funcs with the types of their values (Tuple elements), and their user tags in
    // the order the Funcs were met.
    std::map<std::string, std::vector<Type>> touched;
    // The traced input images, in the order they were met (they come before every Func).
    std::vector<std::string> touched_images;
    std::vector<std::pair<std::string, std::vector<std::string>>> user_tags;
    bool changed = false;

    void add_tags(const FunctionContents &f) {
        if (f.trace.tags.empty() || tagged.count(f.name)) return;
        tagged.insert(f.name);
        user_tags.emplace_back(f.name, f.trace.tags);
    }
    void touch(const FunctionContents &f) {
        touched[f.name] = f.output_types;
        changed = true;
    }

private:
    const TraceSelection &selection;
    std::set<std::string> tagged;

    using IRMutator::visit;

    Expr visit(const Call *op) override {
        // An extern stage's input is described by calls at its corners, which are not loads:
        // the function reads the buffer itself, untraced, as in Halide 14 (traced, the corners
        // became calls to a buffer named after the event: fuzz seed 8201 pair 338).
        if (op->is_intrinsic(Call::extern_input)) return op;
        Expr e = IRMutator::visit(op);
        op = e.as<Call>();
        if (op->call_type == Call::Image) return image_load(e, op);
        if (op->call_type != Call::Halide) return e;
        const FunctionContents *f = selection.func(op->name);
        if (!f || !selection.loads(*f)) return e;
        touch(*f);
        add_tags(*f);
        return trace_event(op->name, load, int_var(trace_id(op->name)), op->value_index, Expr(""),
                           e, op->args);
    }

    // A load of an input image, traced with the pipeline as its parent (as Halide 14 does).
    Expr image_load(const Expr &e, const Call *op) {
        const ParameterContents *image = op->param.get();
        if (!selection.image_loads(image)) return e;
        // Halide 14 gives an ImageParam a type tag (through its hidden Func), a Buffer none.
        if (image && !touched.count(op->name)) {
            touched_images.push_back(op->name);
            touched[op->name] = {op->type};
        }
        changed = true;
        if (image && !image->trace_tags.empty() && !tagged.count(op->name)) {
            tagged.insert(op->name);
            user_tags.emplace_back(op->name, image->trace_tags);
        }
        return trace_event(op->name, load, int_var(kPipelineId), op->value_index, Expr(""), e,
                           op->args);
    }

    Stmt visit(const Provide *op) override {
        Stmt s = IRMutator::visit(op);
        op = s.as<Provide>();
        const FunctionContents *f = selection.func(op->name);
        if (!f || !selection.stores(*f)) return s;
        // (No user tags from stores alone: Halide 14 reports them with traced loads or
        // realizations only.)
        touch(*f);
        std::vector<Expr> values;
        for (size_t i = 0; i < op->values.size(); i++) {
            // An atomic stage's store (Stage::atomic) stays the Store's value, the event inside
            // it: the value traced is the one stored (an attempt that another thread's update
            // made fail is reported again with the value it then stores).
            const Call *atomic = op->values[i].as<Call>();
            if (atomic && !atomic->is_intrinsic(Call::atomic_update)) atomic = nullptr;
            // A value that depends on undef is traced only where it is stored (dsl/Undef.h).
            const StoredValue stored = stored_value(atomic ? atomic->args[0] : op->values[i]);
            if (stored.never) {
                values.push_back(op->values[i]);
                continue;
            }
            Expr event = trace_event(op->name, store, int_var(trace_id(op->name)), (int)i, Expr(""),
                                     stored.value, op->args);
            if (stored.condition.defined())
                event = select(stored.condition, event, undef(event.type()));
            values.push_back(atomic ? Call::with_args(atomic, {event}) : event);
        }
        return Provide::make(op->name, values, op->args);
    }

    // The realization events go in after bounds inference (FinishTracing), which gives the
    // storage its bounds and matches each production with its consumption; here only which
    // Funcs will have them.
    Stmt visit(const Realize *op) override {
        const FunctionContents *f = selection.func(op->name);
        if (f && selection.realizations(*f)) {
            touch(*f);
            add_tags(*f);
        }
        return IRMutator::visit(op);
    }
};

// After bounds inference: the realization, production and consumption events around each
// traced Func's storage and productions, the trace ids the element events name, and the
// func_type_and_dim tags' regions.
class FinishTracing : public IRMutator {
public:
    explicit FinishTracing(const TraceSelection &selection) : selection(selection) {}

private:
    const TraceSelection &selection;
    std::map<std::string, Box> touched; // the boxes the traced pipeline reads or writes

    using IRMutator::visit;

    Stmt visit(const Realize *op) override {
        Stmt s = IRMutator::visit(op);
        op = s.as<Realize>();
        const FunctionContents *f = selection.func(op->name);
        if (!f) return s;
        Stmt body;
        if (selection.realizations(*f)) {
            std::vector<Expr> region;
            for (const Range &r : op->bounds) {
                region.push_back(r.min);
                region.push_back(r.extent);
            }
            Expr begin =
                event_without_value(op->name, begin_realization, int_var(kPipelineId), region);
            Expr end =
                event_without_value(op->name, end_realization, int_var(trace_id(op->name)), region);
            body = LetStmt::make(trace_id(op->name), begin,
                                 Block::make(op->body, Evaluate::make(end)));
        } else if (selection.stores(*f) || selection.loads(*f)) {
            // The loads and stores name their realization as parent; it has no event.
            body = LetStmt::make(trace_id(op->name), Expr(0), op->body);
        } else {
            return s;
        }
        return Realize::make(op->name, op->types, op->bounds, body);
    }

    // The events go just inside the production or consumption, whose region the lets around it
    // (bounds inference's) give.
    Stmt visit(const ProducerConsumer *op) override {
        Stmt s = IRMutator::visit(op);
        op = s.as<ProducerConsumer>();
        const FunctionContents *f = selection.func(op->name);
        if (!f || !selection.realizations(*f)) return s;
        // The region of the pure definition.
        std::vector<Expr> region;
        for (const std::string &arg : f->args) {
            Expr mn = int_var(op->name + ".s0." + arg + ".min");
            Expr mx = int_var(op->name + ".s0." + arg + ".max");
            region.push_back(mn);
            region.push_back(mx + 1 - mn);
        }
        Expr parent = int_var(trace_id(op->name));
        Expr begin =
            event_without_value(op->name, op->is_producer ? produce : consume, parent, region);
        Expr end = event_without_value(op->name, op->is_producer ? end_produce : end_consume,
                                       parent, region);
        return ProducerConsumer::make(
            op->name, op->is_producer,
            LetStmt::make(trace_id(op->name), begin, Block::make(op->body, Evaluate::make(end))));
    }

    Stmt visit(const LetStmt *op) override {
        if (op->name != kPipelineId) return IRMutator::visit(op);
        // The boxes are taken inside the pipeline's begin event, whose scope's free variables
        // are all defined there.
        touched = boxes_required(op->body);
        for (const auto &[name, box] : boxes_provided(op->body)) {
            auto it = touched.find(name);
            touched[name] = it == touched.end() ? box : box_union(it->second, box);
        }
        return LetStmt::make(op->name, op->value, mutate(op->body));
    }

    Expr visit(const Call *op) override {
        if (!op->is_intrinsic(Call::trace)) return IRMutator::visit(op);
        const Call *text = op->args[4].as<Call>();
        if (!text || !text->is_intrinsic(Call::stringify)) return op;
        const StringImm *func = op->args[0].as<StringImm>();
        std::vector<Expr> pieces = text->args;
        auto it = touched.find(func->value);
        const Box box = it == touched.end() ? Box() : it->second;
        pieces.push_back(Expr(" " + std::to_string(box.size())));
        for (const Interval &i : box) {
            pieces.push_back(Expr(std::string(" ")));
            if (i.is_bounded()) {
                pieces.push_back(simplify(i.min));
                pieces.push_back(Expr(std::string(" ")));
                pieces.push_back(simplify(i.max - i.min + 1));
            } else {
                // Halide's stand-in for a region it cannot bound.
                pieces.push_back(Expr(std::string("0 0")));
            }
        }
        std::vector<Expr> args = op->args;
        args[4] = Call::make_intrinsic(Handle(), Call::stringify, pieces);
        return Call::with_args(op, args);
    }
};

} // namespace

Stmt inject_tracing(const Stmt &s, const std::string &pipeline_name, const Environment &env,
                    const std::vector<FunctionPtr> &outputs, const Target &target) {
    TraceSelection selection(env, target);
    InjectElementEvents tracing(selection);
    Stmt body = tracing.mutate(s);
    // The outputs have no Realize: their storage is the caller's, for the whole run.
    for (const FunctionPtr &out : outputs) {
        if (selection.realizations(*out)) {
            tracing.touch(*out);
            tracing.add_tags(*out);
            std::vector<Expr> region;
            for (int d = 0; d < out->dimensions(); d++) {
                std::string buffer = out->buffer_name(0), ds = std::to_string(d);
                region.push_back(int_var(buffer + ".min." + ds));
                region.push_back(int_var(buffer + ".extent." + ds));
            }
            Expr begin =
                event_without_value(out->name, begin_realization, int_var(kPipelineId), region);
            Expr end = event_without_value(out->name, end_realization, int_var(trace_id(out->name)),
                                           region);
            body =
                LetStmt::make(trace_id(out->name), begin, Block::make(body, Evaluate::make(end)));
        } else if (selection.stores(*out) || selection.loads(*out)) {
            body = LetStmt::make(trace_id(out->name), Expr(0), body);
        }
    }
    if (!tracing.changed && !target.has_feature(Target::TracePipeline)) return s;

    std::vector<Stmt> stmts;
    // A tag per traced Func, producers first: its types now, its region once bounds inference
    // has run (finish_tracing).
    std::vector<std::string> tagged_order = tracing.touched_images;
    tagged_order.insert(tagged_order.end(), env.order.begin(), env.order.end());
    for (const std::string &name : tagged_order) {
        auto it = tracing.touched.find(name);
        if (it == tracing.touched.end()) continue;
        std::string text = kTypeAndDimTag;
        text += " " + std::to_string(it->second.size());
        for (Type t : it->second) {
            text += " " + std::to_string((int)t.code) + " " + std::to_string(t.bits()) + " " +
                    std::to_string(t.lanes());
        }
        Expr pieces = Call::make_intrinsic(Handle(), Call::stringify, {Expr(text)});
        stmts.push_back(
            Evaluate::make(event_without_value(name, tag, int_var(kPipelineId), {}, pieces)));
    }
    for (const auto &[name, tags] : tracing.user_tags) {
        for (const std::string &t : tags) {
            stmts.push_back(
                Evaluate::make(event_without_value(name, tag, int_var(kPipelineId), {}, Expr(t))));
        }
    }
    stmts.push_back(body);
    stmts.push_back(
        Evaluate::make(event_without_value(pipeline_name, end_pipeline, int_var(kPipelineId))));
    return LetStmt::make(kPipelineId, event_without_value(pipeline_name, begin_pipeline, Expr(0)),
                         Block::make(stmts));
}

Stmt finish_tracing(const Stmt &s, const Environment &env, const Target &target) {
    TraceSelection selection(env, target);
    return FinishTracing(selection).mutate(s);
}

} // namespace Internal
} // namespace loom
