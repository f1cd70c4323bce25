// Func: a pipeline stage defined over Vars. `f(x, y) = expr;` gives its pure definition; a
// call `f(x + 1, y)` inside another definition reads it. The schedule directives choose how
// it is computed without changing what.
#pragma once

#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "dsl/Argument.h"
#include "dsl/Buffer.h"
#include "dsl/ExternFuncArgument.h"
#include "dsl/Function.h"
#include "dsl/JITUserContext.h"
#include "dsl/OutputImageParam.h"
#include "dsl/ParamMap.h"
#include "dsl/Realization.h"
#include "dsl/Stage.h"
#include "dsl/Target.h"
#include "dsl/Tuple.h"
#include "dsl/Var.h"

namespace loom {

class Func;
class Pipeline;

/** f(args) on either side of a definition. */
class FuncTupleElementRef;

class FuncRef {
public:
    /** `placeholder`: where a placeholder `_` stood among the arguments as written (-1 for
     * none), replaced by `implicit_count` implicit Vars (Func::operator() expands it). */
    FuncRef(Internal::FunctionPtr func, std::vector<Expr> args, int placeholder = -1,
            int implicit_count = 0);
    /** A copy refers to the same point (assigning one FuncRef to another defines the Func). */
    FuncRef(const FuncRef &) = default;

    /** Gives the Func its pure definition: every argument must be a distinct Var. */
    /** The first definition of a Func is its pure definition: every argument must be a
     * distinct Var. Each later one is an update definition: arguments may be any integer
     * Exprs of pure Vars and RVars, and the value may read the Func itself. */
    FuncRef &operator=(const Expr &value);
    FuncRef &operator=(const Tuple &values);
    FuncRef &operator=(const FuncRef &other);
    /** Update definitions f(args) = f(args) op e. An undefined Func first gets the pure
     * definition 0 (for + and -) or 1 (for * and /) of e's type. */
    FuncRef &operator+=(const Expr &e);
    FuncRef &operator-=(const Expr &e);
    FuncRef &operator*=(const Expr &e);
    FuncRef &operator/=(const Expr &e);
    /** The same element by element for Tuple-valued Funcs (identities of each element's type
     * for an undefined one); a Tuple of one element is that Expr, and so is a FuncRef of a
     * single-valued Func. */
    FuncRef &operator+=(const Tuple &e);
    FuncRef &operator-=(const Tuple &e);
    FuncRef &operator*=(const Tuple &e);
    FuncRef &operator/=(const Tuple &e);
    FuncRef &operator+=(const FuncRef &e);
    FuncRef &operator-=(const FuncRef &e);
    FuncRef &operator*=(const FuncRef &e);
    FuncRef &operator/=(const FuncRef &e);

    /** The value at these coordinates. The Func must be defined and single-valued. */
    operator Expr() const;
    /** Element i of a Tuple-valued Func at these coordinates: read as an Expr, or assigned to
     * update that element alone. */
    FuncTupleElementRef operator[](int i) const;
    size_t size() const;

    const Internal::FunctionPtr &function() const { return func; }
    const std::vector<Expr> &arguments() const { return args; }

private:
    Internal::FunctionPtr func;
    std::vector<Expr> args;
    int placeholder = -1, implicit_count = 0;
    /** The arguments of a definition whose values are `values`: on the left of a pure
     * definition the placeholder becomes the implicit Vars the values use (Halide's rule);
     * an implicit Var on the right must be on the left. */
    std::vector<Expr> args_with_implicit_vars(const std::vector<Expr> &values) const;
    void define(std::vector<Expr> values);
    void define_update(std::vector<Expr> values);
    FuncRef &update_with(const Expr &e, char op);
    FuncRef &update_with(const Tuple &e, char op);
};

/** Element i of a Tuple-valued Func at some coordinates (Halide's FuncTupleElementRef). Read,
 * it is that element's value. Assigned (or updated with +=, ...), it defines an update of the
 * Func whose other elements are undef: they keep their values. */
class FuncTupleElementRef {
public:
    FuncTupleElementRef(const FuncRef &ref, int index) : ref(ref), element(index) {}

