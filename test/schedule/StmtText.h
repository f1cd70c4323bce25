// Helpers for tests that read Loom's printed output: the lowered loop nest of
// Pipeline::lowered_stmt() (one statement per line, two spaces per level, loops as
// `<kind> (<name>, <min>, <extent>) {`) and the LLVM IR of Pipeline::llvm_ir().
#pragma once

#include <sstream>
#include <string>
#include <vector>

namespace loom_test {

inline std::string trim(const std::string &line) {
    size_t b = line.find_first_not_of(' ');
    return b == std::string::npos ? "" : line.substr(b);
}

inline std::vector<std::string> lines_of(const std::string &text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

/** "for (f.s0.x, 0, 8) {" -> "f.s0.x"; "" if the line does not open a loop. */
inline std::string loop_name(const std::string &line) {
    std::string t = trim(line);
    for (const char *kind : {"for (", "parallel (", "vectorized (", "unrolled ("}) {
        std::string k = kind;
        if (t.compare(0, k.size(), k) == 0) return t.substr(k.size(), t.find(',') - k.size());
    }
    return "";
}

/** The names of the loops around the first line containing `what`, outermost first. */
inline std::vector<std::string> loops_around(const std::string &stmt, const std::string &what) {
    std::vector<std::string> open; // the header of every block we are inside
    for (const std::string &line : lines_of(stmt)) {
        std::string t = trim(line);
        if (t.find(what) != std::string::npos) {
            std::vector<std::string> loops;
            for (const std::string &h : open) {
                if (!loop_name(h).empty()) loops.push_back(loop_name(h));
            }
            return loops;
        }
        if (!t.empty() && t[0] == '}') open.pop_back();
        if (!t.empty() && t.back() == '{') open.push_back(t);
    }
    return {"<no line contains " + what + ">"};
}

/** The first line containing `what`, through the line closing the block it opens. */
inline std::string block(const std::string &stmt, const std::string &what) {
    std::string out;
    int depth = -1;
    for (const std::string &line : lines_of(stmt)) {
        std::string t = trim(line);
        if (depth < 0 && t.find(what) == std::string::npos) continue;
        if (depth < 0) depth = 0;
        out += line + "\n";
        if (!t.empty() && t[0] == '}') depth--;
        if (!t.empty() && t.back() == '{') depth++;
        if (depth == 0) return out;
    }
    return out.empty() ? "<no line contains " + what + ">" : out;
}

/** The kind (for, parallel, ...) of the first loop named `name`. */
inline std::string loop_kind(const std::string &stmt, const std::string &name) {
    for (const std::string &line : lines_of(stmt)) {
        if (loop_name(line) == name) {
            std::string t = trim(line);
            return t.substr(0, t.find(' '));
        }
    }
    return "<no loop " + name + ">";
}

inline int occurrences(const std::string &text, const std::string &what) {
    int n = 0;
    for (size_t p = text.find(what); p != std::string::npos; p = text.find(what, p + 1))
        n++;
    return n;
}

/** The stores into `func`: lines `func[...] = ...`. */
inline int stores_into(const std::string &stmt, const std::string &func) {
    int n = 0;
    for (const std::string &line : lines_of(stmt))
        n += trim(line).compare(0, func.size() + 1, func + "[") == 0;
    return n;
}

/** The instructions of the LLVM IR block labelled exactly `label` (not "<label>.preheader"),
 * from its label to the blank line after its terminator. */
inline std::string ir_block_labelled(const std::string &ir, const std::string &label) {
    size_t start = ir.find("\n" + label + ":");
    if (start == std::string::npos) return "";
    size_t end = ir.find("\n\n", start + 1);
    return ir.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

/** The LLVM IR of the first basic block whose label starts with `label`, up to the next label. */
inline std::string ir_block(const std::string &ir, const std::string &label) {
    std::string out;
    bool in_block = false;
    for (const std::string &line : lines_of(ir)) {
        bool is_label = !line.empty() && line[0] != ' ' && line.find(':') != std::string::npos &&
                        line.find("define") != 0;
        if (is_label && in_block) break;
        if (is_label && (line.compare(0, label.size(), label) == 0 ||
                         line.compare(0, label.size() + 1, "\"" + label) == 0))
            in_block = true;
        if (in_block) out += line + "\n";
    }
    return out.empty() ? "<no block " + label + ">" : out;
}

} // namespace loom_test
