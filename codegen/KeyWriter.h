// The byte writer behind the JIT cache's keys (codegen/JITCacheKey.h): IR node by node, every
// field and every type, so that two different trees never write the same bytes. IRPrinter's
// text is no key: it leaves out what a reader infers (the types of constants and of most
// operators), so two different programs can print alike.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

/** Appends values to `out` so that the bytes read back in only one way: numbers at a fixed
 * width, strings and lists behind their length, an absent child as a byte of its own, and
 * every node behind its kind (and, for an Expr, its type). An Expr node met a second time (the
 * IR is a DAG: a definition may use one Expr twice) is written as the number it got when
 * first met, so that shared subtrees cost their size once; what the bytes describe is still
 * the tree, read by expanding each number back into what it stands for. A subclass that must
 * tell apart what a node points at (a Variable's Param, a Call's Func) writes it in
 * `references`. */
class KeyWriter : public IRVisitor {
public:
    std::string out;

    KeyWriter() { out.reserve(4096); }

    void u8(uint8_t v) { out += (char)v; }
    void u32(uint32_t v) {
        char bytes[4];
        std::memcpy(bytes, &v, 4);
        out.append(bytes, 4);
    }
    void u64(uint64_t v) {
        char bytes[8];
        std::memcpy(bytes, &v, 8);
        out.append(bytes, 8);
    }
    void str(const std::string &s) {
        u32((uint32_t)s.size());
        out += s;
    }
    /** A name (of a loop, a variable, a Func): as str(), except where a '.'-separated part
     * of it is a loop name a directive made (unique_loop_name, dsl/Var.h: the "v7" of
     * "f.s0.x.v7"). Such a name is written part by part, those parts as the order in which
     * they were first met, so that a program building a pipeline again (the directive then
     * drawing another number) writes the same bytes; it starts with a length no string has,
     * so the two forms never meet. */
    void name(const std::string &s);
    void type(Type t) {
        char bytes[4] = {(char)t.code, (char)t.bits(), (char)(t.lanes() & 0xff),
                         (char)(t.lanes() >> 8)};
        out.append(bytes, 4);
    }
    void expr(const Expr &e);
    void stmt(const Stmt &s) {
        if (!s.defined()) {
            out += '-';
            return;
        }
        out += '+';
        s.accept(this);
    }
    void exprs(const std::vector<Expr> &list) {
        u32((uint32_t)list.size());
        for (const Expr &e : list) expr(e);
    }
    void strs(const std::vector<std::string> &list) {
        u32((uint32_t)list.size());
        for (const std::string &s : list) str(s);
    }

protected:
    /** What the node points at, written after its fields. The lowered key writes nothing:
     * code generation reads only names. */
    virtual void references(const Variable *) {}
    virtual void references(const Call *) {}

private:
    // The Expr nodes met so far that more than one handle holds (only those can be met
    // again), with their numbers in the order they were met.
    std::unordered_map<const IRNode *, uint32_t> shared;
    // The loop names of unique_loop_name met so far, with their numbers in the order met.
    std::unordered_map<std::string, uint32_t> loop_names_met;
    uint32_t nodes_met = 0;

    // One `fields` per node kind, written after the node's kind (and type): a node kind added
    // to IR.h without a definition in KeyWriter.cpp does not link.
#define LOOM_KEY_FIELDS(T) void fields(const T *op);
    LOOM_FOR_EACH_IR_EXPR(LOOM_KEY_FIELDS)
    LOOM_FOR_EACH_IR_STMT(LOOM_KEY_FIELDS)
#undef LOOM_KEY_FIELDS

#define LOOM_KEY_VISIT(T) void visit(const T *op) override;
    LOOM_FOR_EACH_IR_EXPR(LOOM_KEY_VISIT)
    LOOM_FOR_EACH_IR_STMT(LOOM_KEY_VISIT)
#undef LOOM_KEY_VISIT
};

}  // namespace Internal
}  // namespace loom
