// MachineParams: what an auto-scheduler is told of the machine (Halide 14's struct of the same
// name and semantics): the parallelism to use, the last-level cache's size, and how much a
// load costs against an arithmetic operation.
#pragma once

#include <cstdint>
#include <string>

namespace loom {

struct MachineParams {
    /** Cores (threads) the schedule may use at once. */
    int parallelism;
    /** The last-level cache's size in bytes. */
    uint64_t last_level_cache_size;
    /** The cost of a load from the last-level cache against an arithmetic operation's. */
    float balance;

    explicit MachineParams(int parallelism, uint64_t llc, float balance)
        : parallelism(parallelism), last_level_cache_size(llc), balance(balance) {}

    /** Halide 14's generic machine: 16 threads, 16 MiB of last-level cache, balance 40. */
    static MachineParams generic();

    /** This machine: its hardware threads, its last-level cache as the operating system reports
     * it (Halide's generic 16 MiB where it does not), and the generic balance. Loom's
     * auto-schedulers read the smaller caches from the CPU themselves. */
    static MachineParams host();

    /** "parallelism,last_level_cache_size,balance", the form the string constructor reads. */
    std::string to_string() const;

    /** Parses to_string()'s form; throws, naming the text, on anything else. */
    explicit MachineParams(const std::string &s);

    bool operator==(const MachineParams &o) const {
        return parallelism == o.parallelism && last_level_cache_size == o.last_level_cache_size &&
               balance == o.balance;
    }
};

} // namespace loom
