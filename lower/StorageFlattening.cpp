#include "lower/StorageFlattening.h"

#include <map>
#include <set>

#include "dsl/Error.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Undef.h"
#include "lower/LetTrackingMutator.h"
#include "lower/Simplify.h"

namespace loom {
namespace Internal {
namespace {

// Func::debug_to_file's type code (runtime/loom_debug_to_file.c), Halide 14's.
int debug_type_code(const FunctionContents &f, Type t) {
    const Type codes[] = {Float(32), Float(64), UInt(8), Int(8),   UInt(16),
                          Int(16),   UInt(32),  Int(32), UInt(64), Int(64)};
    if (t == Bool()) return 2;
    for (int i = 0; i < 10; i++) {
        if (t == codes[i]) return i;
    }
    user_error << "debug_to_file of Func " << f.name << ", of type " << t
               << ": the files hold floats and integers of 8 to 64 bits. Dump a Func that casts "
                  "it to one of them.";
    return -1;
}

// After a realization of f ends: its buffer written to f's debug file over the realization's
// region (`region`; an output's own where null), with the buffer's strides (which padding by
// align_storage may widen); a failure stops the run naming the file.
Stmt debug_dump(const FunctionContents &f, const std::string &buffer, Type t, int dimensions,
                const Region *region = nullptr) {
    user_assert(f.outputs() == 1)
        << "debug_to_file of Func " << f.name << ", which has a Tuple of " << f.outputs()
        << " values: a dump holds one value per point (as Halide 14's). Dump a Func of each "
           "element instead.";
    user_assert(dimensions <= 4) << "debug_to_file of Func " << f.name << ", which has "
                                 << dimensions << " dimensions: the files hold at most four.";
    user_assert(f.schedule.folds.empty())
        << "debug_to_file of Func " << f.name << ", whose storage is folded (fold_storage): "
        << "its buffer never holds the whole region. Drop the fold_storage.";
    std::vector<Expr> shape{StringImm::make(buffer), make_zero(t), Expr(0), Expr(0)};
    for (int d = 0; d < dimensions; d++) {
        const std::string ds = std::to_string(d);
        shape.push_back(int_var(buffer + ".min." + ds));
        shape.push_back(region ? (*region)[d].extent : int_var(buffer + ".extent." + ds));
        shape.push_back(int_var(buffer + ".stride." + ds));
    }
    const std::string result = f.name + ".debug_to_file_result";
    Expr call = Call::make(Int(32), "loom_debug_to_file",
                           {StringImm::make(f.schedule.debug_file), Expr(debug_type_code(f, t)),
                            Call::make_intrinsic(Handle(), Call::make_buffer, shape)},
                           Call::Extern);
    Expr failed = Call::make(
        Int(32), "loom_error_debug_to_file_failed",
        {StringImm::make(f.name), StringImm::make(f.schedule.debug_file), int_var(result)},
        Call::Extern);
    return LetStmt::make(result, call, AssertStmt::make(int_var(result) == 0, failed));
}

// An index term in 64 bits: the cast pushed through sums and products to the variables and
// constants, so that the taps of a stencil keep one base (x + 1 becomes (int64)x + 1) and a
// vectorized loop variable's ramp widens as a ramp. Exact where the 32-bit terms do not
// overflow, which Loom assumes of signed 32-bit arithmetic (as Halide 14 does).
Expr widened(const Expr &e) {
    if (e.type() == Int(64)) return e;
    if (const IntImm *i = e.as<IntImm>()) return make_const(Int(64), i->value);
    if (e.type() == Int(32)) {
        if (const Add *a = e.as<Add>()) return widened(a->a) + widened(a->b);
        if (const Sub *a = e.as<Sub>()) return widened(a->a) - widened(a->b);
        if (const Mul *a = e.as<Mul>()) return widened(a->a) * widened(a->b);
    }
    return cast(Int(64), e);
}

class StorageFlattening : public LetTrackingMutator {
public:
    StorageFlattening(const std::vector<LoweredArgument> &args, const Environment &env,
                      int64_t max_elements)
        : env(env), max_elements(max_elements),
          index_type(max_elements > INT32_MAX ? Int(64) : Int(32)) {
        for (const LoweredArgument &a : args) {
            if (a.kind == Argument::OutputBuffer && a.output) output_arguments[a.name] = &a;
            if (a.kind == Argument::InputScalar) continue;
            external.insert(a.name);
            constrained_strides[a.name] = {};
            for (const DimConstraint &c : constraints_of(a))
                constrained_strides[a.name].push_back(c.stride);
        }
    }
    using IRMutator::mutate;

private:
    const Environment &env;
    // The most elements a Func's storage may hold, and the type of flat indices: Int(64) with
    // LargeBuffers, where one storage may pass 2^31 - 1 elements.
    const int64_t max_elements;
    const Type index_type;
    std::set<std::string> external;
    std::map<std::string, const LoweredArgument *> output_arguments; // by buffer name
    // The strides of the arguments' buffers where a constraint fixes them (undefined where
    // not): an argument is indexed with its constraint (checked at entry), so that a constant
    // stride (1 in dimension 0 by default) makes dense or strided vector accesses.
    std::map<std::string, std::vector<Expr>> constrained_strides;
    // fold_storage: buffer -> (dimension -> fold). A folded dimension stores x at x mod fold.
    std::map<std::string, std::map<size_t, Expr>> folds;
    // How many loops enclose the statement being visited: a Func computed inside a loop often
    // covers a region of constant size (a tile) that its bounds write through the lets.
    int loop_depth = 0;

