// CodeGen's loads and stores (the class: CodeGen_LLVM_Internal.h): the alias tags on every
// access, element offsets in 64 bits, dense and broadcast loads, gathers, interleaved and
// shuffled loads of strided lanes and the spans their taps share, loads and stores at a
// boundary condition's clamped edges, and streaming stores.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <llvm/Analysis/VectorUtils.h>
#include <llvm/IR/BasicBlock.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/DerivedTypes.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsX86.h>
#include <llvm/IR/MDBuilder.h>

#include "codegen/ByteTableLookup.h"
#include "codegen/ClampedRamp.h"
#include "codegen/CodeGen_LLVM_Internal.h"
#include "codegen/IndexTerms.h"
#include "codegen/JoinedStreamingStores.h"
#include "codegen/LaneClasses.h"
#include "codegen/LaneOffsets.h"
#include "codegen/ShiftedOffsets.h"
#include "codegen/StreamingStores.h"
#include "dsl/Error.h"
#include "dsl/IREquality.h"
#include "dsl/IROperator.h"

namespace loom {
namespace Internal {
namespace codegen_detail {

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
llvm::MDNode *CodeGen::tbaa_tag(const std::string &buffer) {
    std::string key = (is_allocation(buffer) ? "loom.alloc." : "loom.external.") + buffer;
    llvm::MDNode *&tag = tbaa_tags[key];
    if (!tag) {
        llvm::MDBuilder md(ctx);
        llvm::MDNode *type = md.createTBAAScalarTypeNode(key, md.createTBAARoot("loom"));
        tag = md.createTBAAStructTagNode(type, type, 0);
    }
    return tag;
}

llvm::Value *CodeGen::buffer_host(const std::string &name) {
    const auto *b = buffers.find(name);
    internal_assert(b) << "Buffer " << name << " is not bound in codegen";
    return *b;
}

// A vector load is, in order of preference: one element for every lane (a broadcast
// index); one dense load (lanes at consecutive elements); dense loads covering the lanes' span
// plus a shuffle (small constant strides, reversals, ramp / k); a gather (32- and 64-bit
// elements); one load per lane.
void CodeGen::visit(const Load *op) {
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
        value = tagged(builder.CreateAlignedLoad(llvm_type(t), addr, access_alignment(op, t)),
                       op->name);
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
llvm::Value *CodeGen::load_unclamped_where_inside(const Load *op, const ClampedRamp &clamped) {
    llvm::BasicBlock *after_bb = llvm::BasicBlock::Create(ctx, "after_load", function);
    llvm::PHINode *phi = llvm::PHINode::Create(llvm_type(op->type), 3, "", after_bb);
    auto finish_case = [&](llvm::Value *loaded) {
        phi->addIncoming(loaded, builder.GetInsertBlock());
        builder.CreateBr(after_bb);
    };
    // Tests `condition`; where it holds, loads `index` and goes to after_bb; continues in
    // the block where it fails. Edges are a few vectors of a row: only the inside is
    // marked likely.
    auto load_if = [&](const Expr &condition, const Expr &index, const char *name, bool likely) {
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
void CodeGen::store_unclamped_where_inside(const Store *op, const UnclampedStore &unclamped) {
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
llvm::Value *CodeGen::sign_extended(const Expr &e) {
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
    return builder.CreateAdd(builder.CreateSExt(codegen(sum.rest), i64), clamps, "", false, true);
}

// A scalar element offset for a GEP, in 64 bits: the sign-extended sum of the index's
// terms that neither are constants nor the innermost loop's variable, plus that variable,
// plus the constants (codegen/IndexTerms.h). LLVM then sees the taps of a stencil as one
// base and displacements, and an address that advances by a fixed step per iteration (a
// pointer increment); it can't split a 32-bit sum, which may wrap. Exact for every access
// in bounds of a buffer of fewer than 2^31 - |constant| elements, where the loop variable
// alone fits in 32 bits: the rest then fits too. Where the loop variable is not a plain
// term (min(x * 16, n - 16) of a shifted tail), the constants are still separated.
llvm::Value *CodeGen::codegen_offset(const Expr &e) {
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
llvm::Value *CodeGen::gather(const Load *op) {
    llvm::Value *host = buffer_host(op->name);
    Type t = op->type;
    llvm::Type *elem = llvm_type(t.element_of());
    llvm::Align align(t.element_of().bytes() ? t.element_of().bytes() : 1);
    // Below 16 lanes a hardware gather costs about what loading the lanes one by one
    // does on AMD's cores, and it cannot take a lane from a store just before it (the
    // stores of a loop's previous iteration): lane by lane, those loads forward (fuzz seed
    // 2026 pairs 51 and 321, a column of 5 and of 8 floats per vector: 1.8x -> 1.1x and
    // 1.7x -> 1.05x Halide's time, which loads lane by lane on x86).
    const bool hardware_gather = t.lanes() >= 16;
    if (t.bits() >= 32 && hardware_gather) {
        llvm::Value *addrs = builder.CreateInBoundsGEP(elem, host, codegen(op->index));
        return tagged(builder.CreateMaskedGather(llvm_type(t), addrs, align), op->name);
    }
    if (t.bits() == 8 && has_avx512vbmi && stack_allocations.contains(op->name) &&
        element_bytes(op->name) <= kMaxByteTableBytes) {
        // A lookup table (a tone curve): byte permutes over the whole table beat a gather.
        return emit_byte_table_lookup(builder, host, element_bytes(op->name), codegen(op->index),
                                      [&](llvm::LoadInst *l) { return tagged(l, op->name); });
    }
    if (is_allocation(op->name) && hardware_gather) {
        // x86 gathers 32-bit words only: gather the word that starts at each element (an
        // allocation has kAllocationPaddingBytes to spare past its last one) and keep its
        // low bits, which on a little-endian machine are the element.
        llvm::Value *addrs = builder.CreateInBoundsGEP(elem, host, codegen(op->index));
        llvm::Type *words = llvm::FixedVectorType::get(builder.getInt32Ty(), t.lanes());
        llvm::Value *gathered =
            tagged(builder.CreateMaskedGather(words, addrs, llvm::Align(1)), op->name);
        return builder.CreateTrunc(gathered, llvm_type(t));
    }
    llvm::Value *result = llvm::UndefValue::get(llvm_type(t));
    const std::vector<llvm::Value *> addrs = lane_addresses(elem, host, op->index);
    for (int i = 0; i < t.lanes(); i++) {
        llvm::Value *lane = tagged(builder.CreateAlignedLoad(elem, addrs[i], align), op->name);
        result = builder.CreateInsertElement(result, lane, (uint64_t)i);
    }
    return result;
}

// The address of each lane of a vector index, for loads and stores lane by lane. A ramp
// (a strided access whose stride is known only at run time, or too large for dense loads
// and a shuffle) is taken apart as scalars, base + i * stride in 64 bits, which LLVM makes
// a chain of address additions; computing the index as a vector first left one extract per
// lane and a vector multiply (fuzz seed 2026 pair 190: 32 extracts per 16 elements). Exact
// for every lane in bounds, the assumption of codegen_offset.
std::vector<llvm::Value *> CodeGen::lane_addresses(llvm::Type *elem, llvm::Value *host,
                                                   const Expr &index) {
    const int lanes = index.type().lanes();
    std::vector<llvm::Value *> addrs;
    const Ramp *ramp = index.as<Ramp>();
    if (ramp && ramp->base.type().is_scalar()) {
        llvm::Value *base = builder.CreateInBoundsGEP(elem, host, codegen_offset(ramp->base));
        llvm::Value *stride = builder.CreateSExt(codegen(ramp->stride), builder.getInt64Ty());
        addrs.push_back(base);
        for (int i = 1; i < lanes; i++) {
            llvm::Value *step =
                builder.CreateMul(stride, builder.getInt64(i), "", false, /*HasNSW=*/true);
            addrs.push_back(builder.CreateInBoundsGEP(elem, base, step));
        }
        return addrs;
    }
    llvm::Value *vector = codegen(index);
    for (int i = 0; i < lanes; i++) {
        llvm::Value *idx = builder.CreateExtractElement(vector, (uint64_t)i);
        addrs.push_back(builder.CreateInBoundsGEP(elem, host, idx));
    }
    return addrs;
}

// A ramp divided by a constant k: the lanes of each residue of the ramp's offsets mod k lie
// at constant offsets from their own base, floor((b + s) / k). Each class is loaded as a
// vector (dense, or dense pieces and a shuffle) and one shuffle interleaves them: no
// run-time residue, and the classes of f(x / 2) and f((x + 1) / 2) share their loads.
// Returns nullptr unless the classes have equal lane counts of at least 4 (a divisor that
// leaves fewer lanes per class reads better through one span and a residue).
llvm::Value *CodeGen::interleaved_load(Type t, const std::string &name, llvm::Value *host,
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
    if (llvm::Value *permuted = interleave_halves_avx512(t, loaded, classes.lane_class, position))
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
llvm::Value *CodeGen::interleave_halves_avx512(Type t, const std::vector<llvm::Value *> &halves,
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
        indices.push_back(builder.getInt32(lane_class[i] * 16 + position[i] + (i >= 8 ? 8 : 0)));
    llvm::Type *as =
        t.is_float() ? llvm_type(t) : llvm::FixedVectorType::get(builder.getInt32Ty(), 16);
    llvm::Value *a = builder.CreateBitCast(builder.CreateShuffleVector(halves[0], broadcast), as);
    llvm::Value *b = builder.CreateBitCast(builder.CreateShuffleVector(halves[1], broadcast), as);
    llvm::Intrinsic::ID id = t.is_float() ? llvm::Intrinsic::x86_avx512_vpermi2var_ps_512
                                          : llvm::Intrinsic::x86_avx512_vpermi2var_d_512;
    llvm::Function *permute = llvm::Intrinsic::getDeclaration(module.get(), id);
    llvm::Value *result = builder.CreateCall(permute, {a, llvm::ConstantVector::get(indices), b});
    return builder.CreateBitCast(result, llvm_type(t));
}

CodeGen::LaneSpan CodeGen::lane_span(const LaneOffsets &lanes) {
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
std::optional<int64_t> CodeGen::constant_stride(const std::vector<int64_t> &o) {
    if (o.size() < 2) return std::nullopt;
    for (size_t i = 2; i < o.size(); i++) {
        if (o[i] - o[i - 1] != o[1] - o[0]) return std::nullopt;
    }
    return o[1] - o[0];
}

bool CodeGen::same_rest(const Expr &a, const Expr &b) {
    return a.defined() == b.defined() && (!a.defined() || deep_equal(a, b));
}

// The shared spans of the strided loads in `value`, evaluated in full wherever the store
// runs (Loom evaluates every operand: both sides of a select).
std::map<std::string, std::vector<CodeGen::SharedSpan>>
CodeGen::spans_shared_by_loads(const Expr &value) {
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
            groups.push_back({op->name, {own.rest, own.lo, own.hi}, op->type.lanes(), {own.lo}});
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
std::optional<std::pair<int64_t, int64_t>> CodeGen::rebase_on_shared_span(const std::string &name,
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
llvm::Value *CodeGen::shuffled_load(Type t, const std::string &name, llvm::Value *host,
                                    LaneOffsets lanes, bool may_share_span) {
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
            r = builder.CreateSelect(is_residue(m), llvm::ConstantInt::get(index_type, v[m], true),
                                     r);
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
    llvm::Value *all = loaded.size() == 1 ? loaded[0] : llvm::concatenateVectors(builder, loaded);
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
std::optional<int64_t> CodeGen::padded_start(Type t, const std::string &name,
                                             const LaneOffsets &lanes, int64_t width,
                                             int64_t &pieces) {
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

void CodeGen::visit(const Store *op) {
    if (const Call *update = op->value.as<Call>();
        update && update->is_intrinsic(Call::atomic_update)) {
        emit_atomic_store(op, update);
        return;
    }
    auto saved =
        std::exchange(shared_spans, op->value.type().is_vector()
                                        ? spans_shared_by_loads(op->value)
                                        : std::map<std::string, std::vector<SharedSpan>>());
    emit_store(op);
    shared_spans = std::move(saved);
}

void CodeGen::emit_store(const Store *op) {
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
            tagged(builder.CreateAlignedStore(v, addr, access_alignment(op, t)), op->name);
        }
        return;
    }
    const std::vector<llvm::Value *> addrs = lane_addresses(elem, host, op->index);
    for (int i = 0; i < t.lanes(); i++) {
        tagged(builder.CreateAlignedStore(builder.CreateExtractElement(v, (uint64_t)i), addrs[i],
                                          align),
               op->name);
    }
}

} // namespace codegen_detail
} // namespace Internal
} // namespace loom
