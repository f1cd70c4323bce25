#include "codegen/JoinedStreamingStores.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/raw_ostream.h>

#include "codegen/StreamingStores.h"
#include "dsl/IROperator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

namespace {

// The stores to one buffer in a loop body, and where the last one found sits.
class StoresTo : public IRVisitor {
public:
    explicit StoresTo(const std::string &buffer) : buffer(buffer) {}
    int count = 0;
    const Store *store = nullptr;
    const For *innermost = nullptr; // the loop directly around `store`, if any in the body
    bool under_parallel = false;

private:
    const std::string &buffer;
    const For *current = nullptr;
    int parallel_depth = 0;

    void visit(const For *op) override {
        op->min.accept(this);
        op->extent.accept(this);
        const For *saved = std::exchange(current, op);
        const bool parallel = op->for_type != ForType::Serial;
        parallel_depth += parallel;
        op->body.accept(this);
        parallel_depth -= parallel;
        current = saved;
    }
    void visit(const Store *op) override {
        if (op->name == buffer) {
            count++;
            store = op;
            innermost = current;
            under_parallel = parallel_depth > 0;
        }
        IRVisitor::visit(op);
    }
};

llvm::Intrinsic::ID pair_permute(unsigned lane_bits) {
    switch (lane_bits) {
    case 8:
        return llvm::Intrinsic::x86_avx512_vpermi2var_qi_512;
    case 16:
        return llvm::Intrinsic::x86_avx512_vpermi2var_hi_512;
    case 32:
        return llvm::Intrinsic::x86_avx512_vpermi2var_d_512;
    default:
        return llvm::Intrinsic::x86_avx512_vpermi2var_q_512;
    }
}

// The lanes of two vectors of the same type chosen by `index` (lanes of the vectors' width,
// as integers): index i < lanes picks first[i], lanes + i picks second[i].
llvm::Value *permute_pair(llvm::IRBuilderBase &b, llvm::Value *first, llvm::Value *index,
                          llvm::Value *second) {
    llvm::Type *type = first->getType();
    llvm::Type *as_ints = index->getType();
    llvm::Value *picked = b.CreateIntrinsic(
        pair_permute(type->getScalarSizeInBits()), {},
        {b.CreateBitCast(first, as_ints), index, b.CreateBitCast(second, as_ints)});
    return b.CreateBitCast(picked, type);
}

// Everything the store's blocks compute from the same few values.
struct JoinedStore {
    llvm::IRBuilderBase &b;
    llvm::FixedVectorType *vector_type, *index_type;
    unsigned lanes;
    int lane_shift; // log2 of the lane's bytes
    llvm::Align plain_align;
    std::vector<llvm::Instruction *> stores;

    JoinedStore(llvm::IRBuilderBase &b, llvm::Type *vector, llvm::Align plain_align)
        : b(b), vector_type(llvm::cast<llvm::FixedVectorType>(vector)),
          index_type(llvm::FixedVectorType::get(b.getIntNTy(vector->getScalarSizeInBits()),
                                                vector_type->getNumElements())),
          lanes(vector_type->getNumElements()),
          lane_shift(llvm::Log2_32(vector->getScalarSizeInBits() / 8)), plain_align(plain_align) {}

    llvm::Value *iota() {
        std::vector<llvm::Constant *> lane_numbers;
        for (unsigned i = 0; i < lanes; i++)
            lane_numbers.push_back(llvm::ConstantInt::get(index_type->getElementType(), i));
        return llvm::ConstantVector::get(lane_numbers);
    }
    // A byte count within a line (0 .. 63) as a lane count, broadcast.
    llvm::Value *lanes_of(llvm::Value *bytes) {
        llvm::Value *n = b.CreateLShr(bytes, (uint64_t)lane_shift);
        return b.CreateVectorSplat(lanes, b.CreateTrunc(n, index_type->getElementType()));
    }
    // The lanes of the last vector that wait in the line it left open: its last k, for
    // `waiting_bytes` (the address past it within its line) of them.
    llvm::Value *waiting_lanes(llvm::Value *waiting_bytes) {
        return b.CreateICmpUGE(iota(), b.CreateSub(splat(lanes), lanes_of(waiting_bytes)));
    }
    llvm::Value *splat(unsigned n) {
        return llvm::ConstantVector::getSplat(
            llvm::ElementCount::getFixed(lanes),
            llvm::ConstantInt::get(index_type->getElementType(), n));
    }
    llvm::Value *at_offset(llvm::Value *base, llvm::Value *bytes) {
        return b.CreateGEP(b.getInt8Ty(), base, bytes);
    }
    void stream(llvm::Value *v, llvm::Value *line) {
        llvm::StoreInst *st = b.CreateAlignedStore(v, line, llvm::Align(64));
        st->setMetadata(
            llvm::LLVMContext::MD_nontemporal,
            llvm::MDNode::get(b.getContext(), {llvm::ConstantAsMetadata::get(b.getInt32(1))}));
        stores.push_back(st);
    }
    void store_lanes(llvm::Value *v, llvm::Value *addr, llvm::Value *mask) {
        stores.push_back(b.CreateMaskedStore(v, addr, plain_align, mask));
    }
};

} // namespace