    // Outputs have no realization: each is dumped after its production (a bounds query never
    // reaches it).
    Stmt visit(const ProducerConsumer *op) override {
        Stmt s = IRMutator::visit(op);
        if (!op->is_producer) return s;
        for (const auto &[buffer, a] : output_arguments) {
            if (a->output->name == op->name && !a->output->schedule.debug_file.empty())
                s = Block::make(s, debug_dump(*a->output, buffer, a->type, a->dimensions));
        }
        return s;
    }

    Stmt visit(const For *op) override {
        loop_depth++;
        Stmt result = LetTrackingMutator::visit(op);
        loop_depth--;
        return result;
    }

    /** The extent as a constant when the enclosing lets make it one (so that the allocation
     * has a constant size and its strides fold: codegen puts small constant allocations on
     * the stack, where LLVM keeps them in registers), else unchanged. */
    Expr constant_extent_if_known(const Expr &extent) {
        if (loop_depth == 0 || is_const(extent)) return extent;
        Expr c = simplify_to_constant(extent, lets);
        return is_const(c) ? c : extent;
    }

    // The stride of dimension d of `buffer`: its constraint's where one fixes it, else its let.
    Expr stride_of(const std::string &buffer, size_t d) {
        auto c = constrained_strides.find(buffer);
        if (c != constrained_strides.end() && d < c->second.size() && c->second[d].defined())
            return c->second[d];
        return int_var(buffer + ".stride." + std::to_string(d));
    }

    // (a - b) * stride in the index type.
    Expr index_term(const Expr &a, const Expr &b, const Expr &stride) const {
        if (index_type == Int(32)) return (a - b) * stride;
        return (widened(a) - widened(b)) * widened(stride);
    }

    Expr flat_index(const std::string &buffer, const std::vector<Expr> &args) {
        Expr index = make_zero(index_type);
        auto folded = folds.find(buffer);
        for (size_t d = 0; d < args.size(); d++) {
            std::string ds = std::to_string(d);
            if (folded != folds.end() && folded->second.count(d)) {
                index = index + index_term(args[d] % folded->second.at(d), make_zero(Int(32)),
                                           stride_of(buffer, d));
            } else {
                index = index +
                        index_term(args[d], int_var(buffer + ".min." + ds), stride_of(buffer, d));
            }
        }
        return index;
    }

