// The persistent JIT cache (codegen/JITCache.h): a repeated compile loads the machine code from
// disk, in this process and in a new one, without lowering the pipeline; damaged entries are
// compiled again and never run; the directory stays under its bound; processes compiling at
// once all succeed. (test/jit/jit_cache_key_test.cpp checks the key itself.)
//
// Each test works in a temporary cache directory of its own (LOOM_CACHE_DIR, which child
// processes inherit) and turns the cache on whatever the suite's environment says
// (test/CMakeLists.txt runs the suite with LOOM_JIT_CACHE=0). Child processes are this binary
// again, running JITCacheChild.CompileAndReport with LOOM_JIT_CACHE_TEST_REPORT set.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <loom.h>

#include "codegen/JITCache.h"
#include "lower/Lower.h"

namespace {

using namespace loom;
namespace fs = std::filesystem;

constexpr int kWidth = 64, kHeight = 32;

uint16_t input_value(int x, int y) { return uint16_t((x * 7 + y * 13) & 0xff); }

// A blur with a parallel loop (so that the JIT compiles several objects that call each
// other) whose constant `variant` makes a different pipeline per value.
Func make_blur(const Buffer<uint16_t> &in, int variant) {
    Var x("x"), y("y"), xi("xi");
    Func clamped("clamped"), bx("bx"), out("out");
    clamped(x, y) = in(clamp(x, 0, kWidth - 1), clamp(y, 0, kHeight - 1));
    bx(x, y) = (clamped(x - 1, y) + clamped(x, y) + clamped(x + 1, y)) / 3;
    out(x, y) = cast<uint16_t>((bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3 + variant);
    out.parallel(y).vectorize(x, 8);
    bx.compute_at(out, y).vectorize(x, 8);
    return out;
}

uint16_t expected_blur(int x, int y, int variant) {
    auto in = [](int x, int y) {
        return input_value(std::min(std::max(x, 0), kWidth - 1), std::min(std::max(y, 0), kHeight - 1));
    };
    auto bx = [&](int x, int y) { return uint16_t((in(x - 1, y) + in(x, y) + in(x + 1, y)) / 3); };
    return uint16_t((bx(x, y - 1) + bx(x, y) + bx(x, y + 1)) / 3 + variant);
}

// Named: an unnamed Buffer gets a name from a count of the process's Buffers, which would
// make each definition of the pipeline a different one (its name is in the code).
Buffer<uint16_t> make_input() {
    Buffer<uint16_t> in({kWidth, kHeight}, "input");
    for (int y = 0; y < kHeight; y++)
        for (int x = 0; x < kWidth; x++) in(x, y) = input_value(x, y);
    return in;
}

struct Compiled {
    bool from_cache = false;
    int wrong = 0;  // output values that differ from the reference
    int lowered = 0;  // times the pipeline was lowered
};

// Defines the pipeline anew (as a new process would), compiles it, runs it and checks it.
Compiled compile_and_run(int variant, const CompileOptions &options = CompileOptions()) {
    Buffer<uint16_t> in = make_input();
    Pipeline p(make_blur(in, variant));
    p.set_options(options);
    Buffer<uint16_t> out(kWidth, kHeight);
    const uint64_t lowerings = Internal::lowerings_run();
    p.realize(out);
    Compiled c;
    c.lowered = int(Internal::lowerings_run() - lowerings);
    c.from_cache = p.last_compile_from_cache();
    for (int y = 0; y < kHeight; y++)
        for (int x = 0; x < kWidth; x++) c.wrong += out(x, y) != expected_blur(x, y, variant);
    return c;
}

std::vector<fs::path> entries(const fs::path &dir) {
    std::vector<fs::path> found;
    std::error_code ec;
    for (const auto &e : fs::directory_iterator(dir, ec))
        if (e.path().extension() == ".loomjit") found.push_back(e.path());
    std::sort(found.begin(), found.end());
    return found;
}

uint64_t total_bytes(const fs::path &dir) {
    uint64_t total = 0;
    for (const fs::path &p : entries(dir)) total += fs::file_size(p);
    return total;
}

std::string read_bytes(const fs::path &p) {
    std::ifstream f(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(f), {});
}

void write_bytes(const fs::path &p, const std::string &bytes) {
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f.write(bytes.data(), (std::streamsize)bytes.size());
}

class JITCache : public ::testing::Test {
protected:
    fs::path dir;

    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "loom-jit-cache-test.XXXXXX").string();
        ASSERT_NE(mkdtemp(&pattern[0]), nullptr);
        dir = pattern;
        setenv("LOOM_CACHE_DIR", dir.c_str(), 1);
        unsetenv("LOOM_JIT_CACHE");
        unsetenv("LOOM_JIT_CACHE_MAX_BYTES");
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir, ec);
    }

    // Starts this binary as a child that compiles `variant`; returns its pid. The child
    // writes "<hit|miss> <wrong values>" to `report`. posix_spawn, not fork: this process has
    // threads (the thread pool, compile workers), and a forked child may run only
    // async-signal-safe code before it execs.
    pid_t start_child(int variant, const fs::path &report) {
        std::vector<std::string> env_strings = {
            "LOOM_JIT_CACHE_TEST_REPORT=" + report.string(),
            "LOOM_JIT_CACHE_TEST_VARIANT=" + std::to_string(variant)};
        for (char **e = environ; *e; e++) env_strings.push_back(*e);
        std::vector<char *> envp;
        for (std::string &e : env_strings) envp.push_back(&e[0]);
        envp.push_back(nullptr);
        std::string exe = fs::read_symlink("/proc/self/exe").string();
        std::string filter = "--gtest_filter=JITCacheChild.CompileAndReport";
        char *argv[] = {&exe[0], &filter[0], nullptr};
        // The child's output goes to <report>.out, shown when it fails.
        const std::string out = report.string() + ".out";
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        posix_spawn_file_actions_adddup2(&actions, 1, 2);
        pid_t pid = -1;
        if (posix_spawn(&pid, exe.c_str(), &actions, nullptr, argv, envp.data()) != 0) pid = -1;
        posix_spawn_file_actions_destroy(&actions);
        return pid;
    }

    // The child's report ("hit" or "miss", the number of wrong values, the number of times it
    // lowered the pipeline) once it exited, or a message saying how it failed.
    std::string wait_child(pid_t pid, const fs::path &report) {
        int status = 0;
        if (pid < 0) return "posix_spawn failed";
        if (waitpid(pid, &status, 0) != pid) return "waitpid failed";
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            return "child failed, status " + std::to_string(status) + ":\n" +
                   read_bytes(report.string() + ".out");
        return read_bytes(report);
    }
};

