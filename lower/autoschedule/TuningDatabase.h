// The autotuner's measurements, kept between runs in one text file that several processes may
// share: a second tuning of the same pipeline starts from what the first measured.
#pragma once

#include <map>
#include <string>

namespace loom {
namespace Internal {
namespace autoschedule {

/** One line a measurement: "key<TAB>choices<TAB>seconds<TAB>unix time". Lines are appended under
 * an exclusive lock (flock) with one write each, and read under a shared lock, so processes
 * tuning at once see each other's lines and never a torn one; a line that does not parse
 * (a file from elsewhere) is skipped. */
class TuningDatabase {
public:
    /** The file at `path` (created, with its folder, on the first record). */
    explicit TuningDatabase(std::string path);

    /** $LOOM_AUTOTUNE_DB, else $XDG_CACHE_HOME/loom/autotune.db, else
     * $HOME/.cache/loom/autotune.db. */
    static std::string default_path();

    /** Every choice measured under `key`, with the least seconds recorded for it; the file is
     * read again at each call (other processes may have added to it). */
    std::map<std::string, double> measured(const std::string &key) const;

    /** Appends one measurement. Throws a CompileError naming the file if it can't be written. */
    void record(const std::string &key, const std::string &choices, double seconds) const;

    const std::string &path() const { return file; }

private:
    std::string file;
};

} // namespace autoschedule
} // namespace Internal
} // namespace loom