std::optional<Type> joinable_streamed_store(const Stmt &loop_body, const std::string &buffer,
                                            bool body_streams, bool byte_lanes, bool word_lanes) {
    StoresTo found(buffer);
    loop_body.accept(&found);
    if (found.count != 1 || found.under_parallel) return std::nullopt;
    const Store *st = found.store;
    Type t = st->value.type();
    const Ramp *ramp = st->index.as<Ramp>();
    if (!ramp || !is_const_one(ramp->stride) || t.bits() * t.lanes() != 512) return std::nullopt;
    if (t.bits() == 8 ? !byte_lanes : t.bits() == 16 ? !word_lanes : t.bits() < 32)
        return std::nullopt;
    const bool streams =
        found.innermost ? stores_few_without_loops(found.innermost->body) : body_streams;
    if (!streams) return std::nullopt;
    return t;
}

llvm::StructType *joined_lines_state_type(llvm::Type *vector_type) {
    return llvm::StructType::get(vector_type->getContext(),
                                 {vector_type, llvm::Type::getInt64Ty(vector_type->getContext())});
}

void start_joined_lines(llvm::IRBuilderBase &b, llvm::StructType *state_type, llvm::Value *state) {
    // An end address on a line boundary: no lane waits, and no store's line is that one's
    // (address 0 is never a buffer's).
    b.CreateStore(b.getInt64(0), b.CreateStructGEP(state_type, state, 1));
}

namespace {

// A helper runs once or twice a row: compiled the fast way (optnone, with the pipeline's other
// straight-line functions) it cost blur nothing measurable at run time (2.53 ms either way, one
// process) and 0.1-0.3 ms less compile time than in a partition of optimized loops.
void mark_rarely_run(llvm::Function &f) {
    f.addFnAttr(llvm::Attribute::NoUnwind);
    f.addFnAttr(llvm::Attribute::NoInline);
    f.addFnAttr(llvm::Attribute::OptimizeNone);
}

// A helper function's name: `what`, the vector type and the alignment, as an identifier.
std::string helper_name(const std::string &what, llvm::Type *vector_type, llvm::Align align) {
    std::string name;
    llvm::raw_string_ostream text(name);
    text << what;
    vector_type->print(text);
    text << ".align" << align.value();
    for (char &c : name) {
        if (c == ' ' || c == '<' || c == '>') c = '_';
    }
    return name;
}

// The last vector's lanes that wait in the line it left open, stored plain (masked to them):
// after an owner's loop, and by apart_stores before a store that does not continue the last.
// A function per vector type and alignment (inline, each owner's masked store and its mask cost
// a small pipeline's compile ~10%). Arguments: the last vector and the address past it.
llvm::Function *flush_waiting(llvm::Module &module, llvm::FixedVectorType *vector_type,
                              llvm::Align plain_align) {
    const std::string name = helper_name("loom.joined_store_flush.", vector_type, plain_align);
    if (llvm::Function *existing = module.getFunction(name)) return existing;
    llvm::LLVMContext &ctx = module.getContext();
    llvm::Type *i64 = llvm::Type::getInt64Ty(ctx);
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), {vector_type, i64}, false);
    llvm::Function *f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module);
    mark_rarely_run(*f);
    llvm::Value *last = f->getArg(0), *last_end = f->getArg(1);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", f));
    JoinedStore js(b, vector_type, plain_align);
    llvm::Value *waiting_bytes = b.CreateAnd(last_end, b.getInt64(63));
    llvm::BasicBlock *flush = llvm::BasicBlock::Create(ctx, "flush", f);
    llvm::BasicBlock *done = llvm::BasicBlock::Create(ctx, "done", f);
    b.CreateCondBr(b.CreateICmpNE(waiting_bytes, b.getInt64(0)), flush, done);
    b.SetInsertPoint(flush);
    llvm::Value *last_addr = b.CreateIntToPtr(b.CreateSub(last_end, b.getInt64(64)), b.getPtrTy());
    js.store_lanes(last, last_addr, js.waiting_lanes(waiting_bytes));
    b.CreateBr(done);
    b.SetInsertPoint(done);
    b.CreateRetVoid();
    return f;
}