    Stmt visit(const Provide *op) override {
        const FunctionPtr &f = env.functions.at(op->name);
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        // A value that depends on undef is stored only where it does not (dsl/Undef.h): a
        // pure definition's (an update's undef became the element's own value).
        std::vector<StoredValue> stored;
        for (const Expr &v : op->values)
            stored.push_back(stored_value(v));
        auto conditional = [&](const StoredValue &where, Stmt store) {
            return where.condition.defined() ? IfThenElse::make(mutate(where.condition), store)
                                             : store;
        };
        if (op->values.size() == 1) {
            if (stored[0].never) return make_no_op();
            std::string buffer = f->buffer_name(0);
            return conditional(
                stored[0], Store::make(buffer, mutate(stored[0].value), flat_index(buffer, args)));
        }
        // Every value of a Tuple is computed before any is stored: an update may read the
        // elements it is about to overwrite.
        std::vector<Stmt> stores;
        for (size_t i = 0; i < op->values.size(); i++) {
            if (stored[i].never) continue;
            std::string buffer = f->buffer_name((int)i);
            Expr value = Variable::make(op->values[i].type(), op->name + ".value." + std::to_string(i));
            stores.push_back(
                conditional(stored[i], Store::make(buffer, value, flat_index(buffer, args))));
        }
        if (stores.empty()) return make_no_op();
        Stmt s = Block::make(stores);
        for (size_t i = op->values.size(); i-- > 0;) {
            if (stored[i].never) continue;
            s = LetStmt::make(op->name + ".value." + std::to_string(i), mutate(stored[i].value), s);
        }
        return s;
    }

    // An extern stage's buffers (lower/ExternStages.h): an input's whole storage, or the region
    // of its own storage it computes, as a loom_buffer_t over that memory.
    Expr extern_buffer(const Call *op) {
        const Call *lo = op->args[0].as<Call>(), *hi = op->args[1].as<Call>();
        internal_assert(lo && hi) << "extern buffer of " << Expr(op);
        const std::string buffer =
            lo->call_type == Call::Halide ? lo->func->buffer_name(lo->value_index) : lo->name;
        const std::string &func = lo->name;
        const Type type = lo->type;
        const size_t dims = lo->args.size();
        // An input is passed whole; an output as the region it computes.
        std::vector<Expr> mins, maxs;
        if (op->is_intrinsic(Call::extern_output)) {
            for (size_t d = 0; d < dims; d++) {
                mins.push_back(mutate(lo->args[d]));
                maxs.push_back(mutate(hi->args[d]));
            }
        }
        user_assert(!folds.count(buffer))
            << "Func " << func
            << " is folded (fold_storage) and passed to an extern stage as "
               "a buffer, which can't describe folded storage. Drop the fold_storage of "
            << func << ".";
        Expr offset = make_zero(index_type);
        const bool written = op->is_intrinsic(Call::extern_output);
        std::vector<Expr> args{StringImm::make(buffer), make_zero(type), Expr(),
                               Expr((int)written)};
        for (size_t d = 0; d < dims; d++) {
            const std::string ds = std::to_string(d);
            Expr stride = stride_of(buffer, d);
            if (mins.empty()) {
                args.push_back(int_var(buffer + ".min." + ds));
                args.push_back(int_var(buffer + ".extent." + ds));
            } else {
                offset = offset + index_term(mins[d], int_var(buffer + ".min." + ds), stride);
                args.push_back(mins[d]);
                args.push_back(simplify(maxs[d] - mins[d] + 1));
            }
            args.push_back(stride);
        }
        args[2] = simplify(offset);
        return Call::make_intrinsic(Handle(), Call::make_buffer, args);
    }

    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::extern_input) || op->is_intrinsic(Call::extern_output))
            return extern_buffer(op);
        if (op->call_type != Call::Halide && op->call_type != Call::Image) {
            return IRMutator::visit(op);
        }
        std::vector<Expr> args;
        for (const Expr &a : op->args) args.push_back(mutate(a));
        std::string buffer = op->call_type == Call::Halide ? op->func->buffer_name(op->value_index)
                                                           : op->name;
        return Load::make(op->type, buffer, flat_index(buffer, args));
    }

