// Func::in and clone_in: wrappers that take over a Func's calls in chosen consumers (lower/
// RedirectToWrappers.cpp redirects the calls as the pipeline is collected).
#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IRMutator.h"
#include "dsl/Var.h"

namespace loom {
namespace {

using Internal::Call;
using Internal::FunctionContents;
using Internal::FunctionPtr;

Func make_wrapper(const Func &wrapped, const std::string &name) {
    user_assert(wrapped.function()->defined())
        << "Can't wrap Func " << wrapped.name() << " with in(): it has no definition yet. "
        << "Define it first.";
    Func wrapper(name);
    std::vector<Var> vars = wrapped.args();
    std::vector<Expr> args(vars.begin(), vars.end());
    FuncRef value = wrapped(args);
    if (wrapped.outputs() == 1) {
        wrapper(vars) = Expr(value);
    } else {
        std::vector<Expr> elements;
        for (int i = 0; i < wrapped.outputs(); i++)
            elements.push_back(value[i]);
        wrapper(vars) = Tuple(elements);
    }
    FunctionContents &w = *wrapper.function();
    // The wrapped Func owns the wrapper: the wrapper reads it weakly.
    Internal::weaken_calls_to(wrapped.function().get(), w.init.values);
    w.wraps = wrapped.name();
    return wrapper;
}

} // namespace

Func Func::in(const Func &consumer) {
    user_assert(consumer.name() != name())
        << "Func " << name() << " can't wrap its own calls (in(" << name() << ")): give in() "
        << "a Func that calls " << name() << ".";
    auto &wrappers = func->wrappers;
    if (auto it = wrappers.find(consumer.name()); it != wrappers.end()) return Func(it->second);
    Func wrapper = make_wrapper(*this, name() + "_in_" + consumer.name());
    wrappers[consumer.name()] = wrapper.function();
    return wrapper;
}

Func Func::in(const std::vector<Func> &consumers) {
    user_assert(!consumers.empty()) << "Func " << name() << ".in({}) names no consumer: give it "
                                    << "the Funcs whose calls the wrapper should take, or call "
                                    << "in() for every caller.";
    if (consumers.size() == 1) return in(consumers[0]);
    auto &wrappers = func->wrappers;
    // One wrapper for the whole list: consumers that have one already must share it.
    FunctionPtr shared;
    for (const Func &c : consumers) {
        user_assert(c.name() != name()) << "Func " << name() << " can't wrap its own calls: "
                                        << "remove " << name() << " from the list given to in().";
        auto it = wrappers.find(c.name());
        if (it == wrappers.end()) continue;
        user_assert(!shared || shared == it->second)
            << "Func " << name() << ".in({...}): the listed consumers already have different "
            << "wrappers of " << name() << " (" << shared->name << " and " << it->second->name
            << "). A wrapper is shared only by Funcs wrapped together.";
        shared = it->second;
    }
    if (!shared)
        shared =
            make_wrapper(*this, name() + "_wrapper_" + Internal::unique_user_name('w')).function();
    // Every listed consumer that had a wrapper has `shared` (checked above).
    for (const Func &c : consumers)
        wrappers[c.name()] = shared;
    return Func(shared);
}

Func Func::in() {
    auto &wrappers = func->wrappers;
    if (auto it = wrappers.find(""); it != wrappers.end()) return Func(it->second);
    Func wrapper = make_wrapper(*this, name() + "_global_wrapper");
    wrappers[""] = wrapper.function();
    return wrapper;
}

namespace {

/** f's definitions under a new name, reading the copy where f read itself (weakly, as a Func
 * reads itself). */
class RetargetSelfCalls : public Internal::IRMutator {
public:
    RetargetSelfCalls(const FunctionContents *original, const FunctionPtr &copy)
        : original(original), copy(copy) {}

private:
    const FunctionContents *original;
    const FunctionPtr &copy;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        Expr e = IRMutator::visit(op);
        op = e.as<Call>();
        if (op->call_type != Call::Halide || !op->func.refers_to(original)) return e;
        return Call::make(op->type, copy->name, op->args, Call::Halide,
                          Internal::FunctionRef(copy).weakened(), op->value_index);
    }
};

/** d's specializations as copies of their own (the original's are shared pointers). */
void copy_specializations(Internal::Definition &d) {
    for (Internal::Specialization &s : d.specializations) {
        if (!s.definition) continue;
        s.definition = std::make_shared<Internal::Definition>(*s.definition);
        copy_specializations(*s.definition);
    }
}

// A copy of f (its definitions and schedule) named `name`, reading the copy where f read itself.
FunctionPtr make_clone(const FunctionPtr &f, const std::string &name) {
    user_assert(f->defined()) << "Can't clone Func " << f->name << ": it has no definition yet.";
    auto copy = std::make_shared<FunctionContents>(*f);
    copy->name = name;
    copy->wrappers.clear();
    copy->wraps.clear();
    copy->wrapped_callees.clear();
    RetargetSelfCalls retarget(f.get(), copy);
    copy_specializations(copy->init);
    Internal::mutate_definition(retarget, copy->init);
    for (Internal::Definition &d : copy->updates) {
        copy_specializations(d);
        Internal::mutate_definition(retarget, d);
    }
    return copy;
}

} // namespace

Func Func::clone_in(const Func &consumer) {
    user_assert(consumer.name() != name())
        << "Func " << name() << " can't take over its own calls (clone_in(" << name() << ")): "
        << "give clone_in a Func that calls " << name() << ".";
    auto &wrappers = func->wrappers;
    if (auto it = wrappers.find(consumer.name()); it != wrappers.end()) return Func(it->second);
    FunctionPtr copy = make_clone(func, name() + "_clone_in_" + consumer.name());
    wrappers[consumer.name()] = copy;
    return Func(copy);
}

Func Func::clone_in(const std::vector<Func> &consumers) {
    user_assert(!consumers.empty())
        << "Func " << name() << ".clone_in({}) names no consumer: give it the Funcs whose calls "
        << "the clone should take.";
    if (consumers.size() == 1) return clone_in(consumers[0]);
    auto &wrappers = func->wrappers;
    // One clone for the whole list: consumers that have one already must share it.
    FunctionPtr shared;
    for (const Func &c : consumers) {
        user_assert(c.name() != name()) << "Func " << name() << " can't take over its own calls: "
                                        << "remove " << name() << " from the list given to "
                                        << "clone_in().";
        auto it = wrappers.find(c.name());
        if (it == wrappers.end()) continue;
        user_assert(!shared || shared == it->second)
            << "Func " << name() << ".clone_in({...}): the listed consumers already have "
            << "different wrappers of " << name() << " (" << shared->name << " and "
            << it->second->name << "). A clone is shared only by Funcs cloned for together.";
        shared = it->second;
    }
    if (!shared) shared = make_clone(func, name() + "_clone_" + Internal::unique_user_name('c'));
    for (const Func &c : consumers)
        wrappers[c.name()] = shared;
    return Func(shared);
}

} // namespace loom
