// Prints IR in a C-like form that a person reads when debugging a schedule.
#pragma once

#include <ostream>
#include <string>

#include "dsl/IR.h"

namespace loom {

std::ostream &operator<<(std::ostream &os, const Expr &e);
std::ostream &operator<<(std::ostream &os, const Type &t);

namespace Internal {

std::ostream &operator<<(std::ostream &os, const Stmt &s);
std::string to_string(const Expr &e);
std::string to_string(const Stmt &s);

}  // namespace Internal
}  // namespace loom