    Stage operator=(const Expr &e);
    Stage operator=(const FuncRef &e);
    Stage operator+=(const Expr &e);
    Stage operator-=(const Expr &e);
    Stage operator*=(const Expr &e);
    Stage operator/=(const Expr &e);

    operator Expr() const;
    /** Which element of the Tuple this is. */
    int index() const { return element; }

private:
    FuncRef ref;
    int element;
    /** A Tuple of the Func's size: e at this element, undef at the others. */
    Tuple values_with_undefs(const Expr &e) const;
    /** The stage the last definition of the Func made. */
    Stage last_stage() const;
};

/** How compile_to_lowered_stmt writes the loop nest: as text, or as a web page whose blocks
 * collapse (lower/StmtHtml.h). Unscoped, as Halide's: a Halide program names it `Text` as well
 * as `StmtOutputFormat::Text`. */
enum StmtOutputFormat { Text, HTML };

/** Tags the cache entries of a memoized Func (Func::memoize), so that a program can evict
 * them together: an integer or handle Expr (Halide's EvictionKey). */
struct EvictionKey {
    Expr key;
    EvictionKey(const Expr &expr = Expr()) : key(expr) {}
};

class Func {
public:
    Func();
    explicit Func(const std::string &name);
    explicit Func(Internal::FunctionPtr f);
    /** A Func whose value is e, over the implicit Vars e uses (Halide's Func(Expr), defined
     * as f(_) = e): zero-dimensional where it uses none. */
    explicit Func(const Expr &e);
    /** Halide's Func(Buffer): a Func of its own name defined as f(_0, _1, ...) = im(_0, _1,
     * ...), so that reads of a buffer can be wrapped and scheduled (Func(im).in(g), say). */
    template <typename T, int Dims> explicit Func(const Buffer<T, Dims> &im) : Func() {
        define_as_buffer(Buffer<>(im));
    }

    /** A reference to the Func at these coordinates; a placeholder `_` among them stands for
     * the remaining dimensions (see Var::implicit). */
    template<typename... Args>
    FuncRef operator()(const Args &...args) const {
        return (*this)(std::vector<Expr>{Expr(args)...});
    }
    FuncRef operator()(std::vector<Expr> args) const;
    FuncRef operator()(const std::vector<Var> &args) const;

    const std::string &name() const;
    bool defined() const;
    int dimensions() const;
    int outputs() const;
    std::vector<Var> args() const;
    /** The right-hand side of the pure definition (single-valued Funcs). */
    Expr value() const;
    Tuple values() const;
    /** Update definition idx's left-hand side, value(s) and the RVars it iterates, as Halide's
     * (errors name the Func and its count of updates). */
    bool has_update_definition() const { return num_update_definitions() > 0; }
    const std::vector<Expr> &update_args(int idx = 0) const;
    Expr update_value(int idx = 0) const;
    Tuple update_values(int idx = 0) const;
    std::vector<RVar> rvars(int idx = 0) const;
    const std::vector<Type> &output_types() const;
    Type output_type() const;

