// loom_auto_demo: manual against automatic schedules on a pipeline written here, as a user
// would try them. The algorithm, an unsharp mask of a float image (a 5-tap blur along x, then
// along y, then the image plus `amount` times its difference from the blur), is written once;
// then it runs under
//
//   hand       a schedule written by hand: parallel strips of rows, blur_x computed row by row
//              into a sliding window inside each strip, everything vectorized;
//   heuristic  auto_schedule("Heuristic"): Loom's cost model, no measurement;
//   search     auto_schedule("Search"): a beam search under that model (LOOM_SEARCH_BUDGET,
//              default 5 s here);
//   autotune   loom::autotune: candidates compiled and timed here (--autotune-budget seconds,
//              default 15; 0 leaves it out; its database in $LOOM_AUTOTUNE_DB or the default).
//
// For each it prints the schedule the scheduler chose (the C++ that applies it, with the
// reasons), checks the output against a plain C++ reference (every schedule must give the same
// bits; the demo exits nonzero if one does not), and ends with a table of the scheduling time,
// the JIT compile time and the median run time of each, against the hand schedule's.
//
// Usage: loom_auto_demo [width height] [--autotune-budget SECONDS]   (default 2048 2048, 15)

#include <loom.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <functional>
#include <string>
#include <vector>

using namespace loom;

namespace {

constexpr int kTimedRuns = 9;
constexpr float kAmount = 1.5f;
const float kTaps[5] = {1 / 16.f, 4 / 16.f, 6 / 16.f, 4 / 16.f, 1 / 16.f};

double seconds_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

/** The algorithm, built afresh for each schedule (a Func carries its schedule). */
struct Unsharp {
    Var x{"x"}, y{"y"};
    Func clamped{"clamped"}, blur_x{"blur_x"}, blur_y{"blur_y"}, sharp{"sharp"};

    explicit Unsharp(const Buffer<float> &in) {
        clamped = BoundaryConditions::repeat_edge(in);
        Expr bx = 0.0f, by = 0.0f;
        for (int i = 0; i < 5; i++) {
            bx = bx + clamped(x + i - 2, y) * kTaps[i];
        }
        blur_x(x, y) = bx;
        for (int i = 0; i < 5; i++) {
            by = by + blur_x(x, y + i - 2) * kTaps[i];
        }
        blur_y(x, y) = by;
        sharp(x, y) = clamp(clamped(x, y) + kAmount * (clamped(x, y) - blur_y(x, y)), 0.0f, 1.0f);
    }

    void schedule_by_hand() {
        Var yo("yo"), yi("yi");
        sharp.split(y, yo, yi, 32).parallel(yo).vectorize(x, 8);
        blur_x.store_at(sharp, yo).compute_at(sharp, yi).vectorize(x, 8);
    }
};

/** The same arithmetic in plain C++, in the same order, for the check. */
std::vector<float> reference(const Buffer<float> &in) {
    const int w = in.width(), h = in.height();
    auto at = [&](int x, int y) { return in(std::clamp(x, 0, w - 1), std::clamp(y, 0, h - 1)); };
    std::vector<float> bx((size_t)w * (h + 4)), out((size_t)w * h);
    for (int y = -2; y < h + 2; y++) {
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int i = 0; i < 5; i++)
                s = s + at(x + i - 2, y) * kTaps[i];
            bx[(size_t)(y + 2) * w + x] = s;
        }
    }
    for (int y = 0; y < h; y++) {
        for (int x = 0; x < w; x++) {
            float s = 0.0f;
            for (int i = 0; i < 5; i++)
                s = s + bx[(size_t)(y + i) * w + x] * kTaps[i];
            const float v = at(x, y) + kAmount * (at(x, y) - s);
            out[(size_t)y * w + x] = std::min(std::max(v, 0.0f), 1.0f);
        }
    }
    return out;
}

struct Result {
    std::string name;
    double schedule_s = 0, compile_s = 0, run_ms = 0;
};

} // namespace

