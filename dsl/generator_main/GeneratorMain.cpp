// The generator driver: main() of every generator executable (link Loom::loom_generator_main
// with the files that define and register Generators; loom_add_generator does it).
//
//   GEN -g NAME -o DIR [-f FUNCTION_NAME] [-e KINDS] [-s AUTOSCHEDULER] [-p PLUGIN]
//       [target=T[,T...]] [auto_schedule=true] [machine_params=P,C,B] [param=value ...]
//   GEN -r RUNTIME_NAME -o DIR [-e KINDS] [target=T]
//   GEN -l
//
// Builds Generator NAME with the given GeneratorParams and writes, into DIR, the files KINDS
// lists (comma-separated; default static_library,h): static_library (FUNCTION_NAME.a), h or
// c_header (FUNCTION_NAME.h), o or object (FUNCTION_NAME.o: the pipeline without the runtime),
// assembly (.s), llvm_assembly (.ll), bitcode (.bc), stmt (the lowered loop nest), stmt_html
// (the same as a page, .stmt.html), schedule (FUNCTION_NAME.schedule.h: the schedule as C++
// that applies it to the same algorithm elsewhere). FUNCTION_NAME defaults to NAME. target is
// "host" (default) or a Loom target such as x86-64-linux-avx2-fma or host-no_runtime (a
// static library without the runtime); several, comma-separated, make a multi-target library
// (most capable first). -r writes the runtime alone (RUNTIME_NAME.o, .a, .h as KINDS say), to
// link once beside pipelines built with no_runtime or as objects. auto_schedule=true auto-schedules
// the pipeline after the Generator's schedule() with the scheduler -s names (default Heuristic),
// for the machine machine_params describes (Halide's generic one by default); -p loads a shared
// library of schedulers first (load_plugin). -l lists the registered Generators.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "codegen/AOT.h"
#include "dsl/Generator.h"

namespace {

int usage(const char *argv0) {
    std::fprintf(stderr,
                 "usage: %s -g NAME -o DIR [-f FUNCTION_NAME] [-e KINDS] [-s AUTOSCHEDULER] "
                 "[-p PLUGIN] [target=T[,T...]] [auto_schedule=true] [machine_params=P,C,B] "
                 "[param=value ...]\n       %s -r RUNTIME_NAME -o DIR [-e KINDS] [target=T]\n"
                 "       %s -l\n"
                 "KINDS: comma-separated among static_library, h (c_header), o (object), "
                 "assembly, llvm_assembly, bitcode, stmt, stmt_html, schedule (default "
                 "static_library,h)\n",
                 argv0, argv0, argv0);
    return 2;
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> parts;
    std::stringstream in(s);
    for (std::string part; std::getline(in, part, sep);) {
        if (!part.empty()) parts.push_back(part);
    }
    return parts;
}

} // namespace

