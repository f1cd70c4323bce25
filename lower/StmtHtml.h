// The lowered loop nest as a web page (compile_to_lowered_stmt with StmtOutputFormat::HTML).
#pragma once

#include <string>

#include "dsl/IR.h"

namespace loom {
namespace Internal {

/** A self-contained HTML page showing `s` as compile_to_lowered_stmt's text prints it, each
 * block (loop, produce, consume, allocation, if) collapsible by a click on its first line, and
 * buttons that collapse or expand them all. Needs no script or file from elsewhere. */
std::string stmt_to_html(const Stmt &s, const std::string &title);

} // namespace Internal
} // namespace loom
