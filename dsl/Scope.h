// A map from names to values with nested shadowing: push on entering a binding, pop on
// leaving it. Passes use it for what is known about let-bound and loop variables.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "dsl/Error.h"

namespace loom {
namespace Internal {

template <typename T> class Scope {
public:
    void push(const std::string &name, T value) { table[name].push_back(std::move(value)); }
    void pop(const std::string &name) {
        auto it = table.find(name);
        internal_assert(it != table.end() && !it->second.empty()) << "Scope pop of " << name;
        it->second.pop_back();
        if (it->second.empty()) table.erase(it);
    }
    bool contains(const std::string &name) const { return table.count(name) != 0; }
    bool empty() const { return table.empty(); }
    const T &get(const std::string &name) const {
        auto it = table.find(name);
        internal_assert(it != table.end()) << "Scope has no " << name;
        return it->second.back();
    }
    const T *find(const std::string &name) const {
        auto it = table.find(name);
        return it == table.end() ? nullptr : &it->second.back();
    }

private:
    std::map<std::string, std::vector<T>> table;
};

/** Pushes a binding for the lifetime of a C++ scope. */
template <typename T> class ScopedBinding {
public:
    ScopedBinding(Scope<T> &scope, const std::string &name, T value) : scope(scope), name(name) {
        scope.push(name, std::move(value));
    }
    ~ScopedBinding() { scope.pop(name); }
    ScopedBinding(const ScopedBinding &) = delete;
    ScopedBinding &operator=(const ScopedBinding &) = delete;

private:
    Scope<T> &scope;
    std::string name;
};

} // namespace Internal
} // namespace loom
