// Internal to the LLVM code generator, not an interface: the CodeGen visitor that turns a
// lowered pipeline into LLVM IR, and the helpers its pieces share. Its members are defined in
// one file per concern: CodeGen_LLVM.cpp (the entry function, expressions, calls, statements),
// CodeGen_Memory.cpp (loads and stores), CodeGen_Allocations.cpp, CodeGen_Loops.cpp and
// CodeGen_GPU.cpp. Only those files include this header; everyone else calls codegen_llvm
// (CodeGen_LLVM.h). The comments on private member functions are on their definitions.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/ClampedRamp.h"
#include "codegen/CodeGen_LLVM.h"
#include "codegen/KernelShape.h"
#include "codegen/LaneClasses.h"
#include "codegen/LaneOffsets.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

// The variables and buffers a statement uses but does not bind itself: what the closure of a
// parallel loop body must carry. (Defined in CodeGen_Loops.cpp.)
class FreeNames : public IRVisitor {
public:
    std::vector<std::string> vars, buffers;

private:
    Scope<int> bound_vars, bound_buffers;
    std::set<std::string> seen_vars, seen_buffers;

    void use_var(const std::string &n);
    void use_buffer(const std::string &n);
    void visit(const Variable *op) override;
    void visit(const Load *op) override;
    void visit(const Store *op) override;
    void visit(const Free *op) override;
    void visit(const Call *op) override;
    void visit(const Let *op) override;
    void visit(const LetStmt *op) override;
    void visit(const For *op) override;
    void visit(const Allocate *op) override;
};

// The buffers whose loom_buffer_t `s` refers to (see BufferStructUses in CodeGen_GPU.cpp).
std::set<std::string> buffers_with_device_copies(const Stmt &s);

class CodeGen : public IRVisitor {
public:
    CodeGen(llvm::LLVMContext &ctx, llvm::TargetMachine &tm, const std::string &name,
            unsigned outline_threads, bool verify);

    std::unique_ptr<llvm::Module> compile(const LoweredPipeline &p);

    /** A module holding one kernel, `name`, that runs the loop nest `kernel` (its block and
     * thread loops on the GPU's), with parameters `params`: buffers (device pointers) and
     * scalars, in order, each a name the kernel's body uses. Needs an NVPTX TargetMachine. */
    struct KernelParam {
        std::string name;
        bool is_buffer;
        llvm::Type *type;
    };
    /** With `wide_accesses` (codegen/KernelVectorAlignment.h: Load and Store nodes of `kernel`
     * and the alignment in bytes each may assume), those accesses are emitted with it: the
     * caller launches this kernel only where the assumptions hold. */
    std::unique_ptr<llvm::Module>
    compile_kernel(const std::string &name, const For *kernel,
                   const std::vector<KernelParam> &params,
                   const std::map<const IRNode *, int> &wide_accesses = {});

private:
    llvm::LLVMContext &ctx;
    std::unique_ptr<llvm::Module> module;
    llvm::IRBuilder<> builder;
    llvm::Function *function = nullptr;
    // The pipeline's entry point, and whether a loop runs in it (not in a parallel task).
    llvm::Function *entry_function = nullptr;
    bool entry_has_loops = false;
    // Whether the function being generated has an innermost loop of its own (a serial loop
    // around no other loop, outlined or parallel): see marks_as_glue.
    bool function_has_innermost_loop = false;
    // Loops (serial or parallel) codegen has entered so far: a loop whose body raised the
    // count is around other loops.
    int loops_emitted = 0;
    // The serial loop whose body is being emitted ("" outside any in this function): address
    // offsets separate its variable's term (codegen_offset).
    std::string innermost_loop;
    // The serial loops around it in this function, outermost first: codegen_offset also
    // separates the terms of the nearest ones.
    std::vector<std::string> outer_loops;
    // The serial loops around it in this function whose extents are constants (see
    // serial_loop's unrolling limits).
    std::set<std::string> constant_extent_loops;
    const bool has_avx512f;    // 512-bit vectors and two-source permutes
    const bool has_avx512vl;   // AVX-512 instructions on 128- and 256-bit vectors
    const bool has_avx512bw;   // word permutes (vpermi2w)
    const bool has_fma;        // fused multiply-add in hardware (else llvm.fma is a call)
    const bool has_avx512vbmi; // byte permutes (vpermi2b): small byte tables
    const bool is_x86;         // no high half of 32-bit lane products: see FloatDivision.h
    // Generating a module of GPU kernels (compile_kernel), not the host's code.
    const bool is_nvptx;
    const bool verify; // run LLVM's verifier on the module
    // The compile threads loops are outlined for (0: no loop is outlined), and the serial
    // loops of the function being emitted that go in functions of their own.
    const unsigned outline_threads;
    std::set<const For *> outlined_loops;
    llvm::Value *user_context = nullptr;
    llvm::Value *value = nullptr;
    // Host: the allocations some kernel uses (each gets a loom_buffer_t, `<name>.buffer`),
    // the kernels emitted so far, and the TargetMachine they are compiled with.
    std::set<std::string> allocations_with_device_copies;
    int kernels_emitted = 0;
    std::unique_ptr<llvm::TargetMachine> ptx_target;
    // Kernel: its block and thread loops, and how many thread loops are around the code being
    // emitted.
    KernelShape shape;
    int thread_loop_depth = 0;
    // Kernel: the dense vector accesses that may assume more than their element's alignment
    // (bytes), and that alignment for one of them (the element's where not among them).
    std::map<const IRNode *, int> wide_accesses;
    llvm::Align access_alignment(const IRNode *access, Type t) const;
    Scope<llvm::Value *> symbols;
    Scope<llvm::Value *> buffers; // host pointer of each buffer or allocation
    // Allocations in scope that live on the stack (their Free releases nothing), with their
    // size in bytes, padding included.
    Scope<uint64_t> stack_allocations;
    // The allocations (heap and stack) the function being generated holds at the point being
    // generated, outermost first; an error return releases them (return_error).
    std::vector<std::string> live_allocations;
    // The largest constant-size allocation put on the stack. Worker threads have the default
    // 8 MiB stacks; nested compute_at levels each add at most this much.
    static constexpr uint64_t kMaxStackAllocationBytes = 16 * 1024;
    // Bytes every allocation has before its first element and past its last, so that a load
    // may read a little outside the elements it needs: a gather of 8- or 16-bit elements reads
    // the 32-bit word that starts at each (see gather()), up to 3 bytes past the element; a
    // strided load reads whole vectors starting at an even offset (see shuffled_load()). 64
    // keeps the first element as aligned as the memory is.
    static constexpr uint64_t kAllocationPaddingBytes = 64;
    // The pipeline's input and output buffers. Every other buffer is an allocation of its own:
    // distinct from them and from every other allocation.
    std::set<std::string> external_buffers;
    std::map<std::string, llvm::MDNode *> tbaa_tags;
    bool is_allocation(const std::string &buffer) const { return !external_buffers.count(buffer); }

