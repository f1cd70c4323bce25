// The autotuner (dsl/Autotune.h) and the knobs it turns (Choices in
// lower/autoschedule/Heuristic.h): candidates measured and recorded, a second run resumed from
// the database, several processes sharing one database, the schedule it keeps giving the
// unscheduled pipeline's bits, and its errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <loom.h>

#include "CompileErrorOf.h"
#include "StencilsPipeline.h"
#include "lower/autoschedule/Heuristic.h"
#include "lower/autoschedule/TuningDatabase.h"

namespace {

using namespace loom;
using Internal::autoschedule::Choices;
using Internal::autoschedule::TuningDatabase;
using loom_test::compile_error_of;
using loom_test::differing;
using loom_test::image;
using loom_test::realized;
using loom_test::run;
using loom_test::Stencils;
using ::testing::HasSubstr;

std::string temp_path(const std::string &name) {
    const std::string path = ::testing::TempDir() + "loom_autotune_" + name;
    std::remove(path.c_str());
    return path;
}

std::string read_file(const std::string &path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

int lines_in(const std::string &text) {
    int n = 0;
    for (char c : text)
        n += c == '\n';
    return n;
}

TEST(Choices, PrintAndParseOneLine) {
    Choices c;
    c.placement["bx"] = "sliding";
    c.placement["f$1"] = "inline";
    c.strip["out"] = 16;
    c.tile["prod/1"] = {4, 2};
    const std::string text = c.to_string();
    EXPECT_EQ(text, "bx=sliding f$1=inline out/strip=16 prod/1/tile=4x2");
    EXPECT_EQ(Choices::parse(text), c);
    EXPECT_THAT(compile_error_of([] { Choices::parse("bx=everywhere"); }),
                HasSubstr("bx takes inline, root, strip, row or sliding, not everywhere"));
    EXPECT_THAT(compile_error_of([] { Choices::parse("out/strip=many"); }),
                HasSubstr("\"many\" is not a number"));
    EXPECT_THAT(compile_error_of([] { Choices::parse("prod/1/tile=4"); }),
                HasSubstr("a tile is ROWSxVECTORS"));
}

// Every value of every knob the heuristic offers on the stencils is a schedule that computes
// the unscheduled pipeline's bits.
TEST(Choices, EveryNeighbourOfTheHeuristicsChoicesGivesTheSameBits) {
    Buffer<float> in = image(512, 384);
    Buffer<float> expected = run(Stencils(), in);

    Stencils s;
    s.input.set(in);
    Pipeline p(s.out);
    std::vector<Internal::FunctionPtr> outputs{s.out.function()};
    Choices made;
    Internal::autoschedule::heuristic_schedule(
        outputs, Target(), MachineParams(2, 32 << 20, 40), [](const std::string &) {}, {}, &made);
    EXPECT_EQ(made.placement.size(), 2u) << made.to_string();
    EXPECT_EQ(made.strip.count("out"), 1u) << made.to_string();
    const auto candidates = Internal::autoschedule::neighbours(made);
    EXPECT_GE(candidates.size(), 16u);
    for (const Choices &c : candidates) {
        Internal::autoschedule::heuristic_schedule(
            outputs, Target(), MachineParams(2, 32 << 20, 40), [](const std::string &) {}, c);
        EXPECT_EQ(differing(realized(p), expected), 0) << c.to_string();
    }
}

TEST(Autotune, MeasuresRecordsAndResumesFromTheDatabase) {
    const std::string db = temp_path("resume.db"), header = temp_path("out.schedule.h");
    Buffer<float> in = image(512, 384);
    Buffer<float> expected = run(Stencils(), in);

    Stencils first;
    first.input.set(in);
    Pipeline p(first.out);
    AutotuneOptions options;
    // The count ends the tuning, not the time: on a loaded machine under the sanitizers the
    // heuristic's schedule alone takes seconds to compile and time, and a budget in seconds
    // left no race there (the CI run of 120016b).
    options.budget_seconds = 300;
    options.max_candidates = 3;
    options.database = db;
    options.progress = false;
    options.schedule_file = header;
    AutoSchedulerResults r = autotune(p, Target(), MachineParams(2, 32 << 20, 40), options);
    EXPECT_EQ(r.scheduler_name, "Autotune");
    EXPECT_THAT(r.schedule_source, HasSubstr("// Autotuned in "));
    // The search scheduler's schedule (a quarter of the budget) is where the climb may start.
    EXPECT_THAT(r.schedule_source, HasSubstr("// the search scheduler's schedule ("));
    EXPECT_THAT(r.schedule_source, HasSubstr("inline void apply_schedule_out(loom::Pipeline"));
    const int measured = lines_in(read_file(db));
    EXPECT_GE(measured, 2) << "the heuristic's schedule and at least one variation";
    EXPECT_LE(measured, 3) << "max_candidates";
    EXPECT_THAT(r.schedule_source,
                HasSubstr(": " + std::to_string(measured) + " candidates measured here, 0 known"));
    EXPECT_THAT(read_file(header), HasSubstr("Auto-scheduled by Autotune"));
    EXPECT_EQ(differing(realized(p), expected), 0);
    EXPECT_THAT(r.schedule_source,
                ::testing::AnyOf(HasSubstr("// confirmed: "), HasSubstr("// not confirmed "),
                                 HasSubstr("// the heuristic's schedule is")));
    // The fastest measurement in the database.
    std::string fastest;
    double least = 1e300;
    std::istringstream lines(read_file(db));
    for (std::string line; std::getline(lines, line);) {
        std::vector<std::string> fields;
        std::istringstream parts(line);
        for (std::string f; std::getline(parts, f, '\t');)
            fields.push_back(f);
        ASSERT_EQ(fields.size(), 4u) << line;
        if (std::stod(fields[2]) < least) {
            least = std::stod(fields[2]);
            fastest = fields[1];
        }
    }

    // A second tuning of the same algorithm and estimates, with no time to measure: it takes
    // the database's fastest without measuring anything.
    Stencils second;
    second.input.set(in);
    Pipeline q(second.out);
    options.budget_seconds = 0;
    options.schedule_file.clear();
    AutoSchedulerResults again = autotune(q, Target(), MachineParams(2, 32 << 20, 40), options);
    EXPECT_THAT(again.schedule_source,
                HasSubstr(": 0 candidates measured here, " + std::to_string(measured) + " known"));
    EXPECT_THAT(again.schedule_source, HasSubstr("// choices: " + fastest + "\n"));
    EXPECT_EQ(lines_in(read_file(db)), measured);

    // Other estimates are another pipeline to the database.
    Stencils larger;
    larger.input.set(in);
    larger.out.set_estimates({{1, 300}, {1, 200}});
    Pipeline l(larger.out);
    AutoSchedulerResults other = autotune(l, Target(), MachineParams(2, 32 << 20, 40), options);
    EXPECT_THAT(other.schedule_source, HasSubstr(": 1 candidates measured here, 0 known"));
}

// An unbound ImageParam is given a buffer of its estimated size for the tuning, and unbound
// after; without estimates, the error names it.
TEST(Autotune, UnboundInputsAreFilledFromTheirEstimatesOrNamed) {
    const std::string db = temp_path("inputs.db");
    AutotuneOptions options;
    options.budget_seconds = 0;
    options.database = db;
    options.progress = false;
    Stencils s;
    Pipeline p(s.out);
    autotune(p, Target(), MachineParams(2, 32 << 20, 40), options);
    EXPECT_THAT(compile_error_of([&] {
                    p.realize({8, 8});
                }),
                HasSubstr("ImageParam input is not bound"));

    ImageParam unsized(Float(32), 2, "unsized");
    Func f("f");
    Var x("x"), y("y");
    f(x, y) = unsized(x, y) + 1.0f;
    f.set_estimates({{0, 64}, {0, 64}});
    Pipeline q(f);
    EXPECT_THAT(compile_error_of([&] { autotune(q, Target(), MachineParams::host(), options); }),
                HasSubstr("ImageParam unsized is bound to no buffer and has no estimate"));
    EXPECT_THAT(compile_error_of([&] {
                    AutotuneOptions bad = options;
                    bad.budget_seconds = -1;
                    autotune(q, Target(), MachineParams::host(), bad);
                }),
                HasSubstr("budget_seconds is -1"));
    EXPECT_THAT(compile_error_of([&] {
                    AutotuneOptions bad = options;
                    bad.max_candidates = -2;
                    autotune(q, Target(), MachineParams::host(), bad);
                }),
                HasSubstr("max_candidates is -2; give the most candidates to measure"));
}

// Processes appending at once to one database: every line whole, every record there.
TEST(TuningDatabase, ProcessesShareOneFile) {
    const std::string path = temp_path("shared.db");
    constexpr int kProcesses = 4, kRecords = 200;
    std::vector<pid_t> children;
    for (int p = 0; p < kProcesses; p++) {
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            TuningDatabase db(path);
            for (int i = 0; i < kRecords; i++) {
                db.record("key" + std::to_string(p), "f=root g/strip=" + std::to_string(i),
                          1e-3 * (i + 1));
            }
            _exit(0);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        waitpid(pid, &status, 0);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    TuningDatabase db(path);
    for (int p = 0; p < kProcesses; p++) {
        std::map<std::string, double> m = db.measured("key" + std::to_string(p));
        ASSERT_EQ(m.size(), (size_t)kRecords);
        EXPECT_DOUBLE_EQ(m.at("f=root g/strip=7"), 8e-3);
    }
    EXPECT_TRUE(db.measured("key").empty()) << "a key is matched whole, not as a prefix";
    // The least time recorded for a choice is the one kept.
    db.record("key0", "f=root g/strip=7", 5e-3);
    EXPECT_DOUBLE_EQ(db.measured("key0").at("f=root g/strip=7"), 5e-3);
}

} // namespace
