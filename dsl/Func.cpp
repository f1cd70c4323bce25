#include "dsl/Func.h"

#include <fstream>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Pipeline.h"
#include "dsl/RDom.h"
#include "dsl/Random.h"
#include "dsl/Undef.h"

namespace loom {

using namespace Internal;

namespace {

// Collects the Vars (Variables that are not Params) an expression uses.
class FreeVars : public IRVisitor {
public:
    std::set<std::string> names;  // pure Vars
    std::set<std::string> rvars;
    std::vector<std::shared_ptr<ReductionDomainContents>> rdoms;
    std::set<std::string> bound;  // names bound by Lets inside the expression

private:
    void visit(const Variable *op) override {
        if (op->rdom) {
            rvars.insert(op->name);
            bool known = false;
            for (const auto &d : rdoms) known |= d == op->rdom;
            if (!known) rdoms.push_back(op->rdom);
        } else if (!op->param && !bound.count(op->name)) {
            names.insert(op->name);
        }
    }
    void visit(const Let *op) override {
        op->value.accept(this);
        bool was_bound = bound.count(op->name);
        bound.insert(op->name);
        op->body.accept(this);
        if (!was_bound) bound.erase(op->name);
    }
};

// Rewrites the calls to `target` to weak references (FunctionRef): a Func's calls to itself in
// its own definition, or a wrapper's to the Func that owns it (see weaken_calls_to).
class WeakenCallsTo : public IRMutator {
public:
    explicit WeakenCallsTo(const FunctionContents *target) : target(target) {}

private:
    const FunctionContents *target;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        const Call *c = e.as<Call>();
        if (c->call_type != Call::Halide || !c->func.refers_to(target) || c->func.is_weak())
            return e;
        return Call::make(c->type, c->name, c->args, c->call_type, c->func.weakened(),
                          c->value_index, c->buffer, c->param);
    }
};

// The first call to `self` in a definition of self that reads it, at an argument where the
// update's left-hand side has a pure Var, at anything but that Var. `lhs_vars[i]` is the pure
// Var at argument i ("" where the left-hand side has an RVar or an expression there).
class OffPointSelfCall : public IRVisitor {
public:
    OffPointSelfCall(const FunctionContents *self, const std::vector<std::string> &lhs_vars)
        : self(self), lhs_vars(lhs_vars) {}
    const Call *call = nullptr;
    size_t arg = 0;

private:
    const FunctionContents *self;
    const std::vector<std::string> &lhs_vars;
    void visit(const Call *op) override {
        IRVisitor::visit(op);
        if (call || op->call_type != Call::Halide || !op->func.refers_to(self)) return;
        for (size_t i = 0; i < op->args.size() && i < lhs_vars.size(); i++) {
            if (lhs_vars[i].empty()) continue;
            const Variable *v = op->args[i].as<Variable>();
            if (v && !v->param && !v->rdom && v->name == lhs_vars[i]) continue;
            call = op;
            arg = i;
            return;
        }
    }
};

FunctionPtr new_function(const std::string &name) {
    auto f = std::make_shared<FunctionContents>();
    f->name = name;
    return f;
}

}  // namespace

void Internal::weaken_calls_to(const FunctionContents *target, std::vector<Expr> &exprs) {
    WeakenCallsTo weaken(target);
    for (Expr &e : exprs) {
        if (e.defined()) e = weaken.mutate(e);
    }
}

std::vector<Dim> Internal::default_loops(const Definition &d) {
    std::vector<Dim> dims;
    if (d.rdom) {
        for (const ReductionVariable &rv : d.rdom->domain) {
            Dim dim{rv.var};
            dim.is_rvar = true;
            dims.push_back(dim);
        }
    }
    for (const Expr &a : d.args) {
        const Variable *v = a.as<Variable>();
        if (v && !v->param && !v->rdom) dims.push_back(Dim{v->name});
    }
    return dims;
}

Tuple::Tuple(const FuncRef &ref) {
    for (size_t i = 0; i < ref.size(); i++) exprs.push_back(ref[(int)i]);
}