    // Streaming stores (codegen/StreamingStores.h): the outputs the pipeline never loads
    // from, whether the loop being emitted has a few stores and no inner loop, and whether any
    // function of the pipeline streams. Only the entry function fences, before it returns:
    // the pipeline never reads what it streamed, so its own code needs no order among those
    // stores, and the thread pool fences once per thread and job before it counts the
    // thread's iterations done (runtime/loom_thread_pool.c). A fence at the end of every task
    // waited, once per row of a parallel loop, for the row's stores to reach memory, while
    // the next row's loads could have gone on. Each output's per-call test of its size is the
    // variable streams_flag(name).
    std::set<std::string> loaded_buffers;
    bool in_streaming_loop = false;
    bool pipeline_streams = false;
    static std::string streams_flag(const std::string &buffer) { return buffer + ".streams"; }
    std::vector<std::string> output_buffers;
    // The state of each output's joined streaming stores (codegen/JoinedStreamingStores.h),
    // in a stack slot of the function that emits the loop owning it; an outlined loop gets a
    // pointer to it and works on a copy of its own.
    struct JoinedLines {
        llvm::StructType *type;
        llvm::Value *state;
        llvm::Align plain_align;
    };
    Scope<JoinedLines> joined_lines;
    bool streams_to(const std::string &buffer, Type t) const {
        return in_streaming_loop && has_avx512f && t.bits() * t.lanes() == 512 &&
               !loaded_buffers.count(buffer) && symbols.contains(streams_flag(buffer));
    }

    template <typename I> I *tagged(I *access, const std::string &buffer) {
        access->setMetadata(llvm::LLVMContext::MD_tbaa, tbaa_tag(buffer));
        return access;
    }

    // Set while store_unclamped_where_inside emits the store as written, for a vector at an
    // edge: emit_store then does not unclamp it again.
    bool in_clamped_fallback = false;

    // Per innermost loop: whether its clamped offsets are computed as sign_extended says. Each
    // access's other terms become a loop-invariant 64-bit base that LLVM keeps in a register;
    // past a few of them the loop spills (camera_pipe's lookup loop has 12 and ran 12-17%
    // slower that way), so loops with more distinct bases keep the 32-bit sums. layer_norm's
    // output loop has 5 (input, its next-row prefetch, gamma, beta, output): in 64 bits it
    // is 19 instructions a vector instead of 33, with no spill (run time within the noise).
    bool clamped_offsets_in_64_bits = false;
    static constexpr size_t kMaxClampedBases = 6;
    // The most iterations of a constant loop nest LLVM may unroll whole (see serial_loop).
    static constexpr int64_t kMostUnrolledNestIterations = 256;
    // How many loops outside the innermost codegen_offset separates the terms of.
    static constexpr size_t kOuterLoopTerms = 2;