TEST_F(JITCache, SecondCompileLoadsTheSameCode) {
    Compiled first = compile_and_run(0);
    EXPECT_FALSE(first.from_cache);
    EXPECT_EQ(first.wrong, 0);
    EXPECT_EQ(first.lowered, 1);
    std::vector<fs::path> stored = entries(dir);
    ASSERT_EQ(stored.size(), 1u);
    const std::string entry = read_bytes(stored[0]);

    // The cache is looked up by the pipeline's definition: a hit lowers nothing.
    Compiled second = compile_and_run(0);
    EXPECT_TRUE(second.from_cache);
    EXPECT_EQ(second.wrong, 0);
    EXPECT_EQ(second.lowered, 0);
    // A hit rewrites nothing.
    EXPECT_EQ(entries(dir), stored);
    EXPECT_EQ(read_bytes(stored[0]), entry);

    // Another pipeline is another entry.
    EXPECT_FALSE(compile_and_run(1).from_cache);
    EXPECT_EQ(entries(dir).size(), 2u);
}

TEST_F(JITCache, OptionsAndEnvironmentTurnItOff) {
    CompileOptions off;
    off.jit_cache = false;
    EXPECT_FALSE(compile_and_run(0, off).from_cache);
    EXPECT_TRUE(entries(dir).empty());

    setenv("LOOM_JIT_CACHE", "0", 1);
    EXPECT_FALSE(compile_and_run(0).from_cache);
    EXPECT_TRUE(entries(dir).empty());
    unsetenv("LOOM_JIT_CACHE");

    // CompileOptions::jit_cache_dir wins over LOOM_CACHE_DIR.
    CompileOptions elsewhere;
    elsewhere.jit_cache_dir = (dir / "elsewhere").string();
    EXPECT_FALSE(compile_and_run(0, elsewhere).from_cache);
    EXPECT_TRUE(compile_and_run(0, elsewhere).from_cache);
    EXPECT_EQ(entries(dir / "elsewhere").size(), 1u);
    EXPECT_TRUE(entries(dir).empty());
}

