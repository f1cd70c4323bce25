// What loom_bench's tables share: medians, back-to-back timing of two runners in Google
// Benchmark, and a table printed as text or Markdown.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace loom_bench {

inline double median_of(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

inline double seconds(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

inline double run_ms(const std::function<void()> &run) {
    auto start = std::chrono::steady_clock::now();
    run();
    return seconds(start) * 1e3;
}

/** A benchmark whose iterations each run `first` and `second` once, alternating which goes
 * first, and record their times (entry i of each vector is pair i); each repetition runs for
 * at least min_time seconds. */
inline void register_pairs(const std::string &name, std::function<void()> first,
                           std::function<void()> second, std::vector<double> *first_ms,
                           std::vector<double> *second_ms, double min_time) {
    benchmark::RegisterBenchmark(name.c_str(),
                                 [=](benchmark::State &state) {
                                     for (auto _ : state) {
                                         double a, b;
                                         if (first_ms->size() % 2 == 0) {
                                             a = run_ms(first);
                                             b = run_ms(second);
                                         } else {
                                             b = run_ms(second);
                                             a = run_ms(first);
                                         }
                                         first_ms->push_back(a);
                                         second_ms->push_back(b);
                                     }
                                 })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->MinTime(min_time);
}

inline std::string fixed(double v, int digits) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v);
    return buf;
}

struct Table {
    std::vector<std::string> header;
    std::vector<std::vector<std::string>> rows;

    void print(FILE *out) const {
        std::vector<size_t> width(header.size());
        for (size_t c = 0; c < header.size(); c++)
            width[c] = header[c].size();
        for (const auto &r : rows) {
            for (size_t c = 0; c < r.size(); c++)
                width[c] = std::max(width[c], r[c].size());
        }
        auto line = [&](const std::vector<std::string> &r) {
            for (size_t c = 0; c < r.size(); c++) {
                std::fprintf(out, c == 0 ? "%-*s" : "  %*s", (int)width[c], r[c].c_str());
            }
            std::fprintf(out, "\n");
        };
        line(header);
        for (const auto &r : rows)
            line(r);
    }
    std::string markdown() const {
        std::ostringstream md;
        auto line = [&](const std::vector<std::string> &r) {
            md << "|";
            for (const auto &cell : r)
                md << " " << cell << " |";
            md << "\n";
        };
        line(header);
        md << "|";
        for (size_t c = 0; c < header.size(); c++)
            md << (c == 0 ? " --- |" : " ---: |");
        md << "\n";
        for (const auto &r : rows)
            line(r);
        return md.str();
    }
};

} // namespace loom_bench
