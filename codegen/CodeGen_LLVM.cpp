#include "codegen/CodeGen_LLVM.h"

#include <algorithm>
#include <cctype>
#include <climits>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsNVPTX.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>

#include "codegen/ByteTableLookup.h"
#include "codegen/ClampedRamp.h"
#include "codegen/ConstantLoopNest.h"
#include "codegen/DeviceGlue.h"
#include "codegen/ExpF32.h"
#include "codegen/FloatDivision.h"
#include "codegen/HoistStackReads.h"
#include "codegen/IndexTerms.h"
#include "codegen/JoinedStreamingStores.h"
#include "codegen/KernelShape.h"
#include "codegen/LaneClasses.h"
#include "codegen/LaneIndexShape.h"
#include "codegen/LaneOffsets.h"
#include "codegen/LoopOutlining.h"
#include "codegen/PTX.h"
#include "codegen/ShiftedOffsets.h"
#include "codegen/StreamingStores.h"
#include "dsl/Error.h"
#include "dsl/IREquality.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/IRVisitor.h"
#include "dsl/Scope.h"
#include "lower/InjectDeviceCopies.h"

namespace loom {
namespace Internal {
namespace {

// Byte offsets of loom_buffer_t and loom_dimension_t fields (see runtime/loom_runtime.h).
constexpr int kDimensionSize = 16;
constexpr int kDimMinOffset = 0, kDimExtentOffset = 4, kDimStrideOffset = 8;

// libm names of the PureExtern math calls that have no exact LLVM intrinsic.
const std::map<std::string, std::string> &libm_names() {
    static const std::map<std::string, std::string> names = {
        {"exp_f64", "exp"},     {"log_f32", "logf"},   {"log_f64", "log"},
        {"pow_f32", "powf"},    {"pow_f64", "pow"},    {"sin_f32", "sinf"},
        {"sin_f64", "sin"},     {"cos_f32", "cosf"},   {"cos_f64", "cos"},
        {"tan_f32", "tanf"},    {"tan_f64", "tan"},    {"asin_f32", "asinf"},
        {"asin_f64", "asin"},   {"acos_f32", "acosf"}, {"acos_f64", "acos"},
        {"atan_f32", "atanf"},  {"atan_f64", "atan"},  {"atan2_f32", "atan2f"},
        {"atan2_f64", "atan2"}, {"sinh_f32", "sinhf"}, {"sinh_f64", "sinh"},
        {"cosh_f32", "coshf"},  {"cosh_f64", "cosh"},  {"tanh_f32", "tanhf"},
        {"tanh_f64", "tanh"},
    };
    return names;
}

// Math calls that are exact, so an LLVM intrinsic gives the same bits as libm.
llvm::Intrinsic::ID exact_math_intrinsic(const std::string &name) {
    std::string base = name.substr(0, name.rfind('_'));
    if (base == "sqrt") return llvm::Intrinsic::sqrt;
    if (base == "floor") return llvm::Intrinsic::floor;
    if (base == "ceil") return llvm::Intrinsic::ceil;
    if (base == "trunc") return llvm::Intrinsic::trunc;
    if (base == "round") return llvm::Intrinsic::roundeven; // ties to even
    if (base == "fma") return llvm::Intrinsic::fma;         // rounds once, as the C library's fma
    return llvm::Intrinsic::not_intrinsic;
}

// The variables and buffers a statement uses but does not bind itself: what the closure of a
// parallel loop body must carry.
class FreeNames : public IRVisitor {
public:
    std::vector<std::string> vars, buffers;

private:
    Scope<int> bound_vars, bound_buffers;
    std::set<std::string> seen_vars, seen_buffers;

    void use_var(const std::string &n) {
        if (!bound_vars.contains(n) && seen_vars.insert(n).second) vars.push_back(n);
    }
    void use_buffer(const std::string &n) {
        if (!bound_buffers.contains(n) && seen_buffers.insert(n).second) buffers.push_back(n);
    }
    void visit(const Variable *op) override { use_var(op->name); }
    void visit(const Load *op) override {
        use_buffer(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Store *op) override {
        use_buffer(op->name);
        IRVisitor::visit(op);
    }
    void visit(const Free *op) override { use_buffer(op->name); }
    void visit(const Let *op) override {
        op->value.accept(this);
        ScopedBinding<int> b(bound_vars, op->name, 0);
        op->body.accept(this);
    }
    void visit(const LetStmt *op) override {
        op->value.accept(this);
        ScopedBinding<int> b(bound_vars, op->name, 0);
        op->body.accept(this);
    }
    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        ScopedBinding<int> b(bound_vars, op->name, 0);
        op->body.accept(this);
    }
    void visit(const Allocate *op) override {
        for (const Expr &e : op->extents)
            e.accept(this);
        ScopedBinding<int> b(bound_buffers, op->name, 0);
        op->body.accept(this);
    }
};

// The buffers whose loom_buffer_t the code refers to (`<name>.buffer` variables: the
// device-copy calls of lower/InjectDeviceCopies).
class BufferStructUses : public IRVisitor {
public:
    std::set<std::string> names;

private:
    void visit(const Variable *op) override {
        static const std::string suffix = buffer_struct_name("");
        const std::string &n = op->name;
        if (op->type.is_handle() && n.size() > suffix.size() &&
            n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0) {
            names.insert(n.substr(0, n.size() - suffix.size()));
        }
    }
};

std::set<std::string> buffers_with_device_copies(const Stmt &s) {
    BufferStructUses u;
    s.accept(&u);
    return u.names;
}

// The PTX special register a GPU loop's index comes from: the innermost block (thread) loop
// is x, the next y, then z, so that consecutive threads of a warp take consecutive x.
llvm::Intrinsic::ID gpu_index_register(bool block, int dim) {
    static const llvm::Intrinsic::ID blocks[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y,
                                                 llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z};
    static const llvm::Intrinsic::ID threads[] = {llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y,
                                                  llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z};
    return block ? blocks[dim] : threads[dim];
}

std::string kernel_symbol(const std::string &loop, int index) {
    std::string name = "loom_kernel_" + std::to_string(index) + "_";
    for (char c : loop)
        name += std::isalnum((unsigned char)c) ? c : '_';
    return name;
}

// Whether tm is an x86 machine with `feature` (another target's backend would warn that it
// does not know the feature's name).
bool has_x86_feature(const llvm::TargetMachine &tm, const char *feature) {
    return tm.getTargetTriple().isX86() && tm.getMCSubtargetInfo()->checkFeatures(feature);
}

class CodeGen : public IRVisitor {
public:
    CodeGen(llvm::LLVMContext &ctx, llvm::TargetMachine &tm, const std::string &name,
            unsigned outline_threads, bool verify)
        : ctx(ctx), module(std::make_unique<llvm::Module>(name, ctx)), builder(ctx),
          has_avx512f(has_x86_feature(tm, "+avx512f")),
          has_avx512vl(has_x86_feature(tm, "+avx512vl")),
          has_avx512bw(has_x86_feature(tm, "+avx512bw")), has_fma(has_x86_feature(tm, "+fma")),
          has_avx512vbmi(has_x86_feature(tm, "+avx512vbmi")), is_x86(tm.getTargetTriple().isX86()),
          is_nvptx(tm.getTargetTriple().isNVPTX()), verify(verify),
          outline_threads(outline_threads) {
        module->setTargetTriple(tm.getTargetTriple().str());
        module->setDataLayout(tm.createDataLayout());
    }

    std::unique_ptr<llvm::Module> compile(const LoweredPipeline &p) {
        llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
        auto *fn_type = llvm::FunctionType::get(builder.getInt32Ty(), {ptr, ptr}, false);
        function =
            llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, p.name, module.get());
        function->addFnAttr(llvm::Attribute::NoUnwind);
        user_context = function->getArg(0);
        llvm::Value *args = function->getArg(1);
        builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", function));

        for (size_t i = 0; i < p.args.size(); i++) {
            const LoweredArgument &a = p.args[i];
            llvm::Value *slot = builder.CreateConstGEP1_64(ptr, args, i);
            llvm::Value *arg_ptr = builder.CreateLoad(ptr, slot, a.name + ".arg");
            if (a.kind == Argument::InputScalar) {
                symbols.push(a.name, builder.CreateLoad(llvm_type(a.type), arg_ptr, a.name));
                continue;
            }
            llvm::Value *host = builder.CreateLoad(
                ptr, builder.CreateConstGEP1_64(builder.getInt8Ty(), arg_ptr, kBufferHostOffset),
                a.name + ".host");
            buffers.push(a.name, host);
            external_buffers.insert(a.name);
            // The loom_buffer_t itself, for the device-copy calls of lower/InjectDeviceCopies.
            symbols.push(buffer_struct_name(a.name), arg_ptr);
            llvm::Value *dims = builder.CreateLoad(
                ptr, builder.CreateConstGEP1_64(builder.getInt8Ty(), arg_ptr, kBufferDimOffset),
                a.name + ".dim");
            std::vector<llvm::Value *> extents, strides;
            for (int d = 0; d < a.dimensions; d++) {
                std::string ds = std::to_string(d);
                auto field = [&](int offset, const std::string &field_name) {
                    llvm::Value *addr = builder.CreateConstGEP1_64(builder.getInt8Ty(), dims,
                                                                   d * kDimensionSize + offset);
                    llvm::Value *value = builder.CreateLoad(builder.getInt32Ty(), addr,
                                                            a.name + "." + field_name + "." + ds);
                    symbols.push(a.name + "." + field_name + "." + ds, value);
                    return value;
                };
                field(kDimMinOffset, "min");
                extents.push_back(field(kDimExtentOffset, "extent"));
                strides.push_back(field(kDimStrideOffset, "stride"));
            }
            if (a.kind == Argument::OutputBuffer) {
                output_buffers.push_back(a.name);
                symbols.push(streams_flag(a.name),
                             spans_enough_to_stream(builder, extents, strides, a.type.bytes(),
                                                    p.streaming_min_bytes));
            }
        }
        entry_function = function;
        if (outline_threads > 0) outlined_loops = loops_to_outline(p.body, outline_threads);
        loaded_buffers = buffers_loaded(p.body);
        allocations_with_device_copies = buffers_with_device_copies(p.body);
        codegen(p.body);
        if (pipeline_streams) fence_streaming_stores(builder);
        builder.CreateRet(builder.getInt32(0));
        if (!entry_has_loops) {
            // All the work is in parallel tasks: the entry function checks the buffers, sets
            // up allocations and launches them, once per call, and is straight-line code.
            // Optimizing it bought nothing measurable but cost up to 40% of the compile time
            // of a small pipeline (LLVM skips optnone functions and selects instructions for
            // them the fast way).
            function->addFnAttr(llvm::Attribute::OptimizeNone);
            function->addFnAttr(llvm::Attribute::NoInline);
        } else if (!function_has_innermost_loop) {
            // Its loops only launch parallel loops or call outlined ones (conv_relu's loop
            // over the batch around its parallel rows): glue, as a task can be. Optimized,
            // conv_relu's entry (checks and that loop, 690 instructions) took 19 ms of O3 and
            // code generation; unoptimized, 3 ms.
            marks_as_glue(*function);
        }

        if (verify) {
            std::string errors;
            llvm::raw_string_ostream es(errors);
            internal_assert(!llvm::verifyModule(*module, &es))
                << "LLVM rejected the generated module: " << es.str();
        }
        return std::move(module);
    }

