// Automatic schedules, with Halide 14's API: Pipeline::auto_schedule runs a named scheduler over
// the pipeline's Funcs, which it schedules in place, and returns what it did as
// AutoSchedulerResults. Loom's schedulers are built in ("Heuristic", the default); a program may
// add its own (Pipeline::add_autoscheduler), also from a shared library (load_plugin). Halide's
// plugins (Mullapudi2016, Adams2019, Li2018) schedule Halide's IR and are not loaded: naming
// them is an error that names Loom's.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dsl/MachineParams.h"
#include "dsl/Target.h"

namespace loom {

class Pipeline;

struct AutoSchedulerResults {
    /** The scheduler that ran. */
    std::string scheduler_name;
    Target target;
    /** The MachineParams it was given, in MachineParams::to_string()'s form. */
    std::string machine_params_string;
    /** C++ source that applies the same schedule when pasted into the program: Loom's
     * schedulers write a function, apply_schedule_<output>(Pipeline, const Target & = {}), that
     * takes each Func it
     * schedules from the pipeline (get_func) and schedules it, after comment lines saying why
     * each Func is where it is. */
    std::string schedule_source;
    /** Halide's learned schedulers fill it; Loom's leave it empty. */
    std::vector<uint8_t> featurization;
};

/** A scheduler: schedules the pipeline's Funcs (through their scheduling directives) and fills
 * in `results`' schedule_source if it wants to say more than the directives; the other fields
 * are filled in by auto_schedule. */
using AutoSchedulerFn = std::function<void(const Pipeline &, const Target &, const MachineParams &,
                                           AutoSchedulerResults *)>;

/** Loads a shared library (as Halide's load_plugin: "foo" means libfoo.so; a name with a dot
 * is a path) whose static initializers add schedulers with Pipeline::add_autoscheduler. Halide's
 * auto-scheduler plugins are refused with an error naming Loom's schedulers. */
void load_plugin(const std::string &lib_name);

namespace Internal {

/** The pipeline's current schedule as C++: a function `function_name(loom::Pipeline, const
 * loom::Target & = {})` (Halide's signature) that applies it to the pipeline it is given. Every
 * Func it schedules is fetched by index (get_func) and every RVar named, so it needs nothing of
 * the program in scope. */
std::string apply_schedule_function(const Pipeline &p, const std::string &function_name);

/** `function_name`.schedule.h, as the generator driver writes it (-e schedule): the pipeline's
 * schedule as apply_schedule_<function_name>, after comments saying which scheduler made it
 * (from `results`; empty results: written by hand) and why. */
std::string schedule_header(const Pipeline &p, const std::string &function_name,
                            const AutoSchedulerResults &results);

} // namespace Internal

} // namespace loom