FuncRef::FuncRef(FunctionPtr func, std::vector<Expr> args)
    : func(std::move(func)), args(std::move(args)) {
    for (size_t i = 0; i < this->args.size(); i++) {
        user_assert(this->args[i].defined())
            << "Argument " << i << " of a reference to Func " << this->func->name
            << " is an undefined Expr";
    }
}

FuncRef &FuncRef::operator=(const Expr &value) {
    user_assert(value.defined()) << "Func " << func->name << " is defined with an undefined Expr";
    define({value});
    return *this;
}

FuncRef &FuncRef::operator=(const Tuple &values) {
    define(values.as_vector());
    return *this;
}

FuncRef &FuncRef::operator=(const FuncRef &other) {
    if (other.size() == 1) {
        define({Expr(other)});
    } else {
        define(Tuple(other).as_vector());
    }
    return *this;
}

void FuncRef::define(std::vector<Expr> values) {
    const std::string &name = func->name;
    if (func->defined()) {
        define_update(std::move(values));
        return;
    }
    user_assert(!values.empty()) << "Func " << name << " is defined with an empty Tuple";
    std::vector<std::string> arg_names;
    for (size_t i = 0; i < args.size(); i++) {
        const Variable *v = args[i].as<Variable>();
        user_assert(v && !v->param && !v->rdom)
            << "Argument " << i << " on the left of the pure definition of Func " << name << " is "
            << args[i] << ", but the arguments of a pure definition must be Vars. To write at "
            << "computed coordinates, give " << name << " a pure definition first (e.g. "
            << name << "(x) = 0) and then an update definition.";
        for (const std::string &prev : arg_names) {
            user_assert(prev != v->name) << "Var " << v->name << " appears twice on the left of "
                                         << "the definition of Func " << name
                                         << ". Each argument must be a distinct Var.";
        }
        arg_names.push_back(v->name);
    }
    std::vector<Type> types;
    for (size_t i = 0; i < values.size(); i++) {
        const Expr &v = values[i];
        user_assert(v.defined()) << "Value " << i << " of the definition of Func " << name
                                 << " is an undefined Expr";
        user_assert(v.type().is_scalar() && !v.type().is_handle())
            << "Func " << name << " must be defined with scalar numeric values, but value " << i
            << " has type " << v.type();
        FreeVars free;
        v.accept(&free);
        std::string listed;
        for (const std::string &a : arg_names) listed += (listed.empty() ? "" : ", ") + a;
        for (const std::string &var : free.names) {
            bool found = false;
            for (const std::string &a : arg_names) found |= (a == var);
            user_assert(found) << "Undefined variable " << var << " in the definition of Func "
                               << name << ". Its left-hand side has the Vars (" << listed
                               << "); every Var used on the right must appear there too.";
        }
        user_assert(free.rvars.empty())
            << "The pure definition of Func " << name << " uses the RVar " << *free.rvars.begin()
            << ". RVars belong in update definitions: define " << name
            << " first, then update it (e.g. " << name << "(x) += ...).";
        types.push_back(v.type());
    }
    func->args = arg_names;
    func->output_types = types;
    func->init.args = args;
    func->init.values = define_random_variables(values, args, name, 0);
    weaken_calls_to(func.get(), func->init.values);
    func->init.schedule.dims = default_loops(func->init);
}

