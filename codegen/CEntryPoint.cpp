#include "codegen/CEntryPoint.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "dsl/Buffer.h"
#include "dsl/Error.h"
#include "runtime/loom_runtime.h"

namespace loom {
namespace Internal {

namespace {

// The C entry point takes scalars as the C types the header declares; bool travels as a byte.
llvm::Type *scalar_type(llvm::LLVMContext &ctx, Type t) {
    if (t.is_float())
        return t.bits() == 32 ? llvm::Type::getFloatTy(ctx) : llvm::Type::getDoubleTy(ctx);
    return llvm::Type::getIntNTy(ctx, t.is_bool() ? 8 : t.bits());
}

class EntryBuilder {
public:
    EntryBuilder(llvm::Module &m, const std::string &fn_name)
        : m(m), ctx(m.getContext()), builder(ctx), fn_name(fn_name) {}

    void build(const std::vector<LoweredArgument> &args,
               const std::vector<EntryVariant> &variants) {
        llvm::Type *ptr = builder.getPtrTy();
        std::vector<llvm::Type *> params;
        for (const LoweredArgument &a : args) {
            if (is_embedded(a)) continue;
            params.push_back(a.kind == Argument::InputScalar ? scalar_type(ctx, a.type) : ptr);
        }
        auto *type = llvm::FunctionType::get(builder.getInt32Ty(), params, false);
        fn = llvm::Function::Create(type, llvm::Function::ExternalLinkage, fn_name, &m);
        fn->addFnAttr(llvm::Attribute::NoUnwind);
        builder.SetInsertPoint(llvm::BasicBlock::Create(ctx, "entry", fn));

        // The C parameter of each argument (none for an embedded Buffer).
        std::vector<llvm::Value *> c_params;
        for (size_t i = 0, p = 0; i < args.size(); i++)
            c_params.push_back(is_embedded(args[i]) ? nullptr : fn->getArg((unsigned)p++));
        for (size_t i = 0; i < args.size(); i++) {
            if (args[i].kind != Argument::InputScalar && c_params[i])
                check_buffer(args[i], c_params[i]);
        }

        // args[i] points at the buffer, or at a stack slot holding the scalar.
        llvm::Value *argv =
            builder.CreateAlloca(ptr, builder.getInt32(std::max<size_t>(args.size(), 1)), "argv");
        for (size_t i = 0; i < args.size(); i++) {
            if (!c_params[i]) {
                builder.CreateStore(embedded_buffer(args[i]),
                                    builder.CreateConstGEP1_64(ptr, argv, i));
                continue;
            }
            llvm::Value *value = c_params[i];
            value->setName(args[i].name);
            if (args[i].kind == Argument::InputScalar) {
                llvm::Value *slot =
                    builder.CreateAlloca(value->getType(), nullptr, args[i].name + ".slot");
                builder.CreateStore(value, slot);
                value = slot;
            }
            builder.CreateStore(value, builder.CreateConstGEP1_64(ptr, argv, i));
        }

        llvm::FunctionType *argv_type =
            llvm::FunctionType::get(builder.getInt32Ty(), {ptr, ptr}, false);
        llvm::Value *null_context = llvm::ConstantPointerNull::get(builder.getPtrTy());
        std::string targets;
        for (const EntryVariant &v : variants) {
            llvm::FunctionCallee callee = m.getOrInsertFunction(v.argv_name, argv_type);
            targets += (targets.empty() ? "" : ", ") + v.argv_name;
            if (v.cpu_features == 0) { // runs on any x86-64: no test, nothing after it runs
                builder.CreateRet(builder.CreateCall(callee, {null_context, argv}));
                return finish();
            }
            llvm::FunctionCallee has = m.getOrInsertFunction(
                "loom_cpu_has_features", builder.getInt32Ty(), builder.getInt32Ty());
            llvm::Value *ok = builder.CreateICmpNE(
                builder.CreateCall(has, {builder.getInt32(v.cpu_features)}), builder.getInt32(0));
            auto *run = llvm::BasicBlock::Create(ctx, v.argv_name, fn);
            auto *next = llvm::BasicBlock::Create(ctx, "next", fn);
            builder.CreateCondBr(ok, run, next);
            builder.SetInsertPoint(run);
            builder.CreateRet(builder.CreateCall(callee, {null_context, argv}));
            builder.SetInsertPoint(next);
        }
        llvm::FunctionCallee error =
            m.getOrInsertFunction("loom_error", builder.getInt32Ty(), ptr, ptr);
        std::string message = fn_name +
                              ": this CPU lacks the features of every variant the "
                              "library was compiled for (" +
                              targets +
                              "). Add a target this "
                              "CPU supports, such as x86-64-linux, to the library's targets.";
        builder.CreateRet(
            builder.CreateCall(error, {null_context, builder.CreateGlobalStringPtr(message)}));
        finish();
    }

private:
    llvm::Module &m;
    llvm::LLVMContext &ctx;
    llvm::IRBuilder<> builder;
    std::string fn_name;
    llvm::Function *fn = nullptr;