TEST_F(JITCache, ADirectoryThatCantBeWrittenNeverFailsACompile) {
    // A path below a regular file: nothing can be created there (even by root).
    write_bytes(dir / "file", "not a directory");
    CompileOptions options;
    options.jit_cache_dir = (dir / "file" / "cache").string();
    for (int i = 0; i < 2; i++) {
        Compiled c = compile_and_run(0, options);
        EXPECT_FALSE(c.from_cache);
        EXPECT_EQ(c.wrong, 0);
    }
}

TEST_F(JITCache, ANewProcessLoadsFromDisk) {
    EXPECT_FALSE(compile_and_run(2).from_cache);
    const fs::path report = dir / "report";
    // Loaded without lowering, and run: the same values.
    EXPECT_EQ(wait_child(start_child(2, report), report), "hit 0 0");
    // A pipeline this process never compiled is a miss there, then stored for the next one.
    EXPECT_EQ(wait_child(start_child(3, report), report), "miss 0 1");
    EXPECT_TRUE(compile_and_run(3).from_cache);
}

TEST_F(JITCache, ProcessesCompilingAtOnceAllSucceed) {
    constexpr int kChildren = 4;
    std::vector<pid_t> pids;
    for (int i = 0; i < kChildren; i++) pids.push_back(start_child(4, dir / ("report" + std::to_string(i))));
    for (int i = 0; i < kChildren; i++) {
        std::string r = wait_child(pids[i], dir / ("report" + std::to_string(i)));
        EXPECT_TRUE(r == "hit 0 0" || r == "miss 0 1") << "child " << i << ": " << r;
    }
    // One whole entry, whichever child wrote it last.
    EXPECT_EQ(entries(dir).size(), 1u);
    EXPECT_TRUE(compile_and_run(4).from_cache);
}

// Each kind of damage: the entry is not used, the pipeline is compiled (right values), and the
// entry written again (the next compile hits).
TEST_F(JITCache, DamagedEntriesAreCompiledAgain) {
    struct Damage {
        const char *what;
        std::string (*apply)(std::string);
    };
    const Damage damages[] = {
        {"cut short", [](std::string b) { return b.substr(0, b.size() - 100); }},
        {"cut to half its header", [](std::string b) { return b.substr(0, 20); }},
        {"empty", [](std::string) { return std::string(); }},
        {"a payload byte flipped", [](std::string b) { b[b.size() - 50] ^= 0x10; return b; }},
        {"a key byte flipped", [](std::string b) { b[40 + 20] ^= 0x01; return b; }},
        {"the magic changed", [](std::string b) { b[0] = 'X'; return b; }},
        {"the format version changed", [](std::string b) { b[8] ^= 0x7f; return b; }},
        {"the length grew", [](std::string b) { b[24] ^= 0x01; return b; }},
        {"the checksum flipped", [](std::string b) { b[32] ^= 0x01; return b; }},
        {"garbage appended", [](std::string b) { return b + "garbage"; }},
    };
    EXPECT_FALSE(compile_and_run(5).from_cache);
    ASSERT_EQ(entries(dir).size(), 1u);
    const fs::path entry = entries(dir)[0];
    const std::string good = read_bytes(entry);
    for (const Damage &d : damages) {
        SCOPED_TRACE(d.what);
        write_bytes(entry, d.apply(good));
        Compiled c = compile_and_run(5);
        EXPECT_FALSE(c.from_cache);
        EXPECT_EQ(c.wrong, 0);
        EXPECT_EQ(read_bytes(entry), good);
        EXPECT_TRUE(compile_and_run(5).from_cache);
    }
}

// An entry whose bytes are whole but were stored for another key (as two keys with one hash
// would be): told apart by the key it carries.
TEST_F(JITCache, AnEntryOfAnotherKeyIsNotUsed) {
    compile_and_run(6);
    const fs::path six = entries(dir).at(0);
    compile_and_run(7);
    std::vector<fs::path> both = entries(dir);
    ASSERT_EQ(both.size(), 2u);
    const fs::path seven = both[0] == six ? both[1] : both[0];
    fs::copy_file(six, seven, fs::copy_options::overwrite_existing);
    Compiled c = compile_and_run(7);
    EXPECT_FALSE(c.from_cache);
    EXPECT_EQ(c.wrong, 0);  // 6's code would add 6, not 7
    EXPECT_TRUE(compile_and_run(7).from_cache);
}

