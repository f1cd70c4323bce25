#include "apps/bench/AutoScheduleColumns.h"

#include <cmath>
#include <exception>

namespace loom_bench {

using loom_apps::Variant;

double AutoColumn::ratio() const {
    if (auto_ms.empty()) return NAN;
    std::vector<double> ratios;
    for (size_t i = 0; i < auto_ms.size(); i++)
        ratios.push_back(auto_ms[i] / hand_ms[i]);
    return median_of(ratios);
}

AutoColumns prepare_auto_columns(loom_apps::App &app, const Halide::Target &halide_target,
                                 bool autotune) {
    AutoColumns c;
    c.app = app.name();
    std::vector<Variant> variants{Variant::Auto, Variant::Search, Variant::Mullapudi2016,
                                  Variant::Adams2019, Variant::Li2018};
    if (autotune) variants.insert(variants.begin() + 2, Variant::Autotune);
    for (Variant v : variants) {
        AutoColumn col;
        col.variant = v;
        const bool loom = loom_apps::is_loom_automatic(v);
        try {
            col.runner =
                loom ? app.compile_loom(v) : loom_apps::compile_halide(app, v, halide_target);
            col.runner.run();
            const std::string wrong = app.check();
            if (!wrong.empty()) col.failure = "wrong output: " + wrong;
        } catch (const std::exception &e) {
            col.failure = e.what();
        }
        if (!col.failure.empty()) {
            std::printf("  %s, %s: %s\n", c.app.c_str(), loom_apps::variant_name(v),
                        col.failure.substr(0, 300).c_str());
            col.runner.run = nullptr;
        }
        c.columns.push_back(std::move(col));
    }
    return c;
}

void register_auto_pairs(AutoColumns &c, const std::function<void()> &hand, double min_time) {
    for (AutoColumn &col : c.columns) {
        if (!col.runner.run) continue;
        register_pairs(c.app + "/" + loom_apps::variant_name(col.variant) + "_and_hand",
                       col.runner.run, hand, &col.auto_ms, &col.hand_ms, min_time);
    }
}

namespace {

const char *column_name(Variant v) {
    return v == Variant::Auto       ? "Loom heuristic"
           : v == Variant::Search   ? "Loom search"
           : v == Variant::Autotune ? "Loom autotuned"
                                    : loom_apps::variant_name(v);
}

} // namespace

Table auto_table(const std::vector<AutoColumns> &all) {
    Table t;
    t.header = {"app", "hand ms"};
    if (!all.empty()) {
        for (const AutoColumn &col : all[0].columns) {
            t.header.push_back(std::string(column_name(col.variant)) + " x");
            t.header.push_back("s");
        }
    }
    for (const AutoColumns &c : all) {
        std::vector<double> hand;
        for (const AutoColumn &col : c.columns)
            hand.insert(hand.end(), col.hand_ms.begin(), col.hand_ms.end());
        std::vector<std::string> row{c.app, hand.empty() ? "" : fixed(median_of(hand), 3)};
        for (const AutoColumn &col : c.columns) {
            row.push_back(col.failure.empty() ? fixed(col.ratio(), 2) : "failed");
            row.push_back(fixed(col.runner.schedule_seconds, 2));
        }
        t.rows.push_back(row);
    }
    return t;
}

std::string auto_summary(const std::vector<AutoColumns> &all) {
    if (all.empty()) return "";
    std::ostringstream out;
    const size_t n = all[0].columns.size();
    for (size_t i = 0; i < n; i++) {
        double log_sum = 0, slowest_schedule = 0;
        int count = 0, failed = 0;
        for (const AutoColumns &c : all) {
            const AutoColumn &col = c.columns[i];
            if (!col.failure.empty()) {
                failed++;
                continue;
            }
            log_sum += std::log(col.ratio());
            count++;
            slowest_schedule = std::max(slowest_schedule, col.runner.schedule_seconds);
        }
        out << column_name(all[0].columns[i].variant) << ": geomean "
            << (count ? fixed(std::exp(log_sum / count), 3) : std::string("-")) << "x hand over "
            << count << " apps" << (failed ? " (" + std::to_string(failed) + " failed)" : "")
            << ", slowest schedule " << fixed(slowest_schedule, 2) << " s\n";
    }
    // The heuristic against the best of Halide's three, app by app.
    int at_or_below = 0, compared = 0;
    std::string above;
    for (const AutoColumns &c : all) {
        const double loom = c.columns[0].failure.empty() ? c.columns[0].ratio() : NAN;
        double best = NAN;
        for (size_t i = 1; i < c.columns.size(); i++) {
            const Variant v = c.columns[i].variant;
            if (!loom_apps::is_loom_automatic(v) && c.columns[i].failure.empty()) {
                const double r = c.columns[i].ratio();
                best = std::isnan(best) ? r : std::min(best, r);
            }
        }
        if (std::isnan(loom) || std::isnan(best)) continue;
        compared++;
        if (loom <= best) {
            at_or_below++;
        } else {
            above += " " + c.app + " (" + fixed(loom, 2) + " against " + fixed(best, 2) + ")";
        }
    }
    out << "Loom heuristic at or below the best of Halide's three on " << at_or_below << " of "
        << compared << " apps" << (above.empty() ? "" : "; above on:" + above)
        << " (targets: heuristic geomean <= 1.1x hand, at or below Halide's best on every app, "
           "under 1 s per app; search geomean <= 1.0x hand, under 60 s; autotuned geomean <= 0.9x "
           "hand)\n";
    return out.str();
}

} // namespace loom_bench
