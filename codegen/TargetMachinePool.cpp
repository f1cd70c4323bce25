#include "codegen/TargetMachinePool.h"

#include <map>
#include <mutex>
#include <vector>

#include <llvm/Target/TargetMachine.h>

#include "codegen/LLVMTarget.h"

namespace loom {
namespace Internal {

namespace {

// More idle machines per target and level than threads ever compile at once would only
// hold memory.
constexpr size_t kMaxIdlePerKey = 16;

struct Pool {
    std::mutex mutex;
    std::map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle;
};

// Never destroyed: a machine must not outlive LLVM's own static state, whose destruction
// order against ours at exit is not defined.
Pool &pool() {
    static Pool *p = new Pool;
    return *p;
}

} // namespace

void ReturnTargetMachine::operator()(llvm::TargetMachine *tm) const {
    std::unique_ptr<llvm::TargetMachine> owned(tm);
    std::lock_guard<std::mutex> lock(pool().mutex);
    auto &idle = pool().idle[key];
    if (idle.size() < kMaxIdlePerKey) idle.push_back(std::move(owned));
}

PooledTargetMachine borrow_target_machine(const Target &t, llvm::CodeGenOptLevel level) {
    std::string key = t.to_string() + "/" + std::to_string(int(level));
    {
        std::lock_guard<std::mutex> lock(pool().mutex);
        auto &idle = pool().idle[key];
        if (!idle.empty()) {
            PooledTargetMachine tm(idle.back().release(), ReturnTargetMachine{key});
            idle.pop_back();
            return tm;
        }
    }
    std::unique_ptr<llvm::TargetMachine> made = make_target_machine(t);
    made->setOptLevel(level);
    return PooledTargetMachine(made.release(), ReturnTargetMachine{key});
}

} // namespace Internal
} // namespace loom
