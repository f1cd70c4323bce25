#include "lower/StmtHtml.h"

#include <sstream>

#include "dsl/IRPrinter.h"

namespace loom {
namespace Internal {

namespace {

std::string escaped(const std::string &text) {
    std::string out;
    for (char c : text) {
        switch (c) {
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '&':
            out += "&amp;";
            break;
        case '"':
            out += "&quot;";
            break;
        default:
            out += c;
        }
    }
    return out;
}

bool ends_with(const std::string &s, const std::string &suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string trimmed(const std::string &s) {
    size_t b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
    return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

const char *const kStyle = R"(
body { font-family: sans-serif; margin: 1em; }
pre, summary, .line { font-family: monospace; font-size: 13px; white-space: pre; }
details { margin-left: 2ch; border-left: 1px solid #ccc; padding-left: 1ch; }
details > summary { cursor: pointer; list-style: none; }
details > summary::before { content: "\25BE  "; color: #888; }
details:not([open]) > summary::before { content: "\25B8  "; }
.line { margin-left: 2ch; }
.close { color: #888; }
.loop { color: #06c; font-weight: bold; }
)";

const char *const kScript = R"(
function setAll(open) {
  document.querySelectorAll('details').forEach(function (d) { d.open = open; });
}
)";

} // namespace

std::string stmt_to_html(const Stmt &s, const std::string &title) {
    // The printer writes one statement per line and opens a block with a line ending in "{"
    // and closes it with a line starting with "}" ("} else {" closes one and opens another):
    // the nesting of <details> follows those lines.
    std::istringstream text(to_string(s));
    std::ostringstream body;
    std::string line;
    int depth = 0;
    while (std::getline(text, line)) {
        std::string t = trimmed(line);
        if (t.empty()) continue;
        const bool closes = t[0] == '}';
        const bool opens = ends_with(t, "{");
        if (closes && depth > 0) {
            body << "<div class=\"line close\">}</div></details>\n";
            depth--;
            t = trimmed(t.substr(1));
            if (t.empty()) continue;
        }
        if (opens) {
            const bool loop = t.rfind("for ", 0) == 0 || t.rfind("parallel ", 0) == 0 ||
                              t.rfind("vectorized ", 0) == 0 || t.rfind("unrolled ", 0) == 0 ||
                              t.rfind("gpu_", 0) == 0;
            body << "<details open><summary" << (loop ? " class=\"loop\"" : "") << ">" << escaped(t)
                 << "</summary>\n";
            depth++;
        } else {
            body << "<div class=\"line\">" << escaped(t) << "</div>\n";
        }
    }
    for (; depth > 0; depth--)
        body << "</details>\n";

    std::ostringstream page;
    page << "<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n<title>" << escaped(title)
         << "</title>\n<style>" << kStyle << "</style>\n<script>" << kScript
         << "</script>\n</head>\n<body>\n<h1>" << escaped(title) << "</h1>\n"
         << "<p><button onclick=\"setAll(false)\">Collapse all</button> "
         << "<button onclick=\"setAll(true)\">Expand all</button></p>\n"
         << "<div id=\"stmt\">\n"
         << body.str() << "</div>\n</body>\n</html>\n";
    return page.str();
}

} // namespace Internal
} // namespace loom