    // The spans of elements that two or more strided loads of one vector store read off one
    // base, by buffer (the taps of a stencil on a subsampled row: f(2x - 1), f(2x), f(2x + 1)),
    // relative to the base without its constant. Such loads of an input or output read the
    // same pieces, laid over the whole span, and LLVM keeps one copy of each: interpolate's
    // first level loaded two 16-lane vectors per tap of its input, six per row of three taps,
    // now two 32-lane ones (its run time -2 to -5%). Every element between the span's ends
    // lies between two that some lane of the store reads, in one row of a buffer dense in
    // dimension 0, so the pieces read nothing outside the buffer.
    struct SharedSpan {
        Expr rest; // the base without its constant (undefined: 0)
        int64_t lo, hi;
    };
    std::map<std::string, std::vector<SharedSpan>> shared_spans;

    // The lanes of a load with one residue as elements off the base without its constant:
    // that rest (undefined: 0), the constant, and the lanes' lowest and highest offsets from
    // the rest.
    struct LaneSpan {
        Expr rest;
        int64_t constant = 0, lo = 0, hi = 0;
    };

    // How emit_task (CodeGen_Loops.cpp) passes a task the values its body uses, and the
    // task it made.
    enum class Passing { Closure, Arguments };
    struct Task {
        llvm::Function *function;
        llvm::Value *closure;              // Closure: the struct to pass
        std::vector<llvm::Value *> values; // Arguments: the values to pass, after user_context
    };

    // A copy of the stack allocation `name` (bound in `buffers` at `original`) for an outlined
    // loop: a stack allocation of the current function, padded alike, bound to `name` from
    // private_copy until its caller pops the binding (emit_task's scope ends with the task).
    struct StackCopy {
        std::string name;
        llvm::Value *original, *copy; // first elements
    };

    // ---- CodeGen_LLVM.cpp: types, constants, expressions, calls, statements ----
    llvm::Type *llvm_type(Type t);
    llvm::Value *codegen(const Expr &e);
    void codegen(const Stmt &s);
    llvm::Constant *const_of(Type t, int64_t v);
    void visit(const IntImm *op) override;
    void visit(const UIntImm *op) override;
    void visit(const FloatImm *op) override;
    void visit(const StringImm *op) override;
    void visit(const Variable *op) override;
    void visit(const Cast *op) override;
    void visit(const Reinterpret *op) override;
    void visit(const Add *op) override;
    void visit(const Sub *op) override;
    void visit(const Mul *op) override;
    llvm::Value *float_floor(llvm::Value *v);
    void signed_div_mod(Type t, llvm::Value *a, llvm::Value *b, bool want_mod);
    llvm::Value *divide_by_float(const Div *op);
    void visit(const Div *op) override;
    void visit(const Mod *op) override;
    void visit(const Min *op) override;
    void visit(const Max *op) override;
    void compare(const Expr &ea, const Expr &eb, llvm::CmpInst::Predicate fp,
                 llvm::CmpInst::Predicate sp, llvm::CmpInst::Predicate up);
    void visit(const EQ *op) override;
    void visit(const NE *op) override;
    void visit(const LT *op) override;
    void visit(const LE *op) override;
    void visit(const GT *op) override;
    void visit(const GE *op) override;
    void visit(const And *op) override;
    void visit(const Or *op) override;
    void visit(const Not *op) override;
    void visit(const Select *op) override;
    void visit(const Ramp *op) override;
    void visit(const Broadcast *op) override;
    void visit(const Let *op) override;
    llvm::FunctionCallee runtime_function(const std::string &name, llvm::Type *ret,
                                          std::vector<llvm::Type *> params);
    llvm::Value *call_per_lane(llvm::FunctionCallee fn, Type t, std::vector<llvm::Value *> args);
    void visit(const Call *op) override;
    void intrinsic(const Call *op);
    // ---- CodeGen_Trace.cpp: trace events, print, strings ----
    llvm::Value *string_of(const std::vector<Expr> &pieces, int lane);
    void stringify(const Call *op);
    void print(const Call *op);
    void require(const Call *op);
    void trace(const Call *op);
    // ---- CodeGen_Memoize.cpp: the memoization cache's calls ----
    llvm::Value *memoization_key(const std::vector<Expr> &key);
    void memoize_call(const Call *op);
    void semaphore_call(const Call *op);
    // ---- CodeGen_Atomic.cpp: the stores of atomic stages ----
    void emit_atomic_store(const Store *op, const Call *update);
    // ---- CodeGen_Extern.cpp: extern stages' buffers, bounds queries and calls ----
    void make_buffer(const Call *op);
    llvm::Value *call_extern_function(const std::string &callee, const std::vector<Expr> &args,
                                      const char *reporter, std::vector<llvm::Value *> &generated);
    void extern_stage(const Call *op);
    void extern_bounds_query(const Call *op);
    void visit(const LetStmt *op) override;
    void visit(const AssertStmt *op) override;
    void visit(const ProducerConsumer *op) override;
    void visit(const Block *op) override;
    void visit(const IfThenElse *op) override;
    void visit(const Evaluate *op) override;
    void visit(const Provide *op) override;
    void visit(const Realize *op) override;

