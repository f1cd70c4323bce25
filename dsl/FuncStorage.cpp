// Func's storage and region directives: align_bounds / align_extent / align_storage,
// set_estimate(s), store_in, reorder_storage, fold_storage; and Func(Buffer)'s definition.
#include "dsl/Error.h"
#include "dsl/Func.h"
#include "dsl/IROperator.h"

namespace loom {

using namespace Internal;

namespace {

// The checks of an alignment directive's arguments: var a pure Var of f, the values integers
// (the modulus a positive constant where it is one).
void check_alignment(const Func &f, const Internal::FunctionPtr &func, const Var &var,
                     const char *directive, const std::vector<Expr> &values) {
    user_assert(f.defined()) << "Func " << f.name() << " must be defined before " << directive
                             << "()";
    bool found = false;
    for (const std::string &a : func->args)
        found |= a == var.name();
    user_assert(found) << "Can't " << directive << " " << var.name() << " of Func " << f.name()
                       << ": it is not one of its pure Vars";
    for (const Expr &v : values) {
        user_assert(v.defined() && v.type().is_int_or_uint() && v.type().is_scalar())
            << directive << "() of Func " << f.name() << " needs integer arguments, not " << v;
    }
    if (const int64_t *m = Internal::as_const_int(values[0])) {
        user_assert(*m > 0) << directive << "() of Func " << f.name() << " in " << var.name()
                            << " needs a positive alignment, not " << *m;
    }
}

} // namespace

Func &Func::align_bounds(const Var &var, Expr modulus, Expr remainder) {
    check_alignment(*this, func, var, "align_bounds", {modulus, remainder});
    modulus = cast(Int(32), modulus);
    // Reduced to [0, modulus), as Halide 14 reduces it.
    remainder = cast(Int(32), remainder) % modulus;
    func->schedule.alignments.push_back({var.name(), modulus, remainder});
    return *this;
}

Func &Func::align_extent(const Var &var, Expr modulus) {
    check_alignment(*this, func, var, "align_extent", {modulus});
    func->schedule.alignments.push_back({var.name(), cast(Int(32), modulus), Expr()});
    return *this;
}

Func &Func::align_storage(const Var &var, const Expr &alignment) {
    check_alignment(*this, func, var, "align_storage", {alignment});
    func->schedule.storage_alignments.push_back({var.name(), cast(Int(32), alignment)});
    return *this;
}

Func &Func::bound_storage(const Var &var, const Expr &bound) {
    const int64_t *c = bound.defined() ? Internal::as_const_int(bound) : nullptr;
    user_assert(!c || *c > 0) << "bound_storage() of Func " << name() << " in " << var.name()
                              << " needs a positive bound, not " << (c ? *c : 0);
    check_alignment(*this, func, var, "bound_storage", {bound});
    for (const Internal::StorageBound &b : func->schedule.storage_bounds)
        user_assert(b.var != var.name()) << "bound_storage of Func " << name() << " in "
                                         << var.name() << " is given twice; give it once";
    func->schedule.storage_bounds.push_back({var.name(), cast(Int(32), bound)});
    return *this;
}

namespace {

void check_pure_var(const FunctionPtr &f, const Var &var, const char *directive) {
    user_assert(f->defined()) << "Func " << f->name << " must be defined before " << directive
                              << "()";
    bool found = false;
    std::string listed;
    for (const std::string &a : f->args) {
        found |= a == var.name();
        listed += (listed.empty() ? "" : ", ") + a;
    }
    user_assert(found) << "In " << directive << " of Func " << f->name << ": " << var.name()
                       << " is not one of its pure Vars (" << listed << ")";
}

} // namespace

Func &Func::set_estimate(const Var &var, const Expr &min, const Expr &extent) {
    check_pure_var(func, var, "set_estimate");
    for (Bound &b : func->schedule.estimates) {
        if (b.var == var.name()) {
            b.min = min;
            b.extent = extent;
            return *this;
        }
    }
    func->schedule.estimates.push_back(Bound{var.name(), min, extent});
    return *this;
}

Func &Func::set_estimates(const Internal::Region &estimates) {
    user_assert(estimates.size() == func->args.size())
        << "In set_estimates of Func " << func->name << ": " << estimates.size()
        << " ranges given for its " << func->args.size()
        << " dimensions. Give one {min, extent} per dimension, in the order of its Vars.";
    for (size_t i = 0; i < estimates.size(); i++)
        set_estimate(Var(func->args[i]), estimates[i].min, estimates[i].extent);
    return *this;
}

void Func::define_as_buffer(const Buffer<> &im) {
    user_assert(im.defined()) << "Func(Buffer) of an undefined Buffer: allocate it first.";
    static const Var *const implicit[] = {&_0, &_1, &_2, &_3, &_4, &_5, &_6, &_7, &_8, &_9};
    user_assert(im.dimensions() <= 10)
        << "Func(Buffer) of Buffer " << im.name() << ", which has " << im.dimensions()
        << " dimensions: Loom names at most 10 (_0 ... _9). Define the Func with Vars of your own.";
    std::vector<Expr> args;
    for (int d = 0; d < im.dimensions(); d++)
        args.push_back(*implicit[d]);
    (*this)(args) = im(args);
}

Func &Func::memoize(const EvictionKey &eviction_key) {
    const Expr &key = eviction_key.key;
    user_assert(!key.defined() ||
                (key.type().is_scalar() && (key.type().is_int_or_uint() || key.type().is_handle())))
        << "memoize of Func " << name() << " with eviction key " << key << " of type " << key.type()
        << ": an eviction key is an integer or a handle.";
    func->schedule.memoized = true;
    func->schedule.eviction_key = key;
    return *this;
}

Func &Func::debug_to_file(const std::string &filename) {
    user_assert(!filename.empty())
        << "debug_to_file of Func " << name() << " with an empty file name";
    func->schedule.debug_file = filename;
    return *this;
}

Func &Func::async() {
    func->schedule.async = true;
    return *this;
}

Func &Func::store_in(MemoryType memory_type) {
    const bool offered = memory_type == MemoryType::Auto || memory_type == MemoryType::Heap ||
                         memory_type == MemoryType::Stack || memory_type == MemoryType::Register ||
                         memory_type == MemoryType::GPUShared;
    user_assert(offered) << "store_in of Func " << name()
                         << ": MemoryType::" << Internal::memory_type_name(memory_type)
                         << " is memory of a target Loom has no backend for (Hexagon, AMX, "
                            "GPU textures). Use Auto, Heap, Stack, Register or GPUShared.";
    func->schedule.memory_type = memory_type;
    return *this;
}

Func &Func::reorder_storage(const std::vector<Var> &vars) {
    std::vector<std::string> order;
    for (const Var &v : vars) {
        check_pure_var(func, v, "reorder_storage");
        for (const std::string &o : order) {
            user_assert(o != v.name()) << "In reorder_storage of Func " << name() << ": "
                                       << v.name() << " is listed twice";
        }
        order.push_back(v.name());
    }
    // Vars not listed keep their relative order, outside the listed ones.
    for (const std::string &a : func->args) {
        bool listed = false;
        for (const std::string &o : order)
            listed |= o == a;
        if (!listed) order.push_back(a);
    }
    func->schedule.storage_order = order;
    return *this;
}

Func &Func::fold_storage(const Var &var, const Expr &extent, bool fold_forward) {
    check_pure_var(func, var, "fold_storage");
    user_assert(fold_forward) << "fold_storage of Func " << name()
                              << " with fold_forward = false is not supported; Loom folds storage "
                                 "for loops that move forward.";
    user_assert(extent.defined() && extent.type().is_int_or_uint())
        << "fold_storage of Func " << name() << " needs an integer extent";
    if (const int64_t *c = Internal::as_const_int(extent)) {
        user_assert(*c > 0) << "fold_storage of Func " << name() << " by " << *c
                            << ": the fold must be strictly positive";
    }
    func->schedule.folds.push_back(StorageFold{var.name(), cast(Int(32), extent)});
    return *this;
}

} // namespace loom