    void finish() {
        std::string errors;
        llvm::raw_string_ostream es(errors);
        internal_assert(!llvm::verifyFunction(*fn, &es))
            << "LLVM rejected the C entry point of " << fn_name << ": " << es.str();
    }

    /** Branches to an error return unless `ok`; continues in a new block. */
    void require(llvm::Value *ok, const std::string &arg_name, const std::string &problem,
                 llvm::Value *got, int expected) {
        auto *fail = llvm::BasicBlock::Create(ctx, arg_name + ".bad", fn);
        auto *pass = llvm::BasicBlock::Create(ctx, arg_name + ".ok", fn);
        builder.CreateCondBr(ok, pass, fail);
        builder.SetInsertPoint(fail);
        llvm::Type *ptr = builder.getPtrTy(), *i32 = builder.getInt32Ty();
        llvm::FunctionCallee report =
            m.getOrInsertFunction("loom_error_bad_buffer", i32, ptr, ptr, ptr, ptr, i32, i32);
        builder.CreateRet(builder.CreateCall(
            report,
            {llvm::ConstantPointerNull::get(builder.getPtrTy()),
             builder.CreateGlobalStringPtr(fn_name), builder.CreateGlobalStringPtr(arg_name),
             builder.CreateGlobalStringPtr(problem), got ? got : builder.getInt32(0),
             builder.getInt32(expected)}));
        builder.SetInsertPoint(pass);
    }

    /** The loom_buffer_t of a Buffer the pipeline reads directly, with its elements, as
     * globals of the library (Halide embeds such buffers too): its bytes as they were when the
     * library was compiled, read-only; the descriptor writable, for the device fields a GPU
     * pipeline sets on it. */
    llvm::Value *embedded_buffer(const LoweredArgument &a) {
        const BufferContents &b = *a.buffer;
        const int bytes = std::max(a.type.bytes(), 1);
        // The span of memory the elements occupy, from the lowest to the highest address.
        int64_t lo = 0, hi = 0;
        bool empty = false;
        for (const loom_dimension_t &d : b.dims) {
            empty = empty || d.extent <= 0;
            const int64_t reach = (int64_t)(d.extent - 1) * d.stride;
            (reach < 0 ? lo : hi) += reach;
        }
        std::vector<uint8_t> data;
        if (!empty && b.raw.host) {
            data.assign(b.raw.host + lo * bytes, b.raw.host + (hi + 1) * bytes);
        }
        llvm::Type *i8 = builder.getInt8Ty(), *i32 = builder.getInt32Ty(),
                   *ptr = builder.getPtrTy();
        const std::string base = fn_name + "." + a.name;
        auto *data_global = new llvm::GlobalVariable(
            m, llvm::ArrayType::get(i8, data.size()), true, llvm::GlobalValue::PrivateLinkage,
            llvm::ConstantDataArray::get(ctx, data), base + ".data");
        data_global->setAlignment(llvm::Align(64));
        llvm::Constant *host =
            llvm::ConstantExpr::getGetElementPtr(i8, data_global, builder.getInt64(-lo * bytes));
        llvm::StructType *dim_type = llvm::StructType::get(ctx, {i32, i32, i32, i32});
        std::vector<llvm::Constant *> dims;
        for (const loom_dimension_t &d : b.dims) {
            dims.push_back(llvm::ConstantStruct::get(
                dim_type, {builder.getInt32(d.min), builder.getInt32(d.extent),
                           builder.getInt32(d.stride), builder.getInt32(0)}));
        }
        auto *dims_type = llvm::ArrayType::get(dim_type, dims.size());
        auto *dims_global =
            new llvm::GlobalVariable(m, dims_type, true, llvm::GlobalValue::PrivateLinkage,
                                     llvm::ConstantArray::get(dims_type, dims), base + ".dim");
        // loom_buffer_t, field by field (runtime/loom_runtime.h).
        llvm::StructType *type_type = llvm::StructType::get(ctx, {i8, i8, builder.getInt16Ty()});
        llvm::StructType *buffer_type =
            llvm::StructType::get(ctx, {ptr, type_type, i32, ptr, builder.getInt64Ty(), i32, i32});
        const loom_type_t t = b.raw.type;
        llvm::Constant *init = llvm::ConstantStruct::get(
            buffer_type,
            {host,
             llvm::ConstantStruct::get(type_type, {builder.getInt8(t.code), builder.getInt8(t.bits),
                                                   builder.getInt16(t.lanes)}),
             builder.getInt32((int32_t)b.dims.size()), dims_global, builder.getInt64(0),
             builder.getInt32(0), builder.getInt32(0)});
        internal_assert(m.getDataLayout().getTypeAllocSize(buffer_type) == sizeof(loom_buffer_t))
            << "The embedded loom_buffer_t of " << a.name << " does not match the runtime's layout";
        return new llvm::GlobalVariable(m, buffer_type, false, llvm::GlobalValue::PrivateLinkage,
                                        init, base + ".buffer");
    }

