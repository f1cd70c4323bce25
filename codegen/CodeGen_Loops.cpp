// CodeGen's loops (the class: CodeGen_LLVM_Internal.h): serial loops and the metadata that
// limits their unrolling, parallel loops as tasks for the runtime's thread pool, loops outlined
// into functions of their own (with private copies of the stack allocations they update), the
// joined streaming stores a loop owns, and FreeNames, what a task is passed.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/MDBuilder.h>
#include <llvm/IR/Metadata.h>

#include "codegen/CodeGen_LLVM_Internal.h"
#include "codegen/ConstantLoopNest.h"
#include "codegen/HoistStackReads.h"
#include "codegen/JoinedStreamingStores.h"
#include "codegen/LoopOutlining.h"
#include "codegen/ShiftedOffsets.h"
#include "codegen/StreamingStores.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "lower/AsyncProducers.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

void FreeNames::use_var(const std::string &n) {
    if (!bound_vars.contains(n) && seen_vars.insert(n).second) vars.push_back(n);
}
void FreeNames::use_buffer(const std::string &n) {
    if (!bound_buffers.contains(n) && seen_buffers.insert(n).second) buffers.push_back(n);
}
void FreeNames::visit(const Variable *op) {
    // Every task has the user context as its own argument.
    if (op->name != kUserContextName) use_var(op->name);
}
void FreeNames::visit(const Load *op) {
    use_buffer(op->name);
    IRVisitor::visit(op);
}
void FreeNames::visit(const Store *op) {
    use_buffer(op->name);
    IRVisitor::visit(op);
}
void FreeNames::visit(const Free *op) { use_buffer(op->name); }
void FreeNames::visit(const Call *op) {
    // The memory an extern stage's buffer describes.
    if (op->is_intrinsic(Call::make_buffer)) {
        const std::string &buffer = op->args[0].as<StringImm>()->value;
        if (!buffer.empty()) use_buffer(buffer);
    }
    // A semaphore's memory.
    if (op->is_intrinsic(Call::semaphore_init) || op->is_intrinsic(Call::semaphore_release) ||
        op->is_intrinsic(Call::semaphore_acquire))
        use_buffer(op->args[0].as<StringImm>()->value);
    IRVisitor::visit(op);
}
void FreeNames::visit(const Let *op) {
    op->value.accept(this);
    ScopedBinding<int> b(bound_vars, op->name, 0);
    op->body.accept(this);
}
void FreeNames::visit(const LetStmt *op) {
    op->value.accept(this);
    ScopedBinding<int> b(bound_vars, op->name, 0);
    op->body.accept(this);
}
void FreeNames::visit(const For *op) {
    op->min.accept(this);
    op->extent.accept(this);
    ScopedBinding<int> b(bound_vars, op->name, 0);
    op->body.accept(this);
}
void FreeNames::visit(const Allocate *op) {
    for (const Expr &e : op->extents)
        e.accept(this);
    ScopedBinding<int> b(bound_buffers, op->name, 0);
    op->body.accept(this);
}

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
CodeGen::Task CodeGen::emit_task(const Stmt &body, const FreeNames &free, const std::string &index,
                                 const std::string &task_name, Passing passing,
                                 std::set<const For *> outline_in_task,
                                 const std::vector<std::string> &private_copies) {
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
    std::set<std::string> saved_constant_loops = std::exchange(constant_extent_loops, {});
    const bool saved_streaming_loop = std::exchange(in_streaming_loop, false);
    const bool saved_has_innermost = std::exchange(function_has_innermost_loop, false);
    const int loops_before = loops_emitted;
    codegen(body);
    if (!function_has_innermost_loop && loops_emitted > loops_before) marks_as_glue(*task);
    function_has_innermost_loop = saved_has_innermost;
    innermost_loop = saved_loop;
    outer_loops = std::move(saved_outer_loops);
    constant_extent_loops = std::move(saved_constant_loops);
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
void CodeGen::marks_as_glue(llvm::Function &f) {
    f.addFnAttr(llvm::Attribute::OptimizeNone);
    f.addFnAttr(llvm::Attribute::NoInline);
}

// A parallel loop: the body becomes a task function over the loop index; the runtime's
// thread pool runs it.
void CodeGen::parallel_for(const For *op) {
    llvm::Value *mn = codegen(op->min), *ext = codegen(op->extent);
    FreeNames free;
    op->body.accept(&free);
    Task task = emit_task(op->body, free, op->name, op->name + ".task", Passing::Closure,
                          outline_threads > 0 ? loops_to_outline(op->body, outline_threads)
                                              : std::set<const For *>());
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    if (auto fork = as_fork_loop(op)) {
        // The semaphores the fork's own code reaches (those of forks inside it are allocated
        // there), which the runtime marks failed where a task stops with an error.
        std::vector<llvm::Value *> semaphores;
        for (const std::string &name : fork->semaphores) {
            if (std::find(free.buffers.begin(), free.buffers.end(), name) != free.buffers.end())
                semaphores.push_back(buffer_host(name));
        }
        llvm::ArrayType *list_type =
            llvm::ArrayType::get(ptr, std::max<size_t>(semaphores.size(), 1));
        llvm::Value *list = create_entry_alloca(list_type, op->name + ".semaphores");
        for (size_t i = 0; i < semaphores.size(); i++)
            builder.CreateStore(
                semaphores[i], builder.CreateConstInBoundsGEP2_32(list_type, list, 0, (unsigned)i));
        llvm::Value *result =
            builder.CreateCall(runtime_function("loom_do_fork", builder.getInt32Ty(),
                                                {ptr, ptr, ptr, ptr, builder.getInt32Ty()}),
                               {user_context, task.function, task.closure, list,
                                builder.getInt32((int)semaphores.size())});
        return_if_failed(result, "fork");
        return;
    }
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
bool CodeGen::outline(const For *op) {
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
        builder.CreateCondBr(builder.CreateICmpSGT(codegen(op->extent), builder.getInt32(0)), runs,
                             after);
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
    llvm::Value *result = builder.CreateCall(task.function->getFunctionType(), task.function, args);
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

// Makes the copy and binds `name` to it. Only the elements are copied, not the padding:
// nothing reads what it holds (see kAllocationPaddingBytes), and each 64 bytes copied are a
// value for LLVM to move.
CodeGen::StackCopy CodeGen::private_copy(const std::string &name) {
    llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
    llvm::AllocaInst *memory =
        entry.CreateAlloca(llvm::ArrayType::get(builder.getInt8Ty(), *stack_allocations.find(name)),
                           nullptr, name + ".copy");
    memory->setAlignment(llvm::Align(64));
    StackCopy c{name, buffer_host(name), first_element(memory)};
    copy_elements(c.copy, c.original, name);
    buffers.push(name, c.copy);
    return c;
}

void CodeGen::copy_back(const StackCopy &c) { copy_elements(c.original, c.copy, c.name); }

// Field by field, so that SROA splits the copy's slot into registers.
void CodeGen::copy_joined_state(llvm::StructType *type, llvm::Value *to, llvm::Value *from) {
    for (unsigned field = 0; field < type->getNumElements(); field++) {
        llvm::Type *t = type->getElementType(field);
        builder.CreateStore(builder.CreateLoad(t, builder.CreateStructGEP(type, from, field)),
                            builder.CreateStructGEP(type, to, field));
    }
}

void CodeGen::copy_elements(llvm::Value *to, llvm::Value *from, const std::string &name) {
    builder.CreateMemCpy(to, llvm::Align(64), from, llvm::Align(64), element_bytes(name));
}

// Allocas go in the entry block so that loops do not grow the stack.
llvm::Value *CodeGen::create_entry_alloca(llvm::Type *t, const std::string &name) {
    llvm::IRBuilder<> entry(&function->getEntryBlock(), function->getEntryBlock().begin());
    return entry.CreateAlloca(t, nullptr, name);
}

void CodeGen::visit(const For *op) {
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

// The outputs whose one streamed store site is in this loop and not yet in a loop that
// owns its joined lines (see JoinedStreamingStores.h): this loop owns them. Their states
// are emptied before it.
std::vector<std::string> CodeGen::start_joined_lines_owned_by(const For *op) {
    std::vector<std::string> owned;
    if (!has_avx512f) return owned;
    // The body is walked for it only where some output is left to own.
    std::optional<bool> body_streams;
    for (const std::string &name : output_buffers) {
        if (joined_lines.contains(name) || loaded_buffers.count(name) ||
            !symbols.contains(streams_flag(name)))
            continue;
        if (!body_streams) body_streams = stores_few_without_loops(op->body);
        std::optional<Type> t =
            joinable_streamed_store(op->body, name, *body_streams, has_avx512vbmi, has_avx512bw);
        if (!t) continue;
        llvm::StructType *type = joined_lines_state_type(llvm_type(*t));
        llvm::Value *state = create_entry_alloca(type, name + ".joined");
        start_joined_lines(builder, type, state);
        joined_lines.push(name, {type, state, llvm::Align(t->bytes())});
        owned.push_back(name);
    }
    return owned;
}

namespace {

// Whether e reads no memory and no variable outside `names`.
bool reads_only(const Expr &e, const std::set<std::string> &names) {
    FreeNames free;
    e.accept(&free);
    return free.buffers.empty() &&
           std::all_of(free.vars.begin(), free.vars.end(),
                       [&](const std::string &v) { return names.count(v); });
}

} // namespace

void CodeGen::serial_loop(const For *op) {
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
    const bool constant_extent = is_const(op->extent);
    if (constant_extent) constant_extent_loops.insert(op->name);
    std::string saved_loop = std::exchange(innermost_loop, op->name);
    const bool saved_64 = std::exchange(
        clamped_offsets_in_64_bits, distinct_clamped_bases(op->body, op->name) <= kMaxClampedBases);
    const bool saved_streaming =
        std::exchange(in_streaming_loop, stores_few_without_loops(op->body));
    codegen(op->body);
    innermost_loop = saved_loop;
    if (!innermost_loop.empty()) outer_loops.pop_back();
    if (constant_extent) constant_extent_loops.erase(op->name);
    clamped_offsets_in_64_bits = saved_64;
    in_streaming_loop = saved_streaming;
    const bool around_loops = loops_emitted != loops_outside_body;
    function_has_innermost_loop = function_has_innermost_loop || !around_loops;
    symbols.pop(op->name);
    llvm::Value *next =
        builder.CreateAdd(phi, llvm::ConstantInt::get(mn->getType(), 1), op->name + ".next",
                          /*HasNUW=*/false, /*HasNSW=*/true);
    phi->addIncoming(next, builder.GetInsertBlock());
    llvm::BranchInst *back = builder.CreateCondBr(builder.CreateICmpSLT(next, end), loop, after);
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
    // An innermost loop whose extent reads only the variables of loops around it of
    // constant extent (an RDom trimmed to a triangle by its where(): r.x < r.y + 1) has a
    // constant trip count in each copy once LLVM unrolls those whole, and may be unrolled
    // whole too (fuzz seed 2026 pair 66: 10 taps of an argmax per pixel, left as loops of 2,
    // 3 and 4 iterations).
    const bool extent_fixed_by_loops_around =
        !extent && !around_loops && reads_only(op->extent, constant_extent_loops);
    back->setMetadata(llvm::LLVMContext::MD_loop,
                      unrolling_limits((around_loops && !small_nest) ||
                                       (!extent && !extent_fixed_by_loops_around)));
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
int64_t CodeGen::most_iterations(const Expr &extent) {
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
llvm::MDNode *CodeGen::unrolling_limits(bool outer) {
    const char *what = outer ? "llvm.loop.unroll.disable" : "llvm.loop.unroll.runtime.disable";
    llvm::Metadata *limit = llvm::MDNode::get(ctx, llvm::MDString::get(ctx, what));
    llvm::MDNode *id = llvm::MDNode::getDistinct(ctx, {nullptr, limit});
    id->replaceOperandWith(0, id);
    return id;
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