int main(int argc, char **argv) {
    int w = 2048, h = 2048;
    double autotune_budget = 15;
    std::vector<int> sizes;
    for (int i = 1; i < argc; i++) {
        if (std::strcmp(argv[i], "--autotune-budget") == 0 && i + 1 < argc) {
            autotune_budget = std::atof(argv[++i]);
        } else {
            sizes.push_back(std::atoi(argv[i]));
        }
    }
    if (sizes.size() == 2) {
        w = sizes[0];
        h = sizes[1];
    }
    if (w < 8 || h < 8 || (!sizes.empty() && sizes.size() != 2)) {
        std::fprintf(stderr, "usage: %s [width height] [--autotune-budget SECONDS]\n", argv[0]);
        return 2;
    }
    if (!std::getenv("LOOM_SEARCH_BUDGET")) setenv("LOOM_SEARCH_BUDGET", "5", 1);
    try {
        Buffer<float> in(w, h);
        uint32_t state = 7;
        in.for_each_position([&](const std::vector<int> &p) {
            state = state * 1664525u + 1013904223u;
            in(p) = (float)(state >> 8) / (float)(1 << 24);
        });
        const std::vector<float> want = reference(in);

        using Scheduler = std::function<std::string(Unsharp &, Pipeline &)>;
        std::vector<std::pair<std::string, Scheduler>> variants = {
            {"hand",
             [](Unsharp &u, Pipeline &) {
                 u.schedule_by_hand();
                 return std::string();
             }},
            {"heuristic",
             [](Unsharp &, Pipeline &p) {
                 return p.auto_schedule("Heuristic", get_host_target(), MachineParams::host())
                     .schedule_source;
             }},
            {"search",
             [](Unsharp &, Pipeline &p) {
                 return p.auto_schedule("Search", get_host_target(), MachineParams::host())
                     .schedule_source;
             }},
        };
        if (autotune_budget > 0) {
            variants.push_back({"autotune", [autotune_budget](Unsharp &, Pipeline &p) {
                                    AutotuneOptions o;
                                    o.budget_seconds = autotune_budget;
                                    return autotune(p, get_host_target(), MachineParams::host(), o)
                                        .schedule_source;
                                }});
        }

        std::vector<Result> results;
        bool all_match = true;
        for (const auto &[name, schedule] : variants) {
            Unsharp u(in);
            u.sharp.set_estimates({{0, w}, {0, h}});
            Pipeline p(u.sharp);
            Result r{name};
            auto t = std::chrono::steady_clock::now();
            const std::string source = schedule(u, p);
            r.schedule_s = seconds_since(t);
            std::printf("==== %s ====\n%s", name.c_str(),
                        source.empty() ? "(the schedule in Unsharp::schedule_by_hand)\n"
                                       : source.c_str());
            t = std::chrono::steady_clock::now();
            p.compile_jit();
            r.compile_s = seconds_since(t);
            Buffer<float> out(w, h);
            p.realize(out);
            std::vector<double> ms;
            for (int i = 0; i < kTimedRuns; i++) {
                t = std::chrono::steady_clock::now();
                p.realize(out);
                ms.push_back(seconds_since(t) * 1e3);
            }
            std::sort(ms.begin(), ms.end());
            r.run_ms = ms[ms.size() / 2];
            int64_t differ = 0;
            for (int yy = 0; yy < h; yy++) {
                for (int xx = 0; xx < w; xx++) {
                    differ += std::memcmp(&out(xx, yy), &want[(size_t)yy * w + xx], 4) != 0;
                }
            }
            std::printf("%s: %s\n\n", name.c_str(),
                        differ == 0 ? "matches the C++ reference bit for bit"
                                    : (std::to_string(differ) + " values differ").c_str());
            all_match = all_match && differ == 0;
            results.push_back(r);
        }

        std::printf("unsharp mask of %dx%d floats, median of %d runs:\n", w, h, kTimedRuns);
        std::printf("  %-10s %12s %12s %10s %9s\n", "schedule", "scheduling s", "compile ms",
                    "run ms", "vs hand");
        for (const Result &r : results) {
            std::printf("  %-10s %12.2f %12.1f %10.2f %9.2f\n", r.name.c_str(), r.schedule_s,
                        r.compile_s * 1e3, r.run_ms, r.run_ms / results[0].run_ms);
        }
        return all_match ? 0 : 1;
    } catch (const std::exception &e) {
        std::fprintf(stderr, "error: %s\n", e.what());
        return 1;
    }
}