    // ---- CodeGen_Memory.cpp: loads, stores, element offsets ----
    llvm::MDNode *tbaa_tag(const std::string &buffer);
    llvm::Value *buffer_host(const std::string &name);
    void visit(const Load *op) override;
    llvm::Value *load_unclamped_where_inside(const Load *op, const ClampedRamp &clamped);
    void store_unclamped_where_inside(const Store *op, const UnclampedStore &unclamped);
    llvm::Value *sign_extended(const Expr &e);
    llvm::Value *codegen_offset(const Expr &e);
    llvm::Value *gather(const Load *op);
    std::vector<llvm::Value *> lane_addresses(llvm::Type *elem, llvm::Value *host,
                                              const Expr &index);
    llvm::Value *interleaved_load(Type t, const std::string &name, llvm::Value *host,
                                  const LaneClasses &classes);
    llvm::Value *interleave_halves_avx512(Type t, const std::vector<llvm::Value *> &halves,
                                          const std::vector<int> &lane_class,
                                          const std::vector<int> &position);
    static LaneSpan lane_span(const LaneOffsets &lanes);
    static std::optional<int64_t> constant_stride(const std::vector<int64_t> &o);
    static bool same_rest(const Expr &a, const Expr &b);
    static std::map<std::string, std::vector<SharedSpan>> spans_shared_by_loads(const Expr &value);
    std::optional<std::pair<int64_t, int64_t>> rebase_on_shared_span(const std::string &name,
                                                                     LaneOffsets &lanes);
    llvm::Value *shuffled_load(Type t, const std::string &name, llvm::Value *host,
                               LaneOffsets lanes, bool may_share_span = false);
    std::optional<int64_t> padded_start(Type t, const std::string &name, const LaneOffsets &lanes,
                                        int64_t width, int64_t &pieces);
    void visit(const Store *op) override;
    void emit_store(const Store *op);

    // ---- CodeGen_Allocations.cpp: allocations, their release, error returns ----
    void visit(const Allocate *op) override;
    void check_allocation_size(const std::string &name, llvm::Value *count);
    int64_t max_allocation_elements = INT32_MAX; // the pipeline's (LoweredPipeline)
    template <typename Body> void with_live_allocation(const std::string &name, Body body);
    template <typename Body>
    void with_buffer_struct(const Allocate *op, llvm::Value *count, Body body);
    llvm::Value *first_element(llvm::Value *memory);
    llvm::Value *allocation_start(const std::string &name);
    uint64_t element_bytes(const std::string &name) const;
    void visit(const Free *op) override;
    void release_allocation(const std::string &name);
    void return_error(llvm::Value *code);
    void return_if_failed(llvm::Value *result, const std::string &what);

    // ---- CodeGen_Loops.cpp: serial, parallel and outlined loops ----
    Task emit_task(const Stmt &body, const FreeNames &free, const std::string &index,
                   const std::string &task_name, Passing passing,
                   std::set<const For *> outline_in_task = {},
                   const std::vector<std::string> &private_copies = {});
    static void marks_as_glue(llvm::Function &f);
    void parallel_for(const For *op);
    bool outline(const For *op);
    StackCopy private_copy(const std::string &name);
    void copy_back(const StackCopy &c);
    void copy_joined_state(llvm::StructType *type, llvm::Value *to, llvm::Value *from);
    void copy_elements(llvm::Value *to, llvm::Value *from, const std::string &name);
    llvm::Value *create_entry_alloca(llvm::Type *t, const std::string &name);
    void visit(const For *op) override;
    std::vector<std::string> start_joined_lines_owned_by(const For *op);
    void serial_loop(const For *op);
    static int64_t most_iterations(const Expr &extent);
    llvm::MDNode *unrolling_limits(bool outer);

    // ---- CodeGen_GPU.cpp: kernels, their loops and launches ----
    void gpu_loop(const For *op);
    void launch_kernel(const For *op);
    void shared_allocation(const Allocate *op);
};

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