    // The extent of f's storage in dimension d: the region's, padded by align_storage (and so
    // the strides outside it).
    static Expr padded_extent(const FunctionContents &f, const Region &bounds, int d) {
        Expr extent = bounds[d].extent;
        for (const StorageAlignment &a : f.schedule.storage_alignments) {
            if (a.var == f.args[d])
                extent = simplify(((extent + a.alignment - 1) / a.alignment) * a.alignment);
        }
        return extent;
    }

    // ... and as bound_storage fixes it, where it does.
    static Expr storage_extent(const FunctionContents &f, const Region &bounds, int d) {
        Expr extent = padded_extent(f, bounds, d);
        for (const StorageBound &b : f.schedule.storage_bounds) {
            if (b.var == f.args[d]) extent = b.bound;
        }
        return extent;
    }

    // f's dimensions in storage order, innermost first (reorder_storage).
    static std::vector<int> order_of(const FunctionContents &f, size_t dims) {
        std::vector<int> order;
        for (const std::string &v : f.schedule.storage_order) {
            for (int d = 0; d < (int)f.args.size(); d++) {
                if (f.args[d] == v) order.push_back(d);
            }
        }
        if (order.size() != dims) {
            order.clear();
            for (int d = 0; d < (int)dims; d++)
                order.push_back(d);
        }
        return order;
    }

    // The storage of f must fit its offsets: the strides (products of the extents stored
    // inside each dimension) 32-bit, the whole at most max_elements. Where the extents are
    // constants that break it, refused now. Otherwise codegen checks the whole before it
    // allocates (visit(Allocate) there), which covers the strides unless max_elements passes
    // 2^31 - 1 (LargeBuffers): the strides are then checked by the statement returned (in 64
    // bits, to run before the allocation; undefined where none is needed).
    Stmt size_checks(const FunctionContents &f, const std::string &buffer, const Region &bounds) {
        const std::vector<int> order = order_of(f, bounds.size());
        std::vector<Stmt> checks;
        // In the extents' names, and in their values (constants where the lets make them so).
        Expr product, product_value;
        for (size_t k = 0; k < order.size(); k++) {
            auto in_64_bits = [](const Expr &e) { return cast(Int(64), max(e, 0)); };
            const Expr extent = in_64_bits(int_var(buffer + ".extent." + std::to_string(order[k])));
            const Expr value =
                in_64_bits(simplify_to_constant(storage_extent(f, bounds, order[k]), lets));
            product = product.defined() ? product * extent : extent;
            product_value = product_value.defined() ? product_value * value : value;
            const bool whole = k + 1 == order.size();
            const int64_t most = whole ? max_elements : INT32_MAX;
            std::string what =
                whole ? "holds" : "has, in dimension " + f.args[order[k + 1]] + ", a stride of";
            std::string why = whole
                                  ? " that " + std::string(max_elements > INT32_MAX ? "64" : "32") +
                                        "-bit offsets address"
                                  : " a stride may be";
            std::string fix =
                whole && max_elements <= INT32_MAX
                    ? ". " + kLargeBuffersAdvice + ", or compute it over a smaller region."
                    : ". Compute it over a smaller region.";
            const Expr known = simplify(product_value);
            if (const int64_t *n = as_const_int(known)) {
                user_assert(*n <= most) << "Func " << f.name << "'s storage " << what << " " << *n
                                        << " elements, more than the " << most << why << fix;
                continue;
            }
            if (whole || max_elements <= INT32_MAX) continue;
            const Expr ok = simplify(product <= make_const(Int(64), most));
            if (is_const_one(ok)) continue;
            const Expr message = Call::make_intrinsic(
                Handle(), Call::stringify,
                {Expr("Func " + f.name + "'s storage " + what + " "), product,
                 Expr(" elements, more than the " + std::to_string(most) + why + fix)});
            checks.push_back(
                AssertStmt::make(ok, Call::make(Int(32), "loom_error", {message}, Call::Extern)));
        }
        return checks.empty() ? Stmt() : Block::make(checks);
    }