void FuncRef::define_update(std::vector<Expr> values) {
    const std::string &name = func->name;
    std::string where = "the update definition " + std::to_string(func->updates.size()) + " of Func " + name;
    user_assert(!func->is_extern())
        << "Func " << name << " is an extern stage (define_extern of "
        << func->extern_stage->function_name
        << "): it can't have update definitions. Update a Func that reads it instead.";
    user_assert((int)args.size() == func->dimensions())
        << "In " << where << ": it has " << args.size() << " arguments, but " << name << " has "
        << func->dimensions() << " dimensions.";
    user_assert(values.size() == func->output_types.size())
        << "In " << where << ": it gives " << values.size() << " values, but " << name
        << " has " << func->output_types.size() << ".";
    Definition d;
    std::vector<std::string> pure_vars;
    for (size_t i = 0; i < args.size(); i++) {
        Expr a = args[i];
        user_assert(a.type().is_int_or_uint() && a.type().is_scalar())
            << "In " << where << ": argument " << i << " (" << a << ") must be an integer";
        if (a.type() != Int(32)) a = Cast::make(Int(32), a);
        if (const Variable *v = a.as<Variable>(); v && !v->param && !v->rdom) {
            for (const std::string &p : pure_vars) {
                user_assert(p != v->name) << "In " << where << ": Var " << v->name
                                          << " appears twice on the left";
            }
            pure_vars.push_back(v->name);
        }
        d.args.push_back(a);
    }
    FreeVars free;
    for (const Expr &a : d.args) a.accept(&free);
    for (size_t i = 0; i < values.size(); i++) {
        user_assert(values[i].defined()) << "In " << where << ": value " << i << " is undefined";
        user_assert(values[i].type() == func->output_types[i])
            << "In " << where << ": value " << i << " has type " << values[i].type() << ", but "
            << name << " has type " << func->output_types[i] << ". Cast the value (e.g. cast<"
            << type_to_string(func->output_types[i]) << ">(...)).";
        values[i].accept(&free);
        // Halide skips the stores that depend on undef; keeping the element's own value
        // there is the same, and leaves no undef for the passes below.
        if (contains_undef(values[i])) {
            values[i] = value_keeping_undef_points(
                values[i],
                Call::make(func->output_types[i], name, d.args, Call::Halide, func, (int)i));
        }
    }
    // A where() condition of the RDom may use pure Vars too.
    for (const auto &dom : free.rdoms) {
        if (dom->predicate.defined()) dom->predicate.accept(&free);
    }
    for (const std::string &var : free.names) {
        bool found = false;
        for (const std::string &p : pure_vars) found |= p == var;
        user_assert(found) << "In " << where << ": Var " << var << " is used but is not one of "
                           << "the arguments on the left. A Var in an update (or in its RDom's "
                           << "where()) must appear there as a bare argument.";
    }
    user_assert(free.rdoms.size() <= 1)
        << "In " << where << ": RVars of " << free.rdoms.size()
        << " different RDoms are used; an update iterates one RDom.";
    if (!free.rdoms.empty()) {
        d.rdom = free.rdoms[0];
        d.predicate = d.rdom->predicate;
    }
    // As Halide 14: an update reads its own Func at each pure Var's own place, so that the
    // value at a point depends only on that point's earlier values along the pure dimensions.
    // Each stage is computed over the region its consumers need; a read at x + 1 would need a
    // point past it from the stages before, which they do not compute.
    std::vector<std::string> lhs_vars;
    for (const Expr &a : d.args) {
        const Variable *v = a.as<Variable>();
        lhs_vars.push_back(v && !v->param && !v->rdom ? v->name : std::string());
    }
    OffPointSelfCall off_point(func.get(), lhs_vars);
    for (const Expr &e : d.args) e.accept(&off_point);
    for (const Expr &e : values) e.accept(&off_point);
    if (d.predicate.defined()) d.predicate.accept(&off_point);
    user_assert(!off_point.call)
        << "In " << where << ": it reads " << name << " at " << Expr(off_point.call)
        << ", whose argument " << off_point.arg << " is " << off_point.call->args[off_point.arg]
        << " where the left-hand side has the pure Var " << lhs_vars[off_point.arg]
        << ". An update may read its own Func only at its pure Vars in the same places (as "
           "Halide requires); to combine other points, read them along an RDom in that "
           "argument, or define a new Func from this one.";
    // Random variables take the point's coordinates: its arguments, then its RVars.
    std::vector<Expr> coordinates = d.args;
    if (d.rdom) {
        for (const ReductionVariable &rv : d.rdom->domain)
            coordinates.push_back(Variable::make(Int(32), rv.var, nullptr, d.rdom));
    }
    const int definition = (int)func->updates.size() + 1;
    d.values = define_random_variables(values, coordinates, name, definition);
    d.args = define_random_variables(d.args, coordinates, name, definition);
    weaken_calls_to(func.get(), d.args);
    weaken_calls_to(func.get(), d.values);
    if (d.predicate.defined()) {
        std::vector<Expr> predicate{d.predicate};
        weaken_calls_to(func.get(), predicate);
        d.predicate = predicate[0];
    }
    d.schedule.dims = default_loops(d);
    func->updates.push_back(std::move(d));
}

