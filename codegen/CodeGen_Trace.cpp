// Code generation of the effects Halide's debugging vocabulary lowers to (lower/InjectTracing.h,
// dsl/IROperator.h's print): trace events handed to the runtime's loom_trace, lines printed by
// loom_print, and strings built on the stack by the runtime's loom_append_* functions.
#include "codegen/CodeGen_LLVM_Internal.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

namespace {

// A control argument of a trace call: an integer constant, which vectorization may have
// broadcast.
int64_t control_int(const Expr &e) {
    if (const Broadcast *b = e.as<Broadcast>()) return control_int(b->value);
    const int64_t *v = as_const_int(e);
    internal_assert(v) << "trace control argument is not a constant: " << e;
    return *v;
}

// Lane `lane` of v (v itself where it is a scalar or lane is -1).
llvm::Value *lane_of(llvm::IRBuilder<> &builder, llvm::Value *v, int lane) {
    if (lane < 0 || !v->getType()->isVectorTy()) return v;
    return builder.CreateExtractElement(v, (uint64_t)lane);
}

} // namespace

// The text of `pieces` (lane `lane` of each vector piece) in a stack buffer of the function
// being generated: strings as they are, integers in decimal, floats as Halide prints them.
llvm::Value *CodeGen::string_of(const std::vector<Expr> &pieces, int lane) {
    size_t size = 1; // the terminating zero
    for (const Expr &p : pieces) {
        Type t = p.type();
        if (const StringImm *s = p.as<StringImm>())
            size += s->value.size();
        else if (t.is_handle())
            size += 256;
        else if (t.is_float())
            size += t.bits() == 32 ? 48 : 16;
        else
            size += 21;
    }
    size = std::min<size_t>((size + 15) / 16 * 16, 8192);
    llvm::Type *i8 = builder.getInt8Ty(), *i64 = builder.getInt64Ty();
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::Value *buffer = create_entry_alloca(llvm::ArrayType::get(i8, size), "message");
    llvm::Value *end = builder.CreateConstGEP1_32(i8, buffer, (unsigned)size);
    builder.CreateStore(builder.getInt8(0), buffer);
    llvm::Value *dst = buffer;
    for (const Expr &p : pieces) {
        Type t = p.type();
        if (t.is_handle()) {
            dst = builder.CreateCall(runtime_function("loom_append_string", ptr, {ptr, ptr, ptr}),
                                     {dst, end, codegen(p)});
            continue;
        }
        llvm::Value *v = lane_of(builder, codegen(p), lane);
        if (t.is_bool()) {
            llvm::Value *text = builder.CreateSelect(v, builder.CreateGlobalStringPtr("true"),
                                                     builder.CreateGlobalStringPtr("false"));
            dst = builder.CreateCall(runtime_function("loom_append_string", ptr, {ptr, ptr, ptr}),
                                     {dst, end, text});
        } else if (t.is_float()) {
            llvm::Type *f64 = builder.getDoubleTy();
            // Doubles in scientific notation, floats fixed: Halide's rule.
            dst = builder.CreateCall(
                runtime_function("loom_append_double", ptr, {ptr, ptr, f64, builder.getInt32Ty()}),
                {dst, end, builder.CreateFPExt(v, f64), builder.getInt32(t.bits() == 64)});
        } else if (t.is_int()) {
            dst = builder.CreateCall(runtime_function("loom_append_int64", ptr, {ptr, ptr, i64}),
                                     {dst, end, builder.CreateSExt(v, i64)});
        } else {
            dst = builder.CreateCall(runtime_function("loom_append_uint64", ptr, {ptr, ptr, i64}),
                                     {dst, end, builder.CreateZExt(v, i64)});
        }
    }
    return buffer;
}

void CodeGen::stringify(const Call *op) {
    user_assert(!is_nvptx) << "A GPU kernel builds a string (a trace tag): compute the Func "
                              "whose trace tag it is on the CPU.";
    internal_assert(op->type.is_scalar()) << "stringify of vectors";
    value = string_of(op->args, -1);
}

void CodeGen::print(const Call *op) {
    user_assert(!is_nvptx)
        << "A GPU kernel calls print() or print_when(): Loom's CUDA backend cannot print from a "
           "kernel. Compute the Func that prints on the CPU (schedule it without gpu_blocks), "
           "or print from a Func computed on the CPU that reads the GPU one.";
    const Expr &condition = op->args[0];
    const std::vector<Expr> pieces(op->args.begin() + 2, op->args.end());
    llvm::Value *cond = is_const_one(condition) ? nullptr : codegen(condition);
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::FunctionCallee print_fn = runtime_function("loom_print", builder.getVoidTy(), {ptr, ptr});
    // One line per lane, in lane order, as a scalarized loop would print them.
    const int lanes = op->type.lanes();
    for (int lane = 0; lane < lanes; lane++) {
        const int which = lanes > 1 ? lane : -1;
        llvm::BasicBlock *after = nullptr;
        if (cond) {
            llvm::BasicBlock *then = llvm::BasicBlock::Create(ctx, "print", function);
            after = llvm::BasicBlock::Create(ctx, "after_print", function);
            builder.CreateCondBr(lane_of(builder, cond, which), then, after);
            builder.SetInsertPoint(then);
        }
        builder.CreateCall(print_fn, {user_context, string_of(pieces, which)});
        if (cond) {
            builder.CreateBr(after);
            builder.SetInsertPoint(after);
        }
    }
    value = codegen(op->args[1]);
}

