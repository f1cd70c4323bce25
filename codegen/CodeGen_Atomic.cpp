// Code generation of the stores of atomic stages (Stage::atomic): each element is read, the
// new value computed from it, and stored with a compare-and-swap that fails where another
// thread changed the element meanwhile (then the loop computes again from the new contents).
// An integer sum, the common histogram, is one atomic add; in a GPU kernel a float sum is one
// too (atom.add.f32 / .f64: each addition rounded once, as the loop's, in the order the
// threads reach the element, which no schedule fixes). The same code serves CPU threads and GPU
// threads: LLVM's NVPTX backend widens 8- and 16-bit atomics into 32-bit compare-and-swaps.
#include "codegen/CodeGen_LLVM_Internal.h"
#include "dsl/Error.h"
#include "dsl/IREquality.h"
#include "dsl/IRMutator.h"
#include "dsl/IROperator.h"
#include "dsl/Substitute.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

namespace {

// `value` with each load of the stored element (buffer `name` at `index`) replaced by the
// variable `current`; `found` says whether there was one.
class ReplaceStoredElement : public IRMutator {
public:
    ReplaceStoredElement(const std::string &name, const Expr &index, const std::string &current)
        : name(name), index(index), current(current) {}
    bool found = false;

private:
    const std::string &name;
    const Expr &index;
    const std::string current;
    using IRMutator::visit;
    Expr visit(const Load *op) override {
        if (op->name != name || !deep_equal(op->index, index)) return IRMutator::visit(op);
        found = true;
        return Variable::make(op->type, current);
    }
};

constexpr const char *kCurrentElement = "atomic.current";

} // namespace

void CodeGen::emit_atomic_store(const Store *op, const Call *update) {
    const Expr &value = update->args[0];
    const Type t = value.type();
    const Type elem = t.element_of();
    internal_assert(elem.bits() == 8 || elem.bits() == 16 || elem.bits() == 32 || elem.bits() == 64)
        << "atomic store of " << t;
    llvm::Type *elem_type = llvm_type(elem);
    llvm::Type *bits_type = builder.getIntNTy(elem.bits());
    const llvm::Align align(elem.bytes());
    llvm::Value *host = buffer_host(op->name);
    ReplaceStoredElement replace(op->name, op->index, kCurrentElement);
    const Expr computed = replace.mutate(value);
    const Add *sum = computed.as<Add>();
    const Variable *first = sum ? sum->a.as<Variable>() : nullptr;
    // current + b, with b not reading the element (f(k) = f(k) + f(k) is no such sum).
    const bool is_sum =
        first && first->name == kCurrentElement && !expr_uses_var(sum->b, kCurrentElement);
    const bool integer_sum = is_sum && elem.is_int_or_uint();
    // The CPU has no float atomic add; a GPU has them for 32 and 64 bits.
    const bool float_sum = is_sum && is_nvptx && elem.is_float() && elem.bits() >= 32;

    // Lane by lane, in lane order: two lanes may update one element.
    llvm::Value *index = codegen(op->index);
    for (int lane = 0; lane < t.lanes(); lane++) {
        llvm::Value *at =
            t.is_vector() ? builder.CreateExtractElement(index, (uint64_t)lane) : index;
        llvm::Value *ptr = builder.CreateInBoundsGEP(elem_type, host, at);
        auto lane_of = [&](llvm::Value *v) {
            return t.is_vector() ? builder.CreateExtractElement(v, (uint64_t)lane) : v;
        };
        if (integer_sum || float_sum) {
            builder.CreateAtomicRMW(
                integer_sum ? llvm::AtomicRMWInst::Add : llvm::AtomicRMWInst::FAdd, ptr,
                lane_of(codegen(sum->b)), llvm::MaybeAlign(align), llvm::AtomicOrdering::Monotonic);
            continue;
        }
        llvm::BasicBlock *before = builder.GetInsertBlock();
        llvm::BasicBlock *retry = llvm::BasicBlock::Create(ctx, "atomic_update", function);
        llvm::BasicBlock *done = llvm::BasicBlock::Create(ctx, "atomic_done", function);
        llvm::LoadInst *initial = builder.CreateAlignedLoad(bits_type, ptr, align);
        initial->setAtomic(llvm::AtomicOrdering::Monotonic);
        builder.CreateBr(retry);
        builder.SetInsertPoint(retry);
        llvm::PHINode *current_bits = builder.CreatePHI(bits_type, 2);
        current_bits->addIncoming(initial, before);
        llvm::Value *current = builder.CreateBitCast(current_bits, elem_type);
        if (t.is_vector()) current = builder.CreateVectorSplat(t.lanes(), current);
        symbols.push(kCurrentElement, current);
        llvm::Value *next = lane_of(codegen(computed));
        symbols.pop(kCurrentElement);
        llvm::Value *next_bits = builder.CreateBitCast(next, bits_type);
        llvm::AtomicCmpXchgInst *swap = builder.CreateAtomicCmpXchg(
            ptr, current_bits, next_bits, llvm::MaybeAlign(align), llvm::AtomicOrdering::Monotonic,
            llvm::AtomicOrdering::Monotonic);
        llvm::Value *seen = builder.CreateExtractValue(swap, 0);
        llvm::Value *stored = builder.CreateExtractValue(swap, 1);
        current_bits->addIncoming(seen, builder.GetInsertBlock());
        builder.CreateCondBr(stored, done, retry);
        builder.SetInsertPoint(done);
    }
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