FuncRef &FuncRef::update_with(const Expr &e, char op) {
    user_assert(e.defined()) << "Update of Func " << func->name << " with an undefined Expr";
    if (!func->defined()) {
        // The implicit pure definition: the identity of the operator, of e's type.
        std::vector<Expr> vars;
        for (size_t i = 0; i < args.size(); i++) vars.push_back(Var("_" + std::to_string(i)));
        Expr identity = (op == '+' || op == '-') ? make_zero(e.type()) : make_one(e.type());
        FuncRef(func, vars).define({identity});
    }
    Expr current = Expr(*this);
    Expr updated;
    switch (op) {
    case '+': updated = current + e; break;
    case '-': updated = current - e; break;
    case '*': updated = current * e; break;
    default: updated = current / e; break;
    }
    define_update({updated});
    return *this;
}

FuncRef &FuncRef::update_with(const Tuple &e, char op) {
    if (e.size() == 1) return update_with(e[0], op);
    for (size_t i = 0; i < e.size(); i++) {
        user_assert(e[i].defined())
            << "Update of Func " << func->name << " with an undefined Expr at element " << i;
    }
    if (!func->defined()) {
        // The implicit pure definition: the operator's identity of each element's type.
        std::vector<Expr> vars, identities;
        for (size_t i = 0; i < args.size(); i++)
            vars.push_back(Var("_" + std::to_string(i)));
        for (size_t i = 0; i < e.size(); i++) {
            identities.push_back((op == '+' || op == '-') ? make_zero(e[i].type())
                                                          : make_one(e[i].type()));
        }
        FuncRef(func, vars).define(identities);
    }
    user_assert(e.size() == size())
        << "Update of Func " << func->name << " with a Tuple of " << e.size()
        << " values, but it has " << size() << ". Give one value per element.";
    std::vector<Expr> updated;
    for (size_t i = 0; i < e.size(); i++) {
        const Expr current = (*this)[(int)i];
        switch (op) {
        case '+':
            updated.push_back(current + e[i]);
            break;
        case '-':
            updated.push_back(current - e[i]);
            break;
        case '*':
            updated.push_back(current * e[i]);
            break;
        default:
            updated.push_back(current / e[i]);
            break;
        }
    }
    define_update(updated);
    return *this;
}

FuncRef &FuncRef::operator+=(const Expr &e) { return update_with(e, '+'); }
FuncRef &FuncRef::operator-=(const Expr &e) { return update_with(e, '-'); }
FuncRef &FuncRef::operator*=(const Expr &e) { return update_with(e, '*'); }
FuncRef &FuncRef::operator/=(const Expr &e) { return update_with(e, '/'); }
FuncRef &FuncRef::operator+=(const Tuple &e) { return update_with(e, '+'); }
FuncRef &FuncRef::operator-=(const Tuple &e) { return update_with(e, '-'); }
FuncRef &FuncRef::operator*=(const Tuple &e) { return update_with(e, '*'); }
FuncRef &FuncRef::operator/=(const Tuple &e) { return update_with(e, '/'); }
FuncRef &FuncRef::operator+=(const FuncRef &e) { return update_with(Tuple(e), '+'); }
FuncRef &FuncRef::operator-=(const FuncRef &e) { return update_with(Tuple(e), '-'); }
FuncRef &FuncRef::operator*=(const FuncRef &e) { return update_with(Tuple(e), '*'); }
FuncRef &FuncRef::operator/=(const FuncRef &e) { return update_with(Tuple(e), '/'); }

Tuple FuncTupleElementRef::values_with_undefs(const Expr &e) const {
    const FunctionPtr &f = ref.function();
    user_assert(e.defined()) << "Element " << element << " of Func " << f->name
                             << " is defined with an undefined Expr";
    std::vector<Expr> values;
    for (int i = 0; i < f->outputs(); i++)
        values.push_back(i == element ? e : undef(f->output_types[i]));
    return Tuple(values);
}

