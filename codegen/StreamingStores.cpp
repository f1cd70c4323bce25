#include "codegen/StreamingStores.h"

#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/Module.h>

#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

std::set<std::string> buffers_loaded(const Stmt &s) {
    class Loads : public IRVisitor {
    public:
        std::set<std::string> names;

    private:
        void visit(const Load *op) override {
            names.insert(op->name);
            IRVisitor::visit(op);
        }
        // A buffer an extern stage is given may be read by it.
        void visit(const Call *op) override {
            if (op->is_intrinsic(Call::make_buffer))
                names.insert(op->args[0].as<StringImm>()->value);
            IRVisitor::visit(op);
        }
    } loads;
    if (s.defined()) s.accept(&loads);
    return loads.names;
}

bool stores_few_without_loops(const Stmt &loop_body) {
    class Count : public IRVisitor {
    public:
        int stores = 0, loops = 0;

    private:
        void visit(const Store *op) override {
            stores++;
            IRVisitor::visit(op);
        }
        void visit(const For *op) override {
            loops++;
            IRVisitor::visit(op);
        }
    } count;
    if (loop_body.defined()) loop_body.accept(&count);
    return count.stores >= 1 && count.stores <= kMaxStreamedStoresPerLoop && count.loops == 0;
}

llvm::Value *spans_enough_to_stream(llvm::IRBuilderBase &b,
                                    const std::vector<llvm::Value *> &extents,
                                    const std::vector<llvm::Value *> &strides, int elem_bytes,
                                    int64_t min_bytes) {
    // In 64 bits: the element offset of the last element is the sum over dimensions of
    // (extent - 1) * |stride|.
    llvm::Type *i64 = b.getInt64Ty();
    llvm::Value *last = b.getInt64(0);
    for (size_t d = 0; d < extents.size(); d++) {
        llvm::Value *steps = b.CreateSub(b.CreateSExt(extents[d], i64), b.getInt64(1));
        llvm::Value *stride = b.CreateBinaryIntrinsic(llvm::Intrinsic::abs, b.CreateSExt(strides[d], i64),
                                                      b.getFalse());
        last = b.CreateAdd(last, b.CreateMul(steps, stride));
    }
    llvm::Value *span = b.CreateMul(b.CreateAdd(last, b.getInt64(1)), b.getInt64(elem_bytes));
    return b.CreateICmpSGE(span, b.getInt64(min_bytes));
}

StreamedStore store_streaming_where_aligned(llvm::IRBuilderBase &b, llvm::Value *v,
                                            llvm::Value *addr, llvm::Align plain_align,
                                            llvm::Value *allowed, const std::string &name) {
    llvm::LLVMContext &ctx = b.getContext();
    llvm::Function *function = b.GetInsertBlock()->getParent();
    // One test for both conditions: where streaming is not allowed the low bit is set, as if
    // the address were misaligned.
    llvm::Value *low_bits = b.CreateAnd(b.CreatePtrToInt(addr, b.getInt64Ty()), b.getInt64(63));
    low_bits = b.CreateOr(low_bits, b.CreateZExt(b.CreateNot(allowed), b.getInt64Ty()));
    llvm::BasicBlock *stream = llvm::BasicBlock::Create(ctx, name + ".stream", function);
    llvm::BasicBlock *plain = llvm::BasicBlock::Create(ctx, name + ".plain", function);
    llvm::BasicBlock *stored = llvm::BasicBlock::Create(ctx, name + ".stored", function);
    b.CreateCondBr(b.CreateICmpEQ(low_bits, b.getInt64(0)), stream, plain);
    StreamedStore result;
    b.SetInsertPoint(stream);
    result.streaming = b.CreateAlignedStore(v, addr, llvm::Align(64));
    result.streaming->setMetadata(
        llvm::LLVMContext::MD_nontemporal,
        llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(b.getInt32(1))}));
    b.CreateBr(stored);
    b.SetInsertPoint(plain);
    result.plain = b.CreateAlignedStore(v, addr, plain_align);
    b.CreateBr(stored);
    b.SetInsertPoint(stored);
    return result;
}

void fence_streaming_stores(llvm::IRBuilderBase &b) {
    llvm::Module *m = b.GetInsertBlock()->getModule();
    b.CreateCall(llvm::Intrinsic::getDeclaration(m, llvm::Intrinsic::x86_sse_sfence));
}

} // namespace Internal
} // namespace loom
