// Pipeline::auto_schedule and the table of schedulers it runs (dsl/AutoScheduler.h).
#include <dlfcn.h>

#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>

#include "dsl/Autotune.h"
#include "dsl/Error.h"
#include "dsl/Pipeline.h"
#include "dsl/ScheduleSource.h"
#include "lower/FindEnvironment.h"
#include "lower/autoschedule/Heuristic.h"
#include "lower/autoschedule/Search.h"

namespace loom {

namespace {

// Halide 14's auto-schedulers, by the names its programs give them and their plugins' files.
const std::set<std::string> &halide_scheduler_names() {
    static const std::set<std::string> names{"Mullapudi2016", "Adams2019", "Li2018"};
    return names;
}

} // namespace

namespace Internal {

std::string apply_schedule_function(const Pipeline &p, const std::string &function_name) {
    Internal::SourceStyle style;
    style.identifiers = true;
    style.named_rvars = true;
    Internal::Environment env = Internal::find_environment([&] {
        std::vector<Internal::FunctionPtr> outputs;
        for (const Func &f : p.outputs())
            outputs.push_back(f.function());
        return outputs;
    }());
    // The Funcs with directives, and those their compute and store levels name.
    std::vector<Internal::FunctionPtr> scheduled;
    std::set<std::string> needed;
    for (const std::string &name : env.order) {
        const Internal::FunctionPtr &f = env.functions.at(name);
        if (Internal::schedule_to_cpp(f, style).empty()) continue;
        scheduled.push_back(f);
        needed.insert(name);
        for (const LoopLevel *l : {&f->schedule.compute_level, &f->schedule.store_level}) {
            if (!l->is_root() && !l->is_inlined()) needed.insert(l->func());
        }
    }
    std::string body = "using namespace loom;\n";
    for (size_t i = 0; i < env.order.size(); i++) {
        if (!needed.count(env.order[i])) continue;
        body += "Func " + style.identifier(env.order[i]) + " = pipeline.get_func(" +
                std::to_string(i) + ");\n";
    }
    body += Internal::schedules_to_cpp(scheduled, style);
    std::string indented;
    std::istringstream lines(body);
    for (std::string line; std::getline(lines, line);)
        indented += "    " + line + "\n";
    return "inline void " + function_name +
           "(loom::Pipeline pipeline, const loom::Target & = loom::Target()) {\n" + indented +
           "}\n";
}

std::string schedule_header(const Pipeline &p, const std::string &function_name,
                            const AutoSchedulerResults &results) {
    std::string why;
    if (results.scheduler_name.empty()) {
        why = "// The schedule written by hand (auto_schedule=false).\n";
    } else {
        why = "// Auto-scheduled by " + results.scheduler_name + " for target " +
              results.target.to_string() + ", machine_params " + results.machine_params_string +
              ".\n";
        // The scheduler's reasons: the comment lines its source starts with.
        std::istringstream lines(results.schedule_source);
        for (std::string line; std::getline(lines, line) && line.rfind("//", 0) == 0;)
            why += line + "\n";
    }
    const std::string guard = Internal::cpp_identifier(function_name) + "_SCHEDULE_H";
    return "// Written by Loom's generator driver: the schedule of " + function_name +
           ", applied to the same\n// algorithm built elsewhere (a JIT program): "
           "apply_schedule_" +
           function_name + "(pipeline, target).\n" + why + "#ifndef " + guard + "\n#define " +
           guard + "\n\n#include <loom.h>\n\n" +
           apply_schedule_function(p, "apply_schedule_" + Internal::cpp_identifier(function_name)) +
           "\n#endif // " + guard + "\n";
}

} // namespace Internal

namespace {

/** The pipeline's outputs, and a callback printing each warning once (a missing estimate). */
std::vector<Internal::FunctionPtr> output_functions(const Pipeline &p) {
    std::vector<Internal::FunctionPtr> outputs;
    for (const Func &f : p.outputs())
        outputs.push_back(f.function());
    return outputs;
}
std::function<void(const std::string &)> warn_once() {
    auto said = std::make_shared<std::set<std::string>>();
    return [said](const std::string &message) {
        if (said->insert(message).second) std::cerr << "loom: warning: " << message << "\n";
    };
}

/** A scheduler's results: its summary as comments, then the schedule's function. */
std::string schedule_source(const Pipeline &p, const std::string &summary) {
    return Internal::as_comment(summary) +
           Internal::apply_schedule_function(
               p, "apply_schedule_" + Internal::cpp_identifier(p.outputs()[0].name()));
}

void run_heuristic(const Pipeline &p, const Target &target, const MachineParams &params,
                   AutoSchedulerResults *results) {
    results->schedule_source =
        schedule_source(p, Internal::autoschedule::heuristic_schedule(output_functions(p), target,
                                                                      params, warn_once()));
}

/** A seconds value from the environment variable `name`, or `fallback` where it is unset. */
double seconds_from_environment(const char *name, double fallback) {
    const char *text = std::getenv(name);
    if (!text || !*text) return fallback;
    char *end = nullptr;
    const double seconds = std::strtod(text, &end);
    user_assert(*end == 0 && seconds >= 0)
        << name << "=" << text << ": give the budget in seconds (a number, 0 or more).";
    return seconds;
}

/** The search scheduler: its budget from LOOM_SEARCH_BUDGET (seconds, default 10). */
void run_search(const Pipeline &p, const Target &target, const MachineParams &params,
                AutoSchedulerResults *results) {
    Internal::autoschedule::SearchOptions options;
    options.budget_seconds = seconds_from_environment("LOOM_SEARCH_BUDGET", 10);
    results->schedule_source =
        schedule_source(p, Internal::autoschedule::search_schedule(output_functions(p), target,
                                                                   params, warn_once(), options));
}

/** The autotuner as a scheduler: its budget from LOOM_AUTOTUNE_BUDGET (seconds, default 60),
 * its database from LOOM_AUTOTUNE_DB (AutotuneOptions' default). */
void run_autotune(const Pipeline &p, const Target &target, const MachineParams &params,
                  AutoSchedulerResults *results) {
    AutotuneOptions options;
    options.budget_seconds = seconds_from_environment("LOOM_AUTOTUNE_BUDGET", 60);
    Pipeline handle = p;
    *results = autotune(handle, target, params, options);
}

/** The schedulers by name, and the default's name: process-wide, as Halide's are, so that a
 * plugin's static initializers can add to it. Guarded by its mutex. */
struct SchedulerTable {
    std::mutex mutex;
    std::map<std::string, AutoSchedulerFn> schedulers{
        {"Heuristic", run_heuristic}, {"Search", run_search}, {"Autotune", run_autotune}};
    std::string default_name = "Heuristic";