Stage FuncTupleElementRef::last_stage() const {
    return Stage(ref.function(), (int)ref.function()->updates.size());
}

Stage FuncTupleElementRef::operator=(const Expr &e) {
    ref = values_with_undefs(e);
    return last_stage();
}
Stage FuncTupleElementRef::operator=(const FuncRef &e) { return *this = Expr(e); }
Stage FuncTupleElementRef::operator+=(const Expr &e) {
    ref += values_with_undefs(e);
    return last_stage();
}
Stage FuncTupleElementRef::operator-=(const Expr &e) {
    ref -= values_with_undefs(e);
    return last_stage();
}
Stage FuncTupleElementRef::operator*=(const Expr &e) {
    ref *= values_with_undefs(e);
    return last_stage();
}
Stage FuncTupleElementRef::operator/=(const Expr &e) {
    ref /= values_with_undefs(e);
    return last_stage();
}

namespace {

Expr make_func_call(const FunctionPtr &func, const std::vector<Expr> &args, int value_index) {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined. Define it (" << func->name
                                 << "(x, ...) = ...) before using it.";
    user_assert((int)args.size() == func->dimensions())
        << "Func " << func->name << " is defined with " << func->dimensions()
        << " arguments but is called with " << args.size() << ". Pass one argument per dimension.";
    std::vector<Expr> int_args(args.size());
    for (size_t i = 0; i < args.size(); i++) {
        Type t = args[i].type();
        user_assert(t.is_int_or_uint() && t.is_scalar())
            << "Argument " << i << " of the call to Func " << func->name
            << " must be a scalar integer, but " << args[i] << " has type " << t
            << ". Cast it with cast<int>().";
        int_args[i] = t == Int(32) ? args[i] : Cast::make(Int(32), args[i]);
    }
    return Call::make(func->output_types[value_index], func->name, std::move(int_args),
                      Call::Halide, func, value_index);
}

}  // namespace

FuncRef::operator Expr() const {
    user_assert(!func->defined() || func->outputs() == 1)
        << "Func " << func->name << " returns a Tuple of " << func->outputs()
        << " values; pick one with " << func->name << "(...)[i].";
    return make_func_call(func, args, 0);
}

FuncTupleElementRef FuncRef::operator[](int i) const {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined.";
    user_assert(i >= 0 && i < func->outputs())
        << "Tuple index " << i << " is out of range for Func " << func->name << ", which has "
        << func->outputs() << " values";
    return FuncTupleElementRef(*this, i);
}

FuncTupleElementRef::operator Expr() const {
    return make_func_call(ref.function(), ref.arguments(), element);
}

size_t FuncRef::size() const {
    user_assert(func->defined()) << "Can't call Func " << func->name
                                 << " because it has not yet been defined.";
    return func->outputs();
}

Func::Func() : func(new_function(unique_user_name('f'))) {}
Func::Func(const std::string &name) : func(new_function(name)) {}
Func::Func(FunctionPtr f) : func(std::move(f)) {}
Func::Func(const Expr &e) : Func() { (*this)(std::vector<Expr>{}) = e; }

FuncRef Func::operator()(std::vector<Expr> args) const { return FuncRef(func, std::move(args)); }

FuncRef Func::operator()(const std::vector<Var> &args) const {
    std::vector<Expr> exprs(args.begin(), args.end());
    return FuncRef(func, std::move(exprs));
}

const std::string &Func::name() const { return func->name; }
bool Func::defined() const { return func->defined(); }
int Func::dimensions() const { return func->dimensions(); }
int Func::outputs() const { return func->outputs(); }

std::vector<Var> Func::args() const {
    std::vector<Var> vars;
    for (const std::string &a : func->args) vars.emplace_back(a);
    return vars;
}

Expr Func::value() const {
    user_assert(defined()) << "Func " << name() << " has no definition";
    user_assert(outputs() == 1) << "Func " << name() << " returns a Tuple; use values()";
    return func->init.values[0];
}

Tuple Func::values() const {
    user_assert(defined()) << "Func " << name() << " has no definition";
    return Tuple(func->init.values);
}

const std::vector<Type> &Func::output_types() const {
    user_assert(defined()) << "Func " << name() << " has no definition, so it has no type yet";
    return func->output_types;
}

Type Func::output_type() const {
    user_assert(outputs() == 1) << "Func " << name() << " returns a Tuple; use output_types()";
    return output_types()[0];
}

#define LOOM_FORWARD_TO_STAGE(call)                                                             \
    {                                                                                           \
        Stage(func, 0).call;                                                                    \
        return *this;                                                                           \
    }

// Each definition's body is the macro, which clang-format can't tell from a declaration missing
// its semicolon (it chained them into one statement).
// clang-format off
Func &Func::allow_race_conditions() LOOM_FORWARD_TO_STAGE(allow_race_conditions())
Func &Func::atomic(bool override_associativity_test)
    LOOM_FORWARD_TO_STAGE(atomic(override_associativity_test))
Func &Func::compute_with(const Stage &s, const VarOrRVar &var,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align)
    LOOM_FORWARD_TO_STAGE(compute_with(s, var, align))
Func &Func::compute_with(const Stage &s, const VarOrRVar &var, LoopAlignStrategy align)
    LOOM_FORWARD_TO_STAGE(compute_with(s, var, align))
Func &Func::compute_with(const LoopLevel &level,
                         const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align)
    LOOM_FORWARD_TO_STAGE(compute_with(level, align))
Func &Func::compute_with(const LoopLevel &level, LoopAlignStrategy align)
    LOOM_FORWARD_TO_STAGE(compute_with(level, align))
Func &Func::split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                  const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(split(old, outer, inner, factor, tail))
Func &Func::fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused)
    LOOM_FORWARD_TO_STAGE(fuse(inner, outer, fused))
