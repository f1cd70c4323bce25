// Code generation of extern stages (Func::define_extern, lower/ExternStages.h): the buffers
// handed to the C function, built on the stack, its bounds query and its call.
#include "codegen/CodeGen_LLVM_Internal.h"
#include "dsl/Error.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

namespace {

// loom_buffer_t (runtime/loom_runtime.h): host, type {code, bits, lanes}, dimensions, dim,
// device, flags, reserved; and loom_dimension_t: min, extent, stride, flags.
llvm::StructType *buffer_struct(llvm::LLVMContext &ctx) {
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::Type *i8 = llvm::Type::getInt8Ty(ctx), *i16 = llvm::Type::getInt16Ty(ctx);
    llvm::Type *i32 = llvm::Type::getInt32Ty(ctx), *i64 = llvm::Type::getInt64Ty(ctx);
    return llvm::StructType::get(ctx, {ptr, i8, i8, i16, i32, ptr, i64, i32, i32});
}

llvm::StructType *dimension_struct(llvm::LLVMContext &ctx) {
    llvm::Type *i32 = llvm::Type::getInt32Ty(ctx);
    return llvm::StructType::get(ctx, {i32, i32, i32, i32});
}

const std::string &name_of(const Expr &e) {
    const StringImm *s = e.as<StringImm>();
    internal_assert(s) << "expected a name, got " << e;
    return s->value;
}

} // namespace

void CodeGen::make_buffer(const Call *op) {
    const std::string &host_buffer = name_of(op->args[0]);
    const Type elem = op->args[1].type();
    const int dims = (int)(op->args.size() - 4) / 3;
    llvm::StructType *buffer_type = buffer_struct(ctx);
    llvm::StructType *dim_type = dimension_struct(ctx);
    llvm::Value *buffer = create_entry_alloca(buffer_type, "extern_buffer");
    llvm::Value *shape = create_entry_alloca(llvm::ArrayType::get(dim_type, std::max(dims, 1)),
                                             "extern_buffer_shape");
    llvm::Value *host = llvm::ConstantPointerNull::get(llvm::PointerType::get(ctx, 0));
    if (!host_buffer.empty()) {
        host = builder.CreateInBoundsGEP(llvm_type(elem), buffer_host(host_buffer),
                                         codegen(op->args[2]));
    }
    auto field = [&](unsigned i, llvm::Value *v) {
        builder.CreateStore(v, builder.CreateStructGEP(buffer_type, buffer, i));
    };
    field(0, host);
    field(1, builder.getInt8(elem.is_float() ? 2 : elem.is_uint() || elem.is_bool() ? 1 : 0));
    field(2, builder.getInt8(elem.bits()));
    field(3, builder.getInt16(1));
    field(4, builder.getInt32(dims));
    field(5, shape);
    field(6, builder.getInt64(0));
    field(7, builder.getInt32(0));
    field(8, builder.getInt32(0));
    for (int d = 0; d < dims; d++) {
        llvm::Value *dim = builder.CreateConstInBoundsGEP2_32(
            llvm::ArrayType::get(dim_type, std::max(dims, 1)), shape, 0, d);
        for (unsigned i = 0; i < 3; i++) {
            builder.CreateStore(codegen(op->args[4 + 3 * d + i]),
                                builder.CreateStructGEP(dim_type, dim, i));
        }
        builder.CreateStore(builder.getInt32(0), builder.CreateStructGEP(dim_type, dim, 3));
    }
    value = buffer;
}

// Calls the C function `callee` of an extern stage with `args` (scalars and make_buffer
// handles, generated into `generated`); a nonzero result returns from the pipeline with the
// error `reporter` makes of it (which names the function).
llvm::Value *CodeGen::call_extern_function(const std::string &callee, const std::vector<Expr> &args,
                                           const char *reporter,
                                           std::vector<llvm::Value *> &generated) {
    user_assert(!is_nvptx) << "The extern stage " << callee
                           << " is called inside a GPU kernel: extern stages run on the host. "
                              "Compute the Funcs around it on the CPU.";
    std::vector<llvm::Type *> params;
    for (const Expr &a : args) {
        generated.push_back(codegen(a));
        params.push_back(generated.back()->getType());
    }
    llvm::Value *result =
        builder.CreateCall(runtime_function(callee, builder.getInt32Ty(), params), generated);
    llvm::BasicBlock *fail = llvm::BasicBlock::Create(ctx, "extern_failed", function);
    llvm::BasicBlock *ok = llvm::BasicBlock::Create(ctx, "extern_ok", function);
    builder.CreateCondBr(builder.CreateICmpEQ(result, builder.getInt32(0)), ok, fail);
    builder.SetInsertPoint(fail);
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0);
    llvm::FunctionCallee report =
        runtime_function(reporter, builder.getInt32Ty(), {ptr, ptr, builder.getInt32Ty()});
    return_error(
        builder.CreateCall(report, {user_context, builder.CreateGlobalString(callee), result}));
    builder.SetInsertPoint(ok);
    return result;
}

void CodeGen::extern_stage(const Call *op) {
    const std::vector<Expr> args(op->args.begin() + 1, op->args.end());
    std::vector<llvm::Value *> generated;
    value = call_extern_function(name_of(op->args[0]), args, "loom_error_extern_stage_failed",
                                 generated);
}

// The function is called in bounds-query mode, and the min or max it wrote into the buffer at
// `position` is read back (each query makes its own buffers: nothing is shared between them).
void CodeGen::extern_bounds_query(const Call *op) {
    const int64_t *position = as_const_int(op->args[1]);
    const int64_t *dim = as_const_int(op->args[2]);
    const int64_t *is_max = as_const_int(op->args[3]);
    internal_assert(position && dim && is_max) << "extern_bounds_query controls: " << Expr(op);
    const std::vector<Expr> args(op->args.begin() + 4, op->args.end());
    internal_assert(*position < (int64_t)args.size()) << "extern_bounds_query position";
    std::vector<llvm::Value *> generated;
    call_extern_function(name_of(op->args[0]), args, "loom_error_extern_bounds_query_failed",
                         generated);
    llvm::Value *queried = generated[*position];
    llvm::StructType *buffer_type = buffer_struct(ctx);
    llvm::StructType *dim_type = dimension_struct(ctx);
    llvm::Value *shape = builder.CreateLoad(llvm::PointerType::get(ctx, 0),
                                            builder.CreateStructGEP(buffer_type, queried, 5));
    llvm::Value *entry = builder.CreateConstInBoundsGEP1_32(dim_type, shape, (unsigned)*dim);
    llvm::Value *mn =
        builder.CreateLoad(builder.getInt32Ty(), builder.CreateStructGEP(dim_type, entry, 0));
    if (!*is_max) {
        value = mn;
        return;
    }
    llvm::Value *extent =
        builder.CreateLoad(builder.getInt32Ty(), builder.CreateStructGEP(dim_type, entry, 1));
    value = builder.CreateSub(builder.CreateAdd(mn, extent), builder.getInt32(1));
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