TEST_F(JITCache, EvictionKeepsTheLeastRecentlyUsedOut) {
    compile_and_run(10);
    const fs::path a = entries(dir).at(0);
    const uint64_t one = fs::file_size(a);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    compile_and_run(11);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // A hit makes 10's entry the most recently used; 11's is now the least.
    EXPECT_TRUE(compile_and_run(10).from_cache);
    std::this_thread::sleep_for(std::chrono::milliseconds(20));

    // Room for two entries of this size, not three.
    CompileOptions bounded;
    bounded.jit_cache_max_bytes = int64_t(one * 5 / 2);
    EXPECT_FALSE(compile_and_run(12, bounded).from_cache);
    EXPECT_LE(total_bytes(dir), uint64_t(bounded.jit_cache_max_bytes));
    EXPECT_EQ(entries(dir).size(), 2u);
    EXPECT_TRUE(compile_and_run(10).from_cache);
    EXPECT_TRUE(compile_and_run(12).from_cache);
    EXPECT_FALSE(compile_and_run(11, bounded).from_cache);  // evicted; now 10 goes (LRU)

    // The environment's bound, where the options give none; many entries, always under it.
    setenv("LOOM_JIT_CACHE_MAX_BYTES", std::to_string(one * 7 / 2).c_str(), 1);
    for (int v = 20; v < 28; v++) {
        EXPECT_EQ(compile_and_run(v).wrong, 0);
        EXPECT_LE(total_bytes(dir), one * 7 / 2) << "after variant " << v;
    }
    EXPECT_EQ(entries(dir).size(), 3u);
}

// The key holds no value of a Param and no shape or contents of an input: a hit runs the
// loaded code on this process's values, read through its arguments.
TEST_F(JITCache, AHitReadsThisProcesssParamsAndBuffers) {
    auto run = [](int add, int width, int height, int *wrong) {
        Buffer<uint16_t> table({width, height}, "table");  // embedded
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) table(x, y) = uint16_t(x * 3 + y);
        ImageParam image(UInt(16), 2, "image");
        Buffer<uint16_t> bound({width, height}, "bound");
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++) bound(x, y) = uint16_t(x ^ y);
        image.set(bound);
        Param<int> offset("offset");
        offset.set(add);
        Var x("x"), y("y");
        Func f("f");
        f(x, y) = cast<uint16_t>(table(x, y) + image(width - 1 - x, y) + offset);
        f.vectorize(x, 8, TailStrategy::GuardWithIf);
        Pipeline p(f);
        Buffer<uint16_t> out(width, height);
        const uint64_t lowerings = Internal::lowerings_run();
        p.realize(out);
        *wrong = 0;
        for (int y = 0; y < height; y++)
            for (int x = 0; x < width; x++)
                *wrong += out(x, y) != uint16_t(x * 3 + y + ((width - 1 - x) ^ y) + add);
        return std::make_pair(p.last_compile_from_cache(), int(Internal::lowerings_run() - lowerings));
    };
    int wrong = -1;
    EXPECT_EQ(run(3, 64, 32, &wrong), std::make_pair(false, 1));
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(run(5, 64, 32, &wrong), std::make_pair(true, 0));
    EXPECT_EQ(wrong, 0);
    // Other sizes: only the definition's constants (64 - 1 here) are in the code.
    int other = -1;
    EXPECT_EQ(run(5, 64, 20, &other), std::make_pair(true, 0));
    EXPECT_EQ(other, 0);
}

