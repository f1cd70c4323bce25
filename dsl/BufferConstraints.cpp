// The shape constraints of a pipeline's input and output buffers (Internal::DimConstraint,
// dsl/Parameter.h), set through ImageParam::Dim and OutputImageParam::Dim.
#include "dsl/Error.h"
#include "dsl/IROperator.h"
#include "dsl/IRPrinter.h"
#include "dsl/Parameter.h"

namespace loom {
namespace Internal {

void constrain(Expr &slot, const Expr &value, const char *directive, const std::string &owner,
               int d) {
    if (!value.defined()) {
        slot = Expr();
        return;
    }
    user_assert(value.type().is_int_or_uint() && value.type().is_scalar())
        << "In " << directive << " of dimension " << d << " of " << owner
        << ": give an integer Expr (or an undefined Expr to lift the constraint), not " << value
        << ".";
    slot = value.type() == Int(32) ? value : cast(Int(32), value);
}

} // namespace Internal
} // namespace loom