Func &Func::reorder(const std::vector<VarOrRVar> &vars) LOOM_FORWARD_TO_STAGE(reorder(vars))
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
                 const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor,
                 const Expr &yfactor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(x, y, xo, yo, xi, yi, xfactor, yfactor, tail))
Func &Func::tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
                 const Expr &xfactor, const Expr &yfactor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(x, y, xi, yi, xfactor, yfactor, tail))
Func &Func::rename(const VarOrRVar &old, const VarOrRVar &new_name)
    LOOM_FORWARD_TO_STAGE(rename(old, new_name))
Func &Func::serial(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(serial(var))
Func &Func::parallel(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(parallel(var))
Func &Func::parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(parallel(var, task_size, tail))
Func &Func::vectorize(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(vectorize(var))
Func &Func::vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(vectorize(var, factor, tail))
Func &Func::unroll(const VarOrRVar &var) LOOM_FORWARD_TO_STAGE(unroll(var))
Func &Func::unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(unroll(var, factor, tail))
Func &Func::prefetch(const ImageParam &image, const VarOrRVar &at, const VarOrRVar &from,
                     const Expr &offset, PrefetchBoundStrategy strategy)
    LOOM_FORWARD_TO_STAGE(prefetch(image, at, from, offset, strategy))
Func &Func::prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from, const Expr &offset,
                     PrefetchBoundStrategy strategy)
    LOOM_FORWARD_TO_STAGE(prefetch(f, at, from, offset, strategy))
Func &Func::gpu_blocks(const VarOrRVar &x, DeviceAPI api) LOOM_FORWARD_TO_STAGE(gpu_blocks(x, api))
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_blocks(x, y, api))
Func &Func::gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_blocks(x, y, z, api))
Func &Func::gpu_threads(const VarOrRVar &x, DeviceAPI api) LOOM_FORWARD_TO_STAGE(gpu_threads(x, api))
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_threads(x, y, api))
Func &Func::gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_threads(x, y, z, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                     const Expr &x_size, TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, bx, tx, x_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                     const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                     const Expr &x_size, const Expr &y_size, TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, bx, by, tx, ty, x_size, y_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                     const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, tx, ty, x_size, y_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, tx, x_size, tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, z, bx, by, bz, tx, ty, tz, x_size, y_size, z_size,
                                   tail, api))
