#include "codegen/KeyWriter.h"

#include <algorithm>

#include "dsl/Var.h"

namespace loom {
namespace Internal {

void KeyWriter::name(const std::string &s) {
    // Calls f(begin, end) on each '.'-separated part of s.
    auto for_each_part = [&s](auto f) {
        for (const char *begin = s.data(), *stop = s.data() + s.size();;) {
            const char *end = std::find(begin, stop, '.');
            f(begin, end);
            if (end == stop) return;
            begin = end + 1;
        }
    };
    bool has_loop_name = false;
    uint32_t parts = 0;
    for_each_part([&](const char *begin, const char *end) {
        has_loop_name |= is_unique_loop_name(begin, end);
        parts++;
    });
    if (!has_loop_name) {
        str(s);
        return;
    }
    u32(UINT32_MAX);
    u32(parts);
    for_each_part([&](const char *begin, const char *end) {
        std::string part(begin, end);
        if (is_unique_loop_name(begin, end)) {
            auto it = loop_names_met.emplace(part, (uint32_t)loop_names_met.size()).first;
            out += 'g';
            u32(it->second);
        } else {
            out += 's';
            str(part);
        }
    });
}

void KeyWriter::expr(const Expr &e) {
    if (!e.defined()) {
        out += '-';
        return;
    }
    const IRNode *node = e.get();
    // Whatever is written short, the bytes expand to the same tree, so equal bytes always
    // mean equal trees. Only nodes more than one handle holds are remembered (a node held
    // once is met again only through a parent that is met again, and that parent, held
    // twice, is written short first): a cheaper map, and the same bytes for the same IR.
    if (node->ref_count.load(std::memory_order_relaxed) > 1) {
        auto [it, first] = shared.emplace(node, nodes_met);
        if (!first) {
            out += 'r';
            u32(it->second);
            return;
        }
    }
    nodes_met++;
    out += '+';
    e.accept(this);
}

void KeyWriter::fields(const IntImm *op) { u64((uint64_t)op->value); }
void KeyWriter::fields(const UIntImm *op) { u64(op->value); }
void KeyWriter::fields(const FloatImm *op) {
    uint64_t bits;
    std::memcpy(&bits, &op->value, 8);
    u64(bits);
}
void KeyWriter::fields(const StringImm *op) { str(op->value); }
void KeyWriter::fields(const Cast *op) { expr(op->value); }
void KeyWriter::fields(const Reinterpret *op) { expr(op->value); }
void KeyWriter::fields(const Variable *op) {
    name(op->name);
    references(op);
}
#define LOOM_KEY_BINARY(T)                                                                         \
    void KeyWriter::fields(const T *op) {                                                          \
        expr(op->a);                                                                               \
        expr(op->b);                                                                               \
    }
LOOM_KEY_BINARY(Add)
LOOM_KEY_BINARY(Sub)
LOOM_KEY_BINARY(Mul)
LOOM_KEY_BINARY(Div)
LOOM_KEY_BINARY(Mod)
LOOM_KEY_BINARY(Min)
LOOM_KEY_BINARY(Max)
LOOM_KEY_BINARY(EQ)
LOOM_KEY_BINARY(NE)
LOOM_KEY_BINARY(LT)
LOOM_KEY_BINARY(LE)
LOOM_KEY_BINARY(GT)
LOOM_KEY_BINARY(GE)
LOOM_KEY_BINARY(And)
LOOM_KEY_BINARY(Or)
#undef LOOM_KEY_BINARY
void KeyWriter::fields(const Not *op) { expr(op->a); }
void KeyWriter::fields(const Select *op) {
    expr(op->condition);
    expr(op->true_value);
    expr(op->false_value);
}
void KeyWriter::fields(const Load *op) {
    name(op->name);
    expr(op->index);
}
void KeyWriter::fields(const Ramp *op) {
    expr(op->base);
    expr(op->stride);
    u32((uint32_t)op->lanes);
}
void KeyWriter::fields(const Broadcast *op) {
    expr(op->value);
    u32((uint32_t)op->lanes);
}
void KeyWriter::fields(const Let *op) {
    name(op->name);
    expr(op->value);
    expr(op->body);
}
void KeyWriter::fields(const Call *op) {
    name(op->name);
    exprs(op->args);
    u8((uint8_t)op->call_type);
    u8((uint8_t)op->op);
    u32((uint32_t)op->value_index);
    references(op);
}
void KeyWriter::fields(const LetStmt *op) {
    name(op->name);
    expr(op->value);
    stmt(op->body);
}
void KeyWriter::fields(const AssertStmt *op) {
    expr(op->condition);
    expr(op->message);
}
void KeyWriter::fields(const ProducerConsumer *op) {
    name(op->name);
    u8(op->is_producer);
    stmt(op->body);
}
void KeyWriter::fields(const For *op) {
    name(op->name);
    expr(op->min);
    expr(op->extent);
    u8((uint8_t)op->for_type);
    u8((uint8_t)op->device_api);
    stmt(op->body);
}
void KeyWriter::fields(const Store *op) {
    name(op->name);
    expr(op->value);
    expr(op->index);
}
void KeyWriter::fields(const Provide *op) {
    name(op->name);
    exprs(op->values);
    exprs(op->args);
}
void KeyWriter::fields(const Allocate *op) {
    name(op->name);
    type(op->type);
    exprs(op->extents);
    u64((uint64_t)op->memory_type);
    stmt(op->body);
}
void KeyWriter::fields(const Free *op) { name(op->name); }
void KeyWriter::fields(const Realize *op) {
    name(op->name);
    u32((uint32_t)op->types.size());
    for (Type t : op->types) type(t);
    u32((uint32_t)op->bounds.size());
    for (const Range &r : op->bounds) {
        expr(r.min);
        expr(r.extent);
    }
    stmt(op->body);
}
void KeyWriter::fields(const Block *op) {
    stmt(op->first);
    stmt(op->rest);
}
void KeyWriter::fields(const IfThenElse *op) {
    expr(op->condition);
    stmt(op->then_case);
    stmt(op->else_case);
}
void KeyWriter::fields(const Evaluate *op) { expr(op->value); }

#define LOOM_KEY_EXPR(T)                                                                           \
    void KeyWriter::visit(const T *op) {                                                           \
        u8((uint8_t)op->node_type);                                                                \
        type(op->type);                                                                            \
        fields(op);                                                                                \
    }
#define LOOM_KEY_STMT(T)                                                                           \
    void KeyWriter::visit(const T *op) {                                                           \
        u8((uint8_t)op->node_type);                                                                \
        fields(op);                                                                                \
    }
LOOM_FOR_EACH_IR_EXPR(LOOM_KEY_EXPR)
LOOM_FOR_EACH_IR_STMT(LOOM_KEY_STMT)
#undef LOOM_KEY_EXPR
#undef LOOM_KEY_STMT

}  // namespace Internal
}  // namespace loom
