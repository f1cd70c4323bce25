// Where the JIT puts a pipeline's machine code must not matter. A pipeline compiled on several
// threads is several objects (codegen/ParallelCompile), and the JIT maps each with mmap wherever
// the kernel finds room: in a long-running process with large buffers or many pipelines (or
// under AddressSanitizer, whose shadow memory spreads the address space out), two objects of one
// pipeline can land more than 2 GiB apart, beyond any 32-bit displacement.
//
// This binary defines mmap itself, so that LLVM's calls to it come here. While `spread` is set,
// every mapping the caller lets the kernel place is asked for 8 GiB below the last one (a hint,
// never MAP_FIXED): each object of a pipeline lands far from every other, deterministically. The
// pipelines must still link, run and give the right values.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <mutex>
#include <cstdint>
#include <set>

#include <loom.h>

namespace {

std::atomic<bool> spread{false};
std::atomic<uintptr_t> next_hint{uintptr_t(0x600000000000)};
constexpr uintptr_t kSpacing = uintptr_t(8) << 30;

// Where the spread mappings landed (their start addresses), to show they are far apart.
std::mutex placed_lock;
std::set<uintptr_t> placed;

} // namespace

// Interposes the C library's mmap for the whole process (LLVM's JIT memory manager calls it
// through the dynamic linker); the real work is the system call.
extern "C" void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset) {
    const bool move = spread.load() && addr == nullptr && !(flags & MAP_FIXED);
    if (move) addr = reinterpret_cast<void *>(next_hint.fetch_sub(kSpacing));
    long result = syscall(SYS_mmap, addr, length, prot, flags, fd, offset);
    if (result < 0 && result > -4096) {
        errno = int(-result);
        return MAP_FAILED;
    }
    if (move) {
        std::lock_guard<std::mutex> hold(placed_lock);
        placed.insert(uintptr_t(result));
    }
    return reinterpret_cast<void *>(result);
}

namespace {

using namespace loom;

// Turns the spreading on for one scope.
struct Spread {
    Spread() {
        std::lock_guard<std::mutex> hold(placed_lock);
        placed.clear();
        spread = true;
    }
    ~Spread() { spread = false; }
};

// A pipeline whose parallel loops become closures compiled into objects of their own, which
// the entry refers to (the closure's address goes to the thread pool), and an intermediate
// with a parallel loop of its own.
Func parallel_pipeline(ImageParam &in) {
    Var x("x"), y("y"), yo("yo"), yi("yi");
    Func g("g"), f("f");
    g(x, y) = in(x, y) * 3 + 1;
    f(x, y) = g(x, y) + g(x, y + 1) * 2;
    g.compute_root().parallel(y).vectorize(x, 8);
    f.split(y, yo, yi, 4).parallel(yo).vectorize(x, 8);
    return f;
}

TEST(JITPlacement, ObjectsOfOnePipelineMappedFarApartStillLink) {
    const int w = 37, h = 29;
    Buffer<int> input(w, h + 1);
    for (int y = 0; y < h + 1; y++)
        for (int x = 0; x < w; x++) input(x, y) = x * 5 - y * 3;
    for (int round = 0; round < 3; round++) {
        ImageParam in(Int(32), 2, "in");
        Func f = parallel_pipeline(in);
        Pipeline p(f);
        CompileOptions options;
        options.compile_threads = 3; // closures and the entry in separate objects
        p.set_options(options);
        {
            Spread apart;
            p.compile_jit();
        }
        {
            std::lock_guard<std::mutex> hold(placed_lock);
            ASSERT_GE(placed.size(), 2u) << "the JIT mapped fewer than two regions while spread";
            EXPECT_GE(*placed.rbegin() - *placed.begin(), uintptr_t(4) << 30)
                << "the spread mappings are not more than 2 GiB apart; the test shows nothing";
        }
        in.set(input);
        Buffer<int> out = p.realize({w, h});
        for (int y = 0; y < h; y++)
            for (int x = 0; x < w; x++) {
                const int g0 = input(x, y) * 3 + 1, g1 = input(x, y + 1) * 3 + 1;
                ASSERT_EQ(out(x, y), g0 + g1 * 2) << "at " << x << ", " << y;
            }
    }
}

} // namespace