    std::string names() {
        std::string list;
        for (const auto &[name, fn] : schedulers)
            list += (list.empty() ? "" : ", ") + name;
        return list;
    }
};

SchedulerTable &table() {
    static SchedulerTable t;
    return t;
}

/** The scheduler called `name`, or a CompileError naming the ones there are. Called with the
 * table's mutex held. */
AutoSchedulerFn find_scheduler(SchedulerTable &t, const std::string &name, const char *where) {
    auto it = t.schedulers.find(name);
    if (it != t.schedulers.end()) return it->second;
    user_assert(!halide_scheduler_names().count(name))
        << where << "(\"" << name << "\"): " << name
        << " is one of Halide's auto-schedulers, which schedule Halide's IR and do not run on "
           "Loom's. Loom's auto-schedulers are: "
        << t.names() << ". Name one of them (auto_schedule(\"Heuristic\", target, params)).";
    user_error << where << "(\"" << name
               << "\"): no auto-scheduler has that name. Loom's are: " << t.names()
               << "; a program adds its own with Pipeline::add_autoscheduler.";
    return nullptr;
}

} // namespace

AutoSchedulerResults Pipeline::auto_schedule(const Target &target, const MachineParams &params) {
    std::string name;
    {
        std::lock_guard<std::mutex> lock(table().mutex);
        name = table().default_name;
    }
    return auto_schedule(name, target, params);
}

AutoSchedulerResults Pipeline::auto_schedule(const std::string &autoscheduler_name,
                                             const Target &target, const MachineParams &params) {
    AutoSchedulerFn scheduler;
    {
        std::lock_guard<std::mutex> lock(table().mutex);
        scheduler = find_scheduler(table(), autoscheduler_name, "auto_schedule");
    }
    user_assert(!outputs().empty())
        << "auto_schedule(\"" << autoscheduler_name
        << "\") of a Pipeline with no outputs: give it the Funcs to compute.";
    AutoSchedulerResults results;
    results.scheduler_name = autoscheduler_name;
    results.target = target;
    results.machine_params_string = params.to_string();
    scheduler(*this, target, params, &results);
    if (results.schedule_source.empty()) results.schedule_source = schedule_source();
    // LOOM_LOG=autoschedule (a comma-separated list may name more) prints each schedule made.
    if (const char *log = std::getenv("LOOM_LOG");
        log && ("," + std::string(log) + ",").find(",autoschedule,") != std::string::npos) {
        std::cerr << "loom: auto_schedule(\"" << autoscheduler_name << "\") of "
                  << outputs()[0].name() << ":\n"
                  << results.schedule_source;
    }
    return results;
}

void Pipeline::add_autoscheduler(const std::string &autoscheduler_name, const AutoSchedulerFn &fn) {
    std::lock_guard<std::mutex> lock(table().mutex);
    user_assert(fn) << "add_autoscheduler(\"" << autoscheduler_name
                    << "\") with an empty function.";
    user_assert(!table().schedulers.count(autoscheduler_name))
        << "add_autoscheduler(\"" << autoscheduler_name
        << "\"): a scheduler of that name exists already (" << table().names()
        << "). Give the new one another name.";
    table().schedulers[autoscheduler_name] = fn;
}

void Pipeline::set_default_autoscheduler_name(const std::string &autoscheduler_name) {
    std::lock_guard<std::mutex> lock(table().mutex);
    find_scheduler(table(), autoscheduler_name, "set_default_autoscheduler_name");
    table().default_name = autoscheduler_name;
}

void load_plugin(const std::string &lib_name) {
    // Halide's rule: a name without a dot is a library's short name.
    const std::string file =
        lib_name.find('.') == std::string::npos ? "lib" + lib_name + ".so" : lib_name;
    auto lowercase = [](const std::string &text) {
        std::string out;
        for (char c : text)
            out += (char)std::tolower((unsigned char)c);
        return out;
    };
    const std::string lower = lowercase(file);
    std::string names;
    {
        std::lock_guard<std::mutex> lock(table().mutex);
        names = table().names();
    }
    for (const std::string &halide : halide_scheduler_names()) {
        const std::string key = "autoschedule_" + lowercase(halide);
        user_assert(lower.find(key) == std::string::npos)
            << "load_plugin(\"" << lib_name << "\"): that is Halide's " << halide
            << " auto-scheduler, which schedules Halide's IR and does not run on Loom's. Loom's "
               "auto-schedulers are built in: "
            << names << ". Remove the load_plugin call and name one of them in auto_schedule.";
    }
    // The library stays loaded for the rest of the process: the schedulers it added live in it.
    void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL);
    user_assert(handle) << "load_plugin(\"" << lib_name << "\"): can't load " << file << ": "
                        << dlerror()
                        << ". Give the path of a shared library that adds auto-schedulers with "
                           "Pipeline::add_autoscheduler.";
}

} // namespace loom
