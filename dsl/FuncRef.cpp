#include "dsl/Func.h"

#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"
#include "dsl/RDom.h"
#include "dsl/Random.h"
#include "dsl/Undef.h"

// A Func's definitions: FuncRef (f(x, y) on the left of =, +=, ...: pure definitions and
// updates, checked as they are written) and FuncTupleElementRef (f(x)[i]), and calls to a Func.

namespace loom {

using namespace Internal;

namespace {

// Collects the Vars (Variables that are not Params) an expression uses.
class FreeVars : public IRVisitor {
public:
    std::set<std::string> names; // pure Vars
    std::set<std::string> rvars;
    std::vector<std::shared_ptr<ReductionDomainContents>> rdoms;
    std::set<std::string> bound; // names bound by Lets inside the expression

private:
    void visit(const Variable *op) override {
        if (op->rdom) {
            rvars.insert(op->name);
            bool known = false;
            for (const auto &d : rdoms)
                known |= d == op->rdom;
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

// The size of the scatter/gather bundles in a definition (0: none), checking Halide's rules:
// one size for all of them, none inside another.
class BundleSize : public IRVisitor {
public:
    explicit BundleSize(const std::string &where) : where(where) {}
    int size = 0;

private:
    const std::string &where;
    bool inside = false;
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (!op->is_intrinsic(Call::scatter_gather)) {
            IRVisitor::visit(op);
            return;
        }
        user_assert(!inside) << "In " << where << ": a scatter or gather is inside another ("
                             << Expr(op) << "). Bundles do not nest; write one bundle of "
                             << "the combined values.";
        user_assert(size == 0 || size == (int)op->args.size())
            << "In " << where << ": scatter and gather bundles of " << size << " and "
            << op->args.size() << " values (" << Expr(op)
            << "). Every bundle of a definition has the same number of values, one per store.";
        size = (int)op->args.size();
        inside = true;
        IRVisitor::visit(op);
        inside = false;
    }
};

void check_bundles(const std::string &where, const std::vector<Expr> &args,
                   const std::vector<Expr> &values) {
    BundleSize bundles(where);
    for (const Expr &e : args)
        e.accept(&bundles);
    for (const Expr &e : values)
        e.accept(&bundles);
}

// "f(x, y)": a Func's name with the Vars of its pure definition, for messages.
std::string pure_definition_signature(const FunctionContents &f) {
    std::string s = f.name + "(";
    for (size_t i = 0; i < f.args.size(); i++)
        s += (i ? ", " : "") + f.args[i];
    return s + ")";
}

// The Vars of the pure definition an update implies when it comes first (f(x, r) += ...): as
// Halide 14, each argument that is a bare Var names the pure Var in its place, so that the
// update's Vars stand where the pure definition has them; any other argument gets _i (with more
// underscores where a bare Var of the update already has that name).
std::vector<Expr> implicit_pure_definition_vars(const std::vector<Expr> &update_args) {
    std::set<std::string> bare_vars;
    for (const Expr &a : update_args) {
        const Variable *v = a.as<Variable>();
        if (v && !v->param && !v->rdom) bare_vars.insert(v->name);
    }
    std::vector<Expr> vars;
    for (size_t i = 0; i < update_args.size(); i++) {
        const Variable *v = update_args[i].as<Variable>();
        if (v && !v->param && !v->rdom) {
            vars.push_back(Var(v->name));
            continue;
        }
        std::string name = "_" + std::to_string(i);
        while (bare_vars.count(name))
            name = "_" + name;
        vars.push_back(Var(name));
    }
    return vars;
}

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

} // namespace

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
    for (size_t i = 0; i < ref.size(); i++)
        exprs.push_back(ref[(int)i]);
}

FuncRef::FuncRef(FunctionPtr func, std::vector<Expr> args, int placeholder, int implicit_count)
    : func(std::move(func)), args(std::move(args)), placeholder(placeholder),
      implicit_count(implicit_count) {
    for (size_t i = 0; i < this->args.size(); i++) {
        user_assert(this->args[i].defined()) << "Argument " << i << " of a reference to Func "
                                             << this->func->name << " is an undefined Expr";
    }
}

std::vector<Expr> FuncRef::args_with_implicit_vars(const std::vector<Expr> &values) const {
    std::vector<Expr> result = args;
    const int count = count_implicit_vars(values);
    if (count == 0) return result;
    if (func->defined()) {
        user_assert(implicit_count >= count)
            << "The update definition of Func " << func->name << " uses the implicit Vars _0 .. _"
            << count - 1 << ", but the placeholder _ on its left stands for " << implicit_count
            << " of them. Write the left side with _ where the implicit dimensions are.";
    } else if (placeholder >= 0) {
        std::vector<Expr> implicit;
        for (int i = 0; i < count; i++)
            implicit.push_back(Var::implicit(i));
        result.insert(result.begin() + placeholder, implicit.begin(), implicit.end());
    }
    for (int i = 0; i < count; i++) {
        const std::string name = Var::implicit(i).name();
        bool found = false;
        for (const Expr &a : result) {
            const Variable *v = a.as<Variable>();
            found |= v && !v->param && !v->rdom && v->name == name;
        }
        user_assert(found) << "The right-hand side of the definition of Func " << func->name
                           << " uses the implicit Var " << name
                           << " (a call with the placeholder _), but its left-hand side has no _ "
                              "to take it. Write "
                           << func->name << "(..., _) = ... .";
    }
    return result;
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
    args = args_with_implicit_vars(values);
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
            << "computed coordinates, give " << name << " a pure definition first (e.g. " << name
            << "(x) = 0) and then an update definition.";
        for (const std::string &prev : arg_names) {
            user_assert(prev != v->name)
                << "Var " << v->name << " appears twice on the left of "
                << "the definition of Func " << name << ". Each argument must be a distinct Var.";
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
        for (const std::string &a : arg_names)
            listed += (listed.empty() ? "" : ", ") + a;
        for (const std::string &var : free.names) {
            bool found = false;
            for (const std::string &a : arg_names)
                found |= (a == var);
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
    check_bundles("the pure definition of Func " + name, {}, values);
    func->args = arg_names;
    func->output_types = types;
    func->init.args = args;
    func->init.values = define_random_variables(values, args, name, 0);
    weaken_calls_to(func.get(), func->init.values);
    func->init.schedule.dims = default_loops(func->init);
}

void FuncRef::define_update(std::vector<Expr> values) {
    const std::string &name = func->name;
    std::string where =
        "the update definition " + std::to_string(func->updates.size()) + " of Func " + name;
    user_assert(!func->is_extern())
        << "Func " << name << " is an extern stage (define_extern of "
        << func->extern_stage->function_name
        << "): it can't have update definitions. Update a Func that reads it instead.";
    user_assert((int)args.size() == func->dimensions())
        << "In " << where << ": it has " << args.size() << " arguments, but " << name << " has "
        << func->dimensions() << " dimensions.";
    user_assert(values.size() == func->output_types.size())
        << "In " << where << ": it gives " << values.size() << " values, but " << name << " has "
        << func->output_types.size() << ".";
    Definition d;
    std::vector<std::string> pure_vars;
    for (size_t i = 0; i < args.size(); i++) {
        Expr a = args[i];
        user_assert(a.type().is_int_or_uint() && a.type().is_scalar())
            << "In " << where << ": argument " << i << " (" << a << ") must be an integer";
        if (a.type() != Int(32)) a = Cast::make(Int(32), a);
        // As Halide 14: a bare Var on the left is one of the update's pure Vars only where the
        // pure definition has the same Var; any other Var there is unbound.
        if (const Variable *v = a.as<Variable>(); v && !v->param && !v->rdom) {
            user_assert(v->name == func->args[i])
                << "In " << where << ": argument " << i << " on the left is the Var " << v->name
                << ", but the pure definition " << pure_definition_signature(*func) << " has "
                << func->args[i] << " there. The pure Vars of an update must stand where the "
                << "pure definition has them; to write at other coordinates use an RDom or an "
                << "expression of the pure Vars.";
            pure_vars.push_back(v->name);
        }
        d.args.push_back(a);
    }
    FreeVars free;
    for (const Expr &a : d.args)
        a.accept(&free);
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
    check_bundles(where, d.args, values);
    // A where() condition of the RDom may use pure Vars too.
    for (const auto &dom : free.rdoms) {
        if (dom->predicate.defined()) dom->predicate.accept(&free);
    }
    for (const std::string &var : free.names) {
        bool found = false;
        for (const std::string &p : pure_vars)
            found |= p == var;
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
    for (const Expr &e : d.args)
        e.accept(&off_point);
    for (const Expr &e : values)
        e.accept(&off_point);
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
    args = args_with_implicit_vars({e});
    if (!func->defined()) {
        // The implicit pure definition: the identity of the operator, of e's type.
        const std::vector<Expr> vars = implicit_pure_definition_vars(args);
        Expr identity = (op == '+' || op == '-') ? make_zero(e.type()) : make_one(e.type());
        FuncRef(func, vars).define({identity});
    }
    Expr current = Expr(*this);
    Expr updated;
    switch (op) {
    case '+':
        updated = current + e;
        break;
    case '-':
        updated = current - e;
        break;
    case '*':
        updated = current * e;
        break;
    default:
        updated = current / e;
        break;
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
    args = args_with_implicit_vars(e.as_vector());
    if (!func->defined()) {
        // The implicit pure definition: the operator's identity of each element's type.
        const std::vector<Expr> vars = implicit_pure_definition_vars(args);
        std::vector<Expr> identities;
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
                                 << " because it has not yet been defined. Define it ("
                                 << func->name << "(x, ...) = ...) before using it.";
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

} // namespace

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

} // namespace loom
