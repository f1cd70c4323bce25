#include "lower/autoschedule/Choices.h"

#include <set>
#include <sstream>
#include <stdexcept>

#include "dsl/Error.h"

namespace loom {
namespace Internal {
namespace autoschedule {

std::string Choices::to_string() const {
    std::ostringstream s;
    const char *sep = "";
    for (const auto &[name, where] : placement) {
        s << sep << name << "=" << where;
        sep = " ";
    }
    for (const auto &[name, rows] : strip) {
        s << sep << name << "/strip=" << rows;
        sep = " ";
    }
    for (const auto &[key, rc] : tile) {
        s << sep << key << "/tile=" << rc.first << "x" << rc.second;
        sep = " ";
    }
    for (const auto &[key, tl] : gpu) {
        s << sep << key << "/gpu=" << tl.first << "x" << tl.second;
        sep = " ";
    }
    return s.str();
}

Choices Choices::parse(const std::string &text) {
    Choices c;
    std::istringstream words(text);
    for (std::string word; words >> word;) {
        const size_t eq = word.rfind('=');
        user_assert(eq != std::string::npos && eq > 0 && eq + 1 < word.size())
            << "Choices \"" << text << "\": \"" << word << "\" is not knob=value";
        const std::string knob = word.substr(0, eq), value = word.substr(eq + 1);
        auto ends_with = [&](const std::string &suffix) {
            return knob.size() > suffix.size() &&
                   knob.compare(knob.size() - suffix.size(), suffix.size(), suffix) == 0;
        };
        try {
            if (ends_with("/strip")) {
                c.strip[knob.substr(0, knob.size() - 6)] = std::stoll(value);
            } else if (ends_with("/tile") || ends_with("/gpu")) {
                const bool is_tile = ends_with("/tile");
                const size_t x = value.find('x');
                user_assert(x != std::string::npos)
                    << "Choices \"" << text << "\": "
                    << (is_tile ? "a tile is ROWSxVECTORS" : "a GPU block is THREADSxLANES")
                    << ", not " << value;
                const std::pair<int, int> pair{std::stoi(value.substr(0, x)),
                                               std::stoi(value.substr(x + 1))};
                if (is_tile) {
                    c.tile[knob.substr(0, knob.size() - 5)] = pair;
                } else {
                    c.gpu[knob.substr(0, knob.size() - 4)] = pair;
                }
            } else {
                static const std::set<std::string> places{"inline", "root", "strip", "row",
                                                          "sliding"};
                user_assert(places.count(value))
                    << "Choices \"" << text << "\": " << knob
                    << " takes inline, root, strip, row or sliding, not " << value;
                c.placement[knob] = value;
            }
        } catch (const std::logic_error &) {
            user_error << "Choices \"" << text << "\": \"" << value << "\" is not a number";
        }
    }
    return c;
}

Choices combine(const Choices &a, const Choices &b, const Choices &base) {
    Choices merged = a;
    auto turn = [](auto &into, const auto &from, const auto &was) {
        for (const auto &[knob, value] : from) {
            auto it = was.find(knob);
            if (it == was.end() || it->second != value) into[knob] = value;
        }
    };
    turn(merged.placement, b.placement, base.placement);
    turn(merged.strip, b.strip, base.strip);
    turn(merged.tile, b.tile, base.tile);
    turn(merged.gpu, b.gpu, base.gpu);
    return merged;
}

std::vector<Choices> neighbours(const Choices &made) {
    std::vector<Choices> out;
    const bool gpu = !made.gpu.empty();
    for (const auto &[name, where] : made.placement) {
        for (const char *other : {"inline", "root", "strip", "row", "sliding", "shared"}) {
            if (where == other) continue;
            const std::string to = other;
            // Kernels have no strips; the CPU has no shared memory.
            const bool gpu_placement = to == "inline" || to == "root" || to == "shared";
            if (gpu != gpu_placement && to != "inline" && to != "root") continue;
            Choices c = made;
            c.placement[name] = other;
            out.push_back(c);
        }
    }
    for (const auto &[name, rows] : made.strip) {
        for (int64_t r = 1; r <= 256; r *= 2) {
            if (r == rows) continue;
            Choices c = made;
            c.strip[name] = r;
            out.push_back(c);
        }
    }
    for (const auto &[key, rc] : made.tile) {
        for (int rows = 1; rows <= 16; rows *= 2) {
            for (int cols = 1; rows * cols <= 32 && cols <= 8; cols *= 2) {
                if (std::make_pair(rows, cols) == rc) continue;
                Choices c = made;
                c.tile[key] = {rows, cols};
                out.push_back(c);
            }
        }
    }
    for (const auto &[key, tl] : made.gpu) {
        for (int threads = 32; threads <= 1024; threads *= 2) {
            for (int lanes = 1; lanes <= 8; lanes *= 2) {
                if (std::make_pair(threads, lanes) == tl) continue;
                Choices c = made;
                c.gpu[key] = {threads, lanes};
                out.push_back(c);
            }
        }
    }
    return out;
}

} // namespace autoschedule
} // namespace Internal
} // namespace loom