// The stores of a store that does not continue the last (see the header), in a function of
// its own per vector type and alignment, shared by every store site of the module: it runs once
// or twice a row, and its permutes and masked stores inline cost each store site's loop ~25%
// more compile time (blur's). Arguments: the vector, its address, the last vector and the
// address past it. The caller records the new state.
llvm::Function *apart_stores(llvm::Module &module, llvm::FixedVectorType *vector_type,
                             llvm::Align plain_align) {
    llvm::LLVMContext &ctx = module.getContext();
    const std::string name = helper_name("loom.joined_store_apart.", vector_type, plain_align);
    if (llvm::Function *existing = module.getFunction(name)) return existing;
    llvm::Type *ptr = llvm::PointerType::get(ctx, 0), *i64 = llvm::Type::getInt64Ty(ctx);
    auto *type = llvm::FunctionType::get(llvm::Type::getVoidTy(ctx),
                                         {vector_type, ptr, vector_type, i64}, false);
    llvm::Function *f = llvm::Function::Create(type, llvm::Function::InternalLinkage, name, module);
    mark_rarely_run(*f);
    llvm::Value *v = f->getArg(0), *addr = f->getArg(1), *last = f->getArg(2),
                *last_end = f->getArg(3);
    auto block = [&](const char *what) { return llvm::BasicBlock::Create(ctx, what, f); };
    llvm::IRBuilder<> b(block("entry"));
    JoinedStore js(b, vector_type, plain_align);
    llvm::Value *at = b.CreatePtrToInt(addr, i64);
    llvm::Value *into_line = b.CreateAnd(at, b.getInt64(63));
    llvm::Value *line_at = b.CreateSub(at, into_line);
    llvm::Value *line = js.at_offset(addr, b.CreateNeg(into_line));
    llvm::BasicBlock *overlaps = block("overlaps"), *apart = block("apart"),
                     *head_partial = block("head_partial"), *head_whole = block("head_whole"),
                     *done = block("done");

    // Starting inside the line the last store left open, before its end: lanes j < m are the
    // last vector's at j + lanes - k (k of its lanes are in this line), the others this one's.
    llvm::Value *waiting_bytes = b.CreateAnd(last_end, b.getInt64(63));
    llvm::Value *last_line = b.CreateSub(last_end, waiting_bytes);
    llvm::Value *overlapping =
        b.CreateAnd(b.CreateICmpEQ(last_line, line_at), b.CreateICmpUGT(last_end, at));
    b.CreateCondBr(overlapping, overlaps, apart);

    b.SetInsertPoint(overlaps);
    {
        llvm::Value *m = js.lanes_of(into_line), *k = js.lanes_of(waiting_bytes);
        llvm::Value *from_last = b.CreateICmpULT(js.iota(), m);
        llvm::Value *back = b.CreateSelect(from_last, k, m);
        llvm::Value *index = b.CreateSub(b.CreateAdd(js.iota(), js.splat(js.lanes)), back);
        js.stream(permute_pair(b, last, index, v), line);
        b.CreateBr(done);
    }

    // Apart from the last store: its waiting lanes (flush_waiting), then this store's lanes
    // before its first line boundary, the plain way; a store that starts a line streams whole.
    b.SetInsertPoint(apart);
    b.CreateCall(flush_waiting(module, vector_type, plain_align), {last, last_end});
    b.CreateCondBr(b.CreateICmpEQ(into_line, b.getInt64(0)), head_whole, head_partial);
    b.SetInsertPoint(head_whole);
    js.stream(v, addr);
    b.CreateBr(done);
    b.SetInsertPoint(head_partial);
    {
        llvm::Value *mask =
            b.CreateICmpULT(js.iota(), b.CreateSub(js.splat(js.lanes), js.lanes_of(into_line)));
        js.store_lanes(v, addr, mask);
        b.CreateBr(done);
    }
    b.SetInsertPoint(done);
    b.CreateRetVoid();
    return f;
}

} // namespace