int main(int argc, char **argv) {
    using namespace loom;
    std::string name, runtime_name, dir, fn_name, kinds = "static_library,h", targets = "host";
    std::string scheduler_name;
    std::vector<std::string> plugins;
    std::map<std::string, std::string> params;
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
        if (a == "-l") {
            for (const std::string &g : Internal::GeneratorRegistry::names())
                std::printf("%s\n", g.c_str());
            return 0;
        } else if (a == "-g") {
            name = value();
        } else if (a == "-r") {
            runtime_name = value();
        } else if (a == "-o") {
            dir = value();
        } else if (a == "-f") {
            fn_name = value();
        } else if (a == "-e") {
            kinds = value();
        } else if (a == "-s") {
            scheduler_name = value();
        } else if (a == "-p") {
            plugins.push_back(value());
        } else if (a.find('=') != std::string::npos && a[0] != '-') {
            std::string key = a.substr(0, a.find('=')), v = a.substr(a.find('=') + 1);
            if (key == "target") {
                targets = v;
            } else {
                params[key] = v;
            }
        } else {
            return usage(argv[0]);
        }
    }
    if ((name.empty() && runtime_name.empty()) || dir.empty()) return usage(argv[0]);
    if (fn_name.empty()) fn_name = name;

    try {
        std::vector<Target> target_list;
        for (const std::string &t : split(targets, ','))
            target_list.push_back(Target(t));
        user_assert(!target_list.empty()) << "target= needs at least one target";
        std::set<std::string> wanted;
        for (std::string k : split(kinds, ',')) {
            // Halide's names for two of them.
            if (k == "object") k = "o";
            if (k == "c_header") k = "h";
            static const std::set<std::string> known = {
                "static_library", "h",    "o",         "assembly", "llvm_assembly",
                "bitcode",        "stmt", "stmt_html", "schedule"};
            user_assert(known.count(k))
                << "Unknown output kind \"" << k
                << "\"; the kinds are static_library, h (c_header), o (object), assembly, "
                   "llvm_assembly, bitcode, stmt, stmt_html, schedule";
            wanted.insert(k);
        }
        if (!runtime_name.empty()) {
            const std::string base = dir + "/" + runtime_name;
            for (const std::string &k : wanted) {
                user_assert(k == "o" || k == "static_library" || k == "h")
                    << "-r writes the runtime as o (object), static_library or h (c_header), "
                       "not "
                    << k;
            }
            user_assert(target_list.size() == 1) << "-r takes one target";
            if (wanted.count("o")) compile_standalone_runtime(base + ".o", target_list[0]);
            if (wanted.count("static_library"))
                Internal::write_runtime_static_library(base + ".a", target_list[0]);
            if (wanted.count("h")) {
                std::ofstream out(base + ".h");
                out << Internal::runtime_c_header();
                user_assert(out.good()) << "can't write " << base << ".h";
            }
            if (name.empty()) return 0;
        }
        for (const std::string &plugin : plugins)
            load_plugin(plugin);
        if (!scheduler_name.empty()) Pipeline::set_default_autoscheduler_name(scheduler_name);
        std::unique_ptr<Internal::GeneratorBase> gen = Internal::GeneratorRegistry::create(name);
        gen->set_generator_params(params);
        Pipeline pipeline = gen->build_pipeline(target_list.front());
        const std::vector<Argument> args = gen->arguments();
        const std::string base = dir + "/" + fn_name;
        if (wanted.count("static_library")) {
            // Writes the header too.
            pipeline.compile_to_multitarget_static_library(base, args, fn_name, target_list);
        } else if (wanted.count("h")) {
            pipeline.compile_to_header(base + ".h", args, fn_name, target_list.front());
        }
        user_assert(target_list.size() == 1 ||
                    !(wanted.count("o") || wanted.count("assembly") ||
                      wanted.count("llvm_assembly") || wanted.count("bitcode")))
            << "Several targets make a static library; o, assembly, llvm_assembly and bitcode "
               "take one";
        if (wanted.count("o"))
            pipeline.compile_to_object(base + ".o", args, fn_name, target_list[0]);
        if (wanted.count("assembly")) {
            pipeline.compile_to_assembly(base + ".s", args, fn_name, target_list[0]);
        }
        if (wanted.count("llvm_assembly")) {
            pipeline.compile_to_llvm_assembly(base + ".ll", args, fn_name, target_list[0]);
        }
        if (wanted.count("bitcode"))
            pipeline.compile_to_bitcode(base + ".bc", args, fn_name, target_list[0]);
        if (wanted.count("stmt"))
            pipeline.compile_to_lowered_stmt(base + ".stmt", args, target_list[0]);
        if (wanted.count("stmt_html")) {
            pipeline.compile_to_lowered_stmt(base + ".stmt.html", args, StmtOutputFormat::HTML,
                                             target_list[0]);
        }
        if (wanted.count("schedule")) {
            std::ofstream out(base + ".schedule.h");
            out << Internal::schedule_header(pipeline, fn_name, gen->auto_schedule_results());
            user_assert(out.good()) << "can't write " << base << ".schedule.h";
        }
        return 0;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s: generator %s: %s\n", argv[0], name.c_str(), e.what());
        return 1;
    }
}