void CodeGen::require(const Call *op) {
    user_assert(!is_nvptx)
        << "A GPU kernel calls require(): Loom's CUDA backend cannot stop a pipeline from a "
           "kernel. Check the requirement in a Func computed on the CPU.";
    const Expr &condition = op->args[0];
    const std::vector<Expr> pieces(op->args.begin() + 2, op->args.end());
    llvm::Value *cond = codegen(condition);
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::FunctionCallee fail_fn =
        runtime_function("loom_error_requirement_failed", builder.getInt32Ty(), {ptr, ptr});
    // Lane by lane, in lane order: the message names the first point that fails, as a
    // scalarized loop would.
    const int lanes = op->type.lanes();
    for (int lane = 0; lane < lanes; lane++) {
        const int which = lanes > 1 ? lane : -1;
        llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "requirement_failed", function);
        llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "requirement_ok", function);
        builder.CreateCondBr(lane_of(builder, cond, which), ok, fail);
        builder.SetInsertPoint(fail);
        return_error(builder.CreateCall(fail_fn, {user_context, string_of(pieces, which)}));
        builder.SetInsertPoint(ok);
    }
    value = codegen(op->args[1]);
}

void CodeGen::trace(const Call *op) {
    user_assert(!is_nvptx)
        << "A GPU kernel traces the loads or stores of Func " << op->args[0].as<StringImm>()->value
        << ": Loom's CUDA backend cannot report trace events from a kernel. Trace a Func "
           "computed on the CPU, or drop trace_loads / trace_stores for this one.";
    const int event = (int)control_int(op->args[1]);
    const int value_index = (int)control_int(op->args[3]);
    const bool has_value = event == 0 || event == 1; // loads and stores
    const Expr &value_expr = op->args[5];
    const int lanes = has_value ? value_expr.type().lanes() : 1;
    const int dims = (int)op->args.size() - 6;

    llvm::Type *i8 = builder.getInt8Ty(), *i16 = builder.getInt16Ty(), *i32 = builder.getInt32Ty();
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    // loom_trace_event_t (runtime/loom_runtime.h).
    llvm::StructType *event_type =
        llvm::StructType::get(ctx, {ptr, ptr, ptr, ptr, i8, i8, i16, i32, i32, i32, i32});
    llvm::Value *ev = create_entry_alloca(event_type, "trace_event");
    auto field = [&](unsigned i, llvm::Value *v) {
        builder.CreateStore(v, builder.CreateStructGEP(event_type, ev, i));
    };
    llvm::Value *null = llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0));

    llvm::Value *traced = codegen(value_expr);
    Type t = value_expr.type();
    if (has_value) {
        // Bools travel as bytes, as the runtime reads 1-bit values.
        llvm::Value *stored = traced;
        if (t.bits() == 1) stored = builder.CreateZExt(traced, llvm_type(UInt(8, lanes)));
        llvm::Value *slot = create_entry_alloca(stored->getType(), "trace_value");
        builder.CreateStore(stored, slot);
        field(1, slot);
    } else {
        field(1, null);
    }

    if (dims > 0) {
        llvm::Value *coords =
            create_entry_alloca(llvm::ArrayType::get(i32, (uint64_t)dims * lanes), "trace_coords");
        for (int d = 0; d < dims; d++) {
            llvm::Value *c = codegen(op->args[6 + d]);
            if (lanes > 1 && !c->getType()->isVectorTy()) c = builder.CreateVectorSplat(lanes, c);
            // A realization or production event inside a vectorized loop (a Func computed at
            // a vector lane's loop) reports the region once, as the first lane sees it: the
            // array holds one coordinate per dimension.
            if (!has_value && c->getType()->isVectorTy()) c = lane_of(builder, c, 0);
            // The array is only 4-byte aligned: a vector's natural alignment would be wrong.
            builder.CreateAlignedStore(
                c, builder.CreateConstGEP1_32(i32, coords, (unsigned)(d * lanes)), llvm::Align(4));
        }
        field(2, coords);
    } else {
        field(2, null);
    }

    field(0, codegen(op->args[0]));
    const Expr &tag = op->args[4];
    const StringImm *tag_text = tag.as<StringImm>();
    field(3, tag_text && tag_text->value.empty() ? null : codegen(tag));
    Type reported = has_value ? t : Int(32);
    field(4, builder.getInt8((uint8_t)reported.code));
    field(5, builder.getInt8((uint8_t)reported.bits()));
    field(6, builder.getInt16((uint16_t)lanes));
    field(7, builder.getInt32(event));
    field(8, lane_of(builder, codegen(op->args[2]), 0));
    field(9, builder.getInt32(value_index));
    field(10, builder.getInt32(dims * lanes));
    llvm::Value *id =
        builder.CreateCall(runtime_function("loom_trace", i32, {ptr, ptr}), {user_context, ev});
    value = has_value ? traced : id;
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