    /** A module holding one kernel, `name`, that runs the loop nest `kernel` (its block and
     * thread loops on the GPU's), with parameters `params`: buffers (device pointers) and
     * scalars, in order, each a name the kernel's body uses. Needs an NVPTX TargetMachine. */
    struct KernelParam {
        std::string name;
        bool is_buffer;
        llvm::Type *type;
    };
    std::unique_ptr<llvm::Module> compile_kernel(const std::string &name, const For *kernel,
                                                 const std::vector<KernelParam> &params) {
        internal_assert(is_nvptx) << "compile_kernel needs an NVPTX target";
        std::vector<llvm::Type *> types;
        for (const KernelParam &p : params)
            types.push_back(p.type);
        auto *fn_type = llvm::FunctionType::get(builder.getVoidTy(), types, false);
        function =
            llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, name, module.get());
        function->addFnAttr(llvm::Attribute::NoUnwind);
        entry_function = function;
        user_context = llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0));
        builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", function));
        for (size_t i = 0; i < params.size(); i++) {
            llvm::Argument *arg = function->getArg(i);
            arg->setName(params[i].name);
            if (params[i].is_buffer) {
                buffers.push(params[i].name, arg);
                // Any two may be views of the same memory, as a pipeline's inputs and outputs.
                external_buffers.insert(params[i].name);
            } else {
                symbols.push(params[i].name, arg);
            }
        }
        shape = kernel_shape(kernel);
        codegen(Stmt(kernel));
        builder.CreateRetVoid();
        mark_kernel(*function, (int)shape.threads_per_block());
        if (verify) {
            std::string errors;
            llvm::raw_string_ostream es(errors);
            internal_assert(!llvm::verifyModule(*module, &es))
                << "LLVM rejected the generated kernel " << name << ": " << es.str();
        }
        return std::move(module);
    }

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

    // Type-based alias metadata on every load and store of a buffer: one tag per buffer,
    // siblings, so LLVM knows that a store to one never changes another. A store to an
    // allocation (a tile of accumulators) never clobbers an input, so the tile stays in
    // registers (without the tags LLVM must prove that the allocation's address does not
    // escape, and its capture tracking gives up after 100 uses: an unrolled tile has
    // hundreds); a store to an output never changes an input, so a loop whose reads LLVM
    // cannot bound (a row read at x / 3) still vectorizes without runtime overlap checks (fuzz
    // seed 2026 pair 469). As in Halide 14, whose tags are per buffer too, a pipeline's inputs
    // and outputs must not overlap in memory (an output written over its own input is not
    // supported).
    llvm::MDNode *tbaa_tag(const std::string &buffer) {
        std::string key = (is_allocation(buffer) ? "loom.alloc." : "loom.external.") + buffer;
        llvm::MDNode *&tag = tbaa_tags[key];
        if (!tag) {
            llvm::MDBuilder md(ctx);
            llvm::MDNode *type = md.createTBAAScalarTypeNode(key, md.createTBAARoot("loom"));
            tag = md.createTBAAStructTagNode(type, type, 0);
        }
        return tag;
    }
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

    llvm::Type *llvm_type(Type t) {
        llvm::Type *s = nullptr;
        if (t.is_float()) {
            s = t.bits() == 64   ? builder.getDoubleTy()
                : t.bits() == 16 ? builder.getHalfTy()
                                 : builder.getFloatTy();
        } else if (t.is_handle()) {
            s = llvm::PointerType::get(ctx, 0);
        } else {
            s = builder.getIntNTy(t.bits());
        }
        return t.is_vector() ? llvm::FixedVectorType::get(s, t.lanes()) : s;
    }

    llvm::Value *codegen(const Expr &e) {
        internal_assert(e.defined()) << "codegen of undefined Expr";
        value = nullptr;
        e.accept(this);
        internal_assert(value) << "codegen produced no value for " << e;
        return value;
    }

    void codegen(const Stmt &s) {
        if (s.defined()) s.accept(this);
    }

    llvm::Constant *const_of(Type t, int64_t v) {
        return llvm::cast<llvm::Constant>(codegen(make_const(t, v)));
    }

    // ---- constants and variables ----
    void visit(const IntImm *op) override {
        value = llvm::ConstantInt::get(llvm_type(op->type), (uint64_t)op->value, true);
    }
    void visit(const UIntImm *op) override {
        value = llvm::ConstantInt::get(llvm_type(op->type), op->value, false);
    }
    void visit(const FloatImm *op) override {
        value = llvm::ConstantFP::get(llvm_type(op->type), op->value);
    }
    void visit(const StringImm *op) override { value = builder.CreateGlobalStringPtr(op->value); }
    void visit(const Variable *op) override {
        const auto *v = symbols.find(op->name);
        internal_assert(v) << "Variable " << op->name << " is not bound in codegen";
        value = *v;
    }

    // ---- casts ----
    void visit(const Cast *op) override {
        Type from = op->value.type(), to = op->type;
        llvm::Value *v = codegen(op->value);
        llvm::Type *t = llvm_type(to);
        if (to.is_bool()) {
            value = from.is_float()
                        ? builder.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()))
                        : builder.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
        } else if (from.is_float() && to.is_float()) {
            value = builder.CreateFPCast(v, t);
        } else if (from.is_float()) {
            value = to.is_int() ? builder.CreateFPToSI(v, t) : builder.CreateFPToUI(v, t);
        } else if (to.is_float()) {
            value = from.is_int() ? builder.CreateSIToFP(v, t) : builder.CreateUIToFP(v, t);
        } else {
            value = builder.CreateIntCast(v, t, from.is_int());
        }
    }
    void visit(const Reinterpret *op) override {
        value = builder.CreateBitCast(codegen(op->value), llvm_type(op->type));
    }

    // ---- arithmetic ----
    void visit(const Add *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        value = op->type.is_float() ? builder.CreateFAdd(a, b) : builder.CreateAdd(a, b);
    }
    void visit(const Sub *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        value = op->type.is_float() ? builder.CreateFSub(a, b) : builder.CreateSub(a, b);
    }
    void visit(const Mul *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        value = op->type.is_float() ? builder.CreateFMul(a, b) : builder.CreateMul(a, b);
    }

    llvm::Value *float_floor(llvm::Value *v) {
        return builder.CreateUnaryIntrinsic(llvm::Intrinsic::floor, v);
    }

    // Euclidean division and modulo for signed ints, with x / 0 == 0 and INT_MIN / -1 wrapping.
    void signed_div_mod(Type t, llvm::Value *a, llvm::Value *b, bool want_mod) {
        llvm::Value *zero = const_of(t, 0), *one = const_of(t, 1), *minus_one = const_of(t, -1);
        llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
        llvm::Value *b_minus_one = builder.CreateICmpEQ(b, minus_one);
        llvm::Value *trivial = builder.CreateOr(b_zero, b_minus_one);
        llvm::Value *safe_b = builder.CreateSelect(trivial, one, b);
        llvm::Value *r = builder.CreateSRem(a, safe_b);
        llvm::Value *r_negative = builder.CreateICmpSLT(r, zero);
        if (want_mod) {
            llvm::Value *abs_b = builder.CreateSelect(builder.CreateICmpSLT(safe_b, zero),
                                                      builder.CreateSub(zero, safe_b), safe_b);
            llvm::Value *m = builder.CreateSelect(r_negative, builder.CreateAdd(r, abs_b), r);
            value = builder.CreateSelect(trivial, zero, m);
            return;
        }
        llvm::Value *q = builder.CreateSDiv(a, safe_b);
        llvm::Value *step =
            builder.CreateSelect(builder.CreateICmpSGT(safe_b, zero), minus_one, one);
        q = builder.CreateSelect(r_negative, builder.CreateAdd(q, step), q);
        q = builder.CreateSelect(b_minus_one, builder.CreateSub(zero, a), q);
        value = builder.CreateSelect(b_zero, zero, q);
    }

    // A vector's lanes of 32-bit integers divided by a constant, as a float multiply where
    // that gives every lane's quotient exactly (see FloatDivision.h), or nullptr.
    llvm::Value *divide_by_float(const Div *op) {
        const Type t = op->type;
        if (!is_x86 || !t.is_vector() || !t.is_int_or_uint() || t.bits() != 32) return nullptr;
        const int64_t *d = as_const_int(op->b);
        const uint64_t *ud = as_const_uint(op->b);
        const int64_t divisor = d ? *d : ud && *ud <= (uint64_t)INT32_MAX ? (int64_t)*ud : 0;
        llvm::Type *lanes_of_float = llvm_type(Float(32, t.lanes()));
        if (has_fma) {
            if (std::optional<BiasedReciprocal> r = biased_reciprocal_for(op->a, divisor)) {
                llvm::Value *two_23 = const_of(t, 0x4B000000);
                llvm::Value *x = builder.CreateBitCast(builder.CreateAdd(codegen(op->a), two_23),
                                                       lanes_of_float);
                llvm::Value *q =
                    builder.CreateIntrinsic(llvm::Intrinsic::fma, {lanes_of_float},
                                            {x, llvm::ConstantFP::get(lanes_of_float, r->c),
                                             llvm::ConstantFP::get(lanes_of_float, r->k)});
                return builder.CreateSub(builder.CreateBitCast(q, llvm_type(t)),
                                         const_of(t, 0x4B000000 + kBiasedQuotientOffset));
            }
        }
        std::optional<float> reciprocal = float_reciprocal_for(op->a, divisor);
        if (!reciprocal) return nullptr;
        // Signed conversions both ways: every lane lies in [0, 2^24) (x86 converts signed
        // 32-bit lanes in one instruction at every vector width, unsigned only with AVX-512).
        llvm::Value *x = builder.CreateSIToFP(codegen(op->a), lanes_of_float);
        llvm::Value *q = builder.CreateFMul(x, llvm::ConstantFP::get(lanes_of_float, *reciprocal));
        return builder.CreateFPToSI(q, llvm_type(t));
    }

    void visit(const Div *op) override {
        if (llvm::Value *q = divide_by_float(op)) {
            value = q;
            return;
        }
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        Type t = op->type;
        if (t.is_float()) {
            value = builder.CreateFDiv(a, b);
        } else if (t.is_uint()) {
            llvm::Value *zero = const_of(t, 0);
            llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
            llvm::Value *q = builder.CreateUDiv(a, builder.CreateSelect(b_zero, const_of(t, 1), b));
            value = builder.CreateSelect(b_zero, zero, q);
        } else {
            signed_div_mod(t, a, b, false);
        }
    }

    void visit(const Mod *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        Type t = op->type;
        if (t.is_float()) {
            // a - b * floor(a / b), each step rounded as written.
            value =
                builder.CreateFSub(a, builder.CreateFMul(b, float_floor(builder.CreateFDiv(a, b))));
        } else if (t.is_uint()) {
            llvm::Value *zero = const_of(t, 0);
            llvm::Value *b_zero = builder.CreateICmpEQ(b, zero);
            llvm::Value *r = builder.CreateURem(a, builder.CreateSelect(b_zero, const_of(t, 1), b));
            value = builder.CreateSelect(b_zero, zero, r);
        } else {
            signed_div_mod(t, a, b, true);
        }
    }

    void visit(const Min *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        Type t = op->type;
        llvm::Value *lt = t.is_float() ? builder.CreateFCmpOLT(a, b)
                          : t.is_int() ? builder.CreateICmpSLT(a, b)
                                       : builder.CreateICmpULT(a, b);
        value = builder.CreateSelect(lt, a, b);
    }
    void visit(const Max *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        Type t = op->type;
        llvm::Value *gt = t.is_float() ? builder.CreateFCmpOGT(a, b)
                          : t.is_int() ? builder.CreateICmpSGT(a, b)
                                       : builder.CreateICmpUGT(a, b);
        value = builder.CreateSelect(gt, a, b);
    }

    // ---- comparisons ----
    void compare(const Expr &ea, const Expr &eb, llvm::CmpInst::Predicate fp,
                 llvm::CmpInst::Predicate sp, llvm::CmpInst::Predicate up) {
        llvm::Value *a = codegen(ea), *b = codegen(eb);
        Type t = ea.type();
        llvm::CmpInst::Predicate p = t.is_float() ? fp : t.is_int() ? sp : up;
        value = t.is_float() ? builder.CreateFCmp(p, a, b) : builder.CreateICmp(p, a, b);
    }
    // Float comparisons follow C: ordered, except != which is true when either is NaN.
    void visit(const EQ *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::ICMP_EQ,
                llvm::CmpInst::ICMP_EQ);
    }
    void visit(const NE *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_UNE, llvm::CmpInst::ICMP_NE,
                llvm::CmpInst::ICMP_NE);
    }
    void visit(const LT *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_OLT, llvm::CmpInst::ICMP_SLT,
                llvm::CmpInst::ICMP_ULT);
    }
    void visit(const LE *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_OLE, llvm::CmpInst::ICMP_SLE,
                llvm::CmpInst::ICMP_ULE);
    }
    void visit(const GT *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_OGT, llvm::CmpInst::ICMP_SGT,
                llvm::CmpInst::ICMP_UGT);
    }
    void visit(const GE *op) override {
        compare(op->a, op->b, llvm::CmpInst::FCMP_OGE, llvm::CmpInst::ICMP_SGE,
                llvm::CmpInst::ICMP_UGE);
    }
    void visit(const And *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        value = builder.CreateAnd(a, b);
    }
    void visit(const Or *op) override {
        llvm::Value *a = codegen(op->a), *b = codegen(op->b);
        value = builder.CreateOr(a, b);
    }
    void visit(const Not *op) override { value = builder.CreateNot(codegen(op->a)); }

    void visit(const Select *op) override {
        llvm::Value *c = codegen(op->condition);
        llvm::Value *t = codegen(op->true_value), *f = codegen(op->false_value);
        value = builder.CreateSelect(c, t, f);
    }

    // ---- memory ----
    llvm::Value *buffer_host(const std::string &name) {
        const auto *b = buffers.find(name);
        internal_assert(b) << "Buffer " << name << " is not bound in codegen";
        return *b;
    }

    // A vector load is, in order of preference: one element for every lane (a broadcast
    // index); one dense load (lanes at consecutive elements); dense loads covering the lanes' span
    // plus a shuffle (small constant strides, reversals, ramp / k); a gather (32- and 64-bit
    // elements); one load per lane.
    void visit(const Load *op) override {
        llvm::Value *host = buffer_host(op->name);
        Type t = op->type;
        llvm::Type *elem = llvm_type(t.element_of());
        llvm::Align align(t.element_of().bytes() ? t.element_of().bytes() : 1);
        if (t.is_scalar()) {
            llvm::Value *addr = builder.CreateInBoundsGEP(elem, host, codegen_offset(op->index));
            value = tagged(builder.CreateAlignedLoad(elem, addr, align), op->name);
            return;
        }
        if (const Broadcast *b = op->index.as<Broadcast>()) {
            Expr element = Load::make(t.element_of(), op->name, b->value);
            value = builder.CreateVectorSplat(t.lanes(), codegen(element));
            return;
        }
        const Ramp *ramp = op->index.as<Ramp>();
        if (ramp && is_const_one(ramp->stride)) {
            llvm::Value *addr = builder.CreateInBoundsGEP(elem, host, codegen_offset(ramp->base));
            value = tagged(builder.CreateAlignedLoad(llvm_type(t), addr, align), op->name);
            return;
        }
        if (std::optional<LaneClasses> classes = lane_classes(op->index)) {
            if ((value = interleaved_load(t, op->name, host, *classes))) return;
        }
        if (std::optional<LaneOffsets> lanes = lane_offsets(op->index)) {
            if ((value = shuffled_load(t, op->name, host, *lanes, /*may_share_span=*/true))) return;
        }
        if (std::optional<ClampedRamp> clamped = find_clamped_ramp(op->index)) {
            value = load_unclamped_where_inside(op, *clamped);
            return;
        }
        value = gather(op);
    }

    // A boundary condition's clamp changes lanes only near the edges: where every lane lies
    // inside, the load without the clamp (dense, or dense loads and a shuffle) reads the same
    // elements. Beyond an edge, where every lane clamps to the same bound, one element is
    // loaded for all of them (or the rest of the index's dense load). Only a vector that
    // straddles an edge gathers its clamped lanes. Branches, not selects: the load without
    // the clamp may reach outside the buffer exactly where the clamp matters.
    llvm::Value *load_unclamped_where_inside(const Load *op, const ClampedRamp &clamped) {
        llvm::BasicBlock *after_bb = llvm::BasicBlock::Create(ctx, "after_load", function);
        llvm::PHINode *phi = llvm::PHINode::Create(llvm_type(op->type), 3, "", after_bb);
        auto finish_case = [&](llvm::Value *loaded) {
            phi->addIncoming(loaded, builder.GetInsertBlock());
            builder.CreateBr(after_bb);
        };
        // Tests `condition`; where it holds, loads `index` and goes to after_bb; continues in
        // the block where it fails. Edges are a few vectors of a row: only the inside is
        // marked likely.
        auto load_if = [&](const Expr &condition, const Expr &index, const char *name,
                           bool likely) {
            llvm::BasicBlock *then_bb = llvm::BasicBlock::Create(ctx, name, function);
            llvm::BasicBlock *else_bb = llvm::BasicBlock::Create(ctx, "edge", function);
            llvm::MDBuilder md(ctx);
            builder.CreateCondBr(codegen(condition), then_bb, else_bb,
                                 likely ? md.createBranchWeights(1000, 1) : nullptr);
            builder.SetInsertPoint(then_bb);
            finish_case(codegen(Load::make(op->type, op->name, index)));
            builder.SetInsertPoint(else_bb);
        };
        load_if(clamped.all_lanes_inside, clamped.unclamped_index, "inside", true);
        if (clamped.all_lanes_outside.defined()) {
            load_if(clamped.all_lanes_outside, clamped.outside_index, "outside", false);
        }
        finish_case(gather(op));
        builder.SetInsertPoint(after_bb);
        return phi;
    }

    // A stencil over a boundary condition clamps each tap's ramp: one test for the whole
    // vector (every tap inside its clamp's range) instead of a branch per load, and the taps
    // then load without their clamps. A vector at an edge stores through the loads of
    // load_unclamped_where_inside, each with its own test.
    bool in_clamped_fallback = false;
    void store_unclamped_where_inside(const Store *op, const UnclampedStore &unclamped) {
        llvm::BasicBlock *inside_bb = llvm::BasicBlock::Create(ctx, "all_inside", function);
        llvm::BasicBlock *edge_bb = llvm::BasicBlock::Create(ctx, "at_edge", function);
        llvm::BasicBlock *after_bb = llvm::BasicBlock::Create(ctx, "after_store", function);
        llvm::MDBuilder md(ctx);
        builder.CreateCondBr(codegen(unclamped.all_inside), inside_bb, edge_bb,
                             md.createBranchWeights(1000, 1));
        builder.SetInsertPoint(inside_bb);
        codegen(unclamped.store);
        builder.CreateBr(after_bb);
        builder.SetInsertPoint(edge_bb);
        in_clamped_fallback = true;
        codegen(Stmt(op));
        in_clamped_fallback = false;
        builder.CreateBr(after_bb);
        builder.SetInsertPoint(after_bb);
    }

    // An Int(32) index term sign-extended to 64 bits. Where its sum includes a clamp of the
    // innermost loop's variable (min(x * 16, n - 16), the last vector of a ShiftInwards split
    // shifted back), the clamp is taken in 64 bits of its sign-extended operands and added to
    // the sign-extended sum of the other terms: the same value for every access in bounds (the
    // assumption of codegen_offset below), and LLVM then widens the loop variable instead of
    // extending the clamped offset plus the rest in every iteration (softmax's exponential
    // loop: an add and a movslq less per vector). The other terms stay one 32-bit sum, as
    // many loop-invariant values as before (extending each term on its own added 64-bit
    // invariants that camera_pipe's loops spilled).
    llvm::Value *sign_extended(const Expr &e) {
        llvm::Type *i64 = builder.getInt64Ty();
        if (!clamped_offsets_in_64_bits || !sum_clamps_var(e, innermost_loop)) {
            return builder.CreateSExt(codegen(e), i64);
        }
        const ClampedSum sum = split_clamps(e, innermost_loop);
        llvm::Value *clamps = nullptr;
        for (const auto &[clamp, added] : sum.clamps) {
            const Min *mn = clamp.as<Min>();
            const Max *mx = clamp.as<Max>();
            llvm::Value *v =
                builder.CreateBinaryIntrinsic(mn ? llvm::Intrinsic::smin : llvm::Intrinsic::smax,
                                              builder.CreateSExt(codegen(mn ? mn->a : mx->a), i64),
                                              builder.CreateSExt(codegen(mn ? mn->b : mx->b), i64));
            if (!clamps) {
                clamps = added ? v : builder.CreateNSWNeg(v);
            } else {
                clamps = added ? builder.CreateAdd(clamps, v, "", false, true)
                               : builder.CreateSub(clamps, v, "", false, true);
            }
        }
        if (!sum.rest.defined()) return clamps;
        return builder.CreateAdd(builder.CreateSExt(codegen(sum.rest), i64), clamps, "", false,
                                 true);
    }

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

    // A scalar element offset for a GEP, in 64 bits: the sign-extended sum of the index's
    // terms that neither are constants nor the innermost loop's variable, plus that variable,
    // plus the constants (codegen/IndexTerms.h). LLVM then sees the taps of a stencil as one
    // base and displacements, and an address that advances by a fixed step per iteration (a
    // pointer increment); it can't split a 32-bit sum, which may wrap. Exact for every access
    // in bounds of a buffer of fewer than 2^31 - |constant| elements, where the loop variable
    // alone fits in 32 bits: the rest then fits too. Where the loop variable is not a plain
    // term (min(x * 16, n - 16) of a shifted tail), the constants are still separated.
    llvm::Value *codegen_offset(const Expr &e) {
        llvm::Type *i64 = builder.getInt64Ty();
        std::optional<IndexTerms> terms;
        if (e.type() == Int(32)) terms = split_index(e, innermost_loop);
        if (!terms) return codegen(e);
        // The terms of the loops just outside, likewise: where LLVM unrolls the innermost loop
        // whole (taps of a reduction), the next one out becomes innermost, and its addresses
        // must then be its induction variable plus a base too, or it is not vectorized without
        // overflow checks, which LLVM refuses for loops of a few iterations (fuzz seed 2026
        // pair 363: 7 points of a split over 12 taps each, 6x Halide's time).
        Expr rest = terms->rest;
        int64_t constant = terms->constant;
        std::vector<std::pair<std::string, int64_t>> loop_terms;
        if (terms->loop_term) loop_terms.push_back({innermost_loop, terms->loop_scale});
        for (size_t k = outer_loops.size(), seen = 0;
             k-- > 0 && seen < kOuterLoopTerms && rest.defined(); seen++) {
            IndexTerms outer = split_index(rest, outer_loops[k]);
            if (!outer.loop_term) continue;
            rest = outer.rest;
            constant += outer.constant;
            loop_terms.push_back({outer_loops[k], outer.loop_scale});
        }
        llvm::Value *offset = rest.defined() ? sign_extended(rest) : nullptr;
        auto add = [&](llvm::Value *v) { offset = offset ? builder.CreateAdd(offset, v) : v; };
        for (const auto &[loop, scale] : loop_terms) {
            llvm::Value *var = builder.CreateSExt(codegen(Variable::make(Int(32), loop)), i64);
            if (scale != 1) var = builder.CreateMul(var, builder.getInt64(scale), "", false, true);
            add(var);
        }
        if (constant != 0 || !offset) add(builder.getInt64(constant));
        return offset;
    }

    // Each lane loaded from its own index: for vectors of 16 lanes or more, a hardware gather
    // for 32- and 64-bit elements and for narrower elements of an allocation (as 32-bit
    // words); byte permutes over the whole table for bytes of a small stack allocation where
    // the CPU has AVX512-VBMI; otherwise lane by lane (narrower elements of inputs and outputs,
    // whose last element may end a page, and short vectors).
    llvm::Value *gather(const Load *op) {
        llvm::Value *host = buffer_host(op->name);
        Type t = op->type;
        llvm::Type *elem = llvm_type(t.element_of());
        llvm::Align align(t.element_of().bytes() ? t.element_of().bytes() : 1);
        llvm::Value *index = codegen(op->index);
        // Below 16 lanes a hardware gather costs about what loading the lanes one by one
        // does on AMD's cores, and it cannot take a lane from a store just before it (the
        // stores of a loop's previous iteration): lane by lane, those loads forward (fuzz seed
        // 2026 pairs 51 and 321, a column of 5 and of 8 floats per vector: 1.8x -> 1.1x and
        // 1.7x -> 1.05x Halide's time, which loads lane by lane on x86).
        const bool hardware_gather = t.lanes() >= 16;
        if (t.bits() >= 32 && hardware_gather) {
            llvm::Value *addrs = builder.CreateInBoundsGEP(elem, host, index);
            return tagged(builder.CreateMaskedGather(llvm_type(t), addrs, align), op->name);
        }
        if (t.bits() == 8 && has_avx512vbmi && stack_allocations.contains(op->name) &&
            element_bytes(op->name) <= kMaxByteTableBytes) {
            // A lookup table (a tone curve): byte permutes over the whole table beat a gather.
            return emit_byte_table_lookup(builder, host, element_bytes(op->name), index,
                                          [&](llvm::LoadInst *l) { return tagged(l, op->name); });
        }
        if (is_allocation(op->name) && hardware_gather) {
            // x86 gathers 32-bit words only: gather the word that starts at each element (an
            // allocation has kAllocationPaddingBytes to spare past its last one) and keep its
            // low bits, which on a little-endian machine are the element.
            llvm::Value *addrs = builder.CreateInBoundsGEP(elem, host, index);
            llvm::Type *words = llvm::FixedVectorType::get(builder.getInt32Ty(), t.lanes());
            llvm::Value *gathered =
                tagged(builder.CreateMaskedGather(words, addrs, llvm::Align(1)), op->name);
            return builder.CreateTrunc(gathered, llvm_type(t));
        }
        llvm::Value *result = llvm::UndefValue::get(llvm_type(t));
        for (int i = 0; i < t.lanes(); i++) {
            llvm::Value *idx = builder.CreateExtractElement(index, (uint64_t)i);
            llvm::Value *addr = builder.CreateInBoundsGEP(elem, host, idx);
            llvm::Value *lane = tagged(builder.CreateAlignedLoad(elem, addr, align), op->name);
            result = builder.CreateInsertElement(result, lane, (uint64_t)i);
        }
        return result;
    }

    // A ramp divided by a constant k: the lanes of each residue of the ramp's offsets mod k lie
    // at constant offsets from their own base, floor((b + s) / k). Each class is loaded as a
    // vector (dense, or dense pieces and a shuffle) and one shuffle interleaves them: no
    // run-time residue, and the classes of f(x / 2) and f((x + 1) / 2) share their loads.
    // Returns nullptr unless the classes have equal lane counts of at least 4 (a divisor that
    // leaves fewer lanes per class reads better through one span and a residue).
    llvm::Value *interleaved_load(Type t, const std::string &name, llvm::Value *host,
                                  const LaneClasses &classes) {
        const size_t n = classes.bases.size();
        std::vector<std::vector<int64_t>> class_offsets(n);
        std::vector<int> position(classes.lane_class.size());
        for (size_t i = 0; i < classes.lane_class.size(); i++) {
            std::vector<int64_t> &row = class_offsets[classes.lane_class[i]];
            position[i] = (int)row.size();
            row.push_back(classes.offsets[i]);
        }
        const size_t count = class_offsets[0].size();
        for (const auto &row : class_offsets) {
            if (row.size() != count || count < 4) return nullptr;
        }
        std::vector<llvm::Value *> loaded;
        for (size_t c = 0; c < n; c++) {
            LaneOffsets lanes;
            lanes.base = classes.bases[c];
            lanes.offsets = {class_offsets[c]};
            llvm::Value *v = shuffled_load(t.with_lanes((int)count), name, host, lanes);
            if (!v) return nullptr;
            loaded.push_back(v);
        }
        if (llvm::Value *permuted =
                interleave_halves_avx512(t, loaded, classes.lane_class, position))
            return permuted;
        std::vector<int> mask;
        for (size_t i = 0; i < position.size(); i++)
            mask.push_back(classes.lane_class[i] * (int)count + position[i]);
        return builder.CreateShuffleVector(llvm::concatenateVectors(builder, loaded), mask);
    }

    // Two 8-lane halves of 32-bit elements interleaved into one 512-bit vector with one
    // two-source permute of each half broadcast to both 256-bit halves, as x86 reads it best:
    // two broadcast loads and a vpermi2ps. LLVM 19 lowers the plain shufflevector of the two
    // halves into zero-extending loads, an insert and the permute (twice the instructions in
    // interpolate's upsampling loops), and folds a shuffle form of this back into that one, so
    // the permute is the intrinsic. Returns nullptr for any other shape.
    llvm::Value *interleave_halves_avx512(Type t, const std::vector<llvm::Value *> &halves,
                                          const std::vector<int> &lane_class,
                                          const std::vector<int> &position) {
        if (!has_avx512f || halves.size() != 2 || t.lanes() != 16 || t.bits() != 32) return nullptr;
        std::vector<int> broadcast;
        for (int i = 0; i < 16; i++)
            broadcast.push_back(i % 8);
        std::vector<llvm::Constant *> indices;
        // The upper 8 lanes take their elements from the upper copies: each 256-bit half of
        // the result then reads one half of each source, and neither copy is dead.
        for (int i = 0; i < 16; i++)
            indices.push_back(
                builder.getInt32(lane_class[i] * 16 + position[i] + (i >= 8 ? 8 : 0)));
        llvm::Type *as =
            t.is_float() ? llvm_type(t) : llvm::FixedVectorType::get(builder.getInt32Ty(), 16);
        llvm::Value *a =
            builder.CreateBitCast(builder.CreateShuffleVector(halves[0], broadcast), as);
        llvm::Value *b =
            builder.CreateBitCast(builder.CreateShuffleVector(halves[1], broadcast), as);
        llvm::Intrinsic::ID id = t.is_float() ? llvm::Intrinsic::x86_avx512_vpermi2var_ps_512
                                              : llvm::Intrinsic::x86_avx512_vpermi2var_d_512;
        llvm::Function *permute = llvm::Intrinsic::getDeclaration(module.get(), id);
        llvm::Value *result =
            builder.CreateCall(permute, {a, llvm::ConstantVector::get(indices), b});
        return builder.CreateBitCast(result, llvm_type(t));
    }

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
    static LaneSpan lane_span(const LaneOffsets &lanes) {
        LaneSpan span;
        span.rest = lanes.base;
        if (lanes.base.type() == Int(32)) {
            IndexTerms terms = split_index(lanes.base, "");
            span.rest = terms.rest;
            span.constant = terms.constant;
        }
        const std::vector<int64_t> &o = lanes.offsets[0];
        span.lo = span.constant + *std::min_element(o.begin(), o.end());
        span.hi = span.constant + *std::max_element(o.begin(), o.end());
        return span;
    }

    // The one constant step between consecutive offsets, or nothing.
    static std::optional<int64_t> constant_stride(const std::vector<int64_t> &o) {
        if (o.size() < 2) return std::nullopt;
        for (size_t i = 2; i < o.size(); i++) {
            if (o[i] - o[i - 1] != o[1] - o[0]) return std::nullopt;
        }
        return o[1] - o[0];
    }

    static bool same_rest(const Expr &a, const Expr &b) {
        return a.defined() == b.defined() && (!a.defined() || deep_equal(a, b));
    }

    // The shared spans of the strided loads in `value`, evaluated in full wherever the store
    // runs (Loom evaluates every operand: both sides of a select).
    static std::map<std::string, std::vector<SharedSpan>> spans_shared_by_loads(const Expr &value) {
        class VectorLoads : public IRVisitor {
        public:
            std::vector<const Load *> loads;

        private:
            using IRVisitor::visit;
            void visit(const Load *op) override {
                IRVisitor::visit(op);
                if (op->type.is_vector()) loads.push_back(op);
            }
        } vector_loads;
        value.accept(&vector_loads);
        struct Group {
            std::string name;
            SharedSpan span;
            int lanes;
            std::set<int64_t> starts;
        };
        std::vector<Group> groups;
        for (const Load *op : vector_loads.loads) {
            std::optional<LaneOffsets> lanes = lane_offsets(op->index);
            if (!lanes || lanes->modulus != 1) continue;
            std::optional<int64_t> stride = constant_stride(lanes->offsets[0]);
            if (!stride || *stride < 2) continue;
            const LaneSpan own = lane_span(*lanes);
            auto g = std::find_if(groups.begin(), groups.end(), [&](const Group &g) {
                return g.name == op->name && g.lanes == op->type.lanes() &&
                       same_rest(g.span.rest, own.rest);
            });
            if (g == groups.end()) {
                groups.push_back(
                    {op->name, {own.rest, own.lo, own.hi}, op->type.lanes(), {own.lo}});
            } else {
                g->span.lo = std::min(g->span.lo, own.lo);
                g->span.hi = std::max(g->span.hi, own.hi);
                g->starts.insert(own.lo);
            }
        }
        std::map<std::string, std::vector<SharedSpan>> spans;
        for (const Group &g : groups) {
            // shuffled_load's limit on the span it loads for one vector.
            if (g.starts.size() >= 2 && g.span.hi - g.span.lo + 1 <= 4 * (int64_t)g.lanes) {
                spans[g.name].push_back(g.span);
            }
        }
        return spans;
    }

    // Where `lanes` of `name` lie in a shared span: rebases them on the span's base (its
    // constant moved into the offsets) and returns the span's ends, offsets from that base.
    std::optional<std::pair<int64_t, int64_t>> rebase_on_shared_span(const std::string &name,
                                                                     LaneOffsets &lanes) {
        // An allocation's strided taps read whole vectors from an even offset instead
        // (padded_start): its padding allows it, and they straddle fewer cache lines.
        auto found = shared_spans.find(name);
        if (found == shared_spans.end() || lanes.modulus != 1 || is_allocation(name)) {
            return std::nullopt;
        }
        const LaneSpan own = lane_span(lanes);
        for (const SharedSpan &span : found->second) {
            // A load the span was not made from (a clamped tap's unclamped form, tested
            // inside its clamp) shares it only where its lanes lie in it.
            if (!same_rest(span.rest, own.rest) || own.lo < span.lo || own.hi > span.hi) continue;
            lanes.base = own.rest.defined() ? own.rest : make_zero(Int(32));
            for (int64_t &o : lanes.offsets[0])
                o += own.constant;
            return std::make_pair(span.lo, span.hi);
        }
        return std::nullopt;
    }

    // The lanes lie at constant offsets from a base: load the span from the lowest lane's
    // element to the highest's with `pieces` dense loads of `width` elements, the last one
    // ending exactly at the highest (pieces may overlap), and shuffle the lanes out of them.
    // Every lane is loaded anyway, so the elements between the lowest and the highest lie in
    // the buffer: nothing outside [min lane, max lane] is read. With a residue, the span and
    // the shuffle depend on it: one shuffle per residue, picked by a select. Returns nullptr
    // where the span is too wide for this to pay.
    llvm::Value *shuffled_load(Type t, const std::string &name, llvm::Value *host,
                               LaneOffsets lanes, bool may_share_span = false) {
        const int64_t n = t.lanes();
        std::vector<int64_t> lo, hi;
        int64_t min_span = INT64_MAX, max_span = 0;
        const auto shared = may_share_span ? rebase_on_shared_span(name, lanes) : std::nullopt;
        for (const auto &row : lanes.offsets) {
            lo.push_back(shared ? shared->first : *std::min_element(row.begin(), row.end()));
            hi.push_back(shared ? shared->second : *std::max_element(row.begin(), row.end()));
            min_span = std::min(min_span, hi.back() - lo.back() + 1);
            max_span = std::max(max_span, hi.back() - lo.back() + 1);
        }
        // Strides up to 4 (Halide's limit for this rewrite); beyond, a gather reads less.
        if (max_span > 4 * n) return nullptr;
        int64_t width = 1;
        while (width * 2 <= min_span && width * 2 <= 2 * n)
            width *= 2;
        int64_t pieces = (max_span + width - 1) / width;
        // The pieces before the last start at lo + j * width and must end within every span.
        if (pieces > 4 || (pieces - 1) * width > min_span) return nullptr;
        std::optional<int64_t> start;
        if (!shared) start = padded_start(t, name, lanes, width, pieces);

        llvm::Type *elem = llvm_type(t.element_of());
        llvm::Align align(t.element_of().bytes() ? t.element_of().bytes() : 1);
        llvm::Type *piece_type = llvm::FixedVectorType::get(elem, (unsigned)width);
        llvm::Value *base = codegen_offset(lanes.base);
        llvm::Type *index_type = base->getType();
        llvm::Value *residue = lanes.modulus > 1 ? codegen(lanes.residue) : nullptr;
        auto is_residue = [&](size_t m) {
            return builder.CreateICmpEQ(residue, llvm::ConstantInt::get(residue->getType(), m));
        };
        // A constant per residue, picked at run time (LLVM folds the select where they agree).
        auto by_residue = [&](const std::vector<int64_t> &v) -> llvm::Value * {
            llvm::Value *r = llvm::ConstantInt::get(index_type, v[0], true);
            for (size_t m = 1; m < v.size(); m++) {
                r = builder.CreateSelect(is_residue(m),
                                         llvm::ConstantInt::get(index_type, v[m], true), r);
            }
            return r;
        };
        llvm::Value *lo_v = by_residue(lo), *hi_v = by_residue(hi);
        std::vector<llvm::Value *> loaded;
        for (int64_t j = 0; j < pieces; j++) {
            llvm::Value *piece_start =
                start ? llvm::ConstantInt::get(index_type, *start + j * width, true)
                : j + 1 < pieces
                    ? builder.CreateAdd(lo_v, llvm::ConstantInt::get(index_type, j * width))
                    : builder.CreateSub(hi_v, llvm::ConstantInt::get(index_type, width - 1));
            llvm::Value *addr =
                builder.CreateInBoundsGEP(elem, host, builder.CreateAdd(base, piece_start));
            loaded.push_back(tagged(builder.CreateAlignedLoad(piece_type, addr, align), name));
        }
        llvm::Value *all =
            loaded.size() == 1 ? loaded[0] : llvm::concatenateVectors(builder, loaded);
        llvm::Value *result = nullptr;
        for (size_t m = 0; m < lanes.offsets.size(); m++) {
            std::vector<int> mask;
            for (int64_t o : lanes.offsets[m]) {
                int64_t p = o - lo[m];
                if (start) {
                    p = o - *start;
                } else if (p >= (pieces - 1) * width) {
                    p = (pieces - 1) * width + o - (hi[m] - width + 1);
                }
                mask.push_back((int)p);
            }
            llvm::Value *s = builder.CreateShuffleVector(all, mask);
            result = m == 0 ? s : builder.CreateSelect(is_residue(m), s, result);
        }
        return result;
    }

    // Where shuffled_load may read whole pieces laid end to end from an offset before the
    // lowest lane, instead of ending its last piece exactly at the highest lane: for lanes a
    // constant stride of 2 or more apart in an allocation, whose padding holds what is read
    // outside the lanes. The start is the lowest lane moved down to where the index's constant
    // is a multiple of the stride, so that the taps of a stencil on a subsampled row
    // (f(2x - 1), f(2x), f(2x + 1)) load the same vectors, and none straddles a cache line
    // more than the dense row would. Returns the start, relative to the base, or nothing.
    std::optional<int64_t> padded_start(Type t, const std::string &name, const LaneOffsets &lanes,
                                        int64_t width, int64_t &pieces) {
        if (!is_allocation(name) || lanes.modulus != 1) return std::nullopt;
        const std::vector<int64_t> &o = lanes.offsets[0];
        std::optional<int64_t> step = constant_stride(o);
        if (!step || *step < 2) return std::nullopt;
        const int64_t stride = *step;
        const int64_t constant = o[0] + lane_span(lanes).constant;
        const int64_t start = o[0] - floor_mod(constant, stride);
        const int64_t needed = (o.back() - start + width) / width;
        const int64_t bytes = t.element_of().bytes();
        const int64_t before = (o[0] - start) * bytes,
                      after = (start + needed * width - 1 - o.back()) * bytes;
        if (needed > 4 || before > (int64_t)kAllocationPaddingBytes ||
            after > (int64_t)kAllocationPaddingBytes) {
            return std::nullopt;
        }
        pieces = needed;
        return start;
    }

    void visit(const Store *op) override {
        auto saved =
            std::exchange(shared_spans, op->value.type().is_vector()
                                            ? spans_shared_by_loads(op->value)
                                            : std::map<std::string, std::vector<SharedSpan>>());
        emit_store(op);
        shared_spans = std::move(saved);
    }

    void emit_store(const Store *op) {
        if (!in_clamped_fallback) {
            if (std::optional<UnclampedStore> unclamped = unclamp_loads(op)) {
                store_unclamped_where_inside(op, *unclamped);
                return;
            }
        }
        llvm::Value *host = buffer_host(op->name);
        Type t = op->value.type();
        llvm::Type *elem = llvm_type(t.element_of());
        llvm::Align align(t.element_of().bytes() ? t.element_of().bytes() : 1);
        llvm::Value *v = codegen(op->value);
        if (t.is_scalar()) {
            tagged(builder.CreateAlignedStore(
                       v, builder.CreateInBoundsGEP(elem, host, codegen_offset(op->index)), align),
                   op->name);
            return;
        }
        const Ramp *ramp = op->index.as<Ramp>();
        if (ramp && is_const_one(ramp->stride)) {
            llvm::Value *addr = builder.CreateInBoundsGEP(elem, host, codegen_offset(ramp->base));
            if (streams_to(op->name, t)) {
                llvm::Value *allowed = *symbols.find(streams_flag(op->name));
                if (const JoinedLines *j = joined_lines.find(op->name)) {
                    for (llvm::Instruction *st : store_streaming_joined(
                             builder, v, addr, align, allowed, j->type, j->state, op->name))
                        tagged(st, op->name);
                } else {
                    StreamedStore st =
                        store_streaming_where_aligned(builder, v, addr, align, allowed, op->name);
                    tagged(st.streaming, op->name);
                    tagged(st.plain, op->name);
                }
                pipeline_streams = true;
            } else {
                tagged(builder.CreateAlignedStore(v, addr, align), op->name);
            }
            return;
        }
        llvm::Value *index = codegen(op->index);
        for (int i = 0; i < t.lanes(); i++) {
            llvm::Value *idx = builder.CreateExtractElement(index, (uint64_t)i);
            tagged(builder.CreateAlignedStore(builder.CreateExtractElement(v, (uint64_t)i),
                                              builder.CreateInBoundsGEP(elem, host, idx), align),
                   op->name);
        }
    }

    void visit(const Ramp *op) override {
        llvm::Value *base = codegen(op->base), *stride = codegen(op->stride);
        Type t = op->type;
        std::vector<llvm::Constant *> lanes;
        for (int i = 0; i < op->lanes; i++)
            lanes.push_back(const_of(t.element_of(), i));
        llvm::Value *iota = llvm::ConstantVector::get(lanes);
        llvm::Value *b = builder.CreateVectorSplat(op->lanes, base);
        llvm::Value *s = builder.CreateVectorSplat(op->lanes, stride);
        value = t.is_float()
                    ? builder.CreateFAdd(
                          b, builder.CreateFMul(s, builder.CreateSIToFP(iota, llvm_type(t))))
                    : builder.CreateAdd(b, builder.CreateMul(s, iota));
    }

    void visit(const Broadcast *op) override {
        value = builder.CreateVectorSplat(op->lanes, codegen(op->value));
    }

    void visit(const Let *op) override {
        symbols.push(op->name, codegen(op->value));
        value = codegen(op->body);
        symbols.pop(op->name);
    }

    // ---- calls ----
    llvm::FunctionCallee runtime_function(const std::string &name, llvm::Type *ret,
                                          std::vector<llvm::Type *> params) {
        auto *type = llvm::FunctionType::get(ret, params, false);
        return module->getOrInsertFunction(name, type);
    }

    // Calls a scalar C function once per lane.
    llvm::Value *call_per_lane(llvm::FunctionCallee fn, Type t, std::vector<llvm::Value *> args) {
        auto call = [&](std::vector<llvm::Value *> a) {
            llvm::CallInst *c = builder.CreateCall(fn, a);
            // The C library's function, never a compiler's idea of it: same bits as libm.
            c->addFnAttr(llvm::Attribute::NoBuiltin);
            return c;
        };
        if (t.is_scalar()) return call(args);
        llvm::Value *result = llvm::UndefValue::get(llvm_type(t));
        for (int i = 0; i < t.lanes(); i++) {
            std::vector<llvm::Value *> lane;
            for (llvm::Value *a : args)
                lane.push_back(builder.CreateExtractElement(a, (uint64_t)i));
            result = builder.CreateInsertElement(result, call(lane), (uint64_t)i);
        }
        return result;
    }

    void visit(const Call *op) override {
        Type t = op->type;
        if (op->call_type == Call::Intrinsic || op->call_type == Call::PureIntrinsic) {
            intrinsic(op);
            return;
        }
        if (op->call_type == Call::PureExtern) {
            std::vector<llvm::Value *> args;
            for (const Expr &a : op->args)
                args.push_back(codegen(a));
            if (op->name == "exp_f32") {
                value = emit_exp_f32(builder, args[0], has_avx512f, has_avx512vl);
                return;
            }
            llvm::Intrinsic::ID id = exact_math_intrinsic(op->name);
            if (id != llvm::Intrinsic::not_intrinsic) {
                value = builder.CreateIntrinsic(id, {args[0]->getType()}, args);
                return;
            }
            auto it = libm_names().find(op->name);
            internal_assert(it != libm_names().end()) << "Unknown math function " << op->name;
            user_assert(!is_nvptx)
                << "A GPU kernel calls " << op->name << ", which Loom computes with the C "
                << "library's function on the CPU; its CUDA backend has no version of it yet. "
                   "Compute the Func that calls it on the CPU (schedule it without gpu_blocks).";
            llvm::Type *scalar = llvm_type(t.element_of());
            std::vector<llvm::Type *> params(args.size(), scalar);
            value = call_per_lane(runtime_function(it->second, scalar, params), t, args);
            return;
        }
        if (op->call_type == Call::Extern) {
            internal_assert(!is_nvptx) << "Runtime call " << op->name << " inside a GPU kernel";
            // Runtime error reporters: (user_context, args...) -> error code.
            std::vector<llvm::Value *> args{user_context};
            std::vector<llvm::Type *> params{llvm::PointerType::get(ctx, 0)};
            for (const Expr &a : op->args) {
                args.push_back(codegen(a));
                params.push_back(args.back()->getType());
            }
            value = builder.CreateCall(runtime_function(op->name, llvm_type(t), params), args);
            return;
        }
        internal_error << "Call to " << op->name << " reached codegen; it should have been lowered";
    }

    void intrinsic(const Call *op) {
        Type t = op->type;
        switch (op->op) {
        case Call::prefetch: {
            if (is_nvptx) { // a CPU cache hint: a GPU kernel has no use for it
                value = builder.getInt32(0);
                return;
            }
            // The element's address, not its value: a read hint (rw 0), kept in every cache
            // level (locality 3), for data (cache type 1). Never faults.
            const Load *element = op->args[0].as<Load>();
            internal_assert(element && element->type.is_scalar())
                << "prefetch of something other than one element: " << op->args[0];
            llvm::Type *elem = llvm_type(element->type);
            llvm::Value *addr =
                builder.CreateGEP(elem, buffer_host(element->name), codegen_offset(element->index));
            builder.CreateIntrinsic(
                llvm::Intrinsic::prefetch, {addr->getType()},
                {addr, builder.getInt32(0), builder.getInt32(3), builder.getInt32(1)});
            value = builder.getInt32(0);
            return;
        }
        case Call::bitwise_and:
            value = builder.CreateAnd(codegen(op->args[0]), codegen(op->args[1]));
            return;
        case Call::bitwise_or:
            value = builder.CreateOr(codegen(op->args[0]), codegen(op->args[1]));
            return;
        case Call::bitwise_xor:
            value = builder.CreateXor(codegen(op->args[0]), codegen(op->args[1]));
            return;
        case Call::bitwise_not:
            value = builder.CreateNot(codegen(op->args[0]));
            return;
        case Call::shift_left:
        case Call::shift_right: {
            Type vt = op->args[0].type();
            llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
            bool left = op->op == Call::shift_left;
            auto shl = [&](llvm::Value *n) { return builder.CreateShl(a, n); };
            auto shr = [&](llvm::Value *n) {
                return vt.is_int() ? builder.CreateAShr(a, n) : builder.CreateLShr(a, n);
            };
            if (op->args[1].type().is_int()) {
                // A negative amount shifts the other way.
                llvm::Value *zero = llvm::Constant::getNullValue(b->getType());
                llvm::Value *neg = builder.CreateICmpSLT(b, zero);
                llvm::Value *mag = builder.CreateSelect(neg, builder.CreateSub(zero, b), b);
                llvm::Value *fwd = left ? shl(mag) : shr(mag);
                llvm::Value *rev = left ? shr(mag) : shl(mag);
                value = builder.CreateSelect(neg, rev, fwd);
            } else {
                value = left ? shl(b) : shr(b);
            }
            return;
        }
        case Call::abs: {
            Type at = op->args[0].type();
            llvm::Value *a = codegen(op->args[0]);
            if (at.is_float()) {
                value = builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
            } else {
                llvm::Value *zero = llvm::Constant::getNullValue(a->getType());
                value = builder.CreateSelect(builder.CreateICmpSLT(a, zero),
                                             builder.CreateSub(zero, a), a);
            }
            return;
        }
        case Call::absd: {
            Type at = op->args[0].type();
            llvm::Value *a = codegen(op->args[0]), *b = codegen(op->args[1]);
            if (at.is_float()) {
                // |a - b|: absd(-0.0, 0.0) is +0.0.
                value =
                    builder.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, builder.CreateFSub(a, b));
            } else {
                // The difference in the same width, read as unsigned, is exact.
                llvm::Value *lt =
                    at.is_int() ? builder.CreateICmpSLT(a, b) : builder.CreateICmpULT(a, b);
                value = builder.CreateSelect(lt, builder.CreateSub(b, a), builder.CreateSub(a, b));
            }
            return;
        }
        case Call::count_leading_zeros:
            value = builder.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, codegen(op->args[0]),
                                                  builder.getFalse());
            return;
        case Call::count_trailing_zeros:
            value = builder.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, codegen(op->args[0]),
                                                  builder.getFalse());
            return;
        case Call::popcount:
            value = builder.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, codegen(op->args[0]));
            return;
        case Call::likely:
        case Call::promise_clamped:
            value = codegen(op->args[0]);
            return;
        case Call::buffer_host:
        case Call::NotIntrinsic:
            break;
        }
        internal_error << "Intrinsic " << op->name << " of type " << t << " has no codegen";
    }

    // ---- statements ----
    void visit(const LetStmt *op) override {
        symbols.push(op->name, codegen(op->value));
        codegen(op->body);
        symbols.pop(op->name);
    }

    void visit(const AssertStmt *op) override {
        internal_assert(!is_nvptx) << "A check inside a GPU kernel: " << op->condition;
        llvm::Value *cond = codegen(op->condition);
        llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "assert_failed", function);
        llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "assert_ok", function);
        builder.CreateCondBr(cond, ok, fail);
        builder.SetInsertPoint(fail);
        llvm::Value *code = codegen(op->message);
        return_error(code);
        builder.SetInsertPoint(ok);
    }

    void visit(const ProducerConsumer *op) override { codegen(op->body); }

    // A function of its own for `body`. The variables and buffers body uses but does not bind
    // (`free`, body's FreeNames) are passed one of two ways:
    // - Closure: task(user_context, index, closure), the runtime's calling convention for a
    //   parallel loop's body, with the values in a closure struct filled here; `index`, when
    //   not empty, is the variable bound to the second argument.
    // - Arguments: loop(user_context, values...), for an outlined loop, called directly. A
    //   closure would be stored on every execution of the code around the loop, through a
    //   stack slot that escapes into the call, and those stores cost LLVM far more than
    //   arguments do (blur's task with its two loops outlined: 25 stores were half of its
    //   compile time). Run time measured the same either way.
    // The loops to outline in the function are `outline_in_task`. Each of `private_copies`, a
    // stack allocation of the caller passed by address, is copied into one of the function's
    // own on entry and back on return, so that LLVM sees an allocation nothing else can reach
    // and keeps it in registers (see outline).
    enum class Passing { Closure, Arguments };
    struct Task {
        llvm::Function *function;
        llvm::Value *closure;              // Closure: the struct to pass
        std::vector<llvm::Value *> values; // Arguments: the values to pass, after user_context
    };
    Task emit_task(const Stmt &body, const FreeNames &free, const std::string &index,
                   const std::string &task_name, Passing passing,
                   std::set<const For *> outline_in_task = {},
                   const std::vector<std::string> &private_copies = {}) {
        const bool by_value = passing == Passing::Arguments;
        std::vector<std::string> var_names;
        std::vector<llvm::Value *> values;
        for (const std::string &n : free.vars) {
            if (n == index) continue;
            const auto *v = symbols.find(n);
            internal_assert(v) << "The task " << task_name << " uses unbound " << n;
            var_names.push_back(n);
            values.push_back(*v);
        }
        // The per-call flag of each output the body may stream to (see streams_to).
        for (const std::string &n : free.buffers) {
            if (const auto *flag = symbols.find(streams_flag(n))) {
                var_names.push_back(streams_flag(n));
                values.push_back(*flag);
            }
        }
        std::vector<std::string> buffer_names;
        for (const std::string &n : free.buffers) {
            buffer_names.push_back(n);
            values.push_back(buffer_host(n));
        }
        // An outlined loop works on its caller's joined lines (a parallel task owns its own).
        std::vector<std::pair<std::string, JoinedLines>> lines_passed;
        for (const std::string &n : free.buffers) {
            if (const JoinedLines *j = joined_lines.find(n); j && by_value) {
                lines_passed.push_back({n, *j});
                values.push_back(j->state);
            }
        }
        const size_t named_values = values.size() - lines_passed.size();
        std::vector<llvm::Type *> field_types;
        for (llvm::Value *v : values)
            field_types.push_back(v->getType());
        llvm::StructType *closure_type = llvm::StructType::get(ctx, field_types);
        llvm::Type *ptr = llvm::PointerType::get(ctx, 0);

        llvm::Value *closure = nullptr;
        if (!by_value) {
            closure = create_entry_alloca(closure_type, task_name + ".closure");
            for (size_t i = 0; i < values.size(); i++) {
                builder.CreateStore(values[i],
                                    builder.CreateStructGEP(closure_type, closure, (unsigned)i));
            }
        }
        std::vector<llvm::Type *> params = {ptr, builder.getInt32Ty(), ptr};
        if (by_value) {
            params = {ptr};
            params.insert(params.end(), field_types.begin(), field_types.end());
        }
        auto *task_type = llvm::FunctionType::get(builder.getInt32Ty(), params, false);
        llvm::Function *task =
            llvm::Function::Create(task_type, llvm::Function::InternalLinkage,
                                   function->getName() + "." + task_name, module.get());
        task->addFnAttr(llvm::Attribute::NoUnwind);

        // Generate the task with fresh scopes, then come back.
        llvm::Function *saved_function = function;
        llvm::Value *saved_context = user_context;
        llvm::IRBuilderBase::InsertPoint saved_ip = builder.saveIP();
        Scope<llvm::Value *> saved_symbols = std::move(symbols), saved_buffers = std::move(buffers);
        Scope<JoinedLines> saved_lines = std::move(joined_lines);
        joined_lines = Scope<JoinedLines>();
        std::set<const For *> saved_outlined =
            std::exchange(outlined_loops, std::move(outline_in_task));
        symbols = Scope<llvm::Value *>();
        buffers = Scope<llvm::Value *>();
        std::vector<std::string> saved_live = std::exchange(live_allocations, {});
        function = task;
        user_context = task->getArg(0);
        builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", task));
        // Each state passed is copied into a slot of the task's own, which nothing else can
        // reach: LLVM keeps it in registers through the loop (see private_copy).
        std::vector<std::pair<llvm::Value *, JoinedLines>> own_lines;
        for (size_t i = 0; i < lines_passed.size(); i++) {
            JoinedLines own = lines_passed[i].second;
            own.state = create_entry_alloca(own.type, lines_passed[i].first + ".joined");
            llvm::Value *caller_state = task->getArg(1 + named_values + i);
            copy_joined_state(own.type, own.state, caller_state);
            own_lines.push_back({caller_state, own});
            joined_lines.push(lines_passed[i].first, own);
        }
        for (size_t i = 0; i < named_values; i++) {
            llvm::Value *v =
                by_value ? (llvm::Value *)task->getArg(1 + i)
                         : builder.CreateLoad(
                               field_types[i],
                               builder.CreateStructGEP(closure_type, task->getArg(2), (unsigned)i));
            if (i < var_names.size()) {
                symbols.push(var_names[i], v);
            } else {
                buffers.push(buffer_names[i - var_names.size()], v);
            }
        }
        if (!index.empty()) symbols.push(index, task->getArg(1));
        std::vector<StackCopy> own_copies;
        for (const std::string &name : private_copies)
            own_copies.push_back(private_copy(name));
        std::string saved_loop = std::exchange(innermost_loop, "");
        std::vector<std::string> saved_outer_loops = std::exchange(outer_loops, {});
        const bool saved_streaming_loop = std::exchange(in_streaming_loop, false);
        const bool saved_has_innermost = std::exchange(function_has_innermost_loop, false);
        const int loops_before = loops_emitted;
        codegen(body);
        if (!function_has_innermost_loop && loops_emitted > loops_before) marks_as_glue(*task);
        function_has_innermost_loop = saved_has_innermost;
        innermost_loop = saved_loop;
        outer_loops = std::move(saved_outer_loops);
        for (const StackCopy &c : own_copies)
            copy_back(c);
        for (const auto &[caller_state, own] : own_lines)
            copy_joined_state(own.type, caller_state, own.state);
        in_streaming_loop = saved_streaming_loop;
        builder.CreateRet(builder.getInt32(0));
        function = saved_function;
        user_context = saved_context;
        live_allocations = std::move(saved_live);
        symbols = std::move(saved_symbols);
        buffers = std::move(saved_buffers);
        joined_lines = std::move(saved_lines);
        outlined_loops = std::move(saved_outlined);
        builder.restoreIP(saved_ip);
        return {task, closure, values};
    }

    // A task whose loops each run other functions' loops (outlined ones, or a parallel launch)
    // only sequences work done elsewhere: index arithmetic and calls, once per row of a strip.
    // Optimized, such glue costs as much compile time as a vector loop (blur's task with both
    // its loops outlined: ~7 ms of O3 and code generation, as much as either loop); marked
    // optnone, it joins the entry's object, which is compiled the fast way. Straight-line
    // vector code in it runs once per call of the outlined loops it sequences (matmul's task:
    // a tile's zeroing, its copies for the calls, its write-out with the epilogue, per 32 x 8
    // tile of a whole sum over k): unoptimized, the product's run time +0.5-1.5%, its JIT
    // 30 -> 23 ms. Run time otherwise measured unchanged (blur, +-1%).
    static void marks_as_glue(llvm::Function &f) {
        f.addFnAttr(llvm::Attribute::OptimizeNone);
        f.addFnAttr(llvm::Attribute::NoInline);
    }

    // After a call that returns an error code: return it from the function if it is not 0.
    void return_if_failed(llvm::Value *result, const std::string &what) {
        llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, what + "_failed", function);
        llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, what + "_ok", function);
        builder.CreateCondBr(builder.CreateICmpNE(result, builder.getInt32(0)), fail, ok);
        builder.SetInsertPoint(fail);
        return_error(result);
        builder.SetInsertPoint(ok);
    }

    // A parallel loop: the body becomes a task function over the loop index; the runtime's
    // thread pool runs it.
    void parallel_for(const For *op) {
        llvm::Value *mn = codegen(op->min), *ext = codegen(op->extent);
        FreeNames free;
        op->body.accept(&free);
        Task task = emit_task(op->body, free, op->name, op->name + ".task", Passing::Closure,
                              outline_threads > 0 ? loops_to_outline(op->body, outline_threads)
                                                  : std::set<const For *>());
        llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
        llvm::Value *result = builder.CreateCall(
            runtime_function("loom_do_par_for", builder.getInt32Ty(),
                             {ptr, ptr, builder.getInt32Ty(), builder.getInt32Ty(), ptr}),
            {user_context, task.function, mn, ext, task.closure});
        return_if_failed(result, "par");
    }

    // A serial loop in a function of its own, called once where the loop would run (see
    // loops_to_outline). An allocation this function keeps on the stack must not escape into
    // the call: LLVM would then keep it in memory, here and around the call (a tile of
    // accumulators, read and written by every step of the loops before). Where the loop only
    // reads such allocations at constant indices, the reads are made before the call and
    // passed as values (codegen/HoistStackReads). Otherwise (the tail of a reduction updating
    // the tile) the call gets a copy of each, which the callee copies into one of its own and
    // back (emit_task), and which is copied back here: moves of the allocation's bytes (matmul's
    // tile: 1 KiB each way) per call, made only where the loop runs at least once.
    bool outline(const For *op) {
        if (!outlined_loops.count(op)) return false;
        FreeNames free;
        op->accept(&free);
        std::set<std::string> on_stack;
        for (const std::string &b : free.buffers) {
            if (stack_allocations.contains(b)) on_stack.insert(b);
        }
        Stmt loop = op;
        std::vector<std::pair<std::string, Expr>> reads;
        std::vector<std::string> copied;
        if (!on_stack.empty()) {
            Stmt hoisted = hoist_constant_reads(loop, on_stack, &reads);
            if (hoisted.defined()) {
                loop = hoisted;
                free = FreeNames();
                loop.accept(&free);
            } else if (worth_outlining_with_copies(op)) {
                reads.clear();
                copied.assign(on_stack.begin(), on_stack.end());
            } else {
                return false;
            }
        }
        llvm::BasicBlock *after = nullptr;
        std::vector<StackCopy> copies;
        if (!copied.empty()) {
            llvm::BasicBlock *runs = llvm::BasicBlock::Create(ctx, op->name + ".runs", function);
            after = llvm::BasicBlock::Create(ctx, op->name + ".after", function);
            builder.CreateCondBr(builder.CreateICmpSGT(codegen(op->extent), builder.getInt32(0)),
                                 runs, after);
            builder.SetInsertPoint(runs);
            for (const std::string &name : copied)
                copies.push_back(private_copy(name));
        }
        for (const auto &[name, value] : reads)
            symbols.push(name, codegen(value));
        Task task = emit_task(loop, free, "", op->name + ".loop", Passing::Arguments, {}, copied);
        for (const auto &read : reads)
            symbols.pop(read.first);
        // Inlined back, it would be compiled with its caller again.
        task.function->addFnAttr(llvm::Attribute::NoInline);
        std::vector<llvm::Value *> args = {user_context};
        args.insert(args.end(), task.values.begin(), task.values.end());
        llvm::Value *result =
            builder.CreateCall(task.function->getFunctionType(), task.function, args);
        return_if_failed(result, "loop");
        for (const StackCopy &c : copies) {
            buffers.pop(c.name);
            copy_back(c);
        }
        if (after) {
            builder.CreateBr(after);
            builder.SetInsertPoint(after);
        }
        return true;
    }

    // The start of an allocation's memory: its leading padding.
    llvm::Value *allocation_start(const std::string &name) {
        return builder.CreateInBoundsGEP(builder.getInt8Ty(), buffer_host(name),
                                         builder.getInt64(-(int64_t)kAllocationPaddingBytes));
    }

    // The bytes of a stack allocation's elements, its padding left out.
    uint64_t element_bytes(const std::string &name) const {
        return *stack_allocations.find(name) - 2 * kAllocationPaddingBytes;
    }

    // A copy of the stack allocation `name` (bound in `buffers` at `original`) for an outlined
    // loop: a stack allocation of the current function, padded alike, bound to `name` from
    // private_copy until its caller pops the binding (emit_task's scope ends with the task).
    struct StackCopy {
        std::string name;
        llvm::Value *original, *copy; // first elements
    };

    // Makes the copy and binds `name` to it. Only the elements are copied, not the padding:
    // nothing reads what it holds (see kAllocationPaddingBytes), and each 64 bytes copied are a
    // value for LLVM to move.
    StackCopy private_copy(const std::string &name) {
        llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
        llvm::AllocaInst *memory = entry.CreateAlloca(
            llvm::ArrayType::get(builder.getInt8Ty(), *stack_allocations.find(name)), nullptr,
            name + ".copy");
        memory->setAlignment(llvm::Align(64));
        StackCopy c{name, buffer_host(name), first_element(memory)};
        copy_elements(c.copy, c.original, name);
        buffers.push(name, c.copy);
        return c;
    }

    void copy_back(const StackCopy &c) { copy_elements(c.original, c.copy, c.name); }

    // Field by field, so that SROA splits the copy's slot into registers.
    void copy_joined_state(llvm::StructType *type, llvm::Value *to, llvm::Value *from) {
        for (unsigned field = 0; field < type->getNumElements(); field++) {
            llvm::Type *t = type->getElementType(field);
            builder.CreateStore(builder.CreateLoad(t, builder.CreateStructGEP(type, from, field)),
                                builder.CreateStructGEP(type, to, field));
        }
    }

    void copy_elements(llvm::Value *to, llvm::Value *from, const std::string &name) {
        builder.CreateMemCpy(to, llvm::Align(64), from, llvm::Align(64), element_bytes(name));
    }

    // Allocas go in the entry block so that loops do not grow the stack.
    llvm::Value *create_entry_alloca(llvm::Type *t, const std::string &name) {
        llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
        return entry.CreateAlloca(t, nullptr, name);
    }

    void visit(const For *op) override {
        loops_emitted++;
        if (op->for_type == ForType::Parallel) {
            parallel_for(op);
            return;
        }
        if (op->for_type == ForType::GPUBlock || op->for_type == ForType::GPUThread) {
            if (is_nvptx) {
                gpu_loop(op);
            } else {
                launch_kernel(op);
            }
            return;
        }
        internal_assert(op->for_type == ForType::Serial)
            << "Loop " << op->name << " of kind " << for_type_name(op->for_type)
            << " reached the serial codegen";
        std::vector<std::string> owned = start_joined_lines_owned_by(op);
        if (!outline(op)) serial_loop(op);
        for (const std::string &name : owned) {
            const JoinedLines &j = joined_lines.get(name);
            tagged(flush_joined_lines(builder, j.type, j.state, j.plain_align, name), name);
            joined_lines.pop(name);
        }
    }

    // A block or thread loop inside a kernel: one iteration per block (thread), its index
    // from a special register. A thread loop shorter than the block's threads on its axis runs
    // on the first of them only; the outermost loop of a nest also leaves out the threads past
    // the first on the axes its nest does not use. Where a kernel has several nests (a
    // producer staged in shared storage, then its consumer), every thread waits at a barrier
    // after each, so that the next reads what the last wrote.
    void gpu_loop(const For *op) {
        if (op->for_type == ForType::GPUBlock) {
            auto it = shape.block_axis.find(op->name);
            internal_assert(it != shape.block_axis.end())
                << "Block loop " << op->name << " is not among its kernel's block loops";
            llvm::Value *index =
                builder.CreateIntrinsic(gpu_index_register(true, it->second), {}, {});
            symbols.push(op->name,
                         builder.CreateAdd(codegen(op->min), index, op->name, false, true));
            codegen(op->body);
            symbols.pop(op->name);
            return;
        }
        auto it = shape.thread_loops.find(op->name);
        internal_assert(it != shape.thread_loops.end())
            << "Thread loop " << op->name << " is not in one of its kernel's nests";
        const KernelShape::ThreadLoop &loop = it->second;
        auto thread_index = [&](int axis) {
            return builder.CreateIntrinsic(gpu_index_register(false, axis), {}, {});
        };
        llvm::Value *index = thread_index(loop.axis);
        llvm::Value *active = builder.getTrue();
        if (loop.extent < shape.block_extent[loop.axis]) {
            active = builder.CreateICmpSLT(index, builder.getInt32((int32_t)loop.extent));
        }
        auto nest = shape.nests.find(op->name);
        if (nest != shape.nests.end()) {
            for (int axis = nest->second; axis < 3; axis++) {
                if (shape.block_extent[axis] == 1) continue;
                active = builder.CreateAnd(
                    active, builder.CreateICmpEQ(thread_index(axis), builder.getInt32(0)));
            }
        }
        llvm::BasicBlock *after = nullptr;
        if (!llvm::isa<llvm::ConstantInt>(active)) {
            llvm::BasicBlock *body = llvm::BasicBlock::Create(ctx, op->name + ".active", function);
            after = llvm::BasicBlock::Create(ctx, op->name + ".after", function);
            builder.CreateCondBr(active, body, after);
            builder.SetInsertPoint(body);
        }
        symbols.push(op->name, builder.CreateAdd(codegen(op->min), index, op->name, false, true));
        thread_loop_depth++;
        codegen(op->body);
        thread_loop_depth--;
        symbols.pop(op->name);
        if (after) {
            builder.CreateBr(after);
            builder.SetInsertPoint(after);
        }
        if (nest != shape.nests.end() && shape.nests.size() > 1) {
            builder.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
        }
    }

    // A kernel (the loop nest from an outermost block loop in), on the host: compiles it to PTX
    // in a module of its own, and launches it over a grid of the block loops' extents with
    // blocks of the thread loops' (lower/ValidateGPULoops checked the nest's shape). Its
    // parameters are the buffers it uses (their device copies, which lower/InjectDeviceCopies
    // made current) and the scalars its body reads.
    void launch_kernel(const For *op) {
        internal_assert(op->for_type == ForType::GPUBlock)
            << "Thread loop " << op->name << " outside a kernel reached code generation";
        const KernelShape shape = kernel_shape(op);
        FreeNames free;
        op->accept(&free);
        std::vector<KernelParam> params;
        std::vector<llvm::Value *> values;
        llvm::PointerType *ptr = llvm::PointerType::get(ctx, 0);
        for (const std::string &b : free.buffers) {
            internal_assert(symbols.contains(buffer_struct_name(b)))
                << "Kernel " << op->name << " uses buffer " << b << ", which has no loom_buffer_t";
            params.push_back({b, true, ptr});
            values.push_back(emit_device_pointer(builder, symbols.get(buffer_struct_name(b)), b));
        }
        for (const std::string &v : free.vars) {
            internal_assert(symbols.contains(v)) << "Kernel " << op->name << " reads " << v
                                                 << ", which is not defined where it runs";
            llvm::Value *host_value = symbols.get(v);
            params.push_back({v, false, host_value->getType()});
            values.push_back(host_value);
        }
        const std::string name = kernel_symbol(op->name, kernels_emitted++);
        if (!ptx_target) ptx_target = make_ptx_target_machine();
        std::unique_ptr<llvm::Module> kernel_module =
            CodeGen(ctx, *ptx_target, name, 0, verify).compile_kernel(name, op, params);
        const std::string ptx = compile_to_ptx(*kernel_module, *ptx_target);

        // The grid: block loops' extents, innermost first (x). Block loop extents are
        // evaluated here, on the host, so they may use only what is defined outside the kernel.
        std::array<llvm::Value *, 3> grid, block;
        grid.fill(builder.getInt32(1));
        llvm::Value *any_empty = builder.getFalse();
        for (size_t i = 0; i < shape.blocks.size(); i++) {
            const For *b = shape.blocks[shape.blocks.size() - 1 - i];
            FreeNames extent_names;
            b->extent.accept(&extent_names);
            for (const std::string &v : extent_names.vars) {
                user_assert(symbols.contains(v))
                    << "The gpu_blocks loop " << b->name << " has extent " << b->extent
                    << ", which depends on " << v << ", defined inside kernel " << op->name
                    << ". The grid's size must be known before the kernel starts: reorder the "
                       "block loops so that this one does not depend on an outer one.";
            }
            grid[i] = codegen(b->extent);
            any_empty =
                builder.CreateOr(any_empty, builder.CreateICmpSLE(grid[i], builder.getInt32(0)));
        }
        for (int i = 0; i < 3; i++)
            block[i] = builder.getInt32((int32_t)shape.block_extent[i]);
        llvm::BasicBlock *launch = llvm::BasicBlock::Create(ctx, name + ".launch", function);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, name + ".after", function);
        builder.CreateCondBr(any_empty, after, launch);
        builder.SetInsertPoint(launch);
        llvm::Value *result =
            emit_kernel_launch(builder, user_context, name, ptx, grid, block, values);
        return_if_failed(result, name);
        builder.CreateBr(after);
        builder.SetInsertPoint(after);
    }

    // The outputs whose one streamed store site is in this loop and not yet in a loop that
    // owns its joined lines (see JoinedStreamingStores.h): this loop owns them. Their states
    // are emptied before it.
    std::vector<std::string> start_joined_lines_owned_by(const For *op) {
        std::vector<std::string> owned;
        if (!has_avx512f) return owned;
        // The body is walked for it only where some output is left to own.
        std::optional<bool> body_streams;
        for (const std::string &name : output_buffers) {
            if (joined_lines.contains(name) || loaded_buffers.count(name) ||
                !symbols.contains(streams_flag(name)))
                continue;
            if (!body_streams) body_streams = stores_few_without_loops(op->body);
            std::optional<Type> t = joinable_streamed_store(op->body, name, *body_streams,
                                                            has_avx512vbmi, has_avx512bw);
            if (!t) continue;
            llvm::StructType *type = joined_lines_state_type(llvm_type(*t));
            llvm::Value *state = create_entry_alloca(type, name + ".joined");
            start_joined_lines(builder, type, state);
            joined_lines.push(name, {type, state, llvm::Align(t->bytes())});
            owned.push_back(name);
        }
        return owned;
    }

    void serial_loop(const For *op) {
        entry_has_loops = entry_has_loops || function == entry_function;
        llvm::Value *mn = codegen(op->min), *ext = codegen(op->extent);
        llvm::Value *end = builder.CreateAdd(mn, ext, op->name + ".end");
        llvm::BasicBlock *pre = builder.GetInsertBlock();
        llvm::BasicBlock *loop = llvm::BasicBlock::Create(ctx, op->name + ".loop", function);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, op->name + ".after", function);
        builder.CreateCondBr(builder.CreateICmpSLT(mn, end), loop, after);
        builder.SetInsertPoint(loop);
        llvm::PHINode *phi = builder.CreatePHI(mn->getType(), 2, op->name);
        phi->addIncoming(mn, pre);
        symbols.push(op->name, phi);
        const int loops_outside_body = loops_emitted;
        if (!innermost_loop.empty()) outer_loops.push_back(innermost_loop);
        std::string saved_loop = std::exchange(innermost_loop, op->name);
        const bool saved_64 =
            std::exchange(clamped_offsets_in_64_bits,
                          distinct_clamped_bases(op->body, op->name) <= kMaxClampedBases);
        const bool saved_streaming =
            std::exchange(in_streaming_loop, stores_few_without_loops(op->body));
        codegen(op->body);
        innermost_loop = saved_loop;
        if (!innermost_loop.empty()) outer_loops.pop_back();
        clamped_offsets_in_64_bits = saved_64;
        in_streaming_loop = saved_streaming;
        const bool around_loops = loops_emitted != loops_outside_body;
        function_has_innermost_loop = function_has_innermost_loop || !around_loops;
        symbols.pop(op->name);
        llvm::Value *next =
            builder.CreateAdd(phi, llvm::ConstantInt::get(mn->getType(), 1), op->name + ".next",
                              /*HasNUW=*/false, /*HasNSW=*/true);
        phi->addIncoming(next, builder.GetInsertBlock());
        llvm::BranchInst *back =
            builder.CreateCondBr(builder.CreateICmpSLT(next, end), loop, after);
        // Unrolling whole is for constant trip counts only: LLVM would also unroll a loop whose
        // extent has a small upper bound (min(n, 4)), into copies each followed by an exit.
        // Nor around loops, unless the whole nest has constant extents and at most 256
        // iterations (a Func's taps per pixel; LLVM's size thresholds still decide): unrolled
        // whole, it leaves the loop around it innermost and vectorizable (fuzz seed 2026 pair
        // 285, an argmin over 2 x 2 taps: 10x Halide's time with the taps' outer loop kept;
        // pair 498, two sums of 8 taps inside 4 x 4 taps: 13x).
        const int64_t *extent = as_const_int(op->extent);
        // (Counted from the loop itself: the extents inside may depend on its variable.)
        const int64_t nest_iterations = around_loops ? constant_nest_iterations(Stmt(op)) : -1;
        const bool small_nest =
            extent && nest_iterations > 0 && nest_iterations <= kMostUnrolledNestIterations;
        back->setMetadata(llvm::LLVMContext::MD_loop,
                          unrolling_limits((around_loops && !small_nest) || !extent));
        // A loop that runs at most a few times is weighted so, so that code generation does not
        // take it for a hot loop (~32 iterations by default) and favour it over its neighbours
        // in register allocation: the serial tail of a split, say.
        if (const int64_t most = most_iterations(op->extent); most > 0 && !is_const(op->extent)) {
            back->setMetadata(llvm::LLVMContext::MD_prof,
                              llvm::MDBuilder(ctx).createBranchWeights(uint32_t(most - 1), 1));
        }
        builder.SetInsertPoint(after);
    }

    // A constant that the loop extent never exceeds, from its constant or its min with one;
    // 0 if none is known.
    static int64_t most_iterations(const Expr &extent) {
        if (const int64_t *c = as_const_int(extent)) return std::max<int64_t>(*c, 1);
        if (const Min *m = extent.as<Min>()) {
            const int64_t a = most_iterations(m->a), b = most_iterations(m->b);
            return a && b ? std::min(a, b) : std::max(a, b);
        }
        return 0;
    }

    // Loop metadata that leaves unrolling to the schedule: LLVM may unroll an innermost loop
    // of constant trip count whole (a small reduction), but no loop by a factor that needs a
    // remainder loop (runtime unrolling), and no loop around other loops (copies of whole loop
    // nests multiply the code to compile for no gain the schedule didn't ask for).
    // Distinct per loop, as loop IDs must be.
    llvm::MDNode *unrolling_limits(bool outer) {
        const char *what = outer ? "llvm.loop.unroll.disable" : "llvm.loop.unroll.runtime.disable";
        llvm::Metadata *limit = llvm::MDNode::get(ctx, llvm::MDString::get(ctx, what));
        llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, {nullptr, limit});
        id->replaceOperandWith(0, id);
        return id;
    }

    void visit(const Allocate *op) override {
        if (is_nvptx && thread_loop_depth == 0) return shared_allocation(op);
        llvm::Value *count = builder.getInt64(1);
        for (const Expr &e : op->extents) {
            llvm::Value *ext = builder.CreateSExt(codegen(e), builder.getInt64Ty());
            // A negative extent (an empty region) allocates nothing.
            ext = builder.CreateSelect(builder.CreateICmpSLT(ext, builder.getInt64(0)),
                                       builder.getInt64(0), ext);
            count = builder.CreateMul(count, ext);
        }
        llvm::Value *bytes = builder.CreateAdd(
            builder.CreateMul(count, builder.getInt64(std::max(op->type.bytes(), 1))),
            builder.getInt64(2 * kAllocationPaddingBytes));
        llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
        // A small allocation of constant size (a tile of accumulators, a few rows) lives on the
        // stack, in the function's entry block so that a loop around it does not grow the
        // stack: LLVM then knows it aliases nothing and can keep it in registers.
        if (auto *constant = llvm::dyn_cast<llvm::ConstantInt>(bytes)) {
            if (constant->getZExtValue() <= kMaxStackAllocationBytes) {
                llvm::IRBuilder<> entry(&function->getEntryBlock(),
                                        function->getEntryBlock().begin());
                // Of array type, not `alloca i8, n`: SROA splits only the former.
                llvm::AllocaInst *slot = entry.CreateAlloca(
                    llvm::ArrayType::get(builder.getInt8Ty(), constant->getZExtValue()), nullptr,
                    op->name);
                slot->setAlignment(llvm::Align(64));
                stack_allocations.push(op->name, constant->getZExtValue());
                buffers.push(op->name, first_element(slot));
                with_live_allocation(
                    op->name, [&] { with_buffer_struct(op, count, [&] { codegen(op->body); }); });
                buffers.pop(op->name);
                stack_allocations.pop(op->name);
                return;
            }
        }
        user_assert(!is_nvptx)
            << "Buffer " << op->name << " is allocated inside a GPU kernel with "
            << kMaxStackAllocationBytes << " bytes or more; a GPU thread holds at most that "
            << "much. Compute it at a loop outside the kernel (compute_root), or in smaller parts.";
        llvm::FunctionCallee malloc_fn =
            runtime_function("loom_malloc", ptr, {ptr, builder.getInt64Ty()});
        // Fresh memory: no other pointer the pipeline holds points into it.
        if (auto *f = llvm::dyn_cast<llvm::Function>(malloc_fn.getCallee())) {
            f->addRetAttr(llvm::Attribute::NoAlias);
        }
        llvm::Value *mem = builder.CreateCall(malloc_fn, {user_context, bytes}, op->name);
        llvm::Value *is_null = builder.CreateICmpEQ(
            mem, llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0)));
        llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "alloc_failed", function);
        llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "alloc_ok", function);
        builder.CreateCondBr(is_null, fail, ok);
        builder.SetInsertPoint(fail);
        llvm::Value *code =
            builder.CreateCall(runtime_function("loom_error_out_of_memory", builder.getInt32Ty(),
                                                {ptr, ptr, builder.getInt64Ty()}),
                               {user_context, builder.CreateGlobalStringPtr(op->name), bytes});
        return_error(code);
        builder.SetInsertPoint(ok);
        buffers.push(op->name, first_element(mem));
        with_live_allocation(op->name,
                             [&] { with_buffer_struct(op, count, [&] { codegen(op->body); }); });
        buffers.pop(op->name);
    }

    // Runs `body` with the allocation `name` held (see return_error); its Free, at the end of
    // the body, lets go of it.
    template <typename Body> void with_live_allocation(const std::string &name, Body body) {
        const size_t depth = live_allocations.size();
        live_allocations.push_back(name);
        body();
        live_allocations.resize(std::min(live_allocations.size(), depth));
    }

    // Runs `body` with `<name>.buffer` defined, where a kernel uses the allocation: a
    // loom_buffer_t (on the stack) over its host memory as one dimension of `count` elements,
    // with no device copy yet (lower/InjectDeviceCopies makes one where a kernel needs it;
    // visit(Free) releases it).
    template <typename Body>
    void with_buffer_struct(const Allocate *op, llvm::Value *count, Body body) {
        if (!allocations_with_device_copies.count(op->name)) return body();
        llvm::Value *raw =
            emit_buffer_struct(builder, buffers.get(op->name), op->type, count, op->name);
        symbols.push(buffer_struct_name(op->name), raw);
        body();
        symbols.pop(buffer_struct_name(op->name));
    }

    // Storage of a kernel outside its thread loops: shared by the threads of a block (CUDA's
    // shared memory), sized at compile time (lower/ValidateGPULoops checked the extents).
    void shared_allocation(const Allocate *op) {
        int64_t bytes = std::max(op->type.bytes(), 1);
        for (const Expr &e : op->extents)
            bytes *= std::max<int64_t>(*as_const_int(e), 0);
        constexpr unsigned kSharedAddressSpace = 3;
        auto *type = llvm::ArrayType::get(builder.getInt8Ty(), std::max<int64_t>(bytes, 1));
        auto *storage = new llvm::GlobalVariable(
            *module, type, false, llvm::GlobalValue::InternalLinkage, llvm::UndefValue::get(type),
            op->name, nullptr, llvm::GlobalValue::NotThreadLocal, kSharedAddressSpace);
        storage->setAlignment(llvm::Align(16));
        stack_allocations.push(op->name, bytes); // nothing for its Free to release
        buffers.push(op->name,
                     builder.CreateAddrSpaceCast(storage, llvm::PointerType::get(ctx, 0)));
        codegen(op->body);
        buffers.pop(op->name);
        stack_allocations.pop(op->name);
    }

    // An allocation's elements start after its leading padding.
    llvm::Value *first_element(llvm::Value *memory) {
        return builder.CreateInBoundsGEP(builder.getInt8Ty(), memory,
                                         builder.getInt64(kAllocationPaddingBytes));
    }

    void visit(const Free *op) override {
        release_allocation(op->name);
        auto live = std::find(live_allocations.rbegin(), live_allocations.rend(), op->name);
        if (live != live_allocations.rend()) live_allocations.erase(std::next(live).base());
    }

    // What a Free does: the device copy of the allocation, if a kernel made one, and its
    // memory, unless it is on the stack (released when the function returns).
    void release_allocation(const std::string &name) {
        llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
        if (symbols.contains(buffer_struct_name(name)) &&
            allocations_with_device_copies.count(name)) {
            builder.CreateCall(
                runtime_function("loom_cuda_device_free", builder.getInt32Ty(), {ptr, ptr}),
                {user_context, symbols.get(buffer_struct_name(name))});
        }
        if (stack_allocations.contains(name)) return;
        builder.CreateCall(runtime_function("loom_free", builder.getVoidTy(), {ptr, ptr}),
                           {user_context, allocation_start(name)});
    }

    // Returns the error `code` from the function being generated, releasing first what its
    // Frees would have released: every allocation it holds at this point, innermost first.
    // (A task's caller releases its own allocations when the task's error reaches it.)
    void return_error(llvm::Value *code) {
        for (auto it = live_allocations.rbegin(); it != live_allocations.rend(); ++it)
            release_allocation(*it);
        builder.CreateRet(code);
    }

    void visit(const Block *op) override {
        codegen(op->first);
        codegen(op->rest);
    }

    void visit(const IfThenElse *op) override {
        llvm::Value *c = codegen(op->condition);
        llvm::BasicBlock *then_bb = llvm::BasicBlock::Create(ctx, "then", function);
        llvm::BasicBlock *else_bb = llvm::BasicBlock::Create(ctx, "else", function);
        llvm::BasicBlock *after = llvm::BasicBlock::Create(ctx, "after_if", function);
        builder.CreateCondBr(c, then_bb, else_bb);
        builder.SetInsertPoint(then_bb);
        codegen(op->then_case);
        builder.CreateBr(after);
        builder.SetInsertPoint(else_bb);
        codegen(op->else_case);
        builder.CreateBr(after);
        builder.SetInsertPoint(after);
    }

    void visit(const Evaluate *op) override { codegen(op->value); }

    void visit(const Provide *op) override {
        internal_error << "Provide to " << op->name << " reached codegen";
    }
    void visit(const Realize *op) override {
        internal_error << "Realize of " << op->name << " reached codegen";
    }
};

} // namespace

std::unique_ptr<llvm::Module> codegen_llvm(const LoweredPipeline &pipeline,
                                           llvm::LLVMContext &context, llvm::TargetMachine &tm,
                                           unsigned outline_threads, bool verify) {
    return CodeGen(context, tm, pipeline.name, outline_threads, verify).compile(pipeline);
}

} // namespace Internal
} // namespace loom