    void check_buffer(const LoweredArgument &a, llvm::Value *buffer) {
        llvm::Type *ptr = builder.getPtrTy();
        const std::string kind = a.kind == Argument::OutputBuffer ? "output" : "input";
        require(builder.CreateIsNotNull(buffer), a.name,
                "is NULL: pass a loom_buffer_t for the " + kind, nullptr, -1);
        auto field = [&](size_t offset, llvm::Type *type) {
            return builder.CreateLoad(
                type, builder.CreateConstGEP1_64(builder.getInt8Ty(), buffer, offset));
        };
        require(builder.CreateIsNotNull(field(offsetof(loom_buffer_t, host), ptr)), a.name,
                "has a NULL host pointer: point it at the " + kind + "'s memory", nullptr, -1);
        // Compiled code reads whole elements: a host pointer inside one (at an odd address
        // for 16-bit elements, say) is refused, not read misaligned.
        if (a.type.bytes() > 1) {
            llvm::Value *host = builder.CreatePtrToInt(field(offsetof(loom_buffer_t, host), ptr),
                                                       builder.getInt64Ty());
            llvm::Value *misalignment = builder.CreateTrunc(
                builder.CreateAnd(host, builder.getInt64(a.type.bytes() - 1)), builder.getInt32Ty());
            require(builder.CreateICmpEQ(misalignment, builder.getInt32(0)), a.name,
                    "has a host pointer that is not a multiple of its element size, " +
                        std::to_string(a.type.bytes()) +
                        " bytes: allocate the memory aligned to its elements (byte offset into "
                        "an element shown)",
                    misalignment, 0);
        }
        const size_t type_at = offsetof(loom_buffer_t, type);
        llvm::Value *code =
            builder.CreateZExt(field(type_at + offsetof(loom_type_t, code), builder.getInt8Ty()),
                               builder.getInt32Ty());
        llvm::Value *bits =
            builder.CreateZExt(field(type_at + offsetof(loom_type_t, bits), builder.getInt8Ty()),
                               builder.getInt32Ty());
        const int want_code = (int)a.type.code, want_bits = a.type.bits();
        require(builder.CreateICmpEQ(code, builder.getInt32(want_code)), a.name,
                "has the wrong element type code (0 int, 1 uint, 2 float)", code, want_code);
        require(builder.CreateICmpEQ(bits, builder.getInt32(want_bits)), a.name,
                "has elements of the wrong width in bits", bits, want_bits);
        llvm::Value *dims = field(offsetof(loom_buffer_t, dimensions), builder.getInt32Ty());
        require(builder.CreateICmpEQ(dims, builder.getInt32(a.dimensions)), a.name,
                "has the wrong number of dimensions", dims, a.dimensions);
        if (a.dimensions > 0) {
            require(builder.CreateIsNotNull(field(offsetof(loom_buffer_t, dim), ptr)), a.name,
                    "has a NULL dim array: point it at one loom_dimension_t per dimension", nullptr,
                    -1);
        }
    }
};

} // namespace

uint32_t cpu_feature_mask(const Target &t) {
    if (t.is_host_default()) return cpu_feature_mask(get_host_target());
    uint32_t mask = 0;
    if (t.has_feature(Target::SSE41)) mask |= loom_cpu_sse41;
    if (t.has_feature(Target::AVX)) mask |= loom_cpu_avx;
    if (t.has_feature(Target::AVX2)) mask |= loom_cpu_avx2;
    if (t.has_feature(Target::FMA)) mask |= loom_cpu_fma;
    if (t.has_feature(Target::F16C)) mask |= loom_cpu_f16c;
    if (t.has_feature(Target::AVX512)) mask |= loom_cpu_avx512;
    if (t.has_feature(Target::AVX512_Skylake)) mask |= loom_cpu_avx512_skylake;
    return mask;
}

void add_c_entry_point(llvm::Module &m, const std::vector<LoweredArgument> &args,
                       const std::string &fn_name, const std::vector<EntryVariant> &variants) {
    internal_assert(!variants.empty()) << "A C entry point needs at least one variant";
    EntryBuilder(m, fn_name).build(args, variants);
}

} // namespace Internal
} // namespace loom
