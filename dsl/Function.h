// The shared definition behind a Func: its name, pure arguments, the values of its pure
// definition, and its schedule. Func objects and the Calls that read a Func share one
// FunctionContents, so a schedule set after a call was built still applies.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dsl/IR.h"
#include "dsl/Parameter.h"
#include "dsl/Schedule.h"

namespace loom {
namespace Internal {

struct Definition;

/** A version of a definition used when `condition` (of Params and input shapes) holds at run
 * time, with a schedule of its own. A failing specialization reports `failure_message`. */
struct Specialization {
    Expr condition;
    std::shared_ptr<Definition> definition;
    bool failure = false;
    std::string failure_message;
};

struct Definition {
    std::vector<Expr> args;    // the left-hand side: pure Vars for the pure definition
    std::vector<Expr> values;  // one per Tuple element
    StageSchedule schedule;
    /** Updates only: the RDom the definition iterates (null for an update without RVars)
     * and the where() conditions that restrict it. */
    std::shared_ptr<ReductionDomainContents> rdom;
    Expr predicate;
    /** Tried in order before this definition's own schedule; a failure case comes last. */
    std::vector<Specialization> specializations;
    bool defined() const { return !values.empty(); }
};

/** The loops of a definition before any directive changes them, innermost first: an update's
 * RVars (the first innermost), then the pure Vars of its left side in argument order (all of
 * them, for a pure definition). */
std::vector<Dim> default_loops(const Definition &d);

class IRMutator;

/** Every Expr of d through m: its values, arguments and where() condition, and its
 * specializations' conditions and definitions (those shared with another Function are changed
 * there too: copy them first to change a copy). Each is written back only where m changed it,
 * so that a definition m leaves alone is only read. */
void mutate_definition(IRMutator &m, Definition &d);

class IRVisitor;

/** Every Expr of d through v: its values, arguments, where() condition, RDom bounds, and its
 * specializations' conditions and definitions. */
void visit_definition(IRVisitor &v, const Definition &d);

/** Which of a Func's events each run reports to the runtime's trace handler (Func::
 * trace_loads / trace_stores / trace_realizations, lower/InjectTracing.h), and the strings
 * given with add_trace_tag, reported once at the start of each run. */
struct TraceSettings {
    bool loads = false, stores = false, realizations = false;
    std::vector<std::string> tags;
    bool any() const { return loads || stores || realizations || !tags.empty(); }
};

struct FunctionContents;

/** What Func::define_extern gives: the C function that computes the Func, called once per
 * production with its arguments in order (a scalar per Expr, a loom_buffer_t * per input Func
 * (one per Tuple element), Buffer or ImageParam, then one per output), and first in bounds-query
 * mode (lower/ExternStages.h). */
struct ExternStage {
    struct Arg {
        enum Kind { Func, Buffer, Scalar, Image } kind = Scalar;
        std::shared_ptr<FunctionContents> func;   // Func
        std::shared_ptr<BufferContents> buffer;   // Buffer
        Expr expr;                                // Scalar
        std::shared_ptr<ParameterContents> param; // Image (an ImageParam)
    };
    std::string function_name;
    std::vector<Arg> args;
};

struct FunctionContents {
    std::string name;
    std::vector<std::string> args;  // names of the pure Vars, in order
    std::vector<Type> output_types;
    Definition init;
    std::vector<Definition> updates;  // applied in order after init
    FuncSchedule schedule;
    /** Func::in: this Func's wrappers, by the name of the Func whose calls each takes over (""
     * for the global wrapper, which takes every other caller's). Owned here: a wrapper reads
     * this Func through a weak reference, so there is no cycle. */
    std::map<std::string, std::shared_ptr<FunctionContents>> wrappers;
    /** On a wrapper: the name of the Func it wraps, whose calls in it stay as they are. */
    std::string wraps;
    /** The Funcs whose calls in this Func's definitions now go to their wrappers (lower/
     * RedirectToWrappers.h): this Func keeps them alive, the wrappers reading them weakly. */
    std::vector<std::shared_ptr<FunctionContents>> wrapped_callees;
    TraceSettings trace;
    /** The constraints of the output buffer (Func::output_buffer().dim(i).set_*); empty until
     * one is set (default_constraints then apply). */
    std::vector<DimConstraint> output_constraints;
    /** The output buffer's host alignment in bytes (output_buffer().set_host_alignment); 0 for
     * none beyond the element type's. */
    int output_host_alignment = 0;
    /** Set by define_extern (then init has the pure Vars as arguments and no values). */
    std::shared_ptr<ExternStage> extern_stage;

    bool defined() const { return init.defined() || extern_stage != nullptr; }
    bool is_extern() const { return extern_stage != nullptr; }
    bool has_updates() const { return !updates.empty(); }
    /** Stage 0 is the pure definition; stage k > 0 is updates[k - 1]. */
    const Definition &stage(int k) const { return k == 0 ? init : updates.at(k - 1); }
    /** The pure Var of stage k at argument position d, or "" where that argument of an update
     * is an RDom variable or an expression (the update scatters along d). Bounds inference
     * names a stage's region lets after these Vars: <f>.s<k>.<var>.min / .max. */
    std::string stage_pure_var(int k, size_t d) const {
        if (k == 0) return args[d];
        const Variable *v = stage(k).args[d].as<Variable>();
        return v && !v->param && !v->rdom ? v->name : std::string();
    }
    int stages() const { return 1 + (int)updates.size(); }
    int dimensions() const { return (int)args.size(); }
    int outputs() const { return (int)output_types.size(); }
    /** The buffer that holds Tuple element i: "f" for a single value, "f.0", "f.1"... */
    std::string buffer_name(int value_index) const {
        return outputs() == 1 ? name : name + "." + std::to_string(value_index);
    }
};

using FunctionPtr = std::shared_ptr<FunctionContents>;

/** The calls to `target` in `exprs` as weak references (FunctionRef): a Func reading itself,
 * or a wrapper reading the Func that owns it, would otherwise keep itself alive. */
void weaken_calls_to(const FunctionContents *target, std::vector<Expr> &exprs);

}  // namespace Internal
}  // namespace loom
