// The values of the let-bound names in scope, for the simplifier to write a later expression in
// terms of a name that already holds it (up to a constant).
#pragma once

#include <map>
#include <optional>
#include <string>

#include "dsl/IR.h"
#include "dsl/IREquality.h"

namespace loom {
namespace Internal {

/** The values of the let-bound names in scope that stay bound (scalar integers that read no
 * memory), keyed by the value less its constant addend. A later value that is one of them plus
 * a constant becomes the name plus that constant, so bounds that bounds inference writes out
 * twice (a region's min and its max = min + 31) cancel to constants: an extent max - min + 1
 * becomes 32 and a tail loop over a region of constant size vanishes. Invariant: every name a
 * key mentions, and every entry's name, is bound in scope and not shadowed (a binding that
 * shadows a name hides all entries for its body). */
class KnownLetValues {
    // value less its constant -> (name, the constant)
    using Values = std::map<Expr, std::pair<std::string, int64_t>, ExprStructureLess>;

public:
    /** Registers a let's value (undefined for a loop variable or a value that does not
     * qualify) for the let's body, or hides every entry while a binding that shadows an outer
     * name is in scope. */
    class Binding {
    public:
        Binding(KnownLetValues &known, const std::string &name, const Expr &value, bool shadows);
        ~Binding();
        Binding(const Binding &) = delete;
        Binding &operator=(const Binding &) = delete;

    private:
        KnownLetValues &known;
        Values hidden;
        bool shadowing = false;
        // The entry this binding added; none when an enclosing let already has its value.
        std::optional<Values::iterator> added;
    };

    bool empty() const { return values.empty(); }

    /** The let-bound name whose value equals e up to a constant, and e minus that value;
     * nothing for constants, variables and types that are not linear. */
    struct Match {
        const std::string *name;
        int64_t difference;
    };
    std::optional<Match> match(const Expr &e) const;

    /** e with each largest subexpression that equals a known value (up to a constant) replaced
     * by that value's name. */
    Expr reuse(const Expr &e) const;

    /** a - b, where b is a variable whose value is a less a constant. */
    std::optional<int64_t> difference(const Expr &a, const Expr &b) const;

private:
    Values values;
};

} // namespace Internal
} // namespace loom