Func &Func::gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz,
                     const Expr &x_size, const Expr &y_size, const Expr &z_size,
                     TailStrategy tail, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu_tile(x, y, z, tx, ty, tz, x_size, y_size, z_size, tail, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &tx, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, tx, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &tx,
                const VarOrRVar &ty, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, by, tx, ty, api))
Func &Func::gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz,
                const VarOrRVar &tx, const VarOrRVar &ty, const VarOrRVar &tz, DeviceAPI api)
    LOOM_FORWARD_TO_STAGE(gpu(bx, by, bz, tx, ty, tz, api))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 const std::vector<TailStrategy> &tails)
    LOOM_FORWARD_TO_STAGE(tile(previous, outers, inners, factors, tails))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
                 const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
                 TailStrategy tail) LOOM_FORWARD_TO_STAGE(tile(previous, outers, inners, factors, tail))
Func &Func::tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
                 const std::vector<Expr> &factors, TailStrategy tail)
    LOOM_FORWARD_TO_STAGE(tile(previous, inners, factors, tail))
#undef LOOM_FORWARD_TO_STAGE

Func &Func::compute_at(const Func &consumer, const VarOrRVar &var) {
    return compute_at(consumer.at(var));
}
// (Formatting stays off through compute_at: before it, the last macro reads as unfinished.)
// clang-format on

Func &Func::compute_at(const LoopLevel &level) {
    user_assert(!(level.func() == func->name && !level.is_root() && !level.is_inlined()))
        << "Func " << func->name << " can't be computed at one of its own loops ("
        << level.to_string() << "). Pick a loop of one of its consumers.";
    bool store_follows = func->schedule.store_level == func->schedule.compute_level;
    func->schedule.compute_level = level;
    if (store_follows || func->schedule.store_level.is_inlined()) func->schedule.store_level = level;
    return *this;
}

Func &Func::store_at(const Func &consumer, const VarOrRVar &var) { return store_at(consumer.at(var)); }

Func &Func::store_at(const LoopLevel &level) {
    func->schedule.store_level = level;
    return *this;
}

Func &Func::store_root() { return store_at(LoopLevel::root()); }

Func &Func::bound(const Var &var, const Expr &min, const Expr &extent) {
    user_assert(min.defined() && min.type().is_int_or_uint())
        << "bound() of Func " << name() << " needs an integer min";
    return set_bound(var, cast(Int(32), min), extent, "bound");
}

Func &Func::bound_extent(const Var &var, const Expr &extent) {
    return set_bound(var, Expr(), extent, "bound_extent");
}

Func &Func::set_bound(const Var &var, const Expr &min, const Expr &extent, const char *directive) {
    user_assert(defined()) << "Func " << name() << " must be defined before " << directive << "()";
    bool found = false;
    for (const std::string &a : func->args) found |= a == var.name();
    user_assert(found) << "Can't bound " << var.name() << " of Func " << name()
                       << ": it is not one of its pure Vars";
    user_assert(extent.defined() && extent.type().is_int_or_uint())
        << directive << "() of Func " << name() << " needs an integer extent";
    for (Bound &b : func->schedule.bounds) {
        if (b.var == var.name()) {
            b.min = min;
            b.extent = cast(Int(32), extent);
            return *this;
        }
    }
    func->schedule.bounds.push_back(Bound{var.name(), min, cast(Int(32), extent)});
    return *this;
}

Func &Func::compute_root() {
    func->schedule.compute_level = LoopLevel::root();
    func->schedule.store_level = LoopLevel::root();
    return *this;
}

Func &Func::compute_inline() {
    func->schedule.compute_level = LoopLevel::inlined();
    func->schedule.store_level = LoopLevel::inlined();
    return *this;
}

Func::operator Stage() const { return Stage(func, 0); }

Stage Func::update(int i) const {
    user_assert(i >= 0 && i < (int)func->updates.size())
        << "Func " << name() << " has " << func->updates.size() << " update definitions; update("
        << i << ") does not exist";
    return Stage(func, i + 1);
}

int Func::num_update_definitions() const { return (int)func->updates.size(); }

