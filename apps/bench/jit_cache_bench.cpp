// loom_jit_cache_bench: what Loom's persistent JIT cache (codegen/JITCache.h) saves, per app.
//
//   loom_jit_cache_bench [--apps=a,b,...] [--benchmark_* flags of Google Benchmark]
//
// Four times per app (its hand schedule), each from the pipeline's definition to runnable code
// (Runner::compile_seconds: building the Funcs, the cache's lookup by their definition, and
// on a miss lowering and LLVM):
//   NewProcess/Cold  this binary started again (--child), compiling with the cache off;
//   NewProcess/Warm  the same with the cache holding the pipeline: what a repeated program pays;
//   SameProcess/Cold and SameProcess/Warm: the same compiles, repeated in this process.
// A new process's time includes LLVM's one-time start-up (its targets, the first TargetMachine)
// but not loading the binary; its wall time from spawn to exit is the counter process_ms. The
// counter median_ms is the median of a new process's iterations (the mean, Time, moves with
// whatever else the machine runs).
// The cache lives in a temporary directory (LOOM_CACHE_DIR), deleted at the end.
#include <benchmark/benchmark.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "apps/common/App.h"

extern char **environ;

using namespace loom_apps;
namespace fs = std::filesystem;

namespace {

std::string g_self;  // this binary

// The child's work: compile one app's hand schedule once, print seconds and hit or miss.
int run_child(const std::string &name) {
    std::unique_ptr<App> app = make_app(name);
    app->prepare(Size::Test);
    Runner r = app->compile_loom(Variant::Hand);
    std::printf("%.9f %d\n", r.compile_seconds, r.from_cache ? 1 : 0);
    return 0;
}

struct ChildResult {
    double compile_seconds = 0;
    double process_seconds = 0;
    bool from_cache = false;
};

// Runs this binary as a child compiling `app`, with the cache on or off.
ChildResult spawn_child(const std::string &app, bool cache) {
    std::vector<std::string> env = {std::string("LOOM_JIT_CACHE=") + (cache ? "1" : "0")};
    for (char **e = environ; *e; e++) {
        if (std::strncmp(*e, "LOOM_JIT_CACHE=", 15) != 0) env.push_back(*e);
    }
    std::vector<char *> envp;
    for (std::string &e : env) envp.push_back(&e[0]);
    envp.push_back(nullptr);
    std::string arg = "--child=" + app;
    char *argv[] = {&g_self[0], &arg[0], nullptr};
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    auto start = std::chrono::steady_clock::now();
    pid_t pid = -1;
    int spawned = posix_spawn(&pid, g_self.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (spawned != 0) throw std::runtime_error("posix_spawn failed");
    std::string out;
    char buf[256];
    for (ssize_t n; (n = read(pipe_fds[0], buf, sizeof buf)) > 0;) out.append(buf, (size_t)n);
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    ChildResult r;
    r.process_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    int hit = 0;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        std::sscanf(out.c_str(), "%lf %d", &r.compile_seconds, &hit) != 2) {
        throw std::runtime_error("the child compiling " + app + " failed: " + out);
    }
    r.from_cache = hit != 0;
    return r;
}

void new_process(benchmark::State &state, const std::string &app, bool cache) {
    double process = 0;
    std::vector<double> times;
    for (auto _ : state) {
        ChildResult r = spawn_child(app, cache);
        if (r.from_cache != cache) {
            state.SkipWithError(cache ? "the warm child missed the cache" : "a cold child hit it");
            return;
        }
        state.SetIterationTime(r.compile_seconds);
        process += r.process_seconds;
        times.push_back(r.compile_seconds);
    }
    state.counters["process_ms"] = process * 1e3 / (double)state.iterations();
    std::sort(times.begin(), times.end());
    state.counters["median_ms"] = times[times.size() / 2] * 1e3;
}

void same_process(benchmark::State &state, const std::string &app, bool cache) {
    setenv("LOOM_JIT_CACHE", cache ? "1" : "0", 1);
    std::unique_ptr<App> a = make_app(app);
    a->prepare(Size::Test);
    for (auto _ : state) {
        Runner r = a->compile_loom(Variant::Hand);
        if (r.from_cache != cache) {
            state.SkipWithError(cache ? "the warm compile missed the cache" : "a cold compile hit it");
            return;
        }
        state.SetIterationTime(r.compile_seconds);
    }
}

} // namespace

int main(int argc, char **argv) {
    std::vector<std::string> apps = {"blur", "local_laplacian", "camera_pipe", "matmul_1024"};
    std::vector<char *> gb_args = {argv[0]};
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        if (a.rfind("--child=", 0) == 0) return run_child(a.substr(8));
        if (a.rfind("--apps=", 0) == 0) {
            apps = split_commas(a.substr(7));
        } else {
            gb_args.push_back(argv[i]);
        }
    }
    g_self = fs::read_symlink("/proc/self/exe").string();
    std::string dir = (fs::temp_directory_path() / "loom-jit-cache-bench.XXXXXX").string();
    if (!mkdtemp(&dir[0])) {
        std::perror("mkdtemp");
        return 1;
    }
    setenv("LOOM_CACHE_DIR", dir.c_str(), 1);
    unsetenv("LOOM_JIT_CACHE_MAX_BYTES");
    try {
        for (const std::string &app : apps) {
            // Fills the cache: every warm benchmark finds the pipeline there.
            ChildResult fill = spawn_child(app, true);
            std::printf("%s: first compile in a new process %.1f ms (%s)\n", app.c_str(),
                        fill.compile_seconds * 1e3, fill.from_cache ? "hit" : "miss, stored");
            for (bool cache : {false, true}) {
                const char *kind = cache ? "Warm" : "Cold";
                benchmark::RegisterBenchmark(("NewProcess/" + std::string(kind) + "/" + app).c_str(),
                                             [app, cache](benchmark::State &s) { new_process(s, app, cache); })
                    ->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(cache ? 20 : 5);
                benchmark::RegisterBenchmark(("SameProcess/" + std::string(kind) + "/" + app).c_str(),
                                             [app, cache](benchmark::State &s) { same_process(s, app, cache); })
                    ->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
            }
        }
        int n = (int)gb_args.size();
        benchmark::Initialize(&n, gb_args.data());
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
    } catch (const std::exception &e) {
        std::fprintf(stderr, "%s\n", e.what());
        fs::remove_all(dir);
        return 1;
    }
    fs::remove_all(dir);
    return 0;
}