// Within a process, a Pipeline reuses its code while its definition key is unchanged: any
// directive given after a realize (a prefetch, a LoopLevel's stage, which the text
// fingerprint used before did not see) is lowered anew.
TEST_F(JITCache, ADirectiveAfterARealizeCompilesAnew) {
    setenv("LOOM_JIT_CACHE", "0", 1);
    ImageParam in(UInt(16), 2, "in");
    Buffer<uint16_t> input = make_input();
    in.set(input);
    Var x("x"), y("y");
    Func g("g"), f("f");
    g(x, y) = in(x, y) + 1;
    f(x, y) = g(x, y) * 2;
    f(x, y) += cast<uint16_t>(in(x, y) + 1);
    g.compute_root();
    Pipeline p(f);
    Buffer<uint16_t> out(kWidth, kHeight);
    auto lowers = [&] {
        const uint64_t before = Internal::lowerings_run();
        p.realize(out);
        return Internal::lowerings_run() - before;
    };
    EXPECT_EQ(lowers(), 1u);
    EXPECT_EQ(lowers(), 0u);  // nothing changed
    f.prefetch(in, y, y, 2);
    EXPECT_EQ(lowers(), 1u);
    g.compute_at(f, y);  // the first stage of f that reads g: stage 0
    EXPECT_EQ(lowers(), 1u);
    g.compute_at(LoopLevel(f, y, 0));  // the same loop, named by its stage
    EXPECT_EQ(lowers(), 1u);
    EXPECT_EQ(lowers(), 0u);
    for (int yy = 0; yy < kHeight; yy++)
        for (int xx = 0; xx < kWidth; xx++)
            ASSERT_EQ(out(xx, yy), uint16_t((input_value(xx, yy) + 1) * 3)) << xx << ", " << yy;
    unsetenv("LOOM_JIT_CACHE");
}

// Options that ask for the lowering's log or checks lower the pipeline (to log or check it)
// but still load the machine code from the cache.
TEST_F(JITCache, VerifyingTheLoweringStillLoadsTheCode) {
    EXPECT_FALSE(compile_and_run(8).from_cache);
    CompileOptions verify;
    verify.verify_ir = true;
    Compiled c = compile_and_run(8, verify);
    EXPECT_TRUE(c.from_cache);
    EXPECT_EQ(c.lowered, 1);
    EXPECT_EQ(c.wrong, 0);
}

// An entry whose bytes are whole and whose key matches, but made for another entry point or
// other arguments than the pipeline's (as a key that missed a field would give), is dropped,
// never run.
TEST_F(JITCache, AnEntryForOtherArgumentsIsNotRun) {
    EXPECT_FALSE(compile_and_run(9).from_cache);
    ASSERT_EQ(entries(dir).size(), 1u);
    const std::string bytes = read_bytes(entries(dir)[0]);
    uint64_t key_bytes = 0;
    std::memcpy(&key_bytes, bytes.data() + 16, 8);  // the header's key length
    const std::string key = bytes.substr(40, key_bytes);
    const Internal::JITCache cache{CompileOptions()};
    std::optional<Internal::JITCacheEntry> entry = cache.load(key);
    ASSERT_TRUE(entry.has_value());
    // The entry point's name ("loom_pipelineout") with one letter changed; stored whole, with
    // its checksum.
    const size_t at = entry->interface.find("loom_pipelineout");
    ASSERT_NE(at, std::string::npos);
    entry->interface[at + 15] = 'u';
    cache.store(key, *entry);
    Compiled c = compile_and_run(9);
    EXPECT_FALSE(c.from_cache);
    EXPECT_EQ(c.wrong, 0);
    EXPECT_TRUE(compile_and_run(9).from_cache);  // compiled and stored anew
}

// A GPU pipeline's PTX is constant data in its host object: a cached entry holds it, so a hit
// needs nothing else (compiling needs no GPU driver; running it does, see loom_gpu_test).
TEST_F(JITCache, GPUPipelinesKeepTheirPTX) {
    auto compile = [] {
        ImageParam in(UInt(8), 2, "in");
        Func f("f");
        Var x("x"), y("y"), tx("tx"), ty("ty");
        f(x, y) = in(x, y) + 1;
        f.gpu_tile(x, y, tx, ty, 32, 4);
        Pipeline p(f);
        p.compile_jit(get_host_target().with_feature(Target::CUDA));
        return p.last_compile_from_cache();
    };
    EXPECT_FALSE(compile());
    EXPECT_TRUE(compile());
    ASSERT_EQ(entries(dir).size(), 1u);
    const std::string entry = read_bytes(entries(dir)[0]);
    EXPECT_NE(entry.find(".entry loom_kernel_0_f"), std::string::npos);
}

// Run as a child by the tests above (skipped otherwise): compiles one variant and reports.
TEST(JITCacheChild, CompileAndReport) {
    const char *report = std::getenv("LOOM_JIT_CACHE_TEST_REPORT");
    if (!report) GTEST_SKIP() << "run by JITCache tests in a child process";
    Compiled c = compile_and_run(std::atoi(std::getenv("LOOM_JIT_CACHE_TEST_VARIANT")));
    std::ofstream(report) << (c.from_cache ? "hit " : "miss ") << c.wrong << " " << c.lowered;
}

}  // namespace
