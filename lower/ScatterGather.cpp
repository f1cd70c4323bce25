#include "lower/ScatterGather.h"

#include "dsl/IRMutator.h"
#include "dsl/IRVisitor.h"

namespace loom {
namespace Internal {

namespace {

class BundleFinder : public IRVisitor {
public:
    int size = 0;            // the elements of the bundles met (checked equal at definition)
    bool reads_data = false; // a call of a Func or an image

private:
    using IRVisitor::visit;
    void visit(const Call *op) override {
        if (op->is_intrinsic(Call::scatter_gather)) size = (int)op->args.size();
        if (op->call_type == Call::Halide || op->call_type == Call::Image) reads_data = true;
        IRVisitor::visit(op);
    }
};

// e with every bundle replaced by its element `index` (bundles do not nest: dsl/FuncRef.cpp).
class TakeElement : public IRMutator {
public:
    explicit TakeElement(size_t index) : index(index) {}

private:
    size_t index;
    using IRMutator::visit;
    Expr visit(const Call *op) override {
        if (op->is_intrinsic(Call::scatter_gather)) return op->args[index];
        return IRMutator::visit(op);
    }
};

} // namespace

bool has_bundle(const Expr &e) {
    BundleFinder f;
    e.accept(&f);
    return f.size > 0;
}

Stmt provide_scattered(const std::string &func, const std::vector<Expr> &values,
                       const std::vector<Expr> &args, const std::string &let_prefix) {
    BundleFinder bundles;
    for (const Expr &e : values)
        e.accept(&bundles);
    for (const Expr &e : args)
        e.accept(&bundles);
    if (bundles.size == 0) return Provide::make(func, values, args);

    std::vector<std::pair<std::string, Expr>> lets; // in the order they are computed
    std::vector<Stmt> provides;
    for (int k = 0; k < bundles.size; k++) {
        TakeElement take(k);
        const std::string element = let_prefix + std::to_string(k);
        std::vector<Expr> element_values, element_args;
        for (size_t i = 0; i < values.size(); i++) {
            const std::string name = element + ".value." + std::to_string(i);
            lets.emplace_back(name, take.mutate(values[i]));
            element_values.push_back(Variable::make(values[i].type(), name));
        }
        for (size_t i = 0; i < args.size(); i++) {
            Expr a = take.mutate(args[i]);
            // An argument of loop variables and constants stays in place, where passes that
            // look at where a Provide writes can see it; one that reads data is read first.
            BundleFinder reads;
            a.accept(&reads);
            if (reads.reads_data) {
                const std::string name = element + ".arg." + std::to_string(i);
                lets.emplace_back(name, a);
                a = Variable::make(a.type(), name);
            }
            element_args.push_back(a);
        }
        provides.push_back(Provide::make(func, element_values, element_args));
    }
    Stmt s = Block::make(provides);
    for (auto it = lets.rbegin(); it != lets.rend(); ++it)
        s = LetStmt::make(it->first, it->second, s);
    return s;
}

} // namespace Internal
} // namespace loom