    // Scheduling. Each returns *this so that directives chain. See Stage for the loop ones.
    Func &split(const VarOrRVar &old, const VarOrRVar &outer, const VarOrRVar &inner,
                const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &fuse(const VarOrRVar &inner, const VarOrRVar &outer, const VarOrRVar &fused);
    Func &reorder(const std::vector<VarOrRVar> &vars);
    template<typename... Args>
    Func &reorder(const VarOrRVar &first, const Args &...rest) {
        return reorder(std::vector<VarOrRVar>{first, VarOrRVar(rest)...});
    }
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xo, const VarOrRVar &yo,
               const VarOrRVar &xi, const VarOrRVar &yi, const Expr &xfactor, const Expr &yfactor,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &xi, const VarOrRVar &yi,
               const Expr &xfactor, const Expr &yfactor, TailStrategy tail = TailStrategy::Auto);
    /** Stage::tile of any number of dimensions. */
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
               const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
               const std::vector<TailStrategy> &tails);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &outers,
               const std::vector<VarOrRVar> &inners, const std::vector<Expr> &factors,
               TailStrategy tail = TailStrategy::Auto);
    Func &tile(const std::vector<VarOrRVar> &previous, const std::vector<VarOrRVar> &inners,
               const std::vector<Expr> &factors, TailStrategy tail = TailStrategy::Auto);
    Func &rename(const VarOrRVar &old, const VarOrRVar &new_name);
    /** Stage::allow_race_conditions on the pure definition. */
    Func &allow_race_conditions();
    /** Stage::atomic of the pure definition, as Halide's (which writes each element once:
     * refused, saying to make an update atomic). */
    Func &atomic(bool override_associativity_test = false);
    Func &serial(const VarOrRVar &var);
    Func &parallel(const VarOrRVar &var);
    Func &parallel(const VarOrRVar &var, const Expr &task_size, TailStrategy tail = TailStrategy::Auto);
    Func &vectorize(const VarOrRVar &var);
    Func &vectorize(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    Func &unroll(const VarOrRVar &var);
    Func &unroll(const VarOrRVar &var, const Expr &factor, TailStrategy tail = TailStrategy::Auto);
    /** Stage::gpu_blocks, gpu_threads and gpu_tile on the pure definition. */
    Func &gpu_blocks(const VarOrRVar &x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y,
                     DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_blocks(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                     DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, const VarOrRVar &y,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_threads(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z,
                      DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &bx, const VarOrRVar &tx,
                   const Expr &x_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &bx,
                   const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
                   const Expr &x_size, const Expr &y_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &tx,
                   const VarOrRVar &ty, const Expr &x_size, const Expr &y_size,
                   TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &tx, const Expr &x_size,
                   TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &bx,
                   const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
                   const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                   const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu_tile(const VarOrRVar &x, const VarOrRVar &y, const VarOrRVar &z, const VarOrRVar &tx,
                   const VarOrRVar &ty, const VarOrRVar &tz, const Expr &x_size, const Expr &y_size,
                   const Expr &z_size, TailStrategy tail = TailStrategy::Auto,
                   DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &bx, const VarOrRVar &tx,
              DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &tx, const VarOrRVar &ty,
              DeviceAPI device_api = DeviceAPI::Default_GPU);
    Func &gpu(const VarOrRVar &bx, const VarOrRVar &by, const VarOrRVar &bz, const VarOrRVar &tx,
              const VarOrRVar &ty, const VarOrRVar &tz,
              DeviceAPI device_api = DeviceAPI::Default_GPU);
    /** Stage::prefetch on the pure definition. */
    Func &prefetch(const ImageParam &image, const VarOrRVar &at, const VarOrRVar &from,
                   const Expr &offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);
    Func &prefetch(const Func &f, const VarOrRVar &at, const VarOrRVar &from,
                   const Expr &offset = 1,
                   PrefetchBoundStrategy strategy = PrefetchBoundStrategy::GuardWithIf);

    /** Computes the whole required region before any consumer runs, into its own buffer. */
    Func &compute_root();
    /** Fuses the definition into every use (the default for every Func but the outputs). */
    Func &compute_inline();
    /** Computes the region needed by one iteration of loop `var` of `consumer`, inside it. */
    Func &compute_at(const Func &consumer, const VarOrRVar &var);
    Func &compute_at(const LoopLevel &level);
    /** Stage::compute_with on the pure definition: horizontal fusion with another stage. */
    Func &compute_with(const Stage &s, const VarOrRVar &var,
                       const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Func &compute_with(const Stage &s, const VarOrRVar &var,
                       LoopAlignStrategy align = LoopAlignStrategy::Auto);
    Func &compute_with(const LoopLevel &level,
                       const std::vector<std::pair<VarOrRVar, LoopAlignStrategy>> &align);
    Func &compute_with(const LoopLevel &level, LoopAlignStrategy align = LoopAlignStrategy::Auto);
    /** The pure definition as a Stage (as Halide's Func converts). */
    operator Stage() const;
    /** Places the storage at a loop level (outside or at the compute level). */
    Func &store_at(const Func &consumer, const VarOrRVar &var);
    Func &store_at(const LoopLevel &level);
    Func &store_root();
    /** Where this Func's storage lives (Halide's store_in): MemoryType::Heap, Stack (a size
     * known at compile time, else realize() says so), Register, GPUShared (at the block level
     * of a GPU kernel), or Auto, Loom's choice. */
    Func &store_in(MemoryType memory_type);
    /** Halide's memoize: the Func (computed at the root) keeps the region it computed in a
     * cache shared by every pipeline of the process, keyed by the region and by the values of
     * every Param and the address and shape of every input buffer it depends on; a later run
     * with the same key copies the region from the cache instead of computing it. A buffer's
     * contents are not part of the key: change them and evict (the eviction key tags the
     * entries: loom_memoization_cache_evict, runtime/loom_runtime.h). The cache holds at most
     * loom_memoization_cache_set_size bytes (1 MiB unless set), evicting the least recently
     * used region. */
    Func &memoize(const EvictionKey &eviction_key = EvictionKey());
    /** Halide's debug_to_file: when each realization of this Func ends (for an output, when
     * the pipeline has computed it), its values are written to `filename`: a TIFF where the
     * name ends in .tif or .tiff, a MATLAB level 5 array where it ends in .mat, else Halide's
     * raw format (four int32 extents, an int32 type code, the elements, dimension 0 fastest),
     * each as Halide 14 writes it. A Func of one value and at most four dimensions; its storage
     * is never folded. A file that cannot be written stops the run with an error naming it. */
    Func &debug_to_file(const std::string &filename);
    /** Halide's async: the Func's productions run as a task of their own, at the same time as
     * the work that consumes them, which waits for each production where the serial program
     * would have computed it (so the results are the same bytes). Stored above its compute
     * level (store_root, store_at), the producer computes later iterations' regions while the
     * consumer reads earlier ones. Computed in order instead: with fold_storage (the storage
     * holds only the rows read now), and with update definitions where stored outside its
     * loop (a production may rewrite points being read). Refused for a Func computed in a GPU
     * loop, inside a vectorized loop, or together with another (compute_with), and where its
     * production reads a Func computed beside it; for an inlined Func or an output it
     * changes nothing (as Halide 14). */
    Func &async();
    /** Computes the Func over exactly [min, min + extent) in var, and checks at run time that
     * its consumers read nothing outside. */
    Func &bound(const Var &var, const Expr &min, const Expr &extent);
    /** Computes the Func over `extent` points in var from the first its consumers read (an
     * output: its buffer must have that extent), and checks at run time that they read no
     * more: a constant extent makes the loop's trip count and the allocation's size constant
     * where the min moves (a Func computed per tile), so it can be unrolled or vectorized and
     * stored on the stack (Halide 14's bound_extent). */
    Func &bound_extent(const Var &var, const Expr &extent);
    /** Widens the region computed in var so that its min is `remainder` modulo `modulus` and
     * its extent a multiple of `modulus` (Halide 14's align_bounds): it always covers what the
     * consumers need, so nothing is checked. */
    Func &align_bounds(const Var &var, Expr modulus, Expr remainder = 0);
    /** Widens the region computed in var so that its extent is a multiple of `modulus`, its
     * min left where it is. */
    Func &align_extent(const Var &var, Expr modulus);
    /** Pads the storage of dimension var to a multiple of `alignment` elements, so that the
     * strides of the dimensions stored outside it are multiples of it. */
    Func &align_storage(const Var &var, const Expr &alignment);
    /** Halide's bound_storage: the storage of dimension var holds `bound` elements, whatever
     * region bounds inference gives it (a constant bound gives a fixed-size allocation, which
     * may go on the stack). A run whose region along var is larger stops with an error naming
     * the Func. The region computed is unchanged. */
    Func &bound_storage(const Var &var, const Expr &bound);
    /** The region the Func is expected to cover, for auto-schedulers; changes no code. */
    Func &set_estimate(const Var &var, const Expr &min, const Expr &extent);
    Func &estimate(const Var &var, const Expr &min, const Expr &extent) {
        return set_estimate(var, min, extent);
    }
    /** set_estimate(args()[i], estimates[i].min, estimates[i].extent) for every dimension. */
    Func &set_estimates(const Internal::Region &estimates);
    /** Lays out storage with the given Vars innermost first (stride 1 for the first). */
    Func &reorder_storage(const std::vector<Var> &vars);
    template<typename... Args>
    Func &reorder_storage(const Var &first, const Args &...rest) {
        return reorder_storage(std::vector<Var>{first, rest...});
    }
    /** Stores dimension var modulo extent: only the last `extent` rows (say) are kept, which is
     * legal when each iteration of the loop the Func is computed in reads and writes within a
     * window of that size moving forward (checked at run time). */
    Func &fold_storage(const Var &var, const Expr &extent, bool fold_forward = true);

    /** See Stage::specialize. */
    Stage specialize(const Expr &condition) { return stage().specialize(condition); }
    void specialize_fail(const std::string &message) { stage().specialize_fail(message); }

    /** Wrappers (Halide 14's Func::in, dsl/Wrappers.cpp): a new Func whose pure definition is
     * this Func's value at the same point, and which takes over this Func's calls in
     * `consumer` (in(consumer)), in each of `consumers` (one wrapper for all), or in every
     * other Func (in(): the global wrapper; a wrapper made for a consumer comes first there).
     * Calling it again for the same consumers returns the same wrapper. The wrapper is
     * scheduled like any Func: a copy of a tile's input into a local buffer, say. The calls
     * are redirected when the pipeline is collected for compiling. */
    Func in(const Func &consumer);
    Func in(const std::vector<Func> &consumers);
    Func in();
    /** Like in(consumer), but the Func that takes over the calls is a copy of this Func (its
     * definitions and schedule, under the name <f>_clone_in_<consumer>) instead of a read of
     * it: the consumer gets its own computation of the values, scheduled apart (Halide 14's
     * clone_in). */
    Func clone_in(const Func &consumer);
    /** One clone that takes over this Func's calls in each of `consumers`. */
    Func clone_in(const std::vector<Func> &consumers);

    /** The stage of the pure definition. */
    Stage stage() const { return Stage(func, 0); }
    /** The stage of update definition i, to schedule it. */
    Stage update(int i = 0) const;
    int num_update_definitions() const;
    /** The loop level at loop `var` of this Func, in the first of its stages that reads the
     * Func computed there (update(i).at(var) names a stage explicitly). */
    LoopLevel at(const VarOrRVar &var) const { return LoopLevel(name(), var.name(), -1); }

    /** Runs the pipeline over [0, sizes[i]) in each dimension and returns the output. */
    Realization realize(std::vector<int32_t> sizes = {}, const Target &target = Target(),
                        const ParamMap &param_map = ParamMap::empty_map());
    /** Runs the pipeline over the region of the given buffers (their mins may be non-zero). */
    void realize(RealizationArg outputs, const Target &target = Target(),
                 const ParamMap &param_map = ParamMap::empty_map());
    /** Pipeline(*this).infer_input_bounds: buffers for the unbound ImageParams it reads. */
    void infer_input_bounds(RealizationArg outputs, const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(const std::vector<int32_t> &sizes, const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    /** The same with a JITUserContext for this run (Pipeline's). */
    Realization realize(JITUserContext *context, std::vector<int32_t> sizes = {},
                        const Target &target = Target(),
                        const ParamMap &param_map = ParamMap::empty_map());
    void realize(JITUserContext *context, RealizationArg outputs, const Target &target = Target(),
                 const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(JITUserContext *context, RealizationArg outputs,
                            const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    void infer_input_bounds(JITUserContext *context, const std::vector<int32_t> &sizes,
                            const Target &target = Target(),
                            const ParamMap &param_map = ParamMap::empty_map());
    /** The hooks of every JIT run of this Func's pipeline (Halide's Func::jit_handlers). */
    JITHandlers &jit_handlers();
    /** Pipeline(*this).infer_arguments(). */
    std::vector<Argument> infer_arguments() const;
    /** Compiles now, so that the first realize() does not pay for it. */
    void compile_jit(const Target &target = Target());

    /** Writes the lowered loop nest, the LLVM IR, or the assembly to a file. */
    /** Pipeline(*this).print_loop_nest(): the loop nest the schedules make, as Halide prints it. */
    void print_loop_nest();
    /** Tracing, as Halide 14's: each run reports this Func's loads (where other Funcs read
     * it), stores (each point its definitions compute, a vector store as one event), or
     * realizations (its storage's lifetime, and each production and consumption of it) to the
     * trace handler, which prints a line per event on stdout unless replaced
     * (loom_set_trace_handler, runtime/loom_runtime.h). A run that traces anything also
     * reports its start and end and a tag per traced Func with its type and the region it
     * touches. add_trace_tag adds a string of the user's to those tags. */
    Func &trace_loads();
    Func &trace_stores();
    Func &trace_realizations();
    Func &add_trace_tag(const std::string &trace_tag);

    /** The buffer a run writes this output into, to constrain its shape (Halide 14's
     * output_buffer(): output_buffer().dim(0).set_stride(3) for an interleaved image, say). For
     * a Func with one value; a Tuple's buffers share the constraints. */
    OutputImageParam output_buffer() const;
    /** One per Tuple element (Halide's output_buffers); they share the Func's constraints. */
    std::vector<OutputImageParam> output_buffers() const;
    void compile_to_lowered_stmt(const std::string &filename, const std::vector<Argument> &args = {},
                                 StmtOutputFormat format = StmtOutputFormat::Text,
                                 const Target &target = Target());
    void compile_to_llvm_assembly(const std::string &filename,
                                  const std::vector<Argument> &args = {},
                                  const Target &target = Target());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args = {},
                             const Target &target = Target());

    /** Ahead-of-time compilation of the pipeline whose output is this Func: see Pipeline. */
    void compile_to_static_library(const std::string &filename_prefix,
                                   const std::vector<Argument> &args,
                                   const std::string &fn_name = "",
                                   const Target &target = Target());
    void compile_to_multitarget_static_library(const std::string &filename_prefix,
                                               const std::vector<Argument> &args,
                                               const std::string &fn_name,
                                               const std::vector<Target> &targets);
    void compile_to_object(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target());
    void compile_to_header(const std::string &filename, const std::vector<Argument> &args,
                           const std::string &fn_name, const Target &target = Target());
    void compile_to_assembly(const std::string &filename, const std::vector<Argument> &args,
                             const std::string &fn_name, const Target &target);
    void compile_to_llvm_assembly(const std::string &filename, const std::vector<Argument> &args,
                                  const std::string &fn_name, const Target &target);
    void compile_to_bitcode(const std::string &filename, const std::vector<Argument> &args,
                            const std::string &fn_name, const Target &target = Target());
    void compile_to_file(const std::string &filename_prefix, const std::vector<Argument> &args,
                         const std::string &fn_name = "", const Target &target = Target());

    /** Halide's extern stage: the Func is computed by the C function `function_name`, called
     * once per production as `int function_name(params..., loom_buffer_t *out...)` with a
     * scalar per Expr and a loom_buffer_t * per Func (one per Tuple element), Buffer or
     * ImageParam, then one per output type, describing the region to write. It returns 0, or
     * an error code the pipeline returns. First it is called in bounds-query mode: every
     * buffer's host is null, the outputs describe the region to compute, and it writes into
     * each input buffer's dim[] the region it will read (as Halide's is_bounds_query()). The
     * Func's pure Vars are _0, _1, ... or the given ones. It has no loops of its own: schedule
     * where it is computed and stored (compute_root, compute_at, store_at), not its loops. */
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params, Type t, int dimensionality,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, int dimensionality,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params, Type t,
                       const std::vector<Var> &arguments,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    void define_extern(const std::string &function_name,
                       const std::vector<ExternFuncArgument> &params,
                       const std::vector<Type> &types, const std::vector<Var> &arguments,
                       NameMangling mangling = NameMangling::Default,
                       DeviceAPI device_api = DeviceAPI::Host);
    bool is_extern() const;
    /** The C function an extern stage calls (an error for other Funcs). */
    const std::string &extern_function_name() const;

    /** The pipeline whose single output is this Func (cached, so compiled code is reused). */
    Pipeline pipeline();
    const Internal::FunctionPtr &function() const { return func; }

private:
    void define_as_buffer(const Buffer<> &im);
    /** bound (min given) and bound_extent (min undefined: the consumers' first point). */
    Func &set_bound(const Var &var, const Expr &min, const Expr &extent, const char *directive);
    Internal::FunctionPtr func;
    std::shared_ptr<Pipeline> cached_pipeline;
};

/** Halide's evaluate<T>(e): the value of an Expr that depends on no Var (a constant
 * expression, Params, reads of Buffers at fixed points), computed by compiling a
 * zero-dimensional Func for the host. */
template <typename T> T evaluate(const Expr &e) {
    user_assert(e.defined()) << "evaluate() of an undefined Expr.";
    user_assert(e.type() == type_of<T>())
        << "evaluate<" << type_to_string(type_of<T>()) << ">() of an Expr of type "
        << type_to_string(e.type()) << ": cast the Expr to the type to evaluate, or evaluate it "
        << "as its own type.";
    Func f("evaluate");
    f() = e;
    Buffer<T> result = f.realize();
    return result();
}

namespace Internal {
template <typename T> void check_evaluated_type(const Tuple &t, size_t i) {
    user_assert(i < t.size() && t[i].type() == type_of<T>())
        << "evaluate() of a Tuple of " << t.size() << " elements: pointer " << i << " is to "
        << type_to_string(type_of<T>()) << ", but "
        << (i < t.size() ? "the element has type " + type_to_string(t[i].type())
                         : std::string("there is no such element"))
        << ". Pass one pointer per element, to its type.";
}
} // namespace Internal

/** Halide's evaluate of a Tuple: each element's value written through the pointer at its
 * place (evaluate(Tuple(a, b), &x, &y)). */
template <typename First, typename... Rest>
void evaluate(const Tuple &t, First *first, Rest *...rest) {
    user_assert(t.size() == 1 + sizeof...(Rest))
        << "evaluate() of a Tuple of " << t.size() << " elements with " << 1 + sizeof...(Rest)
        << " pointers: pass one pointer per element.";
    size_t i = 0;
    Internal::check_evaluated_type<First>(t, i++);
    (Internal::check_evaluated_type<Rest>(t, i++), ...);
    Func f("evaluate");
    f() = t;
    Realization r = f.realize();
    i = 0;
    *first = r[i++].as<First>()();
    ((*rest = r[i++].as<Rest>()()), ...);
}

/** Halide's evaluate_may_gpu: evaluate, on the GPU where the JIT target has one. Loom's JIT
 * target is the host's CPU (get_jit_target_from_environment), so it is evaluate. */
template <typename T> T evaluate_may_gpu(const Expr &e) { return evaluate<T>(e); }
template <typename First, typename... Rest>
void evaluate_may_gpu(const Tuple &t, First *first, Rest *...rest) {
    evaluate(t, first, rest...);
}

}  // namespace loom