namespace {

const Definition &update_of(const FunctionContents &f, int idx) {
    user_assert(idx >= 0 && idx < (int)f.updates.size())
        << "Func " << f.name << " has " << f.updates.size() << " update definitions; update " << idx
        << " does not exist (they count from 0).";
    return f.updates[idx];
}

} // namespace

const std::vector<Expr> &Func::update_args(int idx) const { return update_of(*func, idx).args; }

Expr Func::update_value(int idx) const {
    const Definition &d = update_of(*func, idx);
    user_assert(d.values.size() == 1)
        << "Func " << name() << " returns a Tuple; use update_values(" << idx << ")";
    return d.values[0];
}

Tuple Func::update_values(int idx) const { return Tuple(update_of(*func, idx).values); }

std::vector<RVar> Func::rvars(int idx) const {
    const Definition &d = update_of(*func, idx);
    std::vector<RVar> out;
    if (d.rdom) {
        for (int i = 0; i < (int)d.rdom->domain.size(); i++)
            out.emplace_back(d.rdom, i);
    }
    return out;
}

Pipeline Func::pipeline() {
    if (!cached_pipeline) cached_pipeline = std::make_shared<Pipeline>(*this);
    return *cached_pipeline;
}

Realization Func::realize(std::vector<int32_t> sizes, const Target &target) {
    return pipeline().realize(std::move(sizes), target);
}

void Func::realize(RealizationArg outputs, const Target &target) {
    pipeline().realize(std::move(outputs), target);
}

void Func::infer_input_bounds(RealizationArg outputs, const Target &target) {
    pipeline().infer_input_bounds(std::move(outputs), target);
}

void Func::infer_input_bounds(const std::vector<int32_t> &sizes, const Target &target) {
    pipeline().infer_input_bounds(sizes, target);
}

void Func::compile_jit(const Target &target) { pipeline().compile_jit(target); }

void Func::print_loop_nest() { pipeline().print_loop_nest(); }

void Func::compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args,
                                   StmtOutputFormat format, const Target &target) {
    pipeline().compile_to_lowered_stmt(filename, args, format, target);
}

void Func::compile_to_llvm_assembly(const std::string &filename,
                                    const std::vector<Argument> &args, const Target &target) {
    pipeline().compile_to_llvm_assembly(filename, args, target);
}

void Func::compile_to_static_library(const std::string &filename_prefix,
                                     const std::vector<Argument> &args, const std::string &fn_name,
                                     const Target &target) {
    pipeline().compile_to_static_library(filename_prefix, args, fn_name, target);
}

void Func::compile_to_multitarget_static_library(const std::string &filename_prefix,
                                                 const std::vector<Argument> &args,
                                                 const std::string &fn_name,
                                                 const std::vector<Target> &targets) {
    pipeline().compile_to_multitarget_static_library(filename_prefix, args, fn_name, targets);
}

void Func::compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    pipeline().compile_to_object(filename, args, fn_name, target);
}

void Func::compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target) {
    pipeline().compile_to_header(filename, args, fn_name, target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const std::string &fn_name, const Target &target) {
    pipeline().compile_to_assembly(filename, args, fn_name, target);
}

void Func::compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                    const std::string &fn_name, const Target &target) {
    pipeline().compile_to_llvm_assembly(filename, args, fn_name, target);
}

void Func::compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                              const std::string &fn_name, const Target &target) {
    pipeline().compile_to_bitcode(filename, args, fn_name, target);
}

void Func::compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target) {
    pipeline().compile_to_file(filename_prefix, args, fn_name, target);
}

void Func::compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                               const Target &target) {
    pipeline().compile_to_assembly(filename, args, target);
}

LoopLevel::LoopLevel(const Func &f, const VarOrRVar &var, int stage)
    : LoopLevel(Kind::At, f.name(), var.name(), stage) {}

std::string LoopLevel::to_string() const {
    switch (kind) {
    case Kind::Inlined: return "inlined";
    case Kind::Root: return "root";
    case Kind::At: return func_name + "." + var_name;
    }
    return "";
}

}  // namespace loom
