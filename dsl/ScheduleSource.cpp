#include "dsl/ScheduleSource.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "dsl/IRPrinter.h"
#include "dsl/Parameter.h"

namespace loom {
namespace Internal {
namespace {

// "x.xo.xi" -> "xi"; "r$x" -> "r.x": the names the user wrote (or, with named_rvars,
// RVar("r$x"), which needs no RDom in scope).
std::string short_name(const std::string &loop, bool named_rvars = false) {
    size_t dot = loop.rfind('.');
    std::string s = dot == std::string::npos ? loop : loop.substr(dot + 1);
    size_t dollar = s.find('$');
    if (dollar != std::string::npos) {
        if (named_rvars) return "RVar(\"" + s + "\")";
        s[dollar] = '.';
    }
    return s;
}

const char *tail_name(TailStrategy t) {
    switch (t) {
    case TailStrategy::Auto: return "TailStrategy::Auto";
    case TailStrategy::GuardWithIf: return "TailStrategy::GuardWithIf";
    case TailStrategy::ShiftInwards: return "TailStrategy::ShiftInwards";
    case TailStrategy::RoundUp: return "TailStrategy::RoundUp";
    case TailStrategy::Predicate:
        return "TailStrategy::Predicate";
    case TailStrategy::PredicateLoads:
        return "TailStrategy::PredicateLoads";
    case TailStrategy::PredicateStores:
        return "TailStrategy::PredicateStores";
    }
    return "TailStrategy::Auto";
}

const char *prefetch_strategy_name(PrefetchBoundStrategy s) {
    switch (s) {
    case PrefetchBoundStrategy::Clamp:
        return "PrefetchBoundStrategy::Clamp";
    case PrefetchBoundStrategy::GuardWithIf:
        return "PrefetchBoundStrategy::GuardWithIf";
    case PrefetchBoundStrategy::NonFaulting:
        return "PrefetchBoundStrategy::NonFaulting";
    }
    return "PrefetchBoundStrategy::GuardWithIf";
}

const char *align_name(LoopAlignStrategy a) {
    switch (a) {
    case LoopAlignStrategy::AlignStart: return "LoopAlignStrategy::AlignStart";
    case LoopAlignStrategy::AlignEnd: return "LoopAlignStrategy::AlignEnd";
    case LoopAlignStrategy::NoAlign: return "LoopAlignStrategy::NoAlign";
    case LoopAlignStrategy::Auto: return "LoopAlignStrategy::Auto";
    }
    return "LoopAlignStrategy::Auto";
}

std::string level_to_cpp(const LoopLevel &l, const SourceStyle &style) {
    if (l.is_root()) return "LoopLevel::root()";
    if (l.is_inlined()) return "LoopLevel::inlined()";
    std::string var =
        l.var() == "__outermost" ? "Var::outermost()" : short_name(l.var(), style.named_rvars);
    std::string stage = l.stage_index() > 0 ? ".update(" + std::to_string(l.stage_index() - 1) + ")" : "";
    return style.identifier(l.func()) + stage + ".at(" + var + ")";
}

void stage_to_cpp(std::ostream &out, const std::string &stage, const Definition &d,
                  const SourceStyle &style) {
    auto short_name = [&](const std::string &loop) {
        return Internal::short_name(loop, style.named_rvars);
    };
    for (const Split &s : d.schedule.splits) {
        switch (s.kind) {
        case Split::SplitVar:
            out << stage << ".split(" << short_name(s.old_var) << ", " << short_name(s.outer) << ", "
                << short_name(s.inner) << ", " << s.factor << ", " << tail_name(s.tail) << ");\n";
            break;
        case Split::FuseVars:
            out << stage << ".fuse(" << short_name(s.inner) << ", " << short_name(s.outer) << ", "
                << short_name(s.old_var) << ");\n";
            break;
        case Split::RenameVar:
            out << stage << ".rename(" << short_name(s.old_var) << ", " << short_name(s.outer) << ");\n";
            break;
        }
    }
    // Before the directives whose race checks it turns off.
    if (d.schedule.allow_race_conditions) out << stage << ".allow_race_conditions();\n";
    // atomic(true): the stage was accepted once; the source need not check it again.
    if (d.schedule.atomic) out << stage << ".atomic(true);\n";
    std::vector<Dim> unchanged = default_loops(d);
    const bool reordered = !d.schedule.splits.empty() ||
                           unchanged.size() != d.schedule.dims.size() ||
                           !std::equal(unchanged.begin(), unchanged.end(), d.schedule.dims.begin(),
                                       [](const Dim &a, const Dim &b) { return a.var == b.var; });
    if (d.schedule.dims.size() > 1 && reordered) {
        out << stage << ".reorder(";
        for (size_t i = 0; i < d.schedule.dims.size(); i++) out << (i ? ", " : "") << short_name(d.schedule.dims[i].var);
        out << ");\n";
    }
    for (const Dim &dim : d.schedule.dims) {
        const char *directive = dim.for_type == ForType::Parallel     ? "parallel"
                                : dim.for_type == ForType::Vectorized ? "vectorize"
                                : dim.for_type == ForType::Unrolled   ? "unroll"
                                : dim.for_type == ForType::GPUBlock   ? "gpu_blocks"
                                : dim.for_type == ForType::GPUThread  ? "gpu_threads"
                                                                      : nullptr;
        if (directive) out << stage << "." << directive << "(" << short_name(dim.var) << ");\n";
    }
    for (const PrefetchDirective &p : d.schedule.prefetches) {
        out << stage << ".prefetch(" << prefetched_name(p) << ", " << short_name(p.at) << ", "
            << short_name(p.from) << ", " << p.offset << ", " << prefetch_strategy_name(p.strategy)
            << ");\n";
    }
    const FuseLevel &fuse = d.schedule.fuse_level;
    if (!fuse.level.is_inlined()) {
        out << stage << ".compute_with(" << level_to_cpp(fuse.level, style);
        if (!fuse.align.empty()) {
            out << ", {";
            for (size_t i = 0; i < fuse.align.size(); i++) {
                out << (i ? ", " : "") << "{" << short_name(fuse.align[i].first) << ", "
                    << align_name(fuse.align[i].second) << "}";
            }
            out << "}";
        } else if (fuse.default_align != LoopAlignStrategy::Auto) {
            out << ", " << align_name(fuse.default_align);
        }
        out << ");\n";
    }
    for (const Specialization &s : d.specializations) {
        if (s.failure) {
            out << stage << ".specialize_fail(\"" << s.failure_message << "\");\n";
        } else {
            out << "{\n  Stage specialized = " << stage << ".specialize(" << s.condition << ");\n";
            std::ostringstream inner;
            stage_to_cpp(inner, "specialized", *s.definition, style);
            std::istringstream lines(inner.str());
            for (std::string line; std::getline(lines, line);) out << "  " << line << "\n";
            out << "}\n";
        }
    }
}

void collect_vars(const Definition &d, std::vector<std::string> &vars) {
    auto add = [&](const std::string &loop) {
        std::string n = short_name(loop);
        if (n.find('.') != std::string::npos || n == "__outermost") return;  // an RVar
        for (const std::string &v : vars) {
            if (v == n) return;
        }
        vars.push_back(n);
    };
    for (const Split &s : d.schedule.splits) {
        add(s.old_var);
        add(s.outer);
        if (s.kind != Split::RenameVar) add(s.inner);
    }
    for (const Dim &dim : d.schedule.dims) add(dim.var);
    for (const Specialization &s : d.specializations) {
        if (s.definition) collect_vars(*s.definition, vars);
    }
}

}  // namespace

std::vector<std::string> schedule_vars(const FunctionPtr &f) {
    std::vector<std::string> vars;
    for (int k = 0; k < f->stages(); k++) collect_vars(f->stage(k), vars);
    return vars;
}

std::string SourceStyle::identifier(const std::string &func) const {
    if (!identifiers) return func;
    std::string id;
    for (char c : func)
        id += std::isalnum((unsigned char)c) ? c : '_';
    return id;
}

std::string schedule_to_cpp(const FunctionPtr &f, const SourceStyle &style) {
    std::ostringstream out;
    const FuncSchedule &s = f->schedule;
    const std::string name = style.identifier(f->name);
    if (s.compute_level.is_root()) {
        out << name << ".compute_root();\n";
    } else if (!s.compute_level.is_inlined()) {
        out << name << ".compute_at(" << level_to_cpp(s.compute_level, style) << ");\n";
    }
    if (!(s.store_level == s.compute_level) && !s.store_level.is_inlined()) {
        out << name << ".store_at(" << level_to_cpp(s.store_level, style) << ");\n";
    }
    for (const Bound &b : s.bounds) {
        if (b.min.defined()) {
            out << name << ".bound(" << b.var << ", " << b.min << ", " << b.extent << ");\n";
        } else {
            out << name << ".bound_extent(" << b.var << ", " << b.extent << ");\n";
        }
    }
    for (const Bound &b : s.estimates) out << name << ".set_estimate(" << b.var << ", " << b.min << ", " << b.extent << ");\n";
    if (!s.storage_order.empty()) {
        out << name << ".reorder_storage(";
        for (size_t i = 0; i < s.storage_order.size(); i++) out << (i ? ", " : "") << s.storage_order[i];
        out << ");\n";
    }
    for (const StorageFold &fold : s.folds) out << name << ".fold_storage(" << fold.var << ", " << fold.extent << ");\n";
    for (const BoundAlignment &a : s.alignments) {
        if (a.remainder.defined()) {
            out << name << ".align_bounds(" << a.var << ", " << a.modulus << ", " << a.remainder
                << ");\n";
        } else {
            out << name << ".align_extent(" << a.var << ", " << a.modulus << ");\n";
        }
    }
    for (const StorageAlignment &a : s.storage_alignments)
        out << name << ".align_storage(" << a.var << ", " << a.alignment << ");\n";
    for (const StorageBound &b : s.storage_bounds)
        out << name << ".bound_storage(" << b.var << ", " << b.bound << ");\n";
    for (int k = 0; k < f->stages(); k++) {
        std::string stage = k == 0 ? name : name + ".update(" + std::to_string(k - 1) + ")";
        stage_to_cpp(out, stage, f->stage(k), style);
    }
    return out.str();
}

std::string schedules_to_cpp(const std::vector<FunctionPtr> &funcs, const SourceStyle &style) {
    std::vector<std::string> vars;
    std::string directives;
    for (const FunctionPtr &f : funcs) {
        directives += schedule_to_cpp(f, style);
        for (const std::string &v : schedule_vars(f)) {
            if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
        }
    }
    std::string source;
    for (const std::string &v : vars)
        source += (source.empty() ? "Var " : ", ") + v + "(\"" + v + "\")";
    if (!source.empty()) source += ";\n";
    return source + directives;
}

std::string cpp_identifier(const std::string &name) {
    SourceStyle style;
    style.identifiers = true;
    return style.identifier(name);
}

std::string as_comment(const std::string &text) {
    std::istringstream lines(text);
    std::string out;
    for (std::string line; std::getline(lines, line);)
        out += "// " + line + "\n";
    return out;
}

}  // namespace Internal
}  // namespace loom