    Stmt visit(const Realize *op) override {
        const FunctionPtr &f = env.functions.at(op->name);
        Region bounds = op->bounds;
        for (const StorageFold &fold : f->schedule.folds) {
            for (size_t d = 0; d < f->args.size(); d++) {
                if (f->args[d] != fold.var) continue;
                for (size_t i = 0; i < op->types.size(); i++) folds[f->buffer_name((int)i)][d] = fold.extent;
                // The folded dimension holds fold slices, indexed modulo the fold from 0.
                bounds[d] = Range(0, fold.extent);
            }
        }
        Stmt body = mutate(op->body);
        for (size_t i = 0; i < op->types.size(); i++) folds.erase(f->buffer_name((int)i));
        for (size_t i = 0; i < op->types.size(); i++) {
            std::string buffer = f->buffer_name((int)i);
            std::vector<Expr> extents;
            for (size_t d = 0; d < op->bounds.size(); d++) {
                extents.push_back(int_var(buffer + ".extent." + std::to_string(d)));
            }
            if (!f->schedule.debug_file.empty())
                body = Block::make(
                    body, debug_dump(*f, buffer, op->types[i], (int)extents.size(), &op->bounds));
            body = Block::make(body, Free::make(buffer));
            body = Allocate::make(buffer, op->types[i], extents, body, f->schedule.memory_type);
            // Every Tuple element has the same extents: the first one's are checked.
            if (i == 0) {
                if (Stmt checks = size_checks(*f, buffer, bounds); checks.defined())
                    body = Block::make(checks, body);
            }
            // Dense layout in storage order (reorder_storage; dimension 0 innermost by default):
            // each dimension's stride is the product of the extents stored inside it.
            const std::vector<int> order = order_of(*f, op->bounds.size());
            for (int k = (int)order.size() - 1; k >= 0; k--) {
                std::string ds = std::to_string(order[k]);
                Expr stride = k == 0 ? Expr(1)
                                     : int_var(buffer + ".stride." + std::to_string(order[k - 1])) *
                                           int_var(buffer + ".extent." + std::to_string(order[k - 1]));
                body = LetStmt::make(buffer + ".stride." + ds, stride, body);
            }
            for (int d = (int)bounds.size() - 1; d >= 0; d--) {
                std::string ds = std::to_string(d);
                Expr extent = padded_extent(*f, bounds, d);
                // bound_storage fixes the extent; the region must fit in it.
                for (const StorageBound &b : f->schedule.storage_bounds) {
                    if (b.var != f->args[d]) continue;
                    const std::string message =
                        "Func " + f->name + " needs more storage in dimension " + b.var +
                        " than its bound_storage gives it. Give a larger bound, or realize a "
                        "smaller region.";
                    body = Block::make(AssertStmt::make(simplify(extent <= b.bound),
                                                        Call::make(Int(32), "loom_error",
                                                                   {Expr(message)}, Call::Extern)),
                                       body);
                    extent = b.bound;
                }
                body =
                    LetStmt::make(buffer + ".extent." + ds, constant_extent_if_known(extent), body);
                body = LetStmt::make(buffer + ".min." + ds, bounds[d].min, body);
            }
        }
        return body;
    }
};

}  // namespace

Stmt storage_flattening(const Stmt &s, const std::vector<LoweredArgument> &args,
                        const Environment &env, int64_t max_elements) {
    return StorageFlattening(args, env, max_elements).mutate(s);
}

}  // namespace Internal
}  // namespace loom