std::vector<llvm::Instruction *>
store_streaming_joined(llvm::IRBuilderBase &b, llvm::Value *v, llvm::Value *addr,
                       llvm::Align plain_align, llvm::Value *allowed, llvm::StructType *state_type,
                       llvm::Value *state, const std::string &name) {
    llvm::LLVMContext &ctx = b.getContext();
    llvm::Function *function = b.GetInsertBlock()->getParent();
    auto block = [&](const char *what) {
        return llvm::BasicBlock::Create(ctx, name + "." + what, function);
    };
    JoinedStore js(b, v->getType(), plain_align);
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Value *at = b.CreatePtrToInt(addr, i64);
    llvm::Value *into_line = b.CreateAnd(at, b.getInt64(63));
    llvm::Value *joins = allowed;
    if (js.lane_shift > 0) {
        llvm::Value *lane_misaligned = b.CreateAnd(at, b.getInt64((1 << js.lane_shift) - 1));
        joins = b.CreateAnd(joins, b.CreateICmpEQ(lane_misaligned, b.getInt64(0)));
    }
    llvm::BasicBlock *joined = block("join"), *plain = block("plain"), *follows = block("follows"),
                     *apart = block("apart"), *record = block("record"), *done = block("stored");
    b.CreateCondBr(joins, joined, plain);

    b.SetInsertPoint(plain);
    js.stores.push_back(b.CreateAlignedStore(v, addr, plain_align));
    b.CreateBr(done);

    b.SetInsertPoint(joined);
    llvm::Value *last_slot = b.CreateStructGEP(state_type, state, 0);
    llvm::Value *end_slot = b.CreateStructGEP(state_type, state, 1);
    llvm::Value *last = b.CreateLoad(js.vector_type, last_slot, name + ".last");
    llvm::Value *last_end = b.CreateLoad(i64, end_slot, name + ".last_end");
    b.CreateCondBr(b.CreateICmpEQ(at, last_end), follows, apart);

    // Continuing the last store: the line's first m lanes are the last vector's last m.
    b.SetInsertPoint(follows);
    {
        llvm::Value *m = js.lanes_of(into_line);
        llvm::Value *index = b.CreateAdd(js.iota(), b.CreateSub(js.splat(js.lanes), m));
        js.stream(permute_pair(b, last, index, v), js.at_offset(addr, b.CreateNeg(into_line)));
        b.CreateBr(record);
    }

    b.SetInsertPoint(apart);
    llvm::Function *apart_function =
        apart_stores(*function->getParent(), js.vector_type, plain_align);
    js.stores.push_back(b.CreateCall(apart_function, {v, addr, last, last_end}));
    b.CreateBr(record);

    b.SetInsertPoint(record);
    b.CreateStore(v, last_slot);
    b.CreateStore(b.CreateAdd(at, b.getInt64(64)), end_slot);
    b.CreateBr(done);

    b.SetInsertPoint(done);
    return js.stores;
}

llvm::Instruction *flush_joined_lines(llvm::IRBuilderBase &b, llvm::StructType *state_type,
                                      llvm::Value *state, llvm::Align plain_align,
                                      const std::string &name) {
    auto *vector_type = llvm::cast<llvm::FixedVectorType>(state_type->getElementType(0));
    llvm::Value *last =
        b.CreateLoad(vector_type, b.CreateStructGEP(state_type, state, 0), name + ".last");
    llvm::Value *last_end =
        b.CreateLoad(b.getInt64Ty(), b.CreateStructGEP(state_type, state, 1), name + ".last_end");
    llvm::Module &module = *b.GetInsertBlock()->getModule();
    return b.CreateCall(flush_waiting(module, vector_type, plain_align), {last, last_end});
}

} // namespace Internal
} // namespace loom
